package slot

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/scriptctl/scriptctl/manifest"
)

// pairManifest returns a manifest with one caller binding templates a and b
// to the keys of a two-key script, and samples.
func pairManifest(t testing.TB, a, b string, samples map[string][]string, flags ...string) *manifest.Manifest {
	t.Helper()
	if samples == nil {
		samples = map[string][]string{}
	}
	return &manifest.Manifest{
		Path: "manifest.yaml",
		Scripts: []*manifest.Script{
			{Name: "pair", Keys: []string{"first", "second"}, Flags: flags},
			{Name: "single", Keys: []string{"first"}},
		},
		Callers: []*manifest.Caller{{
			Name:    "svc",
			Line:    10,
			Scripts: []string{"pair", "single"},
			Keys: []manifest.KeyTemplate{
				{Name: "first", Template: a, Line: 13, Col: 14},
				{Name: "second", Template: b, Line: 14, Col: 15},
			},
			Samples: samples,
		}},
	}
}

func warningCodes(r *Report) []string {
	var codes []string
	for _, w := range r.Warnings {
		codes = append(codes, w.Code)
	}
	return codes
}

// assertCounterexample checks that a counterexample is real: its keys are
// the templates expanded with its values, its slots are theirs, they
// differ, and its values come from the placeholders' domains.
func assertCounterexample(t *testing.T, c Check, d *domains) {
	t.Helper()
	ce := c.Counterexample
	if ce == nil {
		t.Fatalf("%s/%s: mismatch without a counterexample", c.Caller, c.Script)
	}
	slots := map[int]bool{}
	for i, k := range ce.Keys {
		if want := parseTemplate(c.Keys[i].Template).expand(ce.Values); k.Key != want {
			t.Errorf("counterexample key %s = %q, want %q from %q", k.Name, k.Key, want, c.Keys[i].Template)
		}
		if k.Slot != Of(k.Key) {
			t.Errorf("counterexample slot of %q = %d, want %d", k.Key, k.Slot, Of(k.Key))
		}
		slots[k.Slot] = true
	}
	if len(slots) < 2 {
		t.Errorf("counterexample %v puts every key in one slot", ce)
	}
	for p, v := range ce.Values {
		if !d.contains(p, v) {
			t.Errorf("counterexample value %s=%q is outside %s", p, v, d.of(p).Describe())
		}
	}
}

func TestCheckPairs(t *testing.T) {
	tests := []struct {
		name     string
		a, b     string
		values   Values
		samples  map[string][]string
		status   Status
		reason   string // substring
		tag      string
		ceValues map[string]string // expected counterexample values, when set
		warnings []string
	}{
		{name: "bundled shape", a: "catalog:{product-<id>}:lease", b: "catalog:{product-<id>}:value",
			status: Proven, tag: "{product-<id>}", reason: "hashes the same non-empty string"},
		{name: "different prefixes, same tag", a: "lease:{order-<id>}", b: "{order-<id>}:value:<id>",
			status: Proven, tag: "{order-<id>}"},
		{name: "two placeholders in the tag", a: "{t<tenant>:<id>}:a", b: "x{t<tenant>:<id>}:b",
			status: Proven, tag: "{t<tenant>:<id>}"},
		{name: "bare placeholder tag, any values: empty id", a: "c:{<id>}:lease", b: "c:{<id>}:value",
			samples: map[string][]string{"id": {"42"}},
			status:  Mismatch, reason: "starts with a placeholder", ceValues: map[string]string{"id": ""}},
		{name: "bare placeholder tag, plain values", a: "c:{<id>}:lease", b: "c:{<id>}:value", values: PlainValues,
			status: Proven, tag: "{<id>}"},
		{name: "placeholder tag then literal, any values: '}' empties it", a: "{<id>-x}:a", b: "{<id>-x}:b",
			samples: map[string][]string{"id": {"7"}},
			status:  Mismatch, ceValues: map[string]string{"id": "}"}},
		{name: "placeholder before the brace, any values", a: "<tenant>:{p<id>}:a", b: "<tenant>:{p<id>}:b",
			samples: map[string][]string{"tenant": {"acme"}, "id": {"1"}},
			status:  Mismatch, reason: "can carry a brace", ceValues: map[string]string{"tenant": "{}", "id": "1"}},
		{name: "placeholder before the brace, plain values", a: "<tenant>:{p<id>}:a", b: "<tenant>:{p<id>}:b", values: PlainValues,
			status: Proven, tag: "{p<id>}"},
		{name: "no hash tag", a: "lease:<id>", b: "value:<id>",
			samples: map[string][]string{"id": {"42"}},
			status:  Mismatch, reason: "first has no hash tag", ceValues: map[string]string{"id": "42"},
			warnings: []string{WarnNoHashTag, WarnNoHashTag}},
		{name: "unclosed brace is no tag", a: "a{<id>", b: "b{<id>",
			status: Mismatch, warnings: []string{WarnNoHashTag, WarnNoHashTag}},
		{name: "empty literal tag hashes the whole key", a: "{}{<id>}:a", b: "{}{<id>}:b",
			status: Mismatch, reason: "{} is empty", warnings: []string{WarnNoHashTag, WarnNoHashTag}},
		{name: "tags differ", a: "{p<id>}", b: "{q<id>}",
			status: Mismatch, reason: "hash tags differ: {p<id>} in first, {q<id>} in second"},
		{name: "tags use different placeholders", a: "{p<a>}", b: "{p<b>}",
			samples: map[string][]string{"a": {"1"}, "b": {"1", "2"}},
			status:  Mismatch, ceValues: map[string]string{"a": "1", "b": "2"}},
		{name: "constant tag: proven but hot", a: "{catalog}:<id>:lease", b: "{catalog}:<id>:value",
			status: Proven, tag: "{catalog}", warnings: []string{WarnConstantTag, WarnConstantTag}},
		{name: "same template", a: "k:<id>", b: "k:<id>",
			status: Proven, reason: "same template", warnings: []string{WarnNoHashTag, WarnNoHashTag}},
		{name: "unused sample", a: "{p<id>}:a", b: "{p<id>}:b", samples: map[string][]string{"idd": {"1"}},
			status: Proven, tag: "{p<id>}", warnings: []string{WarnUnusedSample}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vs := tt.values
			if vs == "" {
				vs = AnyValues
			}
			r := CheckWith(pairManifest(t, tt.a, tt.b, tt.samples), Options{Values: vs})
			if r.Values != vs || r.Manifest != "manifest.yaml" {
				t.Errorf("report values %q manifest %q", r.Values, r.Manifest)
			}
			if len(r.Checks) != 2 {
				t.Fatalf("got %d checks, want 2 (pair, single)", len(r.Checks))
			}
			if single := r.Checks[1]; single.Status != Proven || single.Reason != "the script takes one key" {
				t.Errorf("single-key script: %s (%s)", single.Status, single.Reason)
			}
			c := r.Checks[0]
			if c.Caller != "svc" || c.Script != "pair" || len(c.Keys) != 2 || c.Keys[1].Template != tt.b || c.Keys[1].Line != 14 {
				t.Errorf("check identity: %+v", c)
			}
			if c.Status != tt.status {
				t.Fatalf("status %s (%s), want %s", c.Status, c.Reason, tt.status)
			}
			if !strings.Contains(c.Reason, tt.reason) {
				t.Errorf("reason %q does not contain %q", c.Reason, tt.reason)
			}
			if c.HashTag != tt.tag {
				t.Errorf("hash tag %q, want %q", c.HashTag, tt.tag)
			}
			if r.Failed() != (tt.status == Mismatch) {
				t.Errorf("Failed() = %v with status %s", r.Failed(), c.Status)
			}
			if tt.status == Mismatch {
				assertCounterexample(t, c, newDomains(vs, nil, 0))
				if c.Tried == 0 {
					t.Error("mismatch after trying no assignment")
				}
				if tt.ceValues != nil && fmt.Sprint(c.Counterexample.Values) != fmt.Sprint(tt.ceValues) {
					t.Errorf("counterexample values %q, want %q", c.Counterexample.Values, tt.ceValues)
				}
			} else if c.Counterexample != nil {
				t.Errorf("counterexample on a %s check", c.Status)
			}
			if got := fmt.Sprint(warningCodes(r)); got != fmt.Sprint(tt.warnings) {
				t.Errorf("warnings %v, want %v: %v", got, tt.warnings, r.Warnings)
			}
		})
	}
}

// TestCheckTested covers the case no rule proves and no search refutes: two
// different constant tags that happen to hash to the same slot.
func TestCheckTested(t *testing.T) {
	seen := map[int]string{}
	var a, b string
	for i := 0; a == ""; i++ {
		s := fmt.Sprintf("t%d", i)
		if prev, ok := seen[Of(s)]; ok {
			a, b = prev, s
		}
		seen[Of(s)] = s
	}
	r := CheckWith(pairManifest(t, "{"+a+"}:<id>", "{"+b+"}:<id>", nil), Options{Random: 50})
	c := r.Checks[0]
	if c.Status != Tested || c.Counterexample != nil || r.Failed() {
		t.Fatalf("status %s, counterexample %v, failed %v; want tested", c.Status, c.Counterexample, r.Failed())
	}
	if c.Tried < 50 {
		t.Errorf("tried %d assignments, want at least the 50 random ones", c.Tried)
	}
	codes := fmt.Sprint(warningCodes(r))
	if codes != fmt.Sprint([]string{WarnConstantTag, WarnConstantTag, WarnUnproven}) {
		t.Errorf("warnings %s", codes)
	}
	if w := r.Warnings[2]; !strings.Contains(w.Message, "script pair") || w.Line != 13 {
		t.Errorf("unproven warning: %+v", w)
	}
}

func TestCheckNoCluster(t *testing.T) {
	r := CheckManifest(pairManifest(t, "a:<id>", "b:<id>", nil, "no-cluster"))
	if c := r.Checks[0]; c.Status != Skipped || r.Failed() {
		t.Fatalf("status %s, failed %v; want skipped", c.Status, r.Failed())
	}
	// Only "first" is taken by a script that runs on a cluster; "second"
	// only by the no-cluster one, so its template draws no warning.
	if len(r.Warnings) != 1 || r.Warnings[0].Field != "callers.svc.keys.first" || r.Warnings[0].Code != WarnNoHashTag {
		t.Fatalf("warnings %v, want one no-hash-tag on first", r.Warnings)
	}
}

func TestCheckWarningPositions(t *testing.T) {
	r := CheckManifest(pairManifest(t, "{catalog}:<id>", "v:<id>", nil))
	if len(r.Warnings) != 2 {
		t.Fatalf("warnings %v", r.Warnings)
	}
	got := r.Warnings[0].String()
	want := `manifest.yaml:13:14: callers.svc.keys.first: hash tag {catalog} in "{catalog}:<id>" holds no placeholder: every key from it lands in slot ` + fmt.Sprint(Of("catalog"))
	if !strings.HasPrefix(got, want) {
		t.Errorf("warning\n got %s\nwant %s...", got, want)
	}
	if w := r.Warnings[1]; w.Code != WarnNoHashTag || w.Field != "callers.svc.keys.second" || w.Line != 14 || w.Col != 15 {
		t.Errorf("second warning %+v", w)
	}
}

func TestCheckBundledManifest(t *testing.T) {
	m, err := manifest.Load("../manifest.yaml")
	if err != nil {
		t.Fatal(err)
	}
	r := CheckManifest(m)
	if r.Failed() || len(r.Warnings) > 0 {
		t.Fatalf("bundled manifest: failed %v, warnings %v", r.Failed(), r.Warnings)
	}
	if r.Count(Proven) != len(r.Checks) || len(r.Checks) == 0 {
		t.Fatalf("bundled manifest: %d of %d checks proven", r.Count(Proven), len(r.Checks))
	}
	for _, c := range r.Checks {
		if len(c.Keys) > 1 && c.HashTag != "{product-<id>}" {
			t.Errorf("%s/%s: hash tag %q", c.Caller, c.Script, c.HashTag)
		}
	}
}

func TestCheckDeterministic(t *testing.T) {
	m := pairManifest(t, "a:{<x>}:<y>", "b:{<y>}:<x>", nil)
	one, _ := json.Marshal(CheckManifest(m))
	two, _ := json.Marshal(CheckManifest(m))
	if string(one) != string(two) {
		t.Fatalf("two runs differ:\n%s\n%s", one, two)
	}
}

func TestCheckScriptWithoutKeys(t *testing.T) {
	m := pairManifest(t, "{p<id>}:a", "{p<id>}:b", nil)
	m.Scripts = append(m.Scripts, &manifest.Script{Name: "ping"})
	m.Callers[0].Scripts = append(m.Callers[0].Scripts, "ping")
	r := CheckManifest(m)
	c := r.Checks[2]
	if c.Script != "ping" || c.Status != Proven || c.Reason != "the script takes no keys" || c.Detail() != "no keys" {
		t.Fatalf("script without keys: %+v", c)
	}
}

func TestCheckNilManifest(t *testing.T) {
	r := CheckManifest(nil)
	if r.Failed() || r.Checks == nil || r.Warnings == nil {
		t.Fatalf("nil manifest: %+v", r)
	}
}

func TestParseTemplate(t *testing.T) {
	tests := []struct {
		in, toks, shape string
	}{
		{"catalog:{product-<id>}:lease", "[catalog:{product- <id> }:lease]", "{product-<id>}"},
		{"<a><b>", "[<a> <b>]", "none"},
		{"x<Bad>y", "[x<Bad>y]", "none"},
		{"a<>b{c}", "[a<>b{c}]", "{c}"},
		{"<id", "[<id]", "none"},
		{"{a{<id>}", "[{a{ <id> }]", "{a{<id>}"},
		{"}{<id>}}", "[}{ <id> }}]", "{<id>}"},
		{"{}", "[{}]", "{}"},
	}
	for _, tt := range tests {
		tm := parseTemplate(tt.in)
		if got := fmt.Sprint(tm.toks); got != tt.toks {
			t.Errorf("parseTemplate(%q) = %s, want %s", tt.in, got, tt.toks)
		}
		sh := tm.shape()
		got := "none"
		if sh.found {
			got = sh.String()
		}
		if got != tt.shape {
			t.Errorf("shape(%q) = %s, want %s", tt.in, got, tt.shape)
		}
		if e := tm.expand(nil); tm.raw != tt.in || len(tm.placeholders()) == 0 && e != tt.in {
			t.Errorf("expand(%q) = %q", tt.in, e)
		}
	}
}

// FuzzProof checks that the proof is sound: whenever proveSameSlot accepts
// two templates, keys built from them with any values (from the value set)
// share a slot; and that a reported counterexample is real.
func FuzzProof(f *testing.F) {
	f.Add("catalog:{product-<id>}:lease", "catalog:{product-<id>}:value", "42", "7")
	f.Add("c:{<id>}:lease", "c:{<id>}:value", "", "x")
	f.Add("<t>:{p<id>}:a", "<t>:{p<id>}:b", "{}", "1")
	f.Add("{p<a>}", "{p<b>}", "}", "{")
	f.Add("{}{<id>}", "{}{<id>}x", "a", "b")
	f.Add("{a<x>}<y>", "b{a<x>}", "}", "\xff")
	f.Fuzz(func(t *testing.T, a, b, v1, v2 string) {
		if len(a)+len(b) > 200 {
			return
		}
		tmpls := []template{parseTemplate(a), parseTemplate(b)}
		keys := []Binding{{Name: "a", Template: a}, {Name: "b", Template: b}}
		for _, tm := range tmpls {
			if tm.expand(nil) == "" && tm.raw != "" && len(tm.placeholders()) == 0 {
				t.Fatalf("template %q expands to nothing", tm.raw)
			}
		}
		// One value per placeholder, alternating v1 and v2 in order of
		// appearance.
		vals := map[string]string{}
		for _, tm := range tmpls {
			for _, p := range tm.placeholders() {
				if _, ok := vals[p]; !ok {
					vals[p] = [2]string{v1, v2}[len(vals)%2]
				}
			}
		}
		for _, vs := range []Values{AnyValues, PlainValues} {
			if !inValues(v1, vs) || !inValues(v2, vs) {
				continue
			}
			if p := proveSameSlot(tmpls, keys, newDomains(vs, nil, 0)); p.ok {
				ka, kb := tmpls[0].expand(vals), tmpls[1].expand(vals)
				if Of(ka) != Of(kb) {
					t.Fatalf("proved %q and %q share a slot for %s (%s), but %q -> %d, %q -> %d",
						a, b, vs, p.reason, ka, Of(ka), kb, Of(kb))
				}
			}
		}
		c := Check{Caller: "c", Script: "s", Keys: keys}
		any := newDomains(AnyValues, nil, 0)
		checkKeys(&c, map[string][]string{"id": {v1}}, any, Options{Values: AnyValues, Random: 20})
		if c.Status == Mismatch {
			assertCounterexample(t, c, any)
		}
		// Rendering never panics and always names the script.
		var out strings.Builder
		r := &Report{Manifest: "m.yaml", Values: AnyValues, Checks: []Check{c}}
		if err := r.WriteText(&out); err != nil || c.Detail() == "" && c.Status != Tested {
			t.Fatalf("render: %v, detail %q", err, c.Detail())
		}
		if c.Status == Mismatch && !strings.Contains(out.String(), "script s: keys a, b can hash to different slots") {
			t.Fatalf("text report lacks the mismatch:\n%s", out.String())
		}
	})
}

// BenchmarkCheck measures one check-keys run over a caller: a proof, and the
// full search of a check no rule proves (samples, adversarial values and
// DefaultRandom random assignments, none of which splits the keys); each
// also with a declared pattern, whose candidates are built once per run.
func BenchmarkCheck(b *testing.B) {
	seen := map[int]string{}
	var x, y string
	for i := 0; x == ""; i++ {
		s := fmt.Sprintf("t%d", i)
		if prev, ok := seen[Of(s)]; ok {
			x, y = prev, s
		}
		seen[Of(s)] = s
	}
	cases := []struct {
		name    string
		a, b    string
		pattern string // declared for <id>, when set
	}{
		{"proven", "catalog:{product-<id>}:lease", "catalog:{product-<id>}:value", ""},
		{"full-search", "{" + x + "}:<id>:<n>", "{" + y + "}:<id>:<n>", ""},
		{"pattern-proven", "queues:{<id>}", "queues:{<id>}:notify", `^[a-z][a-z0-9_-]*$`},
		{"pattern-full-search", "{" + x + "}:<id>:<n>", "{" + y + "}:<id>:<n>", `^[a-z{}][a-z0-9{}_-]*$`},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			m := pairManifest(b, c.a, c.b, nil)
			if c.pattern != "" {
				m.Callers[0].Placeholders = map[string]manifest.Placeholder{"id": {Name: "id", Pattern: c.pattern}}
			}
			for b.Loop() {
				if r := CheckManifest(m); r.Failed() {
					b.Fatal("mismatch")
				}
			}
		})
	}
}
