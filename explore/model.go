package explore

import (
	"bytes"
	"cmp"
	"fmt"
	"github.com/scriptctl/scriptctl/contract"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

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
	if m := yamlLine().FindStringSubmatch(msg); m != nil {
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
		key := placeholder().ReplaceAllStringFunc(k.Template, func(s string) string {
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

var roleFields = []string{"script", "file", "keys", "args", "do", "owned", "accepted", "save", "ttl_arg", "ends_leases"}

func (p *parser) protocol(n *yaml.Node, caller *manifest.Caller) {
	for _, kv := range p.pairs(n, "protocol") {
		name := yamlnode.Deref(kv[0]).Value
		path := "protocol." + name
		if !slices.Contains(roleNames, name) {
			p.errorf(kv[0], path, "unknown role %q: want one of %s", name, strings.Join(roleNames, ", "))
			continue
		}
		f := p.fields(kv[1], path, roleFields)
		r := &Role{Name: name, Save: map[string]int{}}
		p.md.Roles[name] = r
		var manifestArgs []string
		switch {
		case f["do"] != nil:
			if name != "invalidate" {
				p.errorf(f["do"], path+".do", "only invalidate may be a raw command")
			}
			if f["script"] != nil || f["file"] != nil {
				p.errorf(f["do"], path+".do", "give one of script, file and do")
			}
			r.Do, _ = p.strList(f["do"], path+".do")
			if len(r.Do) == 0 {
				p.errorf(f["do"], path+".do", "must name a command")
			}
			for i, a := range r.Do {
				p.refs = append(p.refs, ref{n: f["do"], field: fmt.Sprintf("%s.do[%d]", path, i), text: a})
			}
		case f["script"] != nil && f["file"] != nil:
			p.errorf(f["file"], path+".file", "give one of script and file")
		case f["script"] != nil:
			s, ok := p.str(f["script"], path+".script")
			if !ok {
				break
			}
			r.Script = s
			var sc *manifest.Script
			for _, x := range p.man.Scripts {
				if x.Name == s {
					sc = x
				}
			}
			if sc == nil {
				p.errorf(f["script"], path+".script", "the manifest has no script %q", s)
				break
			}
			r.Src, r.Keys, manifestArgs = sc.Source, sc.Keys, sc.Args
			r.Reply = sc.Reply
			if f["keys"] != nil {
				p.errorf(f["keys"], path+".keys", "a manifest script's keys come from the manifest")
			}
		case f["file"] != nil:
			file, ok := p.str(f["file"], path+".file")
			if !ok {
				break
			}
			r.Script = file
			// The script must stay inside the manifest's folder, links
			// followed: checked before anything is opened.
			full, err := manifest.InsideFrom(p.man.Dir, p.file, file)
			if err != nil {
				p.errorf(f["file"], path+".file", "%v", err)
				break
			}
			src, err := manifest.ReadScriptFile(full)
			if err != nil {
				p.errorf(f["file"], path+".file", "cannot read %s: %v", file, err)
			}
			r.Src = src
			if f["keys"] == nil {
				p.errorf(f["file"], path+".keys", "missing: the caller key names of the file's KEYS")
			} else {
				r.Keys, _ = p.strList(f["keys"], path+".keys")
			}
		default:
			p.errorf(kv[0], path, "missing: script, file or do")
		}
		if caller != nil {
			for i, k := range r.Keys {
				if _, ok := p.md.Keys[k]; !ok {
					p.errorf(orNode(f["keys"], f["script"]), fmt.Sprintf("%s.keys[%d]", path, i), "caller %s has no key template %q", caller.Name, k)
				}
			}
		}
		if a := f["args"]; a != nil {
			if r.Do != nil {
				p.errorf(a, path+".args", "a raw command takes no args")
			}
			for _, akv := range p.pairs(a, path+".args") {
				an := yamlnode.Deref(akv[0]).Value
				v, ok := p.str(akv[1], path+".args."+an)
				if ok {
					p.refs = append(p.refs, ref{n: akv[1], field: path + ".args." + an, text: v})
				}
				if manifestArgs != nil && !slices.Contains(manifestArgs, an) {
					p.errorf(akv[0], path+".args."+an, "script %s has no arg %q: want %s", r.Script, an, strings.Join(manifestArgs, ", "))
				}
				r.Args = append(r.Args, Arg{Name: an, Value: v})
			}
		}
		if manifestArgs != nil {
			// a manifest script's args are sent in the manifest's order
			var ordered []Arg
			for _, an := range manifestArgs {
				i := slices.IndexFunc(r.Args, func(a Arg) bool { return a.Name == an })
				if i < 0 {
					p.errorf(orNode(f["args"], kv[0]), path+".args."+an, "missing: script %s takes %s", r.Script, strings.Join(manifestArgs, ", "))
					continue
				}
				ordered = append(ordered, r.Args[i])
			}
			if src, ok := p.md.Control[r.Script]; ok {
				r.Src = src
			}
			r.Args = ordered
		} else if r.Do == nil && f["args"] == nil && r.Src != nil {
			p.errorf(kv[0], path+".args", "missing: the file's ARGV, as name: template")
		}
		if v := f["owned"]; v != nil {
			if name != "acquire" && name != "renew" {
				p.errorf(v, path+".owned", "only acquire and renew own a lease")
			}
			r.Owned, _ = p.str(v, path+".owned")
		} else if name == "acquire" || name == "renew" {
			p.errorf(kv[0], path+".owned", "missing: the reply head that means the lease is owned")
		}
		if v := f["accepted"]; v != nil {
			if name != "publish" {
				p.errorf(v, path+".accepted", "only publish accepts a candidate")
			}
			r.Accepted, _ = p.str(v, path+".accepted")
		} else if name == "publish" {
			p.errorf(kv[0], path+".accepted", "missing: the reply head that means the candidate was accepted")
		}
		if v := f["ttl_arg"]; v != nil {
			r.TTLArg, _ = p.str(v, path+".ttl_arg")
			if !slices.ContainsFunc(r.Args, func(a Arg) bool { return a.Name == r.TTLArg }) {
				p.errorf(v, path+".ttl_arg", "no arg %q", r.TTLArg)
			}
		} else if name == "acquire" || name == "renew" {
			p.errorf(kv[0], path+".ttl_arg", "missing: the arg that holds the lease TTL in ms")
		}
		if v := f["save"]; v != nil {
			for _, skv := range p.pairs(v, path+".save") {
				sn := yamlnode.Deref(skv[0]).Value
				if !regName().MatchString(sn) || slices.Contains(reserved, sn) {
					p.errorf(skv[0], path+".save."+sn, "register names are [a-z][a-z0-9_]* and not one of %s", strings.Join(reserved, ", "))
					continue
				}
				i, ok := p.posInt(skv[1], path+".save."+sn, 1000)
				if ok {
					r.Save[sn] = int(i)
					if !slices.Contains(p.md.regs, sn) {
						p.md.regs = append(p.md.regs, sn)
					}
				}
			}
		}
		if v := f["ends_leases"]; v != nil {
			b := yamlnode.Deref(v)
			if b.Kind != yaml.ScalarNode || b.Tag != "!!bool" {
				p.errorf(v, path+".ends_leases", "must be true or false, not %s", yamlnode.Describe(v))
			} else if name != "invalidate" {
				p.errorf(v, path+".ends_leases", "only invalidate ends leases")
			} else {
				r.EndsLeases = b.Value == "true"
			}
		}
	}
	sort.Strings(p.md.regs)
}

var regName = lazy.Regexp(`^[a-z][a-z0-9_]*$`)

// refPrefixes are the first words of the references a predicate may use,
// which no worker may be named.
var refPrefixes = []string{"key", "pttl", "revision", "field", "source", "now"}

// reserved are the worker registers every worker has.
var reserved = []string{"token", "candidate", "revision", "reply", "owns", "accepted"}

// checkRole reports a role step whose role the protocol does not declare.
func (p *parser) checkRole(n *yaml.Node, field, kind string) {
	if slices.Contains(roleNames, kind) && p.md.Roles[kind] == nil {
		p.errorf(n, field, "step %s needs protocol.%s", kind, kind)
	}
}

var compareOps = []string{"==", "!=", "<", "<=", ">", ">="}

func (p *parser) invariants(n *yaml.Node) {
	f := p.fields(n, "invariants", []string{"builtin", "predicates"})
	if v := f["builtin"]; v != nil {
		list, _ := p.strList(v, "invariants.builtin")
		p.md.Builtins = nil
		for i, b := range list {
			if !slices.Contains(builtins, b) {
				p.errorf(yamlnode.Deref(v).Content[i], fmt.Sprintf("invariants.builtin[%d]", i), "unknown invariant %q: want %s", b, strings.Join(builtins, ", "))
				continue
			}
			p.md.Builtins = append(p.md.Builtins, b)
			p.md.Lines[b] = yamlnode.Deref(v).Content[i].Line
		}
	}
	if v := f["predicates"]; v != nil {
		list := yamlnode.Deref(v)
		if list.Kind != yaml.SequenceNode {
			p.errorf(v, "invariants.predicates", "must be a list, not %s", yamlnode.Describe(v))
			return
		}
		for i, pn := range list.Content {
			field := fmt.Sprintf("invariants.predicates[%d]", i)
			pf := p.fields(pn, field, []string{"name", "when", "assert", "lua"})
			pr := &Predicate{}
			if nn := pf["name"]; nn != nil {
				pr.Name, _ = p.str(nn, field+".name")
				p.md.Lines[pr.Name] = nn.Line
				if slices.Contains(builtins, pr.Name) || slices.Contains(predNames(p.md.Preds), pr.Name) {
					p.errorf(nn, field+".name", "invariant %q is defined twice", pr.Name)
				}
			} else {
				p.errorf(pn, field+".name", "missing")
			}
			switch a, l := pf["assert"], pf["lua"]; {
			case a != nil && l != nil:
				p.errorf(l, field+".lua", "give one of assert and lua")
			case a != nil:
				pr.Assert, _ = p.compare(a, field+".assert")
			case l != nil:
				p.luaPredicate(l, field+".lua", pr)
				if pf["when"] != nil {
					p.errorf(pf["when"], field+".when", "a Lua predicate tests its own conditions")
				}
			default:
				p.errorf(pn, field+".assert", "missing: [left, op, right] (or lua: a Lua predicate)")
			}
			if w := pf["when"]; w != nil {
				c, ok := p.compare(w, field+".when")
				if ok {
					pr.When = &c
				}
			}
			p.md.Preds = append(p.md.Preds, pr)
		}
	}
}

func (p *parser) compare(n *yaml.Node, field string) (Compare, bool) {
	list, ok := p.strList(n, field)
	if !ok || len(list) != 3 {
		if ok {
			p.errorf(n, field, "must be [left, op, right], not %d items", len(list))
		}
		return Compare{}, false
	}
	if !slices.Contains(compareOps, list[1]) {
		p.errorf(n, field+"[1]", "unknown operator %q: want one of %s", list[1], strings.Join(compareOps, " "))
		return Compare{}, false
	}
	p.refs = append(p.refs, ref{n: n, field: field + "[0]", text: list[0], state: true}, ref{n: n, field: field + "[2]", text: list[2], state: true})
	return Compare{list[0], list[1], list[2]}, true
}

var refPattern = lazy.Regexp(`\$\{([^}]*)\}`)

// checkRefs reports every ${...} reference that names nothing.
func (p *parser) checkRefs() {
	for _, r := range p.refs {
		for _, m := range refPattern().FindAllStringSubmatch(r.text, -1) {
			if msg := p.checkRef(m[1], r.state); msg != "" {
				p.errorf(r.n, r.field, "${%s}: %s", m[1], msg)
			}
		}
		if strings.Count(r.text, "${") != len(refPattern().FindAllString(r.text, -1)) {
			p.errorf(r.n, r.field, "unclosed ${ in %q", r.text)
		}
	}
}

func (p *parser) checkRef(name string, state bool) string {
	if _, ok := p.md.Vars[name]; ok {
		return ""
	}
	if !state && (name == "now" || name == "worker") {
		return ""
	}
	parts := strings.Split(name, ".")
	switch {
	case len(parts) == 2 && parts[0] == "key", state && len(parts) == 2 && (parts[0] == "pttl" || parts[0] == "revision"):
		if _, ok := p.md.Keys[parts[1]]; !ok {
			return fmt.Sprintf("caller %s has no key %q", p.md.Caller, parts[1])
		}
		return ""
	case state && len(parts) == 3 && parts[0] == "field":
		if _, ok := p.md.Keys[parts[1]]; !ok {
			return fmt.Sprintf("caller %s has no key %q", p.md.Caller, parts[1])
		}
		return ""
	case state && name == "source.revision", state && name == "now":
		return ""
	case !state && len(parts) == 1:
		if slices.Contains(reserved, name) || slices.Contains(p.md.regs, name) {
			return ""
		}
		return "not a var, a worker register (" + strings.Join(append(slices.Clone(reserved), p.md.regs...), ", ") + "), now, worker or key.<name>"
	case state && len(parts) == 2:
		if !slices.ContainsFunc(p.md.Workers, func(w *Worker) bool { return w.Name == parts[0] }) {
			return fmt.Sprintf("no worker %q", parts[0])
		}
		if slices.Contains(reserved, parts[1]) || slices.Contains(p.md.regs, parts[1]) {
			return ""
		}
		return fmt.Sprintf("worker registers are %s", strings.Join(append(slices.Clone(reserved), p.md.regs...), ", "))
	}
	if state {
		return "want key.K, pttl.K, revision.K, field.K.F, source.revision, now, <worker>.<register> or a var"
	}
	return "want a var, a worker register or key.<name>"
}
