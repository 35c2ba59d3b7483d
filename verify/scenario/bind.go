package scenario

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/scriptctl/scriptctl/manifest"
)

// binding is a scenario resolved against a manifest: every key, arg and
// expected text expanded to the bytes the run sends and compares.
type binding struct {
	m        *manifest.Manifest
	initial  []Key
	steps    []boundStep
	universe []string // every key the scenario names, sorted
	controls map[string][]byte
}

type boundStep struct {
	keys, args []string // StepCall
	cmd        []string // StepDo
	expect     *boundExpect
	regression *boundExpect
}

type boundExpect struct {
	line         int
	reply        *ReplySpec
	keys         []boundKeyExpect
	published    []Published // ${...} expanded
	publishedSet bool
	clockReply   bool     // clock: [reply]
	clockKeys    []string // clock: [key, ...], bound
}

type boundKeyExpect struct {
	key string
	KeyExpect
}

// Bind resolves s against m: the caller's key templates, the scripts' key
// and arg names, workers' tokens and ${...} references. Problems are
// reported with their lines as an Errors value. A scenario must be bound
// before it runs.
func (s *Scenario) Bind(m *manifest.Manifest) error {
	b := &binder{s: s, m: m, keys: map[string]bool{}}
	s.bound = b.bind()
	if len(b.errs) > 0 {
		s.bound = nil
		return b.errs
	}
	return nil
}

type binder struct {
	s      *Scenario
	m      *manifest.Manifest
	caller *manifest.Caller
	keys   map[string]bool
	errs   Errors
	worker *Worker
}

func (b *binder) errorf(line int, field, format string, args ...any) {
	b.errs = append(b.errs, &Error{File: b.s.File, Line: line, Field: field, Msg: fmt.Sprintf(format, args...)})
}

func (b *binder) bind() *binding {
	s := b.s
	out := &binding{m: b.m, controls: map[string][]byte{}}
	switch {
	case s.Caller != "":
		if b.caller = b.m.Caller(s.Caller); b.caller == nil {
			b.errorf(s.callerLine, "caller", "unknown caller %q in %s", s.Caller, b.m.Path)
		}
	case len(b.m.Callers) == 1:
		b.caller = b.m.Callers[0]
	}
	if b.caller != nil {
		for _, kt := range b.caller.Keys {
			if k, ok := b.template(kt.Name, s.callerLine, "caller"); ok {
				b.keys[k] = true
			}
		}
	}
	for _, c := range s.Controls {
		if b.m.Script(c.Script) == nil {
			b.errorf(c.Line, "control."+c.Script, "unknown script %q%s: the manifest declares %s", c.Script, b.didYouMean(c.Script), b.scriptNames())
		}
		out.controls[c.Script] = c.Source
	}
	for _, k := range s.Keys {
		name := b.keyRef(k.Name, k.Line, "keys."+k.Name)
		k.Name = name
		out.initial = append(out.initial, k)
	}
	for i, st := range s.Steps {
		field := fmt.Sprintf("steps[%d]", i+1)
		b.worker = nil
		for j := range s.Workers {
			if s.Workers[j].Name == st.Worker {
				b.worker = &s.Workers[j]
			}
		}
		var bs boundStep
		switch st.Kind {
		case StepCall:
			bs.keys, bs.args = b.call(st, field)
		case StepDo:
			for j, a := range st.Command {
				bs.cmd = append(bs.cmd, b.expand(a, st.Line, fmt.Sprintf("%s.do[%d]", field, j+1)))
			}
		}
		bs.expect = b.expect(st.Expect, field+".expect")
		bs.regression = b.expect(st.Regression, field+".regression")
		out.steps = append(out.steps, bs)
	}
	for k := range b.keys {
		out.universe = append(out.universe, k)
	}
	sort.Strings(out.universe)
	return out
}

// didYouMean is " (did you mean \"x\"?)" when a script of the manifest is
// close enough to name to be a likely typo, else "".
func (b *binder) didYouMean(name string) string {
	names := make([]string, len(b.m.Scripts))
	for i, sc := range b.m.Scripts {
		names[i] = sc.Name
	}
	if s := manifest.Suggest(name, names); s != "" {
		return fmt.Sprintf(" (did you mean %q?)", s)
	}
	return ""
}

func (b *binder) scriptNames() string { return strings.Join(b.m.ScriptNames(), ", ") }

// template expands the caller's template for key name with the scenario's
// vars.
func (b *binder) template(name string, line int, field string) (string, bool) {
	if b.caller == nil {
		return "", false
	}
	t, ok := b.caller.Template(name)
	if !ok {
		return "", false
	}
	var out strings.Builder
	for i := 0; i < len(t); i++ {
		if t[i] != '<' {
			out.WriteByte(t[i])
			continue
		}
		j := strings.IndexByte(t[i:], '>')
		if j < 0 {
			out.WriteString(t[i:])
			break
		}
		ph := t[i+1 : i+j]
		v, ok := b.s.Vars[ph]
		if !ok {
			b.errorf(line, field, "key template %q of caller %s needs <%s>: set vars.%s", t, b.caller.Name, ph, ph)
			return "", false
		}
		out.WriteString(v)
		i += j
	}
	return out.String(), true
}

// keyRef resolves a key reference: a key name of the caller's templates, or
// else a literal key (with ${...} expanded).
func (b *binder) keyRef(ref string, line int, field string) string {
	if b.caller != nil {
		if _, ok := b.caller.Template(ref); ok {
			k, _ := b.template(ref, line, field)
			b.keys[k] = true
			return k
		}
	}
	k := b.expand(ref, line, field)
	if k == "" {
		b.errorf(line, field, "empty key name")
	}
	b.keys[k] = true
	return k
}

// expand replaces ${var}, ${token}, ${<worker>.token} and ${key.<name>};
// "$${" is a literal "${".
func (b *binder) expand(s string, line int, field string) string {
	if !strings.Contains(s, "${") {
		return s
	}
	var out strings.Builder
	for i := 0; i < len(s); i++ {
		if strings.HasPrefix(s[i:], "$${") {
			out.WriteString("${")
			i += 2
			continue
		}
		if !strings.HasPrefix(s[i:], "${") {
			out.WriteByte(s[i])
			continue
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			b.errorf(line, field, "unclosed ${ in %q", s)
			return s
		}
		ref := s[i+2 : i+j]
		v, ok := b.lookup(ref, line, field)
		if !ok {
			return s
		}
		out.WriteString(v)
		i += j
	}
	return out.String()
}

func (b *binder) lookup(ref string, line int, field string) (string, bool) {
	if v, ok := b.s.Vars[ref]; ok {
		return v, true
	}
	if ref == "token" {
		if b.worker == nil {
			b.errorf(line, field, "${token} needs the step's worker: set worker:")
			return "", false
		}
		return b.worker.Token, true
	}
	if name, ok := strings.CutPrefix(ref, "key."); ok {
		if k, ok := b.template(name, line, field); ok {
			b.keys[k] = true
			return k, true
		}
		if b.caller == nil {
			b.errorf(line, field, "${%s}: no caller: set caller: to use key templates", ref)
		} else {
			b.errorf(line, field, "${%s}: caller %s has no key %q", ref, b.caller.Name, name)
		}
		return "", false
	}
	if w, ok := strings.CutSuffix(ref, ".token"); ok {
		for _, wk := range b.s.Workers {
			if wk.Name == w {
				return wk.Token, true
			}
		}
		b.errorf(line, field, "${%s}: unknown worker %q", ref, w)
		return "", false
	}
	b.errorf(line, field, "unknown reference ${%s}: want a var, token, <worker>.token or key.<name>", ref)
	return "", false
}

func (b *binder) call(st *Step, field string) (keys, args []string) {
	sc := b.m.Script(st.Script)
	if sc == nil {
		b.errorf(st.callLine, field+".call", "unknown script %q%s: the manifest declares %s", st.Script, b.didYouMean(st.Script), b.scriptNames())
		return nil, nil
	}
	switch {
	case st.KeyArgs != nil:
		for i, k := range st.KeyArgs {
			k = b.expand(k, st.Line, fmt.Sprintf("%s.keys[%d]", field, i+1))
			b.keys[k] = true
			keys = append(keys, k)
		}
	default:
		for name := range st.KeyMap {
			if !contains(sc.Keys, name) {
				b.errorf(st.argLines["key:"+name], field+".keys."+name, "script %s has no key %q (keys: %s)", sc.Name, name, strings.Join(sc.Keys, ", "))
			}
		}
		for _, name := range sc.Keys {
			if lit, ok := st.KeyMap[name]; ok {
				k := b.expand(lit, st.argLines["key:"+name], field+".keys."+name)
				b.keys[k] = true
				keys = append(keys, k)
				continue
			}
			k, ok := b.template(name, st.Line, field)
			if !ok {
				if b.caller == nil {
					b.errorf(st.Line, field+".keys", "key %q of script %s: no caller to take its template from; set caller: or keys:", name, sc.Name)
				} else if _, has := b.caller.Template(name); !has {
					b.errorf(st.Line, field+".keys", "caller %s has no template for key %q of script %s", b.caller.Name, name, sc.Name)
				}
				continue
			}
			b.keys[k] = true
			keys = append(keys, k)
		}
	}
	switch {
	case st.ArgList != nil:
		for i, a := range st.ArgList {
			args = append(args, b.expand(a, st.Line, fmt.Sprintf("%s.args[%d]", field, i+1)))
		}
	default:
		for name := range st.ArgMap {
			if !contains(sc.Args, name) {
				b.errorf(st.argLines[name], field+".args."+name, "script %s has no arg %q (args: %s)", sc.Name, name, strings.Join(sc.Args, ", "))
			}
		}
		for _, name := range sc.Args {
			if v, ok := st.ArgMap[name]; ok {
				args = append(args, b.expand(v, st.argLines[name], field+".args."+name))
				continue
			}
			if name == "token" && b.worker != nil {
				args = append(args, b.worker.Token)
				continue
			}
			b.errorf(st.Line, field+".args", "missing arg %q of script %s (a list of args sends exactly what is written)", name, sc.Name)
		}
	}
	return keys, args
}

func (b *binder) expect(e *Expect, field string) *boundExpect {
	if e == nil {
		return nil
	}
	be := &boundExpect{line: e.Line, publishedSet: e.PublishedSet}
	for i, m := range e.Published {
		pf := fmt.Sprintf("%s.published[%d]", field, i+1)
		be.published = append(be.published, Published{Channel: b.expand(m.Channel, m.Line, pf+".channel"), Message: b.expand(m.Message, m.Line, pf+".message"), Line: m.Line})
	}
	if e.Reply != nil {
		be.reply = b.replySpec(e.Reply, field+".reply")
	}
	for i, c := range e.Clock {
		if c.Ref == "reply" {
			be.clockReply = true
			continue
		}
		be.clockKeys = append(be.clockKeys, b.keyRef(c.Ref, c.Line, fmt.Sprintf("%s.clock[%d]", field, i+1)))
	}
	for _, ke := range e.Keys {
		kf := field + ".keys." + ke.Ref
		k := b.keyRef(ke.Ref, ke.Line, kf)
		x := ke
		x.Want = b.expandContents(ke.Want, x.Line, kf)
		be.keys = append(be.keys, boundKeyExpect{key: k, KeyExpect: x})
	}
	return be
}

// expandContents expands ${...} in the expected contents of a key: a
// string, a hash's values, a list's elements, a set's and a sorted set's
// members. Names of hash fields are taken literally.
func (b *binder) expandContents(k Key, line int, field string) Key {
	k.Value = b.expand(k.Value, line, field+".value")
	k.Hash = slices.Clone(k.Hash)
	for i, f := range k.Hash {
		k.Hash[i].Value = b.expand(f.Value, line, field+".hash."+f.Name)
	}
	list := func(l []string, what string) []string {
		out := slices.Clone(l)
		for i, s := range out {
			out[i] = b.expand(s, line, fmt.Sprintf("%s.%s[%d]", field, what, i+1))
		}
		return out
	}
	k.List, k.Set = list(k.List, "list"), list(k.Set, "set")
	k.ZSet = slices.Clone(k.ZSet)
	for i, m := range k.ZSet {
		k.ZSet[i].Member = b.expand(m.Member, line, field+".zset."+m.Member)
	}
	return k
}

func (b *binder) replySpec(r *ReplySpec, field string) *ReplySpec {
	out := *r
	switch r.Kind {
	case RBulk, RStatus, RError, RErrorPrefix:
		out.Str = b.expand(r.Str, r.Line, field)
	case RArray:
		out.Elems = make([]*ReplySpec, len(r.Elems))
		for i, e := range r.Elems {
			out.Elems[i] = b.replySpec(e, fmt.Sprintf("%s[%d]", field, i+1))
		}
	}
	return &out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
