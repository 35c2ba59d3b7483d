package manifest

import (
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/scriptctl/scriptctl/contract"
	"github.com/scriptctl/scriptctl/internal/yamlnode"
	"gopkg.in/yaml.v3"
)

// reply reads a script's reply contract: a string in the reply type
// language (package contract), reported at its line and column.
func (p *parser) reply(s *Script, n *yaml.Node, field string) {
	v := yamlnode.Deref(n)
	if !isString(v) && !(v.Kind == yaml.ScalarNode && v.Tag == "!!int") {
		p.errorf(n, field, "must be a reply type written as a string (quote it), not %s; for example: \"1 | 0\" or '[\"acquired\", string] | [\"busy\", integer]'", yamlnode.Describe(n))
		return
	}
	s.ReplyLine = n.Line
	t, err := contract.Parse(v.Value)
	if err != nil {
		e := &Error{File: p.file, Line: n.Line, Col: n.Column, Field: field, Msg: "invalid reply type: " + err.Error()}
		var se *contract.SyntaxError
		if errors.As(err, &se) {
			e.Msg = "invalid reply type: " + se.Msg
			if v.Style&(yaml.LiteralStyle|yaml.FoldedStyle) == 0 && !strings.ContainsRune(v.Value, '\n') {
				// One line: the type starts at the node, after its quote.
				off := 0
				if v.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0 {
					off = 1
				}
				if v.Style&yaml.DoubleQuotedStyle == 0 || !strings.ContainsAny(v.Value, "\\\"") {
					e.Col = n.Column + off + se.Col - 1
				}
			} else {
				e.Msg += fmt.Sprintf(" (column %d of the type)", se.Col)
			}
		}
		p.errs = append(p.errs, e)
		return
	}
	s.Reply = t
}

// BindingLanguages are the languages gen writes bindings for.
var BindingLanguages = []string{"go", "ts", "python"}

// bindings reads the bindings mapping: language -> folder relative to the
// manifest.
func (p *parser) bindings(n *yaml.Node) {
	p.m.Bindings = map[string]string{}
	for _, kv := range p.pairs(n, "bindings") {
		lang := yamlnode.Deref(kv[0]).Value
		field := "bindings." + lang
		found := false
		for _, l := range BindingLanguages {
			found = found || l == lang
		}
		if !found {
			p.errorf(kv[0], field, "unknown binding language %q: want one of %s", lang, strings.Join(BindingLanguages, ", "))
			continue
		}
		dir := p.str(kv[1], field)
		switch {
		case dir == "":
			if isString(yamlnode.Deref(kv[1])) {
				p.errorf(kv[1], field, "must not be empty")
			}
			continue
		case filepath.IsAbs(dir) || strings.HasPrefix(dir, "/"):
			p.errorf(kv[1], field, "%s is an absolute path: write it relative to the manifest", dir)
			continue
		}
		if _, err := Inside(p.m.Dir, dir); err != nil {
			p.errorf(kv[1], field, "%v", err)
			continue
		}
		p.m.Bindings[lang] = dir
	}
}

// BindingLangs returns the languages of m.Bindings, sorted.
func (m *Manifest) BindingLangs() []string {
	out := make([]string, 0, len(m.Bindings))
	for l := range m.Bindings {
		out = append(out, l)
	}
	sort.Strings(out)
	return out
}
