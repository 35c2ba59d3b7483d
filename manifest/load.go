package manifest

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"
)

// Error is one problem found in a manifest, at a position.
type Error struct {
	File  string
	Line  int
	Col   int
	Field string // dotted path such as scripts.acquire.keys[1]; may be empty
	Msg   string
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d:%d", e.Line, e.Col)
	}
	b.WriteString(": ")
	if e.Field != "" {
		b.WriteString(e.Field)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Errors is every problem found in one manifest, in file order. Load returns
// it (as error) when the manifest is invalid.
type Errors []*Error

func (es Errors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// ErrInvalid is matched by errors.Is for any manifest validation error.
var ErrInvalid = errors.New("manifest: invalid")

func (es Errors) Is(target error) bool { return target == ErrInvalid }

// Load reads, parses and validates the manifest at path. Script files are
// read and hashed. When the manifest is invalid the error is an Errors value
// listing every problem; when the file cannot be read it is an *os.PathError.
func Load(path string) (*Manifest, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read manifest: %w", err)
	}
	return Parse(path, data)
}

// Parse parses and validates manifest data as if read from path.
func Parse(path string, data []byte) (*Manifest, error) {
	p := &parser{file: path, m: &Manifest{Path: path, Dir: filepath.Dir(path)}}
	p.parse(data)
	if len(p.errs) > 0 {
		return nil, p.errs
	}
	return p.m, nil
}

type parser struct {
	file string
	m    *Manifest
	errs Errors
}

func (p *parser) errorf(n *yaml.Node, field, format string, args ...any) {
	e := &Error{File: p.file, Field: field, Msg: fmt.Sprintf(format, args...)}
	if n != nil {
		e.Line, e.Col = n.Line, n.Column
	}
	p.errs = append(p.errs, e)
}

func (p *parser) parse(data []byte) {
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		p.yamlError(err)
		return
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		p.errorf(&doc, "", "manifest must be a YAML mapping")
		return
	}
	root := doc.Content[0]
	seen := p.fields(root, "", map[string]bool{"schema": true, "library": true, "version": true, "scripts": true, "callers": true})
	for _, req := range []string{"schema", "library", "version", "scripts"} {
		if seen[req] == nil {
			p.errorf(root, req, "required field is missing")
		}
	}
	if n := seen["schema"]; n != nil {
		p.m.Schema = p.posInt(n, "schema")
		if p.m.Schema != 0 && p.m.Schema != SchemaVersion {
			p.errorf(n, "schema", "unsupported schema %d: this scriptctl understands schema %d", p.m.Schema, SchemaVersion)
		}
	}
	if n := seen["library"]; n != nil {
		p.m.Library = p.str(n, "library")
		if p.m.Library != "" && !isLibraryName(p.m.Library) {
			p.errorf(n, "library", "invalid library name %q: use letters, digits and underscore", p.m.Library)
		}
	}
	if n := seen["version"]; n != nil {
		p.m.Version = p.posInt(n, "version")
	}
	if n := seen["scripts"]; n != nil {
		p.scripts(n)
	}
	if n := seen["callers"]; n != nil {
		p.callers(n)
	}
}

func (p *parser) yamlError(err error) {
	var te *yaml.TypeError
	if errors.As(err, &te) {
		for _, msg := range te.Errors {
			p.errs = append(p.errs, &Error{File: p.file, Msg: msg})
		}
		return
	}
	// yaml.v3 syntax errors read "yaml: line N: message".
	msg := err.Error()
	line := 0
	if rest, ok := strings.CutPrefix(msg, "yaml: line "); ok {
		if i := strings.Index(rest, ":"); i > 0 {
			fmt.Sscanf(rest[:i], "%d", &line)
			msg = strings.TrimSpace(rest[i+1:])
		}
	} else {
		msg = strings.TrimPrefix(msg, "yaml: ")
	}
	p.errs = append(p.errs, &Error{File: p.file, Line: line, Col: 1, Msg: "YAML syntax: " + msg})
}

// fields checks that n is a mapping with string keys from allowed, without
// duplicates, and returns the value node of each key present.
func (p *parser) fields(n *yaml.Node, path string, allowed map[string]bool) map[string]*yaml.Node {
	out := map[string]*yaml.Node{}
	for _, kv := range p.pairs(n, path) {
		k, v := kv[0], kv[1]
		field := join(path, k.Value)
		if allowed != nil && !allowed[k.Value] {
			p.errorf(k, field, "unknown field %q", k.Value)
			continue
		}
		out[k.Value] = v
	}
	return out
}

// pairs returns the key/value node pairs of mapping n, reporting a non-mapping,
// non-string keys and duplicate keys.
func (p *parser) pairs(n *yaml.Node, path string) [][2]*yaml.Node {
	if n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if n.Kind != yaml.MappingNode {
		p.errorf(n, path, "must be a mapping, not %s", kindName(n))
		return nil
	}
	var out [][2]*yaml.Node
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode || (k.Tag != "!!str" && k.Tag != "!!int") {
			p.errorf(k, path, "keys must be strings")
			continue
		}
		if line, dup := seen[k.Value]; dup {
			p.errorf(k, join(path, k.Value), "duplicate key %q (first at line %d)", k.Value, line)
			continue
		}
		seen[k.Value] = k.Line
		out = append(out, [2]*yaml.Node{k, v})
	}
	return out
}

func (p *parser) str(n *yaml.Node, field string) string {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!str" {
		p.errorf(n, field, "must be a string, not %s", kindName(n))
		return ""
	}
	return n.Value
}

func (p *parser) posInt(n *yaml.Node, field string) int {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!int" {
		p.errorf(n, field, "must be a positive integer, not %s", kindName(n))
		return 0
	}
	var v int
	if _, err := fmt.Sscanf(n.Value, "%d", &v); err != nil || v <= 0 || fmt.Sprint(v) != n.Value {
		p.errorf(n, field, "must be a positive integer, not %s", n.Value)
		return 0
	}
	return v
}

func (p *parser) strList(n *yaml.Node, field string) []string {
	if n.Kind != yaml.SequenceNode {
		p.errorf(n, field, "must be a list, not %s", kindName(n))
		return nil
	}
	out := make([]string, 0, len(n.Content))
	for i, c := range n.Content {
		out = append(out, p.str(c, fmt.Sprintf("%s[%d]", field, i)))
	}
	return out
}

func (p *parser) scripts(n *yaml.Node) {
	pairs := p.pairs(n, "scripts")
	if n.Kind == yaml.MappingNode && len(n.Content) == 0 {
		p.errorf(n, "scripts", "at least one script is required")
	}
	for _, kv := range pairs {
		k, v := kv[0], kv[1]
		field := "scripts." + k.Value
		s := &Script{Name: k.Value, Line: k.Line}
		if !isScriptName(s.Name) {
			p.errorf(k, field, "invalid script name %q: use lowercase letters, digits and underscore", s.Name)
		}
		f := p.fields(v, field, map[string]bool{"file": true, "keys": true, "args": true, "flags": true})
		if f["file"] == nil {
			p.errorf(v, field+".file", "required field is missing")
		} else {
			s.File = p.str(f["file"], field+".file")
		}
		if f["keys"] != nil {
			s.Keys = p.names(f["keys"], field+".keys")
		}
		if f["args"] != nil {
			s.Args = p.names(f["args"], field+".args")
		}
		if f["flags"] != nil {
			s.Flags = p.strList(f["flags"], field+".flags")
			for i, fl := range s.Flags {
				if fl != "" && !isFlag(fl) {
					p.errorf(f["flags"].Content[i], fmt.Sprintf("%s.flags[%d]", field, i), "unknown flag %q: want one of %s", fl, strings.Join(ScriptFlags, ", "))
				}
			}
		}
		if s.File != "" {
			p.readScript(s, f["file"], f["flags"], field)
		}
		p.m.Scripts = append(p.m.Scripts, s)
	}
}

// names reads a list of unique identifiers (key or arg names).
func (p *parser) names(n *yaml.Node, field string) []string {
	list := p.strList(n, field)
	seen := map[string]bool{}
	for i, name := range list {
		if name == "" && n.Content[i].Tag != "!!str" {
			continue // already reported
		}
		if !isScriptName(name) {
			p.errorf(n.Content[i], fmt.Sprintf("%s[%d]", field, i), "invalid name %q: use lowercase letters, digits and underscore", name)
		}
		if seen[name] {
			p.errorf(n.Content[i], fmt.Sprintf("%s[%d]", field, i), "duplicate name %q", name)
		}
		seen[name] = true
	}
	return list
}

func (p *parser) readScript(s *Script, fileNode, flagsNode *yaml.Node, field string) {
	s.Path = filepath.Join(p.m.Dir, filepath.FromSlash(s.File))
	data, err := os.ReadFile(s.Path)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		p.errorf(fileNode, field+".file", "cannot read %s: %v", s.File, err)
		return
	}
	if msg := textProblem(data); msg != "" {
		p.errorf(fileNode, field+".file", "%s is not a Lua script: %s", s.File, msg)
		return
	}
	s.Source = data
	s.SHA = SHA1Hex(data)
	flags, ok, err := Shebang(data)
	if err != nil {
		p.errorf(fileNode, field+".file", "%s:1: %v", s.File, err)
		return
	}
	if ok && !sameSet(flags, s.Flags) {
		at := fileNode
		if flagsNode != nil {
			at = flagsNode
		}
		p.errorf(at, field+".flags", "manifest flags [%s] differ from the shebang flags [%s] in %s", strings.Join(s.Flags, " "), strings.Join(flags, " "), s.File)
	}
}

func (p *parser) callers(n *yaml.Node) {
	for _, kv := range p.pairs(n, "callers") {
		k, v := kv[0], kv[1]
		field := "callers." + k.Value
		c := &Caller{Name: k.Value, Line: k.Line, Samples: map[string][]string{}}
		if !isScriptName(c.Name) {
			p.errorf(k, field, "invalid caller name %q: use lowercase letters, digits and underscore", c.Name)
		}
		f := p.fields(v, field, map[string]bool{"scripts": true, "keys": true, "samples": true})
		if f["scripts"] == nil {
			p.errorf(v, field+".scripts", "required field is missing")
		} else {
			c.Scripts = p.strList(f["scripts"], field+".scripts")
		}
		need := map[string]bool{}
		for i, name := range c.Scripts {
			s := p.m.Script(name)
			if s == nil {
				p.errorf(f["scripts"].Content[i], fmt.Sprintf("%s.scripts[%d]", field, i), "unknown script %q", name)
				continue
			}
			for _, key := range s.Keys {
				need[key] = true
			}
		}
		if f["keys"] == nil {
			if len(need) > 0 {
				p.errorf(v, field+".keys", "required field is missing")
			}
		} else {
			for _, kv := range p.pairs(f["keys"], field+".keys") {
				kf := field + ".keys." + kv[0].Value
				t := p.str(kv[1], kf)
				if !need[kv[0].Value] {
					p.errorf(kv[0], kf, "key %q is not declared by any of the caller's scripts", kv[0].Value)
				}
				if msg := templateProblem(t); msg != "" {
					p.errorf(kv[1], kf, "%s", msg)
				}
				c.Keys = append(c.Keys, KeyTemplate{Name: kv[0].Value, Template: t, Line: kv[1].Line, Col: kv[1].Column})
			}
			for _, s := range c.Scripts {
				if sc := p.m.Script(s); sc != nil {
					for _, key := range sc.Keys {
						if _, ok := c.Template(key); !ok && need[key] {
							p.errorf(f["keys"], field+".keys", "no template for key %q of script %s", key, s)
							need[key] = false
						}
					}
				}
			}
		}
		if f["samples"] != nil {
			for _, kv := range p.pairs(f["samples"], field+".samples") {
				c.Samples[kv[0].Value] = p.strList(kv[1], field+".samples."+kv[0].Value)
			}
		}
		p.m.Callers = append(p.m.Callers, c)
	}
}
