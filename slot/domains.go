package slot

import (
	"fmt"
	"slices"

	"hash/fnv"

	"github.com/scriptctl/scriptctl/internal/valueset"
	"github.com/scriptctl/scriptctl/manifest"
)

// domains are the values one caller's checks cover, per placeholder: the
// report's value set, narrowed by what the caller declares of the
// placeholder (manifest placeholders: non_empty, pattern). The proof asks
// what no value of a placeholder can hold; the search draws only values the
// placeholder takes.
type domains struct {
	vs       Values
	base     *valueset.Set            // the value set alone
	declared map[string]*valueset.Set // declared placeholders, narrowed by vs
	seed     uint64
	cands    map[string][]string
}

// newDomains returns the domains of a caller's placeholders. A declaration
// whose pattern does not compile (manifest.Load refuses it; a manifest built
// in code may hold one) covers nothing: the placeholder takes any value of
// vs.
func newDomains(vs Values, decl map[string]manifest.Placeholder, seed uint64) *domains {
	plain := vs == PlainValues
	d := &domains{vs: vs, base: &valueset.Set{NonEmpty: plain, NoBraces: plain}, declared: map[string]*valueset.Set{}, seed: seed, cands: map[string][]string{}}
	for name, ph := range decl {
		if s, err := valueset.New(ph.Pattern, ph.NonEmpty || plain, plain); err == nil {
			d.declared[name] = s
		}
	}
	return d
}

// of returns the values placeholder p takes.
func (d *domains) of(p string) *valueset.Set {
	if s := d.declared[p]; s != nil {
		return s
	}
	return d.base
}

// isDeclared reports whether the caller declares p's values.
func (d *domains) isDeclared(p string) bool { return d.declared[p] != nil }

func (d *domains) contains(p, v string) bool { return d.of(p).Contains(v) }

// candidates returns the values the search tries for p, most adversarial
// first (see valueset.Set.Candidates); empty when none was found.
func (d *domains) candidates(p string) []string {
	if c, ok := d.cands[p]; ok {
		return c
	}
	h := fnv.New64a()
	h.Write([]byte(p))
	c := d.of(p).Candidates(d.seed ^ h.Sum64())
	d.cands[p] = c
	return c
}

// describe returns, for the placeholders of names the caller declares, what
// values they take.
func (d *domains) describe(names []string) map[string]string {
	var out map[string]string
	for _, p := range names {
		if s := d.declared[p]; s != nil {
			if out == nil {
				out = map[string]string{}
			}
			out[p] = s.Describe()
		}
	}
	return out
}

// domainWarnings warns about the caller's declared placeholders that no
// template uses, and about those for which no value was found within the
// report's value set.
func domainWarnings(m *manifest.Manifest, c *manifest.Caller, d *domains) []Warning {
	used := map[string]bool{}
	for _, kt := range c.Keys {
		for _, p := range parseTemplate(kt.Template).placeholders() {
			used[p] = true
		}
	}
	names := make([]string, 0, len(c.Placeholders))
	for name := range c.Placeholders {
		names = append(names, name)
	}
	slices.Sort(names)
	var ws []Warning
	for _, name := range names {
		ph := c.Placeholders[name]
		w := Warning{File: m.Path, Line: ph.Line, Col: ph.Col, Field: "callers." + c.Name + ".placeholders." + name, Caller: c.Name}
		if w.Line == 0 {
			w.Line, w.Col = c.Line, 3
		}
		switch {
		case !used[name]:
			w.Code = WarnUnusedPlaceholder
			w.Message = fmt.Sprintf("declared values for <%s>, which none of the caller's templates uses", name)
		case d.isDeclared(name) && len(d.candidates(name)) == 0:
			w.Code = WarnEmptyDomain
			w.Message = fmt.Sprintf("no value of <%s> was found among %s: no key can be built from the templates that use it, so nothing about them is tested", name, d.of(name).Describe())
		default:
			continue
		}
		ws = append(ws, w)
	}
	return ws
}
