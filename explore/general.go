package explore

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua/parse"
	"gopkg.in/yaml.v3"

	"github.com/scriptctl/scriptctl/internal/lazy"
	"github.com/scriptctl/scriptctl/internal/yamlnode"
	"github.com/scriptctl/scriptctl/manifest"
)

// The general language: call steps (any manifest script by name), saved
// replies, if/then/else and goto, setup steps, controls, environment
// events (crash, pause, expire) and Lua invariants. Parsing here, running
// in explore.go, general_run.go and invariants.go.

// stepExtras are the fields a step mapping may have beside its action.
var stepExtras = []string{"keys", "args", "save", "then", "else"}

// replyTypes are the types an if step may test.
var replyTypes = []string{"nil", "integer", "string", "status", "error", "array"}

// program collects one worker's flattened steps and its jump targets.
type program struct {
	w      *Worker
	labels map[string]int
	jumps  []jump
}

type jump struct {
	n     *yaml.Node
	field string
	label string
	step  *Step
}

func (p *parser) workers(n *yaml.Node) {
	for _, kv := range p.pairs(n, "workers") {
		name := yamlnode.Deref(kv[0]).Value
		path := "workers." + name
		if !regName.Get().MatchString(name) || slices.Contains(refPrefixes, name) {
			p.errorf(kv[0], path, "worker names are [a-z][a-z0-9_]*, and not %s", strings.Join(refPrefixes, ", "))
			continue
		}
		w := &Worker{Name: name}
		p.md.Workers = append(p.md.Workers, w)
		list := yamlnode.Deref(kv[1])
		if list.Kind != yaml.SequenceNode || len(list.Content) == 0 {
			p.errorf(kv[1], path, "must be a non-empty list of steps, not %s", yamlnode.Describe(kv[1]))
			continue
		}
		pr := &program{w: w, labels: map[string]int{}}
		p.stepList(pr, list, path)
		for _, j := range pr.jumps {
			if j.label == "end" {
				j.step.Goto = len(w.Steps)
				continue
			}
			i, ok := pr.labels[j.label]
			if !ok {
				p.errorf(j.n, j.field, "no step named %q in worker %s", j.label, name)
			}
			j.step.Goto = i
		}
	}
}

// stepList appends the steps of list (flattened: an if step's then and
// else lists follow it) to the worker's program.
func (p *parser) stepList(pr *program, list *yaml.Node, path string) {
	w := pr.w
	for i, sn := range list.Content {
		field := fmt.Sprintf("%s[%d]", path, i)
		st := &Step{Line: sn.Line}
		w.Steps = append(w.Steps, st)
		d := yamlnode.Deref(sn)
		if d.Kind == yaml.ScalarNode {
			kind, ok := p.str(sn, field)
			if !ok {
				continue
			}
			if !slices.Contains(stepKinds, kind) || slices.Contains([]string{"do", "branch", "call", "if", "goto"}, kind) {
				p.errorf(sn, field, "unknown step %q: want one of %s (do, branch, call, if and goto as a mapping)", kind, strings.Join(stepKinds, ", "))
				continue
			}
			st.Kind = kind
			p.checkRole(sn, field, kind)
			continue
		}
		f := p.fields(sn, field, append(append([]string{"name"}, stepKinds...), stepExtras...))
		if v := f["name"]; v != nil {
			st.Name, _ = p.str(v, field+".name")
			if _, dup := pr.labels[st.Name]; dup || st.Name == "end" {
				p.errorf(v, field+".name", "step name %q is used twice (or is end)", st.Name)
			}
			pr.labels[st.Name] = len(w.Steps) - 1
		}
		var kinds []string
		for _, k := range stepKinds {
			if f[k] != nil {
				kinds = append(kinds, k)
			}
		}
		if len(kinds) != 1 {
			p.errorf(sn, field, "a step does exactly one of %s", strings.Join(stepKinds, ", "))
			continue
		}
		st.Kind = kinds[0]
		v := f[st.Kind]
		for _, x := range stepExtras {
			if f[x] == nil {
				continue
			}
			ok := (x == "keys" || x == "args") && st.Kind == "call" || x == "save" && (st.Kind == "call" || st.Kind == "do") ||
				(x == "then" || x == "else") && st.Kind == "if"
			if !ok {
				p.errorf(f[x], field+"."+x, "%s does not go with %s (keys and args: call; save: call, do; then and else: if)", x, st.Kind)
			}
		}
		switch st.Kind {
		case "do":
			st.Do, _ = p.strList(v, field+".do")
			if len(st.Do) == 0 {
				p.errorf(v, field+".do", "must name a command")
			}
			for j, a := range st.Do {
				p.refs = append(p.refs, ref{n: v, field: fmt.Sprintf("%s.do[%d]", field, j), text: a})
			}
			p.saves(st, f["save"], field)
		case "call":
			p.callStep(st, f, field)
		case "goto":
			if l, ok := p.str(v, field+".goto"); ok {
				pr.jumps = append(pr.jumps, jump{v, field + ".goto", l, st})
			}
		case "if":
			p.md.usesIf = true
			st.Cond = p.cond(v, field+".if")
			if f["then"] == nil && f["else"] == nil {
				p.errorf(sn, field+".then", "missing: an if step has then, else or both")
			}
			if t := f["then"]; t != nil {
				if tl := yamlnode.Deref(t); tl.Kind != yaml.SequenceNode {
					p.errorf(t, field+".then", "must be a list of steps, not %s", yamlnode.Describe(t))
				} else {
					p.stepList(pr, tl, field+".then")
				}
			}
			if e := f["else"]; e != nil {
				el := yamlnode.Deref(e)
				if el.Kind != yaml.SequenceNode {
					p.errorf(e, field+".else", "must be a list of steps, not %s", yamlnode.Describe(e))
					break
				}
				skip := &Step{Kind: "goto", Line: e.Line}
				w.Steps = append(w.Steps, skip)
				st.Goto = len(w.Steps)
				p.stepList(pr, el, field+".else")
				skip.Goto = len(w.Steps)
			} else {
				st.Goto = len(w.Steps)
			}
		case "branch":
			b := p.fields(v, field+".branch", []string{"if", "unless", "goto"})
			switch {
			case b["if"] != nil && b["unless"] == nil:
				st.When, _ = p.str(b["if"], field+".branch.if")
			case b["unless"] != nil && b["if"] == nil:
				st.When, _ = p.str(b["unless"], field+".branch.unless")
				st.Not = true
			default:
				p.errorf(v, field+".branch", "give one of if and unless (a reply head)")
			}
			if b["goto"] == nil {
				p.errorf(v, field+".branch.goto", "missing: a step name or end")
			} else if l, ok := p.str(b["goto"], field+".branch.goto"); ok {
				pr.jumps = append(pr.jumps, jump{b["goto"], field + ".branch.goto", l, st})
			}
		default:
			p.checkRole(v, field, st.Kind)
			if dv := yamlnode.Deref(v); dv.Kind == yaml.ScalarNode && dv.Tag == "!!null" {
				break
			}
			r := p.md.Roles[st.Kind]
			if r == nil || r.Do != nil {
				p.errorf(v, field+"."+st.Kind, "takes no arguments (write null or the bare step name)")
				break
			}
			st.Args = map[string]string{}
			for _, akv := range p.pairs(v, field+"."+st.Kind) {
				an := yamlnode.Deref(akv[0]).Value
				af := field + "." + st.Kind + "." + an
				if !slices.ContainsFunc(r.Args, func(a Arg) bool { return a.Name == an }) {
					p.errorf(akv[0], af, "role %s has no arg %q", st.Kind, an)
					continue
				}
				if s, ok := p.str(akv[1], af); ok {
					st.Args[an] = s
					p.refs = append(p.refs, ref{n: akv[1], field: af, text: s})
				}
			}
		}
	}
}

// script finds the manifest script name.
func (p *parser) script(name string) *manifest.Script {
	for _, x := range p.man.Scripts {
		if x.Name == name {
			return x
		}
	}
	return nil
}

// callStep reads call: SCRIPT with its keys (caller templates by
// default), args (every arg by name) and save.
func (p *parser) callStep(st *Step, f map[string]*yaml.Node, field string) {
	name, ok := p.str(f["call"], field+".call")
	if !ok {
		return
	}
	sc := p.script(name)
	if sc == nil {
		p.errorf(f["call"], field+".call", "the manifest has no script %q: want one of %s", name, strings.Join(p.man.ScriptNames(), ", "))
		return
	}
	st.Script, st.Src, st.Reply, st.ArgNames = name, sc.Source, sc.Reply, sc.Args
	if src, ok := p.md.Control[name]; ok {
		st.Src = src
	}
	over := p.named(f["keys"], field+".keys", name, "key", sc.Keys)
	for _, kn := range sc.Keys {
		if s, ok := over[kn]; ok {
			st.KeyTpl = append(st.KeyTpl, s)
			continue
		}
		if _, ok := p.md.Keys[kn]; !ok && p.md.Caller != "" {
			p.errorf(f["call"], field+".keys."+kn, "missing: caller %s has no key template %q; give it in keys", p.md.Caller, kn)
		}
		st.KeyTpl = append(st.KeyTpl, "${key."+kn+"}")
	}
	args := p.named(f["args"], field+".args", name, "arg", sc.Args)
	for _, an := range sc.Args {
		s, ok := args[an]
		if !ok {
			p.errorf(orNode(f["args"], f["call"]), field+".args."+an, "missing: script %s takes %s", name, strings.Join(sc.Args, ", "))
		}
		st.ArgTpl = append(st.ArgTpl, s)
	}
	p.saves(st, f["save"], field)
}

// named reads a call's keys or args mapping (n may be nil): each name must
// be one of script's allowed, each value a string template.
func (p *parser) named(n *yaml.Node, field, script, what string, allowed []string) map[string]string {
	out := map[string]string{}
	if n == nil {
		return out
	}
	for _, kv := range p.pairs(n, field) {
		name := yamlnode.Deref(kv[0]).Value
		nf := field + "." + name
		if !slices.Contains(allowed, name) {
			p.errorf(kv[0], nf, "script %s has no %s %q: want %s", script, what, name, strings.Join(allowed, ", "))
			continue
		}
		if s, ok := p.str(kv[1], nf); ok {
			out[name] = s
			p.refs = append(p.refs, ref{n: kv[1], field: nf, text: s})
		}
	}
	return out
}

// saves reads save: NAME (the whole reply) or save: {NAME: PATH, ...}.
func (p *parser) saves(st *Step, n *yaml.Node, field string) {
	if n == nil {
		return
	}
	add := func(at *yaml.Node, name string, path []int) {
		if !regName.Get().MatchString(name) || slices.Contains(reserved, name) || name == "now" || name == "worker" {
			p.errorf(at, field+".save", "register names are [a-z][a-z0-9_]* and not one of %s, now, worker", strings.Join(reserved, ", "))
			return
		}
		st.Save = append(st.Save, Save{Name: name, Path: path})
		if !slices.Contains(p.md.regs, name) {
			p.md.regs = append(p.md.regs, name)
			slices.Sort(p.md.regs)
		}
	}
	d := yamlnode.Deref(n)
	if d.Kind == yaml.ScalarNode {
		if name, ok := p.str(n, field+".save"); ok {
			add(n, name, nil)
		}
		return
	}
	if d.Kind != yaml.MappingNode {
		p.errorf(n, field+".save", "must be a register name or {name: element path}, not %s", yamlnode.Describe(n))
		return
	}
	for _, kv := range p.pairs(n, field+".save") {
		name := yamlnode.Deref(kv[0]).Value
		path, ok := p.path(kv[1], field+".save."+name)
		if ok {
			add(kv[0], name, path)
		}
	}
}

var elemPath = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`^[1-9][0-9]{0,5}(\.[1-9][0-9]{0,5})*$`) }}

// path reads an element path: 2, or "2.1" into nested arrays (1-based).
func (p *parser) path(n *yaml.Node, field string) ([]int, bool) {
	s, ok := p.str(n, field)
	if !ok {
		return nil, false
	}
	if !elemPath.Get().MatchString(s) {
		p.errorf(n, field, "must be an element path: 1-based indices joined by dots (2, 1.3), not %q", s)
		return nil, false
	}
	var out []int
	for _, part := range strings.Split(s, ".") {
		i, _ := strconv.Atoi(part)
		out = append(out, i)
	}
	return out, true
}

// cond reads an if step's test.
func (p *parser) cond(n *yaml.Node, field string) *Cond {
	f := p.fields(n, field, []string{"reply", "var", "equals", "matches", "type"})
	c := &Cond{}
	if f["reply"] != nil && f["var"] != nil {
		p.errorf(f["var"], field+".var", "give one of reply and var")
	}
	if v := f["reply"]; v != nil {
		c.Path, _ = p.path(v, field+".reply")
	}
	if v := f["var"]; v != nil {
		if s, ok := p.str(v, field+".var"); ok {
			c.Var = s
			p.refs = append(p.refs, ref{n: v, field: field + ".var", text: "${" + s + "}"})
		}
	}
	var ops []string
	for _, op := range []string{"equals", "matches", "type"} {
		if f[op] != nil {
			ops = append(ops, op)
		}
	}
	if len(ops) != 1 {
		p.errorf(n, field, "give exactly one of equals, matches and type")
		return c
	}
	c.Op = ops[0]
	v := f[c.Op]
	c.Value, _ = p.str(v, field+"."+c.Op)
	switch c.Op {
	case "matches":
		re, err := regexp.Compile(c.Value)
		if err != nil {
			p.errorf(v, field+".matches", "not a regular expression: %v", err)
		}
		c.re = re
	case "type":
		if !slices.Contains(replyTypes, c.Value) {
			p.errorf(v, field+".type", "unknown type %q: want one of %s", c.Value, strings.Join(replyTypes, ", "))
		}
		if c.Var != "" {
			p.errorf(v, field+".type", "a register holds text: test a reply's type, or compare the register with equals or matches")
		}
	}
	return c
}

// setup reads the steps run before the exploration: call and do only.
func (p *parser) setup(n *yaml.Node) {
	list := yamlnode.Deref(n)
	if list.Kind != yaml.SequenceNode {
		p.errorf(n, "setup", "must be a list of call and do steps, not %s", yamlnode.Describe(n))
		return
	}
	for i, sn := range list.Content {
		field := fmt.Sprintf("setup[%d]", i)
		st := &Step{Line: sn.Line}
		f := p.fields(sn, field, []string{"call", "do", "keys", "args"})
		switch {
		case f["call"] != nil && f["do"] == nil:
			st.Kind = "call"
			p.callStep(st, f, field)
		case f["do"] != nil && f["call"] == nil:
			st.Kind = "do"
			if f["keys"] != nil || f["args"] != nil {
				p.errorf(f["do"], field, "keys and args go with call")
			}
			st.Do, _ = p.strList(f["do"], field+".do")
			if len(st.Do) == 0 {
				p.errorf(f["do"], field+".do", "must name a command")
			}
			for j, a := range st.Do {
				p.refs = append(p.refs, ref{n: f["do"], field: fmt.Sprintf("%s.do[%d]", field, j), text: a})
			}
		default:
			p.errorf(sn, field, "a setup step is one call or one do")
			continue
		}
		p.md.Setup = append(p.md.Setup, st)
	}
}

// control reads control: {SCRIPT: FILE}: the file (relative to the
// model, inside the manifest's folder) replaces the manifest script.
func (p *parser) control(n *yaml.Node) {
	p.md.Control = map[string][]byte{}
	for _, kv := range p.pairs(n, "control") {
		name := yamlnode.Deref(kv[0]).Value
		field := "control." + name
		if p.script(name) == nil {
			p.errorf(kv[0], field, "the manifest has no script %q", name)
			continue
		}
		file, ok := p.str(kv[1], field)
		if !ok {
			continue
		}
		full, err := manifest.InsideFrom(p.man.Dir, p.file, file)
		if err != nil {
			p.errorf(kv[1], field, "%v", err)
			continue
		}
		src, err := manifest.ReadScriptFile(full)
		if err != nil {
			p.errorf(kv[1], field, "cannot read %s: %v", file, err)
			continue
		}
		p.md.Control[name] = src
	}
}

var envFields = []string{"advance_ms", "update_source", "crash", "pause", "ms", "expire", "times"}

func (p *parser) environment(n *yaml.Node) {
	list := yamlnode.Deref(n)
	if list.Kind != yaml.SequenceNode {
		p.errorf(n, "environment", "must be a list, not %s", yamlnode.Describe(n))
		return
	}
	worker := func(v *yaml.Node, field string) int {
		name, ok := p.str(v, field)
		if !ok {
			return -1
		}
		i := slices.IndexFunc(p.md.Workers, func(w *Worker) bool { return w.Name == name })
		if i < 0 {
			p.errorf(v, field, "no worker %q", name)
		}
		return i
	}
	for i, an := range list.Content {
		field := fmt.Sprintf("environment[%d]", i)
		f := p.fields(an, field, envFields)
		a := &EnvAction{Times: 1}
		var kinds []string
		for _, k := range []string{"advance_ms", "update_source", "crash", "pause", "expire"} {
			if f[k] != nil {
				kinds = append(kinds, k)
			}
		}
		if len(kinds) != 1 {
			p.errorf(an, field, "give one of advance_ms, update_source, crash, pause and expire")
		} else {
			switch kinds[0] {
			case "advance_ms":
				a.Kind = "advance"
				a.MS, _ = p.posInt(f["advance_ms"], field+".advance_ms", 1e15)
			case "update_source":
				a.Kind = "update"
				if b := yamlnode.Deref(f["update_source"]); b.Tag != "!!bool" || b.Value != "true" {
					p.errorf(f["update_source"], field+".update_source", "must be true")
				}
			case "crash":
				a.Kind = "crash"
				a.Worker = worker(f["crash"], field+".crash")
			case "pause":
				a.Kind = "pause"
				a.Worker = worker(f["pause"], field+".pause")
				if f["ms"] == nil {
					p.errorf(an, field+".ms", "missing: how long the worker pauses, in ms")
				} else {
					a.MS, _ = p.posInt(f["ms"], field+".ms", 1e15)
				}
			case "expire":
				a.Kind = "expire"
				if k, ok := p.str(f["expire"], field+".expire"); ok {
					a.Key = k
					if _, ok := p.md.Keys[k]; !ok && p.md.Caller != "" {
						p.errorf(f["expire"], field+".expire", "caller %s has no key %q", p.md.Caller, k)
					}
				}
			}
		}
		if f["ms"] != nil && a.Kind != "pause" {
			p.errorf(f["ms"], field+".ms", "ms goes with pause")
		}
		if t := f["times"]; t != nil {
			v, _ := p.posInt(t, field+".times", maxDepth)
			a.Times = int(v)
		}
		p.md.Env = append(p.md.Env, a)
	}
}

// luaWrapper makes a predicate's body a script: the model's data arrives
// as JSON in ARGV[1]; the body is on the script's second line.
const luaWrapper = "local __d = cjson.decode(ARGV[1]) local history, replies, workers, keys, vars, now, final = __d.history, __d.replies, __d.workers, __d.keys, __d.vars, __d.now, __d.final local __ok, __msg = (function()\n%s\nend)() if __ok == true then return 1 end return {0, tostring(__msg or '')}\n"

// luaPredicate reads a Lua predicate and compiles it: a syntax error is
// reported at its line in the model.
func (p *parser) luaPredicate(n *yaml.Node, field string, pr *Predicate) {
	body, ok := p.str(n, field)
	if !ok {
		return
	}
	if strings.TrimSpace(body) == "" {
		p.errorf(n, field, "is empty: want a Lua function body that returns true when the invariant holds")
		return
	}
	pr.Lua = body
	pr.src = fmt.Appendf(nil, luaWrapper, body)
	if _, err := lua.Parse(strings.NewReader(string(pr.src)), pr.Name); err != nil {
		msg := err.Error()
		at := n
		if m := luaErrLine.Get().FindStringSubmatch(msg); m != nil {
			l, _ := strconv.Atoi(m[1])
			// the body starts on the script's line 2; a block scalar's
			// first line is the one after its indicator
			// (an error at the wrapper's end is at the body's last line)
			l = min(l, 1+len(strings.Split(strings.TrimRight(body, "\n"), "\n")))
			line := n.Line + l - 2
			if d := yamlnode.Deref(n); d.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
				line++
			}
			at = &yaml.Node{Line: line, Column: n.Column}
		}
		// the line is the model's; the column is the wrapper's: drop both
		msg = strings.Join(strings.Fields(luaErrPos.Get().ReplaceAllString(msg, "")), " ")
		p.errorf(at, field, "Lua syntax error: %s", msg)
		return
	}
	if strings.Contains(body, "history") || strings.Contains(body, "replies") {
		p.md.usesHist = true
	}
}

var (
	luaErrLine = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`line:(\d+)`) }}
	luaErrPos  = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`^.*? line:\d+\(column:\d+\) `) }}
)
