package slot

import (
	"fmt"
	"strings"
	"testing"

	"github.com/scriptctl/scriptctl/manifest"
)

// TestCheckDomains covers callers that declare their placeholders' values:
// the proof uses what the declared values cannot hold, and the search
// draws only declared values, adversarial ones included.
func TestCheckDomains(t *testing.T) {
	laravel := [2]string{"queues:{<queue>}", "queues:{<queue>}:notify"}
	tests := []struct {
		name     string
		a, b     string
		values   Values
		decl     []manifest.Placeholder
		samples  map[string][]string
		status   Status
		reason   string            // substring
		ceValues map[string]string // exact counterexample, when set
		warnings []string
	}{
		{name: "laravel queue, nothing declared: the empty string", a: laravel[0], b: laravel[1],
			samples: map[string][]string{"queue": {"default"}},
			status:  Mismatch, reason: `a value "" or one starting with '}'`, ceValues: map[string]string{"queue": ""}},
		{name: "laravel queue, non_empty: a leading '}' still empties the tag", a: laravel[0], b: laravel[1],
			decl:   []manifest.Placeholder{{Name: "queue", NonEmpty: true}},
			status: Mismatch, reason: "a value of <queue> starting with '}'", ceValues: map[string]string{"queue": "}"}},
		{name: "laravel queue, non_empty, plain values", a: laravel[0], b: laravel[1], values: PlainValues,
			decl:   []manifest.Placeholder{{Name: "queue", NonEmpty: true}},
			status: Proven},
		{name: "laravel queue, anchored name pattern", a: laravel[0], b: laravel[1],
			decl:   []manifest.Placeholder{{Name: "queue", Pattern: `^[a-z][a-z0-9_-]*$`}},
			status: Proven, reason: "declared values can neither move nor empty it"},
		{name: "laravel queue, any non-empty value without braces", a: laravel[0], b: laravel[1],
			decl:   []manifest.Placeholder{{Name: "queue", Pattern: `^[^{}]+$`}},
			status: Proven},
		{name: "laravel queue, listed names", a: laravel[0], b: laravel[1],
			decl:   []manifest.Placeholder{{Name: "queue", Pattern: `^(default|high|low)$`}},
			status: Proven},
		{name: "pattern allows a leading '}'", a: laravel[0], b: laravel[1],
			decl:   []manifest.Placeholder{{Name: "queue", Pattern: `^[a-z}]+$`}},
			status: Mismatch, ceValues: map[string]string{"queue": "}"}},
		{name: "pattern allows '}' only where no adversarial value has it", a: laravel[0], b: laravel[1],
			decl:   []manifest.Placeholder{{Name: "queue", Pattern: `^\}[0-9]+$`}},
			status: Mismatch},
		{name: "pattern allows '}' after a letter only", a: laravel[0], b: laravel[1],
			decl:   []manifest.Placeholder{{Name: "queue", Pattern: `^[a-z][a-z}]*$`}},
			status: Proven},
		{name: "unanchored pattern accepts anything around a match", a: laravel[0], b: laravel[1],
			decl:   []manifest.Placeholder{{Name: "queue", Pattern: `[a-z]+`}},
			status: Mismatch},
		{name: "placeholder before the brace without braces", a: "<tenant>:{p<id>}:a", b: "<tenant>:{p<id>}:b",
			decl:   []manifest.Placeholder{{Name: "tenant", Pattern: `^[a-z]+$`}},
			status: Proven},
		{name: "placeholder before the brace, non_empty only", a: "<tenant>:{p<id>}:a", b: "<tenant>:{p<id>}:b",
			decl:   []manifest.Placeholder{{Name: "tenant", NonEmpty: true}},
			status: Mismatch, reason: "<tenant> comes before the '{'"},
		{name: "two placeholders: the first may be empty, the second not", a: "{<a><b>}:x", b: "{<a><b>}:y",
			decl:   []manifest.Placeholder{{Name: "a", Pattern: `^[a-z]*$`}, {Name: "b", Pattern: `^[0-9]+$`}},
			status: Proven},
		{name: "two placeholders: empty, then a leading '}'", a: "{<a><b>}:x", b: "{<a><b>}:y",
			decl:   []manifest.Placeholder{{Name: "a", Pattern: `^[a-z]*$`}, {Name: "b", Pattern: `^[0-9}]+$`}},
			status: Mismatch, reason: "then <b>, whose values can start with '}'", ceValues: map[string]string{"a": "", "b": "}"}},
		{name: "two placeholders, both may be empty", a: "{<a><b>}:x", b: "{<a><b>}:y",
			decl:   []manifest.Placeholder{{Name: "a", Pattern: `^[a-z]*$`}, {Name: "b", Pattern: `^[0-9]*$`}},
			status: Mismatch, reason: "only placeholders whose values can be empty", ceValues: map[string]string{"a": "", "b": ""}},
		{name: "plain values leave no member: vacuous, warned", a: laravel[0], b: laravel[1], values: PlainValues,
			decl:   []manifest.Placeholder{{Name: "queue", Pattern: `^\{[a-z]+\}$`}},
			status: Proven, warnings: []string{WarnEmptyDomain}},
		{name: "declared placeholder no template uses", a: "{p<id>}:a", b: "{p<id>}:b",
			decl:   []manifest.Placeholder{{Name: "queue", NonEmpty: true, Line: 20, Col: 7}},
			status: Proven, warnings: []string{WarnUnusedPlaceholder}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vs := tt.values
			if vs == "" {
				vs = AnyValues
			}
			m := pairManifest(t, tt.a, tt.b, tt.samples)
			decl := map[string]manifest.Placeholder{}
			for _, ph := range tt.decl {
				decl[ph.Name] = ph
			}
			m.Callers[0].Placeholders = decl
			r := CheckWith(m, Options{Values: vs})
			c := r.Checks[0]
			if c.Status != tt.status {
				t.Fatalf("status %s (%s), want %s; counterexample %v", c.Status, c.Reason, tt.status, c.Counterexample)
			}
			if !strings.Contains(c.Reason, tt.reason) {
				t.Errorf("reason %q does not contain %q", c.Reason, tt.reason)
			}
			for _, ph := range tt.decl {
				if strings.Contains(tt.a, "<"+ph.Name+">") && c.Domains[ph.Name] == "" {
					t.Errorf("check lacks the domain of <%s>: %v", ph.Name, c.Domains)
				}
			}
			if tt.status == Mismatch {
				assertCounterexample(t, c, newDomains(vs, decl, 0))
				if tt.ceValues != nil && fmt.Sprint(c.Counterexample.Values) != fmt.Sprint(tt.ceValues) {
					t.Errorf("counterexample values %q, want %q", c.Counterexample.Values, tt.ceValues)
				}
			}
			if got := fmt.Sprint(warningCodes(r)); got != fmt.Sprint(tt.warnings) {
				t.Errorf("warnings %v, want %v: %v", got, tt.warnings, r.Warnings)
			}
		})
	}
}

func TestDomainWarningPosition(t *testing.T) {
	m := pairManifest(t, "{p<id>}:a", "{p<id>}:b", nil)
	m.Callers[0].Placeholders = map[string]manifest.Placeholder{"idd": {Name: "idd", NonEmpty: true, Line: 21, Col: 7}}
	r := CheckManifest(m)
	if len(r.Warnings) != 1 {
		t.Fatalf("warnings %v", r.Warnings)
	}
	want := "manifest.yaml:21:7: callers.svc.placeholders.idd: declared values for <idd>, which none of the caller's templates uses"
	if got := r.Warnings[0].String(); got != want {
		t.Errorf("warning\n got %s\nwant %s", got, want)
	}
}

// domainPatterns are the patterns FuzzDomainProof declares, picked by index.
var domainPatterns = []string{
	``, `^[a-z][a-z0-9_-]*$`, `^[a-z}]+$`, `^[a-z][a-z}]*$`, `[a-z]+`, `^[a-z]*$`,
	`^\}[0-9]+$`, `^[^{]*$`, `^(a|\{|\})+$`, `^x?}?$`,
}

// FuzzDomainProof checks that a proof under declared values is sound: when
// proveSameSlot accepts two templates whose placeholders all take the
// declared values, keys built from any declared values share a slot; and
// that a counterexample holds only declared values.
func FuzzDomainProof(f *testing.F) {
	f.Add("queues:{<queue>}", "queues:{<queue>}:notify", uint8(1), false, "q", "r")
	f.Add("queues:{<queue>}", "queues:{<queue>}:notify", uint8(2), true, "}", "a")
	f.Add("<t>:{p<id>}:a", "<t>:{p<id>}:b", uint8(7), true, "{}", "1")
	f.Add("{<a><b>}x", "{<a><b>}y", uint8(5), false, "", "}")
	f.Add("{<a>}", "{<a>}:<a>", uint8(9), false, "x}", "}")
	f.Fuzz(func(t *testing.T, a, b string, pi uint8, nonEmpty bool, v1, v2 string) {
		if len(a)+len(b) > 200 || len(v1)+len(v2) > 64 {
			return
		}
		tmpls := []template{parseTemplate(a), parseTemplate(b)}
		keys := []Binding{{Name: "a", Template: a}, {Name: "b", Template: b}}
		pattern := domainPatterns[int(pi)%len(domainPatterns)]
		decl := map[string]manifest.Placeholder{}
		vals := map[string]string{}
		for _, tm := range tmpls {
			for _, p := range tm.placeholders() {
				if _, ok := vals[p]; !ok {
					decl[p] = manifest.Placeholder{Name: p, Pattern: pattern, NonEmpty: nonEmpty}
					vals[p] = [2]string{v1, v2}[len(vals)%2]
				}
			}
		}
		for _, vs := range []Values{AnyValues, PlainValues} {
			d := newDomains(vs, decl, 0)
			in := true
			for p, v := range vals {
				in = in && d.contains(p, v)
			}
			if in {
				if pr := proveSameSlot(tmpls, keys, d); pr.ok {
					ka, kb := tmpls[0].expand(vals), tmpls[1].expand(vals)
					if Of(ka) != Of(kb) {
						t.Fatalf("proved %q and %q share a slot for %s, %q (%s), but %q -> %d, %q -> %d",
							a, b, vs, pattern, pr.reason, ka, Of(ka), kb, Of(kb))
					}
				}
			}
			c := Check{Caller: "c", Script: "s", Keys: keys}
			checkKeys(&c, nil, d, Options{Values: vs, Random: 20})
			if c.Status == Mismatch {
				assertCounterexample(t, c, d)
			}
		}
	})
}
