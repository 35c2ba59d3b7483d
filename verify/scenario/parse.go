package scenario

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/scriptctl/scriptctl/internal/safefile"
	"github.com/scriptctl/scriptctl/internal/yamlnode"
	"github.com/scriptctl/scriptctl/manifest"
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
