package explore

import (
	"fmt"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/scriptctl/scriptctl/internal/lazy"
	"github.com/scriptctl/scriptctl/internal/yamlnode"
)

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
		for _, m := range refPattern.Get().FindAllStringSubmatch(r.text, -1) {
			if msg := p.checkRef(m[1], r.state); msg != "" {
				p.errorf(r.n, r.field, "${%s}: %s", m[1], msg)
			}
		}
		if strings.Count(r.text, "${") != len(refPattern.Get().FindAllString(r.text, -1)) {
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
