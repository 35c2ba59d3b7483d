package slot

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/scriptctl/scriptctl/internal/valueset"
	"github.com/scriptctl/scriptctl/manifest"
)

// Values names the set of placeholder values a check covers: a proof holds
// for every value in the set, and the search for a counterexample draws
// only from it.
type Values string

const (
	// AnyValues is every byte string, the empty string and strings holding
	// '{' or '}' included. It is the default: an application that builds a
	// key from an unchecked ID can send any of them.
	AnyValues Values = "any"
	// PlainValues is every non-empty byte string without '{' and '}', for
	// applications that guarantee that of every placeholder value.
	PlainValues Values = "plain"
)

// Describe says in words what the value set is.
func (v Values) Describe() string {
	if v == PlainValues {
		return "non-empty byte strings without '{' or '}'"
	}
	return "any byte strings, empty ones and ones holding braces included"
}

// Valid reports whether v is a known value set.
func (v Values) Valid() bool { return v == AnyValues || v == PlainValues }

// Options tune CheckWith. The zero value checks AnyValues.
type Options struct {
	Values Values
	// Random is how many random assignments of placeholder values to try,
	// after the samples and the adversarial values, when a caller's keys
	// cannot be proven to share a slot. 0 means DefaultRandom.
	Random int
	// Seed seeds the random assignments; the same seed gives the same
	// report.
	Seed uint64
}

// DefaultRandom is the number of random assignments CheckWith tries by
// default.
const DefaultRandom = 2000

// Status is the outcome of checking one caller's keys for one script.
type Status string

const (
	// Proven: the keys share a slot for every assignment of values from the
	// report's value set.
	Proven Status = "proven"
	// Tested: no proof, but no tested assignment put the keys in different
	// slots.
	Tested Status = "tested"
	// Mismatch: an assignment puts the keys in different slots; the check
	// carries it as a counterexample.
	Mismatch Status = "mismatch"
	// Skipped: the script declares no-cluster, so it never runs on a
	// cluster and slots do not matter.
	Skipped Status = "skipped"
)

// Report is the result of CheckManifest. It marshals to the JSON documented
// in docs/json.md.
type Report struct {
	FormatVersion string    `json:"format_version"` // "1"
	Manifest      string    `json:"manifest"`
	Values        Values    `json:"values"`
	Checks        []Check   `json:"checks"`
	Warnings      []Warning `json:"warnings"`
}

// Check is the outcome for one caller and one script it uses.
type Check struct {
	Caller string    `json:"caller"`
	Script string    `json:"script"`
	Keys   []Binding `json:"keys"`
	Status Status    `json:"status"`
	// Reason says why the keys are proven to share a slot, or why no proof
	// holds.
	Reason string `json:"reason"`
	// HashTag is the hash tag every key shares, as written, when proven
	// through it: "{product-<id>}".
	HashTag string `json:"hash_tag,omitempty"`
	// Hint says how to make the keys provably share a slot, when they are
	// not proven to.
	Hint string `json:"hint,omitempty"`
	// Domains says, for each placeholder of the keys whose values the
	// caller declares (manifest placeholders), which values the check
	// covers for it; absent when the caller declares none.
	Domains map[string]string `json:"domains,omitempty"`
	// Tried is how many assignments of placeholder values were evaluated.
	Tried          int             `json:"tried"`
	Counterexample *Counterexample `json:"counterexample,omitempty"`
}

// Binding is one key the caller binds for the script: the script's key
// name, the caller's template for it and where the template is written.
type Binding struct {
	Name     string `json:"name"`
	Template string `json:"template"`
	Line     int    `json:"line"`
	Col      int    `json:"col"`
}

// Counterexample is an assignment of placeholder values that puts the keys
// in different slots.
type Counterexample struct {
	Values map[string]string `json:"values"`
	Keys   []KeySlot         `json:"keys"`
}

// KeySlot is a key built from a template and its slot.
type KeySlot struct {
	Name string `json:"name"`
	Key  string `json:"key"`
	Slot int    `json:"slot"`
}

// Warning codes.
const (
	WarnNoHashTag    = "no-hash-tag"   // a template has no hash tag: the whole key is hashed
	WarnConstantTag  = "constant-tag"  // a hash tag holds no placeholder: one hot slot
	WarnUnproven     = "unproven"      // no proof; tested assignments found no mismatch
	WarnUnusedSample = "unused-sample" // samples for a placeholder no template uses
	// WarnUnusedPlaceholder: declared values for a placeholder no template
	// uses.
	WarnUnusedPlaceholder = "unused-placeholder"
	// WarnEmptyDomain: no value was found that a declared placeholder takes
	// within the report's value set (--values plain and a pattern that
	// needs braces): no key can be built from its templates.
	WarnEmptyDomain = "empty-domain"
)

// Warning is a problem that does not fail the check (exit 0).
type Warning struct {
	Code    string `json:"code"`
	File    string `json:"file"`
	Line    int    `json:"line"`
	Col     int    `json:"col"`
	Field   string `json:"field"`
	Caller  string `json:"caller"`
	Message string `json:"message"`
}

func (w Warning) String() string {
	return fmt.Sprintf("%s:%d:%d: %s: %s", w.File, w.Line, w.Col, w.Field, w.Message)
}

// Failed reports whether some check found a mismatch.
func (r *Report) Failed() bool { return len(r.Mismatches()) > 0 }

// Mismatches returns the checks with status Mismatch.
func (r *Report) Mismatches() []Check {
	var out []Check
	for _, c := range r.Checks {
		if c.Status == Mismatch {
			out = append(out, c)
		}
	}
	return out
}

// Count returns how many checks have status s.
func (r *Report) Count(s Status) int {
	n := 0
	for _, c := range r.Checks {
		if c.Status == s {
			n++
		}
	}
	return n
}

// CheckManifest checks, for every caller of m and every script it uses, that
// the keys the caller binds to the script share one hash slot for any
// placeholder values (AnyValues). See CheckWith.
func CheckManifest(m *manifest.Manifest) *Report {
	return CheckWith(m, Options{})
}

// CheckWith checks, for every caller of m and every script it uses, that the
// keys the caller binds to the script share one hash slot for every
// assignment of values from opts.Values to the placeholders (one value per
// placeholder name, the same in every template of the caller).
//
// It proves this statically when the proof rule holds (see proveSameSlot);
// otherwise it evaluates the caller's samples, adversarial values and random
// ones, and reports the first assignment that splits the keys. It also
// warns about templates without a hash tag and hash tags without a
// placeholder. The report lists callers and scripts in manifest order.
func CheckWith(m *manifest.Manifest, opts Options) *Report {
	if !opts.Values.Valid() {
		opts.Values = AnyValues
	}
	if opts.Random <= 0 {
		opts.Random = DefaultRandom
	}
	r := &Report{FormatVersion: "1", Values: opts.Values, Checks: []Check{}, Warnings: []Warning{}}
	if m == nil {
		return r
	}
	r.Manifest = m.Path
	for _, c := range m.Callers {
		r.Warnings = append(r.Warnings, templateWarnings(m, c)...)
		d := newDomains(opts.Values, c.Placeholders, opts.Seed)
		r.Warnings = append(r.Warnings, domainWarnings(m, c, d)...)
		for _, name := range c.Scripts {
			s := m.Script(name)
			if s == nil {
				continue // manifest.Load reports it
			}
			keys := []Binding{}
			for _, k := range s.Keys {
				b := Binding{Name: k}
				for _, kt := range c.Keys {
					if kt.Name == k {
						b.Template, b.Line, b.Col = kt.Template, kt.Line, kt.Col
					}
				}
				keys = append(keys, b)
			}
			ch := Check{Caller: c.Name, Script: s.Name, Keys: keys}
			if s.HasFlag("no-cluster") {
				ch.Status = Skipped
				ch.Reason = "the script declares no-cluster and never runs on a cluster"
			} else {
				checkKeys(&ch, c.Samples, d, opts)
			}
			if ch.Status == Tested {
				r.Warnings = append(r.Warnings, Warning{
					Code: WarnUnproven, File: m.Path, Line: keys[0].Line, Col: keys[0].Col,
					Field: "callers." + c.Name + ".keys", Caller: c.Name,
					Message: fmt.Sprintf("script %s: no proof that its keys share a slot (%s); %d assignments tried, none split them", s.Name, ch.Reason, ch.Tried),
				})
			}
			r.Checks = append(r.Checks, ch)
		}
	}
	return r
}

// templateWarnings warns about the caller's templates one by one (except
// those only no-cluster scripts take), and about samples for placeholders no
// template uses.
func templateWarnings(m *manifest.Manifest, c *manifest.Caller) []Warning {
	file := m.Path
	onCluster := map[string]bool{}
	for _, name := range c.Scripts {
		if s := m.Script(name); s != nil && !s.HasFlag("no-cluster") {
			for _, k := range s.Keys {
				onCluster[k] = true
			}
		}
	}
	var ws []Warning
	used := map[string]bool{}
	for _, kt := range c.Keys {
		t := parseTemplate(kt.Template)
		for _, p := range t.placeholders() {
			used[p] = true
		}
		if !onCluster[kt.Name] {
			continue
		}
		w := Warning{File: file, Line: kt.Line, Col: kt.Col, Field: "callers." + c.Name + ".keys." + kt.Name, Caller: c.Name}
		sh := t.shape()
		switch {
		case !sh.found:
			w.Code = WarnNoHashTag
			example := "{order-<id>}"
			if ps := t.placeholders(); len(ps) > 0 {
				example = "{" + ps[0] + "-<" + ps[0] + ">}"
			}
			w.Message = fmt.Sprintf("template %q has no hash tag: Redis hashes the whole key, so it shares a slot with another key only by chance (wrap the entity part in braces, e.g. %s)", kt.Template, example)
		case len(sh.expr) == 0:
			w.Code = WarnNoHashTag
			w.Message = fmt.Sprintf("template %q starts its hash tag with an empty {}: Redis then hashes the whole key, so it shares a slot with another key only by chance", kt.Template)
		case !sh.hasPlaceholder():
			w.Code = WarnConstantTag
			tag := sh.expr[0].lit
			w.Message = fmt.Sprintf("hash tag %s in %q holds no placeholder: every key from it lands in slot %d, one hot slot on one node (put the entity ID inside the braces)", sh, kt.Template, Of("{"+tag+"}"))
		default:
			continue
		}
		ws = append(ws, w)
	}
	var unused []string
	for name := range c.Samples {
		if !used[name] {
			unused = append(unused, name)
		}
	}
	slices.Sort(unused)
	for _, name := range unused {
		ws = append(ws, Warning{
			Code: WarnUnusedSample, File: file, Line: c.Line, Col: 3, Field: "callers." + c.Name + ".samples." + name, Caller: c.Name,
			Message: fmt.Sprintf("samples for <%s>, which none of the caller's templates uses", name),
		})
	}
	return ws
}

// checkKeys fills in the status of ch, for the placeholder values d covers.
func checkKeys(ch *Check, samples map[string][]string, d *domains, opts Options) {
	var tmpls []template
	for _, b := range ch.Keys {
		tmpls = append(tmpls, parseTemplate(b.Template))
	}
	ch.Domains = d.describe(placeholderNames(tmpls))
	proof := proveSameSlot(tmpls, ch.Keys, d)
	ch.Reason = proof.reason
	ch.HashTag = proof.tag
	if !proof.ok {
		ch.Hint = proof.hint
	}
	if proof.ok {
		ch.Status = Proven
		return
	}
	ce, tried := search(tmpls, ch.Keys, samples, d, opts)
	ch.Tried = tried
	if ce != nil {
		ch.Status = Mismatch
		ch.Counterexample = ce
		return
	}
	ch.Status = Tested
}

type proof struct {
	ok     bool
	reason string
	hint   string
	tag    string
}

// proveSameSlot decides whether keys built from tmpls share a slot for every
// assignment of values from d. The rule, for the distinct templates:
//
//   - each has a literal '{' with a literal '}' after it, and the
//     expression between them (literals and placeholders) is the same in
//     all of them;
//   - no placeholder before that '{' can take a value holding a '{' (it
//     would move the tag; "{}" would even empty it): with AnyValues any
//     placeholder can, unless the caller declares values without one;
//   - the expression cannot expand to "" or to a string starting with '}'
//     (the tag would be empty, and Redis would hash the whole, different,
//     keys): read from its start, the placeholders up to the first literal
//     or up to the first placeholder that cannot be empty (whichever comes
//     first, and one must) cannot start with '}'. With AnyValues and
//     nothing declared that means the expression starts with a literal;
//     with PlainValues it only has to be non-empty.
//
// Then every key's first '{' is that literal one, the first '}' after it
// falls at the same place of the same expanded expression, and the tag is
// the same non-empty string in every key. When the rule fails the reason
// names the first template that breaks it. What a placeholder "can" take
// is valueset's over-approximation, so a proof is sound; a failure only
// sends the check to the search.
func proveSameSlot(tmpls []template, keys []Binding, d *domains) proof {
	var distinct []int
	for i, t := range tmpls {
		dup := false
		for _, j := range distinct {
			if tmpls[j].raw == t.raw {
				dup = true
			}
		}
		if !dup {
			distinct = append(distinct, i)
		}
	}
	switch len(tmpls) {
	case 0:
		return proof{ok: true, reason: "the script takes no keys"}
	case 1:
		return proof{ok: true, reason: "the script takes one key"}
	}
	if len(distinct) == 1 {
		return proof{ok: true, reason: "every key uses the same template"}
	}
	example := "{order-<id>}"
	for _, t := range tmpls {
		if ps := t.placeholders(); len(ps) > 0 {
			example = "{" + ps[0] + "-<" + ps[0] + ">}"
			break
		}
	}
	shapes := make([]tagShape, len(distinct))
	for n, i := range distinct {
		sh := tmpls[i].shape()
		shapes[n] = sh
		switch {
		case !sh.found:
			return proof{reason: fmt.Sprintf("%s has no hash tag", keys[i].Name),
				hint: "give every key the script takes the same hash tag, starting with a literal, e.g. " + example}
		case len(sh.expr) == 0:
			return proof{reason: fmt.Sprintf("%s's hash tag {} is empty", keys[i].Name),
				hint: "remove the empty {}: Redis only looks at the first '{' and hashes the whole key when that tag is empty"}
		}
	}
	first := shapes[0]
	for n, sh := range shapes[1:] {
		if !sameExpr(first.expr, sh.expr) {
			return proof{reason: fmt.Sprintf("hash tags differ: %s in %s, %s in %s", first, keys[distinct[0]].Name, sh, keys[distinct[n+1]].Name),
				hint: "give every key the script takes the same hash tag, e.g. " + first.String()}
		}
	}
	// usedDomain is set when a declared domain is what makes the proof
	// hold.
	usedDomain := false
	for n, sh := range shapes {
		for _, ph := range sh.before {
			if d.of(ph).MayContain('{') {
				reason := fmt.Sprintf("a placeholder before the '{' of %s's hash tag can carry a brace and move the tag", keys[distinct[n]].Name)
				if d.isDeclared(ph) {
					reason = fmt.Sprintf("<%s> comes before the '{' of %s's hash tag, and its declared values (%s) may carry a brace and move the tag", ph, keys[distinct[n]].Name, d.of(ph).Describe())
				}
				return proof{reason: reason,
					hint: fmt.Sprintf("move the placeholders before the '{' into the hash tag or after it; or, %s", narrowHint(d, ph, "values without braces"))}
			}
			usedDomain = usedDomain || d.isDeclared(ph) && d.vs == AnyValues
		}
	}
	for i, tok := range first.expr {
		if tok.ph == "" {
			break // a literal: non-empty, and without '}'
		}
		s := d.of(tok.ph)
		hint := fmt.Sprintf("start the hash tag with a literal, e.g. {%s-%s}; or, %s", tok.ph, first.String()[1:len(first.String())-1], narrowHint(d, tok.ph, "non-empty values that do not start with '}'"))
		if s.MayStartWith('}') {
			reason := fmt.Sprintf("the hash tag %s starts with a placeholder: a value \"\" or one starting with '}' empties it and Redis hashes the whole key", first)
			switch {
			case i > 0:
				reason = fmt.Sprintf("the hash tag %s starts with placeholders that can be empty, then <%s>, whose values can start with '}': together they can empty it and Redis hashes the whole key", first, tok.ph)
			case d.isDeclared(tok.ph):
				reason = fmt.Sprintf("the hash tag %s starts with a placeholder: a value of <%s> starting with '}', which its declared values (%s) may hold, empties it and Redis hashes the whole key", first, tok.ph, s.Describe())
			}
			return proof{reason: reason, hint: hint}
		}
		usedDomain = usedDomain || d.isDeclared(tok.ph) && d.vs == AnyValues
		if !s.MayBeEmpty() {
			break
		}
		if i == len(first.expr)-1 {
			return proof{reason: fmt.Sprintf("the hash tag %s holds only placeholders whose values can be empty: \"\" for each empties it and Redis hashes the whole key", first), hint: hint}
		}
	}
	switch {
	case usedDomain:
		return proof{ok: true, tag: first.String(), reason: fmt.Sprintf("every key has the hash tag %s, and the placeholders' declared values can neither move nor empty it: each key hashes the same non-empty string for every value they take", first)}
	case d.vs == AnyValues:
		return proof{ok: true, tag: first.String(), reason: fmt.Sprintf("every key has the hash tag %s, which starts with a literal and follows no placeholder: each key hashes the same non-empty string for any values, empty ones and ones holding braces included", first)}
	}
	return proof{ok: true, tag: first.String(), reason: fmt.Sprintf("every key has the hash tag %s: each key hashes the same non-empty string for any non-empty values without braces", first)}
}

// narrowHint says how to prove the keys for placeholder p when the
// application gives it only what: declare (or narrow) its values in the
// manifest's placeholders, anchor its pattern, or check with plain values.
func narrowHint(d *domains, p, what string) string {
	s := d.declared[p]
	switch {
	case s == nil:
		return fmt.Sprintf("when the application gives <%s> only %s, declare them (placeholders: non_empty, pattern) or check with plain values", p, what)
	case s.Unanchored():
		return fmt.Sprintf("anchor the pattern of <%s> with ^...$ (unanchored, it accepts anything around a match) and keep it to %s, or check with plain values", p, what)
	}
	return fmt.Sprintf("when the application gives <%s> only %s, narrow its declared values to them or check with plain values", p, what)
}

// inValues reports whether v is in the value set vs.
func inValues(v string, vs Values) bool {
	return vs == AnyValues || v != "" && !strings.ContainsAny(v, "{}")
}

// placeholderNames returns the placeholders of tmpls in order of first
// appearance, each once.
func placeholderNames(tmpls []template) []string {
	var names []string
	for _, t := range tmpls {
		for _, p := range t.placeholders() {
			if !contains(names, p) {
				names = append(names, p)
			}
		}
	}
	return names
}

// search evaluates assignments of values to the templates' placeholders and
// returns the first that puts the keys in different slots, simplified, and
// how many assignments it evaluated. Every value is one d says the
// placeholder takes. Order: the samples; each adversarial value
// (valueset.Adversarial) given to every placeholder that takes it; one
// placeholder at a time set to each of its candidates (the adversarial
// values it takes, then values built from its declared pattern), the others
// at their first sample; then random assignments. A placeholder for which
// no value is found leaves nothing to try.
func search(tmpls []template, keys []Binding, samples map[string][]string, d *domains, opts Options) (*Counterexample, int) {
	names := placeholderNames(tmpls)
	base := map[string]string{}
	for _, p := range names {
		cands := d.candidates(p)
		if len(cands) == 0 {
			return nil, 0
		}
		base[p] = "x"
		if !d.contains(p, "x") {
			base[p] = plainest(cands)
		}
		for _, s := range samples[p] {
			if d.contains(p, s) {
				base[p] = s
				break
			}
		}
	}
	tried := 0
	split := func(vals map[string]string) bool {
		tried++
		want := -1
		for _, t := range tmpls {
			s := Of(t.expand(vals))
			if want >= 0 && s != want {
				return true
			}
			want = s
		}
		return false
	}
	found := func(vals map[string]string) (*Counterexample, int) {
		return counterexample(tmpls, keys, simplify(vals, base, split)), tried
	}

	// The samples, column by column.
	rows := 0
	for _, p := range names {
		rows = max(rows, len(samples[p]))
	}
	for i := range rows {
		vals := clone(base)
		for _, p := range names {
			if s := samples[p]; len(s) > 0 && d.contains(p, s[i%len(s)]) {
				vals[p] = s[i%len(s)]
			}
		}
		if split(vals) {
			return found(vals)
		}
	}
	for _, v := range valueset.Adversarial {
		vals := clone(base)
		hit := false
		for _, p := range names {
			if d.contains(p, v) {
				vals[p], hit = v, true
			}
		}
		if !hit && len(names) > 0 {
			continue
		}
		if split(vals) {
			return found(vals)
		}
	}
	// Each placeholder at its own i-th candidate: declared values differ,
	// so this pairs, say, an empty <a> with a '}' that only <b> takes.
	if declared := slices.ContainsFunc(names, d.isDeclared); declared {
		rows := 0
		for _, p := range names {
			rows = max(rows, len(d.candidates(p)))
		}
		for i := range rows {
			vals := clone(base)
			for _, p := range names {
				if c := d.candidates(p); i < len(c) {
					vals[p] = c[i]
				}
			}
			if split(vals) {
				return found(vals)
			}
		}
	}
	for _, p := range names {
		for _, v := range d.candidates(p) {
			vals := clone(base)
			vals[p] = v
			if split(vals) {
				return found(vals)
			}
		}
	}
	rng := rand.New(rand.NewPCG(opts.Seed, 0x5107))
	for range opts.Random {
		vals := map[string]string{}
		for _, p := range names {
			vals[p] = randomValue(rng, d.candidates(p), d.of(p))
		}
		if split(vals) {
			return found(vals)
		}
	}
	return nil, tried
}

// plainest returns the first of cands that is non-empty and holds no brace,
// or else the first non-empty one, or else the first: the value a
// placeholder keeps while others are varied.
func plainest(cands []string) string {
	for _, v := range cands {
		if v != "" && !strings.ContainsAny(v, "{}") {
			return v
		}
	}
	for _, v := range cands {
		if v != "" {
			return v
		}
	}
	return cands[0]
}

// randomValue returns one of cands, or a random member of s: for a pattern,
// one built from it; otherwise a random string of up to 12 bytes drawn
// mostly from braces, letters and a few multi-byte runes.
func randomValue(rng *rand.Rand, cands []string, s *valueset.Set) string {
	if s.Pattern() != "" {
		v, _ := s.Random(rng, cands)
		return v
	}
	if rng.IntN(4) == 0 {
		return cands[rng.IntN(len(cands))]
	}
	alphabet := []string{"{", "}", "a", "b", "0", ":", "-", "é", "\x00"}
	for {
		var b strings.Builder
		for range rng.IntN(13) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		if v := b.String(); s.Contains(v) {
			return v
		}
	}
}

// simplify puts back the base value of every placeholder whose adversarial
// value is not needed for the split, so the counterexample shows only what
// matters.
func simplify(vals, base map[string]string, split func(map[string]string) bool) map[string]string {
	names := make([]string, 0, len(vals))
	for p := range vals {
		names = append(names, p)
	}
	slices.Sort(names)
	for _, p := range names {
		if vals[p] == base[p] {
			continue
		}
		try := clone(vals)
		try[p] = base[p]
		if split(try) {
			vals = try
		}
	}
	return vals
}

func counterexample(tmpls []template, keys []Binding, vals map[string]string) *Counterexample {
	ce := &Counterexample{Values: vals}
	for i, t := range tmpls {
		k := t.expand(vals)
		ce.Keys = append(ce.Keys, KeySlot{Name: keys[i].Name, Key: k, Slot: Of(k)})
	}
	return ce
}

func clone(m map[string]string) map[string]string {
	c := make(map[string]string, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}
