package scenario

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/scriptctl/scriptctl/internal/safefile"
	"github.com/scriptctl/scriptctl/internal/yamlnode"
	"github.com/scriptctl/scriptctl/manifest"
	"github.com/scriptctl/scriptctl/verify"
	"gopkg.in/yaml.v3"
)

// MaxFileSize bounds a scenario file, and a --state file of eval.
const MaxFileSize = 16 << 20

// Load reads and parses the scenario file at path and reads the control
// scripts it names (relative to the file's folder), which must stay inside
// the file's folder. It does not bind the scenario to a manifest: call Bind.
func Load(path string) (*Scenario, error) { return LoadIn(filepath.Dir(path), path) }

// LoadIn is Load with the folder the control scripts must stay inside:
// the manifest's folder, for a scenario beside a manifest.
func LoadIn(root, path string) (*Scenario, error) {
	data, err := safefile.Read(path, MaxFileSize)
	if err != nil {
		return nil, fmt.Errorf("read scenario: %w", err)
	}
	p := &parser{file: path}
	s := p.parse(data)
	if len(p.errs) > 0 {
		if s == nil {
			return nil, p.errs
		}
		// Keep what parsed, so LoadAll can report the names the manifest
		// does not know in the same round as the malformed fields.
		return nil, &partialError{Errors: p.errs, partial: s}
	}
	var errs Errors
	for i := range s.Controls {
		c := &s.Controls[i]
		// The control must stay inside root, links followed: checked
		// before anything is opened.
		full, err := controlInside(root, path, c.File)
		if err != nil {
			errs = append(errs, &Error{File: path, Line: c.Line, Field: "control." + c.Script, Msg: err.Error()})
			continue
		}
		src, err := manifest.ReadScriptFile(full)
		if err != nil {
			errs = append(errs, &Error{File: path, Line: c.Line, Field: "control." + c.Script, Msg: fmt.Sprintf("cannot read %s: %v", c.File, err)})
			continue
		}
		c.Source = src
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return s, nil
}

// partialError is a scenario's parse errors with the part that parsed.
type partialError struct {
	Errors
	partial *Scenario
}

func (e *partialError) Unwrap() error { return e.Errors }

// bindPartial binds what parsed of a malformed scenario and returns the
// binding problems on fields that parsed without error (a field with a
// parse error is not reported twice). A partial scenario may miss what Bind
// relies on; a panic then yields no more problems.
func bindPartial(e *partialError, m *manifest.Manifest) (out Errors) {
	defer func() {
		if recover() != nil {
			out = nil
		}
	}()
	err := e.partial.Bind(m)
	var bes Errors
	if !errors.As(err, &bes) {
		return nil
	}
	for _, be := range bes {
		dup := false
		for _, pe := range e.Errors {
			if pe.Field != "" && (be.Field == pe.Field || strings.HasPrefix(be.Field, pe.Field+".") || strings.HasPrefix(be.Field, pe.Field+"[") || strings.HasPrefix(pe.Field, be.Field+".")) {
				dup = true
			}
		}
		if !dup {
			out = append(out, be)
		}
	}
	return out
}

// Parse parses scenario data as if read from file. Every problem is
// reported, each with its line, as an Errors value.
func Parse(file string, data []byte) (*Scenario, error) {
	p := &parser{file: file}
	s := p.parse(data)
	if len(p.errs) > 0 {
		return nil, p.errs
	}
	return s, nil
}

// ParseKeys parses a keyspace document: a mapping from key name to
//
//	value: <string>                 a string key, or
//	hash: {field: value, ...}       a hash key (fields in order), or
//	list: [element, ...]            a list key (head first), or
//	set: [member, ...]              a set key, or
//	zset: [[member, score], ...]    a sorted set key (or {member: score}),
//	ttl_ms: <ms>                    optional remaining time to live
//
// the format of a scenario's "keys:" section and of "scriptctl eval
// --state". Key names are taken literally.
func ParseKeys(file string, data []byte) ([]Key, error) {
	p := &parser{file: file}
	root := p.document(data)
	var keys []Key
	if root != nil {
		if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
			return nil, nil
		}
		keys = p.keys(root, "")
	}
	if len(p.errs) > 0 {
		return nil, p.errs
	}
	return keys, nil
}

type parser struct {
	file string
	errs Errors
}

func (p *parser) errorf(n *yaml.Node, field, format string, args ...any) {
	e := &Error{File: p.file, Field: field, Msg: fmt.Sprintf(format, args...)}
	if n != nil {
		e.Line, e.Col = n.Line, n.Column
	}
	p.errs = append(p.errs, e)
}

// document decodes exactly one YAML document and returns its root node, or
// nil after reporting the problem.
func (p *parser) document(data []byte) *yaml.Node {
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		if err == io.EOF {
			p.errorf(nil, "", "empty file")
			return nil
		}
		p.yamlError(err, data)
		return nil
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		p.errorf(&extra, "", "more than one YAML document: keep one per file")
		return nil
	} else if err != io.EOF {
		p.yamlError(err, data)
		return nil
	}
	if len(doc.Content) == 0 {
		p.errorf(&doc, "", "empty document")
		return nil
	}
	if hasAlias(doc.Content[0], 0) {
		p.errorf(doc.Content[0], "", "YAML anchors and aliases are not supported: write each value out")
		return nil
	}
	return doc.Content[0]
}

func hasAlias(n *yaml.Node, depth int) bool {
	if n.Kind == yaml.AliasNode || n.Anchor != "" || depth > 200 {
		return true
	}
	for _, c := range n.Content {
		if hasAlias(c, depth+1) {
			return true
		}
	}
	return false
}

func (p *parser) yamlError(err error, data []byte) {
	var te *yaml.TypeError
	if errors.As(err, &te) {
		for _, msg := range te.Errors {
			p.errs = append(p.errs, &Error{File: p.file, Msg: msg})
		}
		return
	}
	msg := err.Error()
	line := 0
	if rest, ok := strings.CutPrefix(msg, "yaml: line "); ok {
		if i := strings.Index(rest, ":"); i > 0 {
			line, _ = strconv.Atoi(rest[:i])
			msg = strings.TrimSpace(rest[i+1:])
		}
	} else {
		msg = strings.TrimPrefix(msg, "yaml: ")
	}
	col := 0
	if at, c, note, ok := yamlnode.IndentContext(data, line, msg); ok {
		// yaml.v3 names where the block started; point at the line whose
		// indentation is wrong.
		msg = fmt.Sprintf("%s: %s", msg, note)
		line, col = at, c
	}
	p.errs = append(p.errs, &Error{File: p.file, Line: line, Col: col, Msg: "YAML syntax: " + msg})
}

var scenarioFields = []string{"name", "description", "caller", "vars", "keys", "subscribers", "workers", "control", "live_only", "steps"}

func (p *parser) parse(data []byte) *Scenario {
	root := p.document(data)
	if root == nil {
		return nil
	}
	s := &Scenario{File: p.file, Line: root.Line, Vars: map[string]string{}}
	base := filepath.Base(p.file)
	s.Name = strings.TrimSuffix(strings.TrimSuffix(base, ".yaml"), ".yml")
	if root.Kind != yaml.MappingNode {
		p.errorf(root, "", "a scenario must be a YAML mapping, not %s", yamlnode.Describe(root))
		return nil
	}
	f := p.fields(root, "", scenarioFields...)
	if n := f["name"]; n != nil {
		if v := p.str(n, "name"); v != "" {
			s.Name = v
		} else if n.Tag == "!!str" {
			p.errorf(n, "name", "must not be empty")
		}
	}
	if n := f["description"]; n != nil {
		s.Description = p.str(n, "description")
	}
	if n := f["live_only"]; n != nil {
		switch {
		case n.Kind == yaml.ScalarNode && n.Tag == "!!bool":
			s.LiveOnly = n.Value == "true" || n.Value == "True" || n.Value == "TRUE"
		default:
			p.errorf(n, "live_only", "want true or false, not %s", yamlnode.Describe(n))
		}
	}
	if n := f["caller"]; n != nil {
		s.Caller = p.str(n, "caller")
		s.callerLine = n.Line
	}
	if n := f["vars"]; n != nil {
		for _, kv := range p.pairs(n, "vars") {
			name := kv[0].Value
			if !isIdent(name) {
				p.errorf(kv[0], "vars."+name, "invalid variable name %q: use letters, digits and underscore", name)
			}
			if name == "token" || name == "key" {
				p.errorf(kv[0], "vars."+name, "%q is reserved", name)
			}
			s.Vars[name] = p.text(kv[1], "vars."+name)
		}
	}
	if n := f["keys"]; n != nil {
		s.Keys = p.keys(n, "keys")
	}
	if n := f["subscribers"]; n != nil {
		s.Subscribers = map[string]int64{}
		for _, kv := range p.pairs(n, "subscribers") {
			s.Subscribers[kv[0].Value] = p.posInt(kv[1], "subscribers."+kv[0].Value, true)
		}
	}
	if n := f["workers"]; n != nil {
		for _, kv := range p.pairs(n, "workers") {
			field := "workers." + kv[0].Value
			w := Worker{Name: kv[0].Value, Line: kv[0].Line}
			if !isIdent(w.Name) {
				p.errorf(kv[0], field, "invalid worker name %q: use letters, digits and underscore", w.Name)
			}
			wf := p.fields(kv[1], field, "token")
			if wf["token"] == nil {
				if kv[1].Kind == yaml.MappingNode {
					p.errorf(kv[1], field+".token", "required field is missing")
				}
			} else {
				w.Token = p.text(wf["token"], field+".token")
			}
			s.Workers = append(s.Workers, w)
		}
	}
	if n := f["control"]; n != nil {
		for _, kv := range p.pairs(n, "control") {
			field := "control." + kv[0].Value
			c := Control{Script: kv[0].Value, Line: kv[0].Line}
			c.File = p.str(kv[1], field)
			if c.File == "" && kv[1].Tag == "!!str" {
				p.errorf(kv[1], field, "must name an unsafe variant, e.g. controls/publish_unconditional.lua")
			}
			if filepath.IsAbs(c.File) {
				p.errorf(kv[1], field, "must be relative to the scenario's folder")
			}
			s.Controls = append(s.Controls, c)
		}
		if n.Kind == yaml.MappingNode && len(n.Content) == 0 {
			p.errorf(n, "control", "must replace at least one script")
		}
	}
	if n := f["steps"]; n == nil {
		p.errorf(root, "steps", "required field is missing")
	} else if n.Kind != yaml.SequenceNode {
		p.errorf(n, "steps", "must be a list, not %s", yamlnode.Describe(n))
	} else {
		if len(n.Content) == 0 {
			p.errorf(n, "steps", "at least one step is required")
		}
		for i, sn := range n.Content {
			if st := p.step(sn, fmt.Sprintf("steps[%d]", i+1)); st != nil {
				s.Steps = append(s.Steps, st)
			}
		}
	}
	p.checkWorkers(s)
	return s
}

// checkWorkers checks that steps name declared workers and that
// regressions appear exactly in control scenarios.
func (p *parser) checkWorkers(s *Scenario) {
	known := map[string]bool{}
	for _, w := range s.Workers {
		known[w.Name] = true
	}
	regressions := 0
	for i, st := range s.Steps {
		field := fmt.Sprintf("steps[%d]", i+1)
		if st.Worker != "" && !known[st.Worker] {
			p.errorf(&yaml.Node{Line: st.Line}, field+".worker", "unknown worker %q: declare it under workers", st.Worker)
		}
		if st.Regression != nil {
			regressions++
			if len(s.Controls) == 0 {
				p.errorf(&yaml.Node{Line: st.Regression.Line}, field+".regression", "only a control scenario (with a control: section) declares a regression")
			}
		}
	}
	if len(s.Controls) > 0 && regressions == 0 && len(s.Steps) > 0 {
		p.errorf(&yaml.Node{Line: s.Line}, "control", "a control scenario must declare the regression it reaches: add a regression: block to a step")
	}
}

var stepFields = []string{"name", "worker", "call", "keys", "args", "sleep_ms", "do", "expect", "regression"}

func (p *parser) step(n *yaml.Node, field string) *Step {
	if n.Kind != yaml.MappingNode {
		p.errorf(n, field, "a step must be a mapping, not %s", yamlnode.Describe(n))
		return nil
	}
	st := &Step{Line: n.Line, argLines: map[string]int{}}
	f := p.fields(n, field, stepFields...)
	if v := f["name"]; v != nil {
		st.Name = p.str(v, field+".name")
	}
	if v := f["worker"]; v != nil {
		st.Worker = p.str(v, field+".worker")
	}
	actions := 0
	for _, a := range []string{"call", "sleep_ms", "do"} {
		if f[a] != nil {
			actions++
		}
	}
	if actions != 1 {
		p.errorf(n, field, "a step does exactly one of call, sleep_ms or do (found %d)", actions)
	}
	switch {
	case f["call"] != nil:
		st.Kind = StepCall
		st.Script = p.str(f["call"], field+".call")
		st.callLine = f["call"].Line
		if v := f["keys"]; v != nil {
			st.keysSet = true
			switch v.Kind {
			case yaml.SequenceNode:
				st.KeyArgs = []string{}
				for i, c := range v.Content {
					st.KeyArgs = append(st.KeyArgs, p.text(c, fmt.Sprintf("%s.keys[%d]", field, i+1)))
				}
			case yaml.MappingNode:
				st.KeyMap = map[string]string{}
				for _, kv := range p.pairs(v, field+".keys") {
					st.KeyMap[kv[0].Value] = p.text(kv[1], field+".keys."+kv[0].Value)
					st.argLines["key:"+kv[0].Value] = kv[0].Line
				}
			default:
				p.errorf(v, field+".keys", "must be a list of keys or a mapping from key name to key, not %s", yamlnode.Describe(v))
			}
		}
		if v := f["args"]; v != nil {
			switch v.Kind {
			case yaml.SequenceNode:
				st.argsList = true
				st.ArgList = []string{}
				for i, c := range v.Content {
					st.ArgList = append(st.ArgList, p.text(c, fmt.Sprintf("%s.args[%d]", field, i+1)))
				}
			case yaml.MappingNode:
				st.ArgMap = map[string]string{}
				for _, kv := range p.pairs(v, field+".args") {
					st.ArgMap[kv[0].Value] = p.text(kv[1], field+".args."+kv[0].Value)
					st.argLines[kv[0].Value] = kv[0].Line
				}
			default:
				p.errorf(v, field+".args", "must be a list of args or a mapping from arg name to value, not %s", yamlnode.Describe(v))
			}
		}
	case f["sleep_ms"] != nil:
		st.Kind = StepSleep
		st.SleepMS = p.posInt(f["sleep_ms"], field+".sleep_ms", false)
	case f["do"] != nil:
		st.Kind = StepDo
		v := f["do"]
		if v.Kind != yaml.SequenceNode || len(v.Content) == 0 {
			p.errorf(v, field+".do", "must be a non-empty list: [COMMAND, arg, ...]")
		} else {
			for i, c := range v.Content {
				st.Command = append(st.Command, p.text(c, fmt.Sprintf("%s.do[%d]", field, i+1)))
			}
		}
	}
	if st.Kind != StepCall {
		for _, k := range []string{"keys", "args"} {
			if v := f[k]; v != nil {
				p.errorf(v, field+"."+k, "only a call step takes %s", k)
			}
		}
	}
	if v := f["expect"]; v != nil {
		st.Expect = p.expect(v, field+".expect")
		setLine(st.Expect, n, "expect")
	}
	if v := f["regression"]; v != nil {
		st.Regression = p.expect(v, field+".regression")
		setLine(st.Regression, n, "regression")
		if st.Regression != nil && st.Regression.Reply == nil && len(st.Regression.Keys) == 0 {
			p.errorf(v, field+".regression", "must check the reply or at least one key")
		}
	}
	return st
}

// setLine points e at the line of its key ("expect:"), where a reader
// looks for it, rather than at its first field.
func setLine(e *Expect, step *yaml.Node, key string) {
	if e == nil {
		return
	}
	for i := 0; i+1 < len(step.Content); i += 2 {
		if step.Content[i].Value == key {
			e.Line = step.Content[i].Line
		}
	}
}

func (p *parser) expect(n *yaml.Node, field string) *Expect {
	e := &Expect{Line: n.Line}
	f := p.fields(n, field, "reply", "keys", "published", "clock")
	if n.Kind != yaml.MappingNode {
		return nil
	}
	if v := f["clock"]; v != nil {
		for i, c := range p.seq(v, field+".clock") {
			ref := p.str(c, fmt.Sprintf("%s.clock[%d]", field, i+1))
			if ref == "" && c.Tag == "!!str" {
				p.errorf(c, fmt.Sprintf("%s.clock[%d]", field, i+1), "must not be empty: want reply or a key")
			}
			e.Clock = append(e.Clock, ClockRef{Ref: ref, Line: c.Line})
		}
	}
	if v := f["published"]; v != nil {
		e.PublishedSet = true
		for i, c := range p.seq(v, field+".published") {
			pf := fmt.Sprintf("%s.published[%d]", field, i+1)
			mf := p.fields(c, pf, "channel", "message")
			m := Published{Line: c.Line}
			for _, name := range []string{"channel", "message"} {
				if mf[name] == nil {
					if c.Kind == yaml.MappingNode {
						p.errorf(c, pf+"."+name, "required field is missing")
					}
					continue
				}
				t := p.text(mf[name], pf+"."+name)
				if name == "channel" {
					m.Channel = t
				} else {
					m.Message = t
				}
			}
			e.Published = append(e.Published, m)
		}
	}
	if v := f["reply"]; v != nil {
		e.Reply = p.reply(v, field+".reply", 0)
	}
	if v := f["keys"]; v != nil {
		for _, kv := range p.pairs(v, field+".keys") {
			if ke := p.keyExpect(kv[0], kv[1], field+".keys."+kv[0].Value); ke != nil {
				e.Keys = append(e.Keys, *ke)
			}
		}
	}
	return e
}

func (p *parser) keyExpect(k, v *yaml.Node, field string) *KeyExpect {
	ke := &KeyExpect{Ref: k.Value, Line: k.Line}
	if v.Kind == yaml.ScalarNode && v.Tag == "!!str" && v.Value == "absent" {
		ke.Absent = true
		return ke
	}
	if v.Kind != yaml.MappingNode {
		p.errorf(v, field, `must be "absent" or a mapping with the contents (value, hash, list, set, zset or stream) and/or ttl_ms, not %s`, yamlnode.Describe(v))
		return nil
	}
	f := p.fields(v, field, append(typeFields, "ttl_ms", "field_ttl_ms")...)
	p.contents(f, field, &ke.Want)
	if n := f["ttl_ms"]; n != nil {
		ke.TTL = p.ttl(n, field+".ttl_ms", true)
	}
	if n := f["field_ttl_ms"]; n != nil {
		ke.FieldTTL = map[string]*TTLSpec{}
		for _, kv := range p.pairs(n, field+".field_ttl_ms") {
			ke.FieldTTL[kv[0].Value] = p.ttl(kv[1], yamlnode.Join(field+".field_ttl_ms", kv[0].Value), true)
		}
	}
	if len(v.Content) == 0 {
		p.errorf(v, field, "check at least one of value, hash, list, set, zset, stream or ttl_ms, or write absent")
	}
	return ke
}

// ttl parses an expected TTL: 150, "none" (no expiry) or {min: a, max: b}.
func (p *parser) ttl(n *yaml.Node, field string, allowNone bool) *TTLSpec {
	switch {
	case n.Kind == yaml.ScalarNode && n.Tag == "!!str" && n.Value == "none" && allowNone:
		return &TTLSpec{None: true}
	case n.Kind == yaml.ScalarNode:
		v := p.posInt(n, field, true)
		return &TTLSpec{Min: v, Max: v}
	case n.Kind == yaml.MappingNode:
		f := p.fields(n, field, "min", "max")
		t := &TTLSpec{Min: 0, Max: math.MaxInt64}
		if f["min"] == nil && f["max"] == nil {
			p.errorf(n, field, "a TTL range needs min and/or max")
		}
		if v := f["min"]; v != nil {
			t.Min = p.posInt(v, field+".min", true)
		}
		if v := f["max"]; v != nil {
			t.Max = p.posInt(v, field+".max", true)
		}
		if t.Min > t.Max {
			p.errorf(n, field, "min %d is above max %d", t.Min, t.Max)
		}
		return t
	}
	p.errorf(n, field, `must be milliseconds, "none" or {min: ms, max: ms}, not %s`, yamlnode.Describe(n))
	return nil
}

// reply parses an expected reply:
//
//	1                  integer        "text"/text  bulk string
//	null               nil            [a, b]       array
//	{status: OK}       status         {error: ERR x}  error (exact text)
//	{error_prefix: WRONGTYPE}         an error whose text starts so
//	{ttl_ms: 150}      an integer that is a remaining TTL (exact or {min,max})
func (p *parser) reply(n *yaml.Node, field string, depth int) *ReplySpec {
	r := &ReplySpec{Line: n.Line}
	if depth > 32 {
		p.errorf(n, field, "reply nested too deep")
		return r
	}
	switch n.Kind {
	case yaml.ScalarNode:
		switch n.Tag {
		case "!!null":
			r.Kind = RNil
		case "!!int":
			v, err := strconv.ParseInt(n.Value, 10, 64)
			if err != nil {
				p.errorf(n, field, "integer reply %s is not a decimal 64-bit integer", n.Value)
			}
			r.Kind, r.Int = RInt, v
		case "!!str":
			r.Kind, r.Str = RBulk, n.Value
		default:
			p.errorf(n, field, "%s is not a Redis reply: quote it for a bulk string", yamlnode.Describe(n))
		}
	case yaml.SequenceNode:
		r.Kind = RArray
		r.Elems = []*ReplySpec{}
		for i, c := range n.Content {
			r.Elems = append(r.Elems, p.reply(c, fmt.Sprintf("%s[%d]", field, i+1), depth+1))
		}
	case yaml.MappingNode:
		pairs := p.pairs(n, field)
		if len(pairs) != 1 {
			p.errorf(n, field, "a typed reply is one of {status: s}, {error: s}, {error_prefix: s}, {ttl_ms: ms}")
			return r
		}
		k, v := pairs[0][0], pairs[0][1]
		switch k.Value {
		case "status":
			r.Kind, r.Str = RStatus, p.text(v, field+".status")
		case "error":
			r.Kind, r.Str = RError, p.text(v, field+".error")
			if r.Str == "" {
				p.errorf(v, field+".error", "must not be empty")
			}
		case "error_prefix":
			r.Kind, r.Str = RErrorPrefix, p.text(v, field+".error_prefix")
			if r.Str == "" {
				p.errorf(v, field+".error_prefix", "must not be empty")
			}
		case "ttl_ms":
			r.Kind = RTTL
			if t := p.ttl(v, field+".ttl_ms", false); t != nil {
				r.TTL = *t
			}
		default:
			p.errorf(k, field+"."+k.Value, "unknown reply type %q: want status, error, error_prefix or ttl_ms", k.Value)
		}
	}
	return r
}

// keys parses a keyspace mapping (see ParseKeys).
func (p *parser) keys(n *yaml.Node, field string) []Key {
	out := []Key{}
	for _, kv := range p.pairs(n, field) {
		kf := yamlnode.Join(field, kv[0].Value)
		k := Key{Name: kv[0].Value, Line: kv[0].Line, PTTL: -1}
		if k.Name == "" {
			p.errorf(kv[0], kf, "empty key name")
		}
		f := p.fields(kv[1], kf, append(typeFields, "ttl_ms", "field_ttl_ms")...)
		if !p.contents(f, kf, &k) && kv[1].Kind == yaml.MappingNode {
			p.errorf(kv[1], kf, "needs its contents: value (a string), hash (a mapping), list, set, zset or stream")
		}
		if v := f["ttl_ms"]; v != nil {
			k.PTTL = p.posInt(v, kf+".ttl_ms", false)
		}
		if v := f["field_ttl_ms"]; v != nil {
			k.FieldTTL = p.fieldTTLs(v, kf+".field_ttl_ms", k)
		}
		out = append(out, k)
	}
	return out
}

// fieldTTLs parses a hash's {field: ms, ...}: the remaining ms of fields
// the hash has (hash-field expiry).
func (p *parser) fieldTTLs(n *yaml.Node, field string, k Key) map[string]int64 {
	if k.Type != "hash" {
		p.errorf(n, field, "goes with hash only")
		return nil
	}
	out := map[string]int64{}
	for _, kv := range p.pairs(n, field) {
		ff := yamlnode.Join(field, kv[0].Value)
		if !slices.ContainsFunc(k.Hash, func(f verify.Field) bool { return f.Name == kv[0].Value }) {
			p.errorf(kv[0], ff, "the hash has no field %q", kv[0].Value)
			continue
		}
		out[kv[0].Value] = p.posInt(kv[1], ff, false)
	}
	return out
}

// typeFields are the fields of a key that give its type and contents, one
// per key.
var typeFields = []string{"value", "hash", "list", "set", "zset", "stream"}

// contents parses the field of f that gives a key's type and contents into
// k, and reports whether there is one.
func (p *parser) contents(f map[string]*yaml.Node, field string, k *Key) bool {
	var given []string
	for _, t := range typeFields {
		if f[t] != nil {
			given = append(given, t)
		}
	}
	if len(given) == 0 {
		return false
	}
	if len(given) > 1 {
		p.errorf(f[given[1]], field, "a key has one type: %s and %s are both given", given[0], given[1])
		return true
	}
	n, cf := f[given[0]], field+"."+given[0]
	switch given[0] {
	case "value":
		k.Type, k.Value = "string", p.text(n, cf)
	case "hash":
		k.Type, k.Hash = "hash", p.hash(n, cf)
	case "list":
		k.Type, k.List = "list", p.list(n, cf, "element", "list")
	case "set":
		k.Type, k.Set = "set", p.set(n, cf)
	case "zset":
		k.Type, k.ZSet = "zset", p.zset(n, cf)
	case "stream":
		k.Type, k.Stream = "stream", p.stream(n, cf)
	}
	return true
}

// hash parses {field: value, ...}, keeping the fields in the order written
// (HSET's order, which HGETALL answers in for a small hash).
func (p *parser) hash(n *yaml.Node, field string) []verify.Field {
	h := []verify.Field{}
	for _, kv := range p.pairs(n, field) {
		h = append(h, verify.Field{Name: kv[0].Value, Value: p.text(kv[1], field+"."+kv[0].Value)})
	}
	if n.Kind == yaml.MappingNode && len(n.Content) == 0 {
		p.errorf(n, field, "a hash needs at least one field (Redis has no empty hash)")
	}
	return h
}

// list parses [a, b, ...], strings in order: the elements (what) of a key
// of type typ.
func (p *parser) list(n *yaml.Node, field, what, typ string) []string {
	if n.Kind != yaml.SequenceNode {
		p.errorf(n, field, "must be a list of %ss, not %s", what, yamlnode.Describe(n))
		return nil
	}
	if len(n.Content) == 0 {
		p.errorf(n, field, "needs at least one %s (Redis has no empty %s)", what, typ)
	}
	out := []string{}
	for i, c := range n.Content {
		out = append(out, p.text(c, fmt.Sprintf("%s[%d]", field, i+1)))
	}
	return out
}

// set parses [a, b, ...]: members, each once.
func (p *parser) set(n *yaml.Node, field string) []string {
	out := p.list(n, field, "member", "set")
	seen := map[string]int{}
	for i, m := range out {
		if n.Content[i].Kind != yaml.ScalarNode {
			continue // already refused
		}
		if first, dup := seen[m]; dup {
			p.errorf(n.Content[i], fmt.Sprintf("%s[%d]", field, i+1), "duplicate member %q (first at line %d)", m, n.Content[first].Line)
			continue
		}
		seen[m] = i
	}
	return out
}

// zset parses [[member, score], ...] or {member: score, ...}: members, each
// once, with scores as ZADD reads them.
func (p *parser) zset(n *yaml.Node, field string) []verify.ZMember {
	type entry struct {
		member, score *yaml.Node
		field         string
	}
	var entries []entry
	switch n.Kind {
	case yaml.MappingNode:
		for _, kv := range p.pairs(n, field) { // refuses a member given twice
			entries = append(entries, entry{kv[0], kv[1], field + "." + kv[0].Value})
		}
	case yaml.SequenceNode:
		seen := map[string]int{}
		for i, c := range n.Content {
			ef := fmt.Sprintf("%s[%d]", field, i+1)
			if c.Kind != yaml.SequenceNode || len(c.Content) != 2 {
				p.errorf(c, ef, "must be a [member, score] pair, not %s", describePair(c))
				continue
			}
			m := c.Content[0]
			if first, dup := seen[m.Value]; dup && m.Kind == yaml.ScalarNode {
				p.errorf(m, ef, "duplicate member %q (first at line %d)", m.Value, first)
				continue
			}
			if m.Kind == yaml.ScalarNode {
				seen[m.Value] = m.Line
			}
			entries = append(entries, entry{m, c.Content[1], ef})
		}
	default:
		p.errorf(n, field, "must be a list of [member, score] pairs or a mapping from member to score, not %s", yamlnode.Describe(n))
		return []verify.ZMember{}
	}
	if len(n.Content) == 0 {
		p.errorf(n, field, "needs at least one member (Redis has no empty zset)")
	}
	out := []verify.ZMember{}
	for _, e := range entries {
		out = append(out, verify.ZMember{Member: p.text(e.member, e.field), Score: p.score(e.score, e.field)})
	}
	return out
}

func describePair(n *yaml.Node) string {
	if n.Kind == yaml.SequenceNode {
		return fmt.Sprintf("a list of %d", len(n.Content))
	}
	return yamlnode.Describe(n)
}

// score parses a sorted-set score exactly as ZADD reads its text (1, -2.5,
// 1e3, inf, -inf, 0x1p3), and YAML's own .inf and -.inf. NaN is refused,
// as ZADD refuses it.
func (p *parser) score(n *yaml.Node, field string) float64 {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!float" {
		switch strings.ToLower(n.Value) {
		case ".inf", "+.inf":
			return math.Inf(1)
		case "-.inf":
			return math.Inf(-1)
		}
	}
	if n.Kind != yaml.ScalarNode || (n.Tag != "!!str" && n.Tag != "!!int" && n.Tag != "!!float") {
		p.errorf(n, field, "the score must be a number, inf or -inf, not %s", yamlnode.Describe(n))
		return 0
	}
	f, err := ParseScore(n.Value)
	if err != nil {
		p.errorf(n, field, "%v", err)
	}
	return f
}

// fields checks that n is a mapping whose keys are among allowed, without
// duplicates, and returns each value node by key.
func (p *parser) fields(n *yaml.Node, path string, allowed ...string) map[string]*yaml.Node {
	out := map[string]*yaml.Node{}
	for _, kv := range p.pairs(n, path) {
		ok := false
		for _, a := range allowed {
			if kv[0].Value == a {
				ok = true
				break
			}
		}
		if !ok {
			p.errorf(kv[0], yamlnode.Join(path, kv[0].Value), "unknown field %q: want one of %s", kv[0].Value, strings.Join(allowed, ", "))
			continue
		}
		out[kv[0].Value] = kv[1]
	}
	return out
}

// pairs returns the key/value pairs of mapping n; see yamlnode.Pairs.
func (p *parser) pairs(n *yaml.Node, path string) [][2]*yaml.Node {
	return yamlnode.Pairs(n, path, func(at *yaml.Node, field, msg string) { p.errorf(at, field, "%s", msg) })
}

func (p *parser) str(n *yaml.Node, field string) string {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!str" {
		p.errorf(n, field, "must be a string, not %s", yamlnode.Describe(n))
		return ""
	}
	return n.Value
}

// text returns a scalar's text exactly as written: 1e3 stays "1e3", 1.5
// stays "1.5". Booleans and null are rejected (quote them), because YAML
// would otherwise turn yes/no/~ into something the author did not write.
func (p *parser) text(n *yaml.Node, field string) string {
	if n.Kind != yaml.ScalarNode {
		p.errorf(n, field, "must be a scalar, not %s", yamlnode.Describe(n))
		return ""
	}
	switch n.Tag {
	case "!!str", "!!int", "!!float":
		return n.Value
	}
	p.errorf(n, field, "%s is ambiguous: quote it (\"%s\")", yamlnode.Describe(n), n.Value)
	return ""
}

// posInt parses a positive (or, with zero, non-negative) decimal integer.
func (p *parser) posInt(n *yaml.Node, field string, zero bool) int64 {
	want := "a positive integer"
	if zero {
		want = "a non-negative integer"
	}
	if n.Kind != yaml.ScalarNode || n.Tag != "!!int" {
		p.errorf(n, field, "must be %s, not %s", want, yamlnode.Describe(n))
		return 0
	}
	v, err := strconv.ParseInt(n.Value, 10, 64)
	if err != nil || v < 0 || (v == 0 && !zero) || strconv.FormatInt(v, 10) != n.Value {
		p.errorf(n, field, "must be %s, not %s", want, n.Value)
		return 0
	}
	return v
}

func isIdent(s string) bool {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return false
		}
	}
	return s != ""
}

// controlInside resolves file, written relative to the scenario at path,
// and refuses it unless it stays inside root once links are followed.
func controlInside(root, path, file string) (string, error) {
	return manifest.InsideFrom(root, path, file)
}
