// Package cmdtable holds the command tables of the servers scriptctl
// targets, recorded from a running server's COMMAND INFO and COMMAND DOCS
// (see the record command beside it): for every command and subcommand its
// arity, flags, legacy key range, ACL categories, tips, key specs, group and
// version of introduction. The engine (verify) and the linter read their
// command facts from here, so both agree with the server they target.
//
// One JSON file per target lives in data/, embedded in the binary. A file
// lists one command per line, sorted by name, subcommands as "parent|sub",
// so that the difference between two targets is a readable diff. A file is
// recorded from a running server, never edited:
//
//	go run ./internal/cmdtable/record -addr 127.0.0.1:PORT -target redis-8.0 > internal/cmdtable/data/redis-8.0.json
//
// The tests compare each file with its live server (the redis-server on
// PATH for redis-7.0; others through SCRIPTCTL_TARGET_SERVERS, a list of
// target=/path/to/server-binary) and Command.Keys with the server's own
// COMMAND GETKEYS.
package cmdtable

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
)

//go:embed data/*.json
var dataFS embed.FS

// Table is the command table of one target.
type Table struct {
	Target       string     `json:"target"`        // "redis-7.0", "valkey-8.1", ...
	Server       string     `json:"server"`        // server_name of INFO server; "redis" when absent
	Version      string     `json:"version"`       // the server's own version (valkey_version for Valkey)
	RedisVersion string     `json:"redis_version"` // redis_version of INFO server (Valkey reports a compatible one)
	RecordedWith string     `json:"recorded_with"` // the command line that recorded the file
	Commands     []*Command `json:"commands"`

	byName map[string]*Command
}

// Command is one command or subcommand as the server declares it.
type Command struct {
	Name  string   `json:"name"`  // lower case; "parent|sub" for a subcommand
	Arity int      `json:"arity"` // exact when positive, a minimum when negative; the name counts
	Flags []string `json:"flags,omitempty"`
	// First, Last and Step are the legacy key range of COMMAND INFO.
	First int       `json:"first,omitempty"`
	Last  int       `json:"last,omitempty"`
	Step  int       `json:"step,omitempty"`
	ACL   []string  `json:"acl,omitempty"`
	Tips  []string  `json:"tips,omitempty"`
	Specs []KeySpec `json:"key_specs,omitempty"`
	// From COMMAND DOCS.
	Group           string   `json:"group,omitempty"`
	Since           string   `json:"since,omitempty"`
	DocFlags        []string `json:"doc_flags,omitempty"`
	DeprecatedSince string   `json:"deprecated_since,omitempty"`
	ReplacedBy      string   `json:"replaced_by,omitempty"`

	// Subcommands, filled when the table loads.
	Subcommands []*Command `json:"-"`
	parent      *Command
	// strictNumkeys: the server computes the last key in a long, so a
	// numkeys beyond a C int is out of bounds instead of wrapping (Redis
	// 7.4 on, Valkey 9.1 on; Valkey 8 still wraps).
	strictNumkeys bool
	// keynumStep: a keynum spec's keystep spaces numkeys keys (Valkey 9.1,
	// MSETEX's key/value pairs; Redis takes numkeys arguments and steps
	// through them).
	keynumStep bool
}

// KeySpec is one key specification of COMMAND INFO. BeginSearch is
// "index", "keyword" or "unknown"; FindKeys is "range", "keynum" or
// "unknown". Zero fields are omitted from the JSON: a missing number is 0.
type KeySpec struct {
	Flags       []string `json:"flags,omitempty"`
	BeginSearch string   `json:"bs"`
	Index       int      `json:"index,omitempty"`     // index: the position of the first key
	Keyword     string   `json:"keyword,omitempty"`   // keyword: the keyword the keys follow
	StartFrom   int      `json:"startfrom,omitempty"` // keyword: where the search starts; negative from the end
	FindKeys    string   `json:"fk"`
	LastKey     int      `json:"lastkey,omitempty"`   // range: last key relative to the first; negative from the end
	KeyStep     int      `json:"keystep,omitempty"`   // range and keynum
	Limit       int      `json:"limit,omitempty"`     // range: with lastkey -1, keys are 1/limit of what remains
	KeyNumIdx   int      `json:"keynumidx,omitempty"` // keynum: where numkeys is, relative to the begin
	FirstKey    int      `json:"firstkey,omitempty"`  // keynum: the first key, relative to the begin
}

// HasFlag reports whether the command declares flag (as COMMAND INFO spells
// it: "write", "noscript", "may_replicate", ...).
func (c *Command) HasFlag(flag string) bool { return slices.Contains(c.Flags, flag) }

// HasTip reports whether the command declares the tip
// ("nondeterministic_output", "request_policy:all_shards", ...).
func (c *Command) HasTip(tip string) bool { return slices.Contains(c.Tips, tip) }

// Write reports the write flag.
func (c *Command) Write() bool { return c.HasFlag("write") }

// Noscript reports that scripts may not call the command.
func (c *Command) Noscript() bool { return c.HasFlag("noscript") }

// ArityOK reports whether argc arguments (the name included) satisfy the
// command's arity.
func (c *Command) ArityOK(argc int) bool {
	if c.Arity > 0 {
		return argc == c.Arity
	}
	return argc >= -c.Arity
}

// Parent returns the container of a subcommand, nil for a top-level command.
func (c *Command) Parent() *Command { return c.parent }

// Sub returns the subcommand named name (case-insensitive, without the
// parent's prefix).
func (c *Command) Sub(name string) (*Command, bool) {
	full := c.Name + "|" + lowerASCII(name)
	for _, s := range c.Subcommands {
		if s.Name == full {
			return s, true
		}
	}
	return nil, false
}

var (
	loadMu sync.Mutex
	tables map[string]*Table // made by the first Load
)

// Targets lists the recorded targets, sorted.
func Targets() []string {
	ents, err := dataFS.ReadDir("data")
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		if n, ok := strings.CutSuffix(e.Name(), ".json"); ok {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// Load returns the table of target, decoding it on first use.
func Load(target string) (*Table, error) {
	loadMu.Lock()
	defer loadMu.Unlock()
	if t, ok := tables[target]; ok {
		return t, nil
	}
	if strings.ContainsAny(target, "/\\") {
		return nil, fmt.Errorf("cmdtable: unknown target %q", target)
	}
	b, err := dataFS.ReadFile("data/" + target + ".json")
	if err != nil {
		return nil, fmt.Errorf("cmdtable: unknown target %q (known: %s)", target, strings.Join(Targets(), ", "))
	}
	t, err := Decode(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("cmdtable: %s: %w", target, err)
	}
	if t.Target != target {
		return nil, fmt.Errorf("cmdtable: data/%s.json records target %q", target, t.Target)
	}
	if tables == nil {
		tables = map[string]*Table{}
	}
	tables[target] = t
	return t, nil
}

// MustLoad is Load for targets the program embeds by construction.
func MustLoad(target string) *Table {
	t, err := Load(target)
	if err != nil {
		panic(err)
	}
	return t
}

// Lookup finds a command of target by name, case-insensitively;
// "parent|sub" names a subcommand.
func Lookup(target, name string) (*Command, bool) {
	t, err := Load(target)
	if err != nil {
		return nil, false
	}
	return t.Lookup(name)
}

// Lookup finds a command by name, case-insensitively (ASCII only, as
// Redis compares names); "parent|sub" names a subcommand.
func (t *Table) Lookup(name string) (*Command, bool) {
	c, ok := t.byName[name]
	if !ok {
		c, ok = t.byName[lowerASCII(name)]
	}
	return c, ok
}

// Command finds a command by the name a client sends: as Lookup, but a
// "parent|sub" name is no command.
func (t *Table) Command(name string) (*Command, bool) {
	c, ok := t.Lookup(name)
	if !ok || c.parent != nil {
		return nil, false
	}
	return c, true
}

func lowerASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// Decode reads a table in the data file format and links subcommands to
// their parents.
func Decode(r io.Reader) (*Table, error) {
	var t Table
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&t); err != nil {
		return nil, err
	}
	return link(&t)
}

// link indexes the commands by name and attaches subcommands to their
// parents, in name order.
func link(t *Table) (*Table, error) {
	sort.Slice(t.Commands, func(i, j int) bool { return t.Commands[i].Name < t.Commands[j].Name })
	t.byName = make(map[string]*Command, len(t.Commands))
	// Both seen on Valkey 9.1.2 by TestKeysMatchGetkeys.
	valkey91 := t.Server == "valkey" && !versionBelow(t.Version, 9, 1)
	strict := (t.Server == "redis" && !versionBelow(t.Version, 7, 4)) || valkey91
	for _, c := range t.Commands {
		c.strictNumkeys, c.keynumStep = strict, valkey91
		if _, dup := t.byName[c.Name]; dup {
			return nil, fmt.Errorf("command %q listed twice", c.Name)
		}
		t.byName[c.Name] = c
	}
	for _, c := range t.Commands {
		parent, _, isSub := strings.Cut(c.Name, "|")
		if !isSub {
			continue
		}
		p, ok := t.byName[parent]
		if !ok {
			return nil, fmt.Errorf("subcommand %q without its command", c.Name)
		}
		c.parent = p
		p.Subcommands = append(p.Subcommands, c)
	}
	return t, nil
}

// Encode writes t in the data file format: the header fields, then one
// command per line, sorted by name.
func Encode(w io.Writer, t *Table) error {
	cmds := slices.Clone(t.Commands)
	sort.Slice(cmds, func(i, j int) bool { return cmds[i].Name < cmds[j].Name })
	var b bytes.Buffer
	b.WriteString("{\n")
	for _, f := range [][2]string{{"target", t.Target}, {"server", t.Server}, {"version", t.Version},
		{"redis_version", t.RedisVersion}, {"recorded_with", t.RecordedWith}} {
		v, _ := json.Marshal(f[1])
		fmt.Fprintf(&b, "%q: %s,\n", f[0], v)
	}
	b.WriteString("\"commands\": [\n")
	for i, c := range cmds {
		line, err := json.Marshal(c)
		if err != nil {
			return err
		}
		b.Write(line)
		if i < len(cmds)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString("]\n}\n")
	_, err := w.Write(b.Bytes())
	return err
}

// versionBelow reports whether version v ("7.2.6") is older than
// major.minor; an unreadable version counts as older.
func versionBelow(v string, major, minor int) bool {
	parts := strings.SplitN(v, ".", 3)
	if len(parts) < 2 {
		return true
	}
	ma, err1 := strconv.Atoi(parts[0])
	mi, err2 := strconv.Atoi(parts[1])
	if err1 != nil || err2 != nil {
		return true
	}
	return ma < major || (ma == major && mi < minor)
}
