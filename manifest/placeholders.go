package manifest

import (
	"fmt"
	"sort"

	"gopkg.in/yaml.v3"

	"github.com/scriptctl/scriptctl/internal/valueset"
	"github.com/scriptctl/scriptctl/internal/yamlnode"
)

// A caller's placeholders entry declares what values a placeholder takes, so
// check-keys proves the caller's keys for those values rather than for every
// byte string:
//
//	placeholders:
//	  queue: {pattern: '^[a-z][a-z0-9_-]*$'}
//	  tenant: {non_empty: true}
//
// It sits beside samples and is keyed the same way (placeholder name to what
// is known of its values): samples are values to try, placeholders bound the
// values to prove for.

var placeholderFields = []string{"non_empty", "pattern"}

// placeholderDomains reads a caller's placeholders entries into
// c.Placeholders. A name no template uses is reported only when every
// template is well formed (known), as for samples. A pattern that does not
// compile, or that (with non_empty) no value was found to satisfy, is an
// error at the pattern; so is a sample outside its placeholder's values, at
// the sample (samples is the caller's samples node, or nil).
func (p *parser) placeholderDomains(c *Caller, n *yaml.Node, field string, placeholders map[string]bool, known bool, samples *yaml.Node) {
	names := make([]string, 0, len(placeholders))
	for ph := range placeholders {
		names = append(names, ph)
	}
	sort.Strings(names)
	sets := map[string]*valueset.Set{}
	for _, kv := range p.pairs(n, field) {
		k, v := kv[0], kv[1]
		name := yamlnode.Deref(k).Value
		pf := field + "." + name
		if known && !placeholders[name] {
			msg := fmt.Sprintf("no key template of caller %s uses the placeholder <%s>", c.Name, name)
			if sug := suggest(name, names); sug != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", sug)
			}
			p.errorf(k, pf, "%s", msg)
		}
		f := p.fields(v, pf, placeholderFields)
		if yamlnode.Deref(v).Kind != yaml.MappingNode {
			continue
		}
		if len(f) == 0 {
			if len(yamlnode.Deref(v).Content) == 0 {
				p.errorf(v, pf, "declare non_empty or pattern, or remove the entry")
			}
			continue
		}
		ph := Placeholder{Name: name, Line: k.Line, Col: k.Column}
		ok := true
		if fn := f["non_empty"]; fn != nil {
			ph.NonEmpty, ok = p.boolean(fn, pf+".non_empty")
		}
		if fn := f["pattern"]; fn != nil {
			ph.Pattern = p.str(fn, pf+".pattern")
			switch {
			case !isString(yamlnode.Deref(fn)):
				ok = false
			case ph.Pattern == "":
				p.errorf(fn, pf+".pattern", "must not be empty: remove the field to allow any value")
				ok = false
			}
		}
		if !ok {
			continue
		}
		set, err := valueset.New(ph.Pattern, ph.NonEmpty, false)
		if err != nil {
			p.errorf(f["pattern"], pf+".pattern", "invalid pattern: %v", err)
			continue
		}
		if len(set.Candidates(0)) == 0 {
			at, af := f["pattern"], pf+".pattern"
			if at == nil {
				at, af = f["non_empty"], pf+".non_empty"
			}
			p.errorf(at, af, "no value found that the placeholder takes (%s): it could never be filled (the empty string, braces and strings built from the pattern were tried)", set.Describe())
			continue
		}
		sets[name] = set
		c.Placeholders[name] = ph
	}
	if samples == nil {
		return
	}
	// Samples are values the application uses: each must be one the
	// placeholder takes.
	for _, kv := range yamlnode.Pairs(samples, "", func(*yaml.Node, string, string) {}) {
		name := yamlnode.Deref(kv[0]).Value
		set := sets[name]
		list := yamlnode.Deref(kv[1])
		if set == nil || list.Kind != yaml.SequenceNode {
			continue
		}
		for i, item := range list.Content {
			if iv := yamlnode.Deref(item); isString(iv) && !set.Contains(iv.Value) {
				p.errorf(item, fmt.Sprintf("callers.%s.samples.%s[%d]", c.Name, name, i),
					"sample %q is not among the values placeholders.%s declares (%s)", iv.Value, name, set.Describe())
			}
		}
	}
}

// boolean returns the boolean n, reporting anything else.
func (p *parser) boolean(n *yaml.Node, field string) (bool, bool) {
	v := yamlnode.Deref(n)
	if v.Kind != yaml.ScalarNode || v.Tag != "!!bool" {
		msg := fmt.Sprintf("must be true or false, not %s", yamlnode.Describe(n))
		if isString(v) && (v.Value == "true" || v.Value == "false") {
			msg += " (remove the quotes)"
		}
		p.errorf(n, field, "%s", msg)
		return false, false
	}
	switch v.Value {
	case "true", "True", "TRUE":
		return true, true
	case "false", "False", "FALSE":
		return false, true
	}
	p.errorf(n, field, "must be true or false, not %s", v.Value)
	return false, false
}
