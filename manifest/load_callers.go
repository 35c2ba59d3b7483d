package manifest

import (
	"fmt"
	"sort"
	"strings"

	"github.com/scriptctl/scriptctl/internal/yamlnode"
	"gopkg.in/yaml.v3"
)

var callerFields = []string{"scripts", "keys", "samples", "placeholders"}

func (p *parser) callers(n *yaml.Node) {
	for _, kv := range p.pairs(n, "callers") {
		k, v := kv[0], kv[1]
		name := yamlnode.Deref(k).Value
		field := "callers." + name
		c := &Caller{Name: name, Line: k.Line, Scripts: []string{}, Samples: map[string][]string{}, Placeholders: map[string]Placeholder{}}
		p.m.Callers = append(p.m.Callers, c)
		if !isCallerName(name) {
			p.errorf(k, field, "invalid caller name %q: use lowercase letters, digits, underscore and hyphen", name)
		}
		f := p.fields(v, field, callerFields)
		if yamlnode.Deref(v).Kind != yaml.MappingNode {
			continue
		}
		// need maps each key name the caller's scripts declare to the
		// scripts that declare it, in order.
		need := map[string][]string{}
		var needOrder []string
		// scriptsOK is false when the caller's scripts, or their keys,
		// are not all known: the key bindings cannot be checked then, and
		// reporting each one would only repeat that problem.
		scriptsOK := f["scripts"] != nil
		if f["scripts"] == nil {
			p.errorf(k, field+".scripts", "required field is missing")
		} else if list, ok := p.strList(f["scripts"], field+".scripts"); !ok {
			scriptsOK = false
		} else {
			if len(list) == 0 {
				p.errorf(f["scripts"], field+".scripts", "at least one script is required")
				scriptsOK = false
			}
			seen := map[string]bool{}
			for i, sn := range list {
				c0 := item(f["scripts"], i)
				if !isString(yamlnode.Deref(c0)) {
					scriptsOK = false
					continue
				}
				at := fmt.Sprintf("%s.scripts[%d]", field, i)
				if seen[sn] {
					p.errorf(c0, at, "duplicate script %q", sn)
					continue
				}
				seen[sn] = true
				c.Scripts = append(c.Scripts, sn)
				s := p.m.Script(sn)
				if s == nil || p.badKeys[sn] {
					scriptsOK = false
				}
				if s == nil {
					msg := fmt.Sprintf("unknown script %q", sn)
					if sug := suggest(sn, p.scriptNames()); sug != "" {
						msg += fmt.Sprintf(" (did you mean %q?)", sug)
					}
					p.errorf(c0, at, "%s", msg)
					continue
				}
				for _, key := range s.Keys {
					if key == "" {
						continue
					}
					if need[key] == nil {
						needOrder = append(needOrder, key)
					}
					need[key] = append(need[key], sn)
				}
			}
		}
		placeholders := map[string]bool{}
		templatesOK := true
		bound := map[string]bool{}
		if f["keys"] != nil {
			for _, kv := range p.pairs(f["keys"], field+".keys") {
				key := yamlnode.Deref(kv[0]).Value
				kf := field + ".keys." + key
				t := p.str(kv[1], kf)
				bound[key] = true
				if scriptsOK && need[key] == nil {
					msg := fmt.Sprintf("key %q is not declared by any of the caller's scripts", key)
					if len(c.Scripts) > 0 {
						msg += fmt.Sprintf(" (%s)", strings.Join(c.Scripts, ", "))
					}
					if sug := suggest(key, needOrder); sug != "" {
						msg += fmt.Sprintf("; did you mean %q?", sug)
					}
					p.errorf(kv[0], kf, "%s", msg)
				}
				if !isString(yamlnode.Deref(kv[1])) {
					templatesOK = false
				} else {
					names, msg := parseTemplate(t)
					if msg != "" {
						p.errorf(kv[1], kf, "%s", msg)
						templatesOK = false
					}
					for _, ph := range names {
						placeholders[ph] = true
					}
				}
				c.Keys = append(c.Keys, KeyTemplate{Name: key, Template: t, Line: kv[1].Line, Col: kv[1].Column})
			}
		}
		if f["keys"] != nil && yamlnode.Deref(f["keys"]).Kind != yaml.MappingNode {
			templatesOK = false
		}
		if scriptsOK && yamlnode.Deref(vOr(f["keys"], v)).Kind == yaml.MappingNode {
			at := k
			af := field + ".keys"
			if f["keys"] != nil {
				at = f["keys"]
			}
			for _, key := range needOrder {
				if !bound[key] {
					p.errorf(at, af, "missing template for key %q of %s %s", key, plural(len(need[key]), "script", "scripts"), strings.Join(need[key], ", "))
				}
			}
		}
		if f["samples"] != nil {
			p.samples(c, f["samples"], field+".samples", placeholders, templatesOK)
		}
		if f["placeholders"] != nil {
			p.placeholderDomains(c, f["placeholders"], field+".placeholders", placeholders, templatesOK, f["samples"])
		}
	}
}

func (p *parser) markBadKeys(script string) {
	if p.badKeys == nil {
		p.badKeys = map[string]bool{}
	}
	p.badKeys[script] = true
}

func vOr(n, def *yaml.Node) *yaml.Node {
	if n != nil {
		return n
	}
	return def
}

// samples reads a caller's samples. A name no template uses is reported
// only when every template is well formed (known).
func (p *parser) samples(c *Caller, n *yaml.Node, field string, placeholders map[string]bool, known bool) {
	names := make([]string, 0, len(placeholders))
	for ph := range placeholders {
		names = append(names, ph)
	}
	sort.Strings(names)
	for _, kv := range p.pairs(n, field) {
		name := yamlnode.Deref(kv[0]).Value
		sf := field + "." + name
		if known && !placeholders[name] {
			msg := fmt.Sprintf("no key template of caller %s uses the placeholder <%s>", c.Name, name)
			if sug := suggest(name, names); sug != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", sug)
			}
			p.errorf(kv[0], sf, "%s", msg)
		}
		list, ok := p.strList(kv[1], sf)
		if !ok {
			continue
		}
		if len(list) == 0 {
			p.errorf(kv[1], sf, "give at least one sample value, or remove the entry")
		}
		c.Samples[name] = list
	}
}
