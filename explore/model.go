package explore

import (
	"bytes"
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/scriptctl/scriptctl/contract"

	"github.com/scriptctl/scriptctl/internal/safefile"
	"gopkg.in/yaml.v3"

	"github.com/scriptctl/scriptctl/internal/lazy"
	"github.com/scriptctl/scriptctl/internal/yamlnode"
	"github.com/scriptctl/scriptctl/manifest"
)

// Model is one parsed model file: the protocol (which script plays which
// role and which reply means what), the workers' programs, the
// environment's actions, the bounds and the invariants.
type Model struct {
	Path        string
	Name        string
	Description string
	// Requires is the manifest version the model is written for (0: any).
	// A model whose version differs from the manifest's is skipped: Skip
	// says why, and nothing after requires_version is read.
	Requires int
	Skip     string
	// Expect is "" (no violation may be found) or the built-in invariant or
	// predicate name a negative control must violate.
	Expect   string
	Caller   string
	Vars     map[string]string
	Keys     map[string]string // caller key name -> expanded key
	ValueKey string            // the caller key name whose value is visible
	Source   int               // the source's revision at the start
	Roles    map[string]*Role
	Workers  []*Worker
	Env      []*EnvAction
	Bounds   Bounds
	Builtins []string // the built-in invariants checked
	Preds    []*Predicate
	// Lines are where the model names things, 1-based: an invariant's name
	// (a predicate, or a built-in listed under invariants.builtin),
	// "expect" (expect.violation) and "bounds". A name not written in the
	// file (a built-in checked by default) has none.
	Lines map[string]int
	regs  []string // the register names roles and steps save, sorted
	// Lease is true for a model with a protocol: its timeline shows the
	// value key's value and revision.
	Lease bool
	// Setup are call and do steps run once, in order, before the
	// exploration: the initial keyspace.
	Setup []*Step
	// Control maps a manifest script to the source that replaces it (a
	// negative control's unsafe variant), as a scenario's control: does.
	Control  map[string][]byte
	usesIf   bool // a worker has an if step: its last reply is state
	usesHist bool // a Lua invariant reads history or replies: the path is state
}

// Role is what one protocol role (acquire, publish, release, renew,
// invalidate) runs and how its reply is read.
type Role struct {
	Name   string
	Script string // the manifest script, or the file for an override
	Src    []byte
	// Reply is the manifest script's reply contract (nil for a file or a
	// script without one): every reply of the role is checked against it.
	Reply *contract.Type
	Keys  []string // caller key names, in KEYS order
	Args  []Arg    // in ARGV order
	Do    []string // a raw command instead of a script (invalidate only)
	// Owned (acquire, renew) and Accepted (publish) are the reply heads
	// that mean the lease is owned or the candidate accepted.
	Owned, Accepted string
	Save            map[string]int // register name -> 1-based element of the reply
	TTLArg          string         // the arg holding the lease TTL in ms
	EndsLeases      bool           // invalidate: every outstanding lease is dead
}

// Arg is one script argument: its name and its template.
type Arg struct {
	Name, Value string
}

// Worker is one worker's program.
type Worker struct {
	Name  string
	Steps []*Step
}

// Step is one step of a worker's program.
type Step struct {
	Name string // label for branch targets; optional
	Kind string // a role name, or read, update, pause, serve, do, branch
	Args map[string]string
	Do   []string
	// branch: jump to Goto (len(Steps) for "end") when the last reply's
	// head equals When (or differs from it, with Not).
	When string
	Not  bool
	Goto int
	Line int
	// call: the manifest script (Src is the control's source when the
	// model replaces it), its KEYS and ARGV as templates in the manifest's
	// order, and its reply contract. Save (call, do) stores parts of the
	// reply in the worker's registers.
	Script   string
	Src      []byte
	Reply    *contract.Type
	KeyTpl   []string
	ArgNames []string
	ArgTpl   []string
	Save     []Save
	// if: jump to Goto unless Cond holds (Goto is the else branch, or
	// the step after then); goto: jump to Goto.
	Cond *Cond
}

// Save stores the reply, or the element at Path (1-based indices into
// nested arrays), in register Name.
type Save struct {
	Name string
	Path []int
}

// Cond is an if step's test: the worker's last reply (or the element at
// Path, or register Var) equals a text, matches a pattern or has a type.
type Cond struct {
	Var   string
	Path  []int
	Op    string // equals, matches or type
	Value string
	re    *regexp.Regexp
}

// EnvAction is an action of the environment, taken at most Times times.
type EnvAction struct {
	Kind   string // "advance", "update", "crash", "pause" or "expire"
	MS     int64  // advance, pause
	Worker int    // crash, pause: the worker's index
	Key    string // expire: the caller key name
	Times  int
}

// Bounds bound the exploration.
type Bounds struct {
	Depth   int   // at most this many steps in one interleaving
	Steps   int   // at most this many steps per worker (loops)
	ClockMS int64 // the clock advances at most this far in total
}

// Predicate is a user-written invariant: Assert must hold in every state
// where When (if given) holds.
type Predicate struct {
	Name   string
	When   *Compare
	Assert Compare
	// Lua is a predicate written in Lua (instead of Assert): the body of
	// a function that returns true when the invariant holds (see
	// lua_test/models/README.md).
	Lua string
	src []byte
}

// Compare is `left op right`, each side a template.
type Compare struct {
	Left, Op, Right string
}

// The built-in invariants.
const (
	NoRegression   = "no-regression"
	NoRejectedServ = "no-rejected-candidate-served"
	SingleOwner    = "single-owner"
)

var builtins = []string{NoRegression, NoRejectedServ, SingleOwner}

var roleNames = []string{"acquire", "publish", "release", "renew", "invalidate"}

var stepKinds = []string{"acquire", "publish", "release", "renew", "invalidate", "read", "update", "pause", "serve", "do", "branch", "call", "if", "goto"}

// Default bounds.
const (
	DefaultDepth = 16
	DefaultSteps = 12
	maxDepth     = 64
)

// MaxFileSize bounds a model file.
const MaxFileSize = 16 << 20

// Load reads and parses the model file at path against m. Every problem is
// reported, as manifest.Errors, at file:line:col with its field.
func Load(path string, m *manifest.Manifest) (*Model, error) {
	data, err := safefile.Read(path, MaxFileSize)
	if err != nil {
		msg := "cannot read the model"
		if pe, ok := err.(*os.PathError); ok {
			msg += ": " + pe.Err.Error()
		}
		return nil, manifest.Errors{{File: path, Msg: msg, Err: err}}
	}
	return Parse(path, data, m)
}

// Parse parses model data as if read from path (override files resolve
// from path's folder).
func Parse(path string, data []byte, m *manifest.Manifest) (*Model, error) {
	p := &parser{file: path, man: m, md: &Model{Path: path, Vars: map[string]string{}, Keys: map[string]string{}, Roles: map[string]*Role{}, Lines: map[string]int{}}}
	p.parse(data)
	if len(p.errs) > 0 {
		slices.SortStableFunc(p.errs, func(a, b *manifest.Error) int {
			return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.Col, b.Col))
		})
		return nil, p.errs
	}
	return p.md, nil
}

type parser struct {
	file string
	man  *manifest.Manifest
	md   *Model
	errs manifest.Errors
	// refs are the templates to check once every name is known.
	refs []ref
}

type ref struct {
	n     *yaml.Node
	field string
	text  string
	state bool // a predicate: state references allowed
}

func (p *parser) errorf(n *yaml.Node, field, format string, args ...any) {
	e := &manifest.Error{File: p.file, Field: field, Msg: fmt.Sprintf(format, args...)}
	if n != nil {
		e.Line, e.Col = n.Line, n.Column
	}
	p.errs = append(p.errs, e)
}

func (p *parser) fields(n *yaml.Node, path string, allowed []string) map[string]*yaml.Node {
	out := map[string]*yaml.Node{}
	for _, kv := range yamlnode.Pairs(n, path, func(at *yaml.Node, field, msg string) { p.errorf(at, field, "%s", msg) }) {
		name := yamlnode.Deref(kv[0]).Value
		if !slices.Contains(allowed, name) {
			p.errorf(kv[0], yamlnode.Join(path, name), "unknown field %q: want one of %s", name, strings.Join(allowed, ", "))
			continue
		}
		out[name] = kv[1]
	}
	return out
}

func (p *parser) pairs(n *yaml.Node, path string) [][2]*yaml.Node {
	return yamlnode.Pairs(n, path, func(at *yaml.Node, field, msg string) { p.errorf(at, field, "%s", msg) })
}

// str returns the scalar n as written; numbers are accepted as their text
// (replies and args are texts), booleans and null are refused.
func (p *parser) str(n *yaml.Node, field string) (string, bool) {
	v := yamlnode.Deref(n)
	if v.Kind != yaml.ScalarNode || v.Tag == "!!null" || v.Tag == "!!bool" {
		p.errorf(n, field, "must be a string, not %s (quote it)", yamlnode.Describe(n))
		return "", false
	}
	return v.Value, true
}

func (p *parser) posInt(n *yaml.Node, field string, max int64) (int64, bool) {
	v := yamlnode.Deref(n)
	if v.Kind != yaml.ScalarNode || v.Tag != "!!int" {
		p.errorf(n, field, "must be a positive integer, not %s", yamlnode.Describe(n))
		return 0, false
	}
	i, err := strconv.ParseInt(v.Value, 10, 64)
	if err != nil || i <= 0 || strconv.FormatInt(i, 10) != v.Value {
		p.errorf(n, field, "must be a positive integer in decimal, not %s", v.Value)
		return 0, false
	}
	if i > max {
		p.errorf(n, field, "%d is too large (at most %d)", i, max)
		return 0, false
	}
	return i, true
}

func (p *parser) strList(n *yaml.Node, field string) ([]string, bool) {
	v := yamlnode.Deref(n)
	if v.Kind != yaml.SequenceNode {
		p.errorf(n, field, "must be a list, not %s", yamlnode.Describe(n))
		return nil, false
	}
	out := make([]string, 0, len(v.Content))
	ok := true
	for i, c := range v.Content {
		s, good := p.str(c, fmt.Sprintf("%s[%d]", field, i))
		ok = ok && good
		out = append(out, s)
	}
	return out, ok
}

var topFields = []string{"name", "description", "requires_version", "caller", "vars", "value_key", "source_revision", "control", "setup", "protocol", "workers", "environment", "bounds", "invariants", "expect"}

func (p *parser) parse(data []byte) {
	if len(bytes.TrimSpace(data)) == 0 {
		p.errs = append(p.errs, &manifest.Error{File: p.file, Line: 1, Col: 1, Msg: "the model is empty: want protocol and workers"})
		return
	}
	if !validText(data) {
		p.errs = append(p.errs, &manifest.Error{File: p.file, Line: 1, Col: 1, Msg: "the model is not UTF-8 text"})
		return
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		p.yamlError(err)
		return
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		p.errorf(&extra, "", "a model file holds one YAML document")
		return
	}
	if len(doc.Content) == 0 {
		p.errorf(&doc, "", "the model is empty: want protocol and workers")
		return
	}
	top := p.fields(doc.Content[0], "", topFields)
	md := p.md
	md.Name = strings.TrimSuffix(filepath.Base(p.file), filepath.Ext(p.file))
	if n := top["name"]; n != nil {
		md.Name, _ = p.str(n, "name")
	}
	if n := top["description"]; n != nil {
		md.Description, _ = p.str(n, "description")
	}
	if n := top["requires_version"]; n != nil {
		v, _ := p.posInt(n, "requires_version", 1<<31-1)
		md.Requires = int(v)
		if v > 0 && md.Requires != p.man.Version {
			md.Skip = fmt.Sprintf("written for version %d of the scripts; the manifest is version %d", md.Requires, p.man.Version)
			return
		}
	}
	if n := top["source_revision"]; n != nil {
		v, _ := p.posInt(n, "source_revision", 1<<31-1)
		md.Source = int(v)
	} else {
		md.Source = 1
	}
	if n := top["vars"]; n != nil {
		for _, kv := range p.pairs(n, "vars") {
			name := yamlnode.Deref(kv[0]).Value
			if v, ok := p.str(kv[1], "vars."+name); ok {
				md.Vars[name] = v
			}
		}
	}
	caller := p.caller(top["caller"])
	if caller != nil {
		p.keys(caller, top["caller"])
	}
	md.ValueKey = "value"
	if n := top["value_key"]; n != nil {
		md.ValueKey, _ = p.str(n, "value_key")
	}
	md.Lease = top["protocol"] != nil
	if caller != nil && (md.Lease || top["value_key"] != nil) {
		if _, ok := md.Keys[md.ValueKey]; !ok {
			p.errorf(orNode(top["value_key"], doc.Content[0]), "value_key", "caller %s has no key %q", caller.Name, md.ValueKey)
		}
	}
	if n := top["control"]; n != nil {
		p.control(n)
	}
	if n := top["protocol"]; n != nil {
		p.protocol(n, caller)
	}
	if n := top["setup"]; n != nil {
		p.setup(n)
	}
	if n := top["workers"]; n != nil {
		p.workers(n)
	} else {
		p.errorf(doc.Content[0], "workers", "missing: at least one worker")
	}
	if n := top["environment"]; n != nil {
		p.environment(n)
	}
	md.Bounds = Bounds{Depth: DefaultDepth, Steps: DefaultSteps}
	if n := top["bounds"]; n != nil {
		md.Lines["bounds"] = n.Line
		b := p.fields(n, "bounds", []string{"depth", "steps", "clock_ms"})
		if v := b["depth"]; v != nil {
			d, _ := p.posInt(v, "bounds.depth", maxDepth)
			md.Bounds.Depth = int(d)
		}
		if v := b["steps"]; v != nil {
			d, _ := p.posInt(v, "bounds.steps", maxDepth)
			md.Bounds.Steps = int(d)
		}
		if v := b["clock_ms"]; v != nil {
			md.Bounds.ClockMS, _ = p.posInt(v, "bounds.clock_ms", 1e15)
		}
	}
	md.Builtins = builtins
	if !md.Lease {
		md.Builtins = nil // the built-ins are the lease protocol's
	}
	if n := top["invariants"]; n != nil {
		p.invariants(n)
	}
	if n := top["expect"]; n != nil {
		e := p.fields(n, "expect", []string{"violation"})
		if v := e["violation"]; v != nil {
			md.Lines["expect"] = v.Line
			md.Expect, _ = p.str(v, "expect.violation")
			known := append(slices.Clone(md.Builtins), predNames(md.Preds)...)
			if md.Expect != "" && !slices.Contains(known, md.Expect) {
				p.errorf(v, "expect.violation", "unknown invariant %q: want one of %s", md.Expect, strings.Join(known, ", "))
			}
		}
	}
	p.checkRefs()
}

func predNames(ps []*Predicate) []string {
	var out []string
	for _, pr := range ps {
		out = append(out, pr.Name)
	}
	return out
}

func orNode(a, b *yaml.Node) *yaml.Node {
	if a != nil {
		return a
	}
	return b
}

func validText(data []byte) bool {
	for _, r := range string(data) {
		if r == 0xFFFD || r < 0x20 && r != '\t' && r != '\n' && r != '\r' || r == 0x7f {
			return false
		}
	}
	return true
}

var yamlLine = lazy.Regexp(`^yaml: line (\d+): (.*)$`)

// yamlParserErrors are the messages yaml.v3's parser (not its scanner)
// reports with a 0-based line, as the manifest parser knows them.
var yamlParserErrors = []string{
	"did not find expected <stream-start>", "did not find expected <document start>",
	"found undefined tag handle", "did not find expected node content",
	"did not find expected '-' indicator", "did not find expected key",
	"did not find expected ',' or ']'", "did not find expected ',' or '}'",
	"found duplicate %YAML directive", "found incompatible YAML document",
	"found duplicate %TAG directive",
}

func (p *parser) yamlError(err error) {
	msg := err.Error()
	line := 0
	if m := yamlLine.Get().FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = m[2]
	} else {
		msg = strings.TrimPrefix(msg, "yaml: ")
	}
	if slices.Contains(yamlParserErrors, msg) {
		line++ // reported 0-based, line 0 omitted
	}
	p.errs = append(p.errs, &manifest.Error{File: p.file, Line: max(line, 1), Col: 1, Msg: "invalid YAML: " + msg})
}

func (p *parser) caller(n *yaml.Node) *manifest.Caller {
	if n == nil {
		if len(p.man.Callers) == 1 {
			p.md.Caller = p.man.Callers[0].Name
			return p.man.Callers[0]
		}
		p.errs = append(p.errs, &manifest.Error{File: p.file, Line: 1, Col: 1, Field: "caller", Msg: fmt.Sprintf("missing: the manifest has %d callers, name one", len(p.man.Callers))})
		return nil
	}
	name, ok := p.str(n, "caller")
	if !ok {
		return nil
	}
	for _, c := range p.man.Callers {
		if c.Name == name {
			p.md.Caller = name
			return c
		}
	}
	p.errorf(n, "caller", "the manifest has no caller %q", name)
	return nil
}

var placeholder = lazy.Regexp(`<([a-z0-9_]+)>`)

// keys expands the caller's templates with vars.
func (p *parser) keys(c *manifest.Caller, at *yaml.Node) {
	for _, k := range c.Keys {
		key := placeholder.Get().ReplaceAllStringFunc(k.Template, func(s string) string {
			name := s[1 : len(s)-1]
			v, ok := p.md.Vars[name]
			if !ok {
				p.errs = append(p.errs, &manifest.Error{File: p.file, Line: 1, Col: 1, Field: "vars." + name, Msg: fmt.Sprintf("missing: caller %s's key %s uses <%s>", c.Name, k.Name, name)})
			}
			return v
		})
		p.md.Keys[k.Name] = key
	}
}

var regName = lazy.Regexp(`^[a-z][a-z0-9_]*$`)

// refPrefixes are the first words of the references a predicate may use,
// which no worker may be named.
var refPrefixes = []string{"key", "pttl", "revision", "field", "source", "now"}

// reserved are the worker registers every worker has.
var reserved = []string{"token", "candidate", "revision", "reply", "owns", "accepted"}
