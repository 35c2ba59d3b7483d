package valueset

import (
	"math/rand/v2"
	"strings"
	"testing"
)

func mustNew(t testing.TB, pattern string, nonEmpty, noBraces bool) *Set {
	t.Helper()
	s, err := New(pattern, nonEmpty, noBraces)
	if err != nil {
		t.Fatalf("New(%q): %v", pattern, err)
	}
	return s
}

func TestFacts(t *testing.T) {
	tests := []struct {
		pattern           string
		nonEmpty, noBrace bool
		empty, open, lead bool // MayBeEmpty, MayContain('{'), MayStartWith('}')
	}{
		{pattern: "", empty: true, open: true, lead: true},
		{pattern: "", nonEmpty: true, open: true, lead: true},
		{pattern: "", nonEmpty: true, noBrace: true},
		{pattern: `^[a-z][a-z0-9_-]*$`},
		{pattern: `\A[a-z]+\z`},
		{pattern: `^(?:default|high|low)$`},
		{pattern: `^(a|b)$|^c$`},
		// Unanchored: a member holds a match and anything around it.
		{pattern: `[a-z]+`, open: true, lead: true},
		{pattern: `^[a-z]+`, open: true},
		{pattern: `[a-z]+$`, open: true, lead: true},
		// Multi-line ^ and $ match at line breaks: not anchors.
		{pattern: `(?m)^[a-z]+$`, open: true, lead: true},
		{pattern: `^[a-z]*$`, empty: true},
		{pattern: `^[a-z]*$`, nonEmpty: true},
		{pattern: `^[a-z}]+$`, lead: true},
		{pattern: `^[a-z][a-z}]*$`},
		{pattern: `^\{[0-9]+\}$`, open: true},
		{pattern: `^\{[0-9]+\}$`, noBrace: true},
		{pattern: `^.+$`, open: true, lead: true},
		{pattern: `^[^a]+$`, open: true, lead: true},
		// A nullable start anchored at the end only: the first rune is
		// the pattern's.
		{pattern: `^x?}$`, lead: true},
		{pattern: `^x?y$`},
		// Nullable, anchored at the start only: anything may follow.
		{pattern: `^x?`, empty: true, open: true, lead: true},
		// Case folding keeps braces out.
		{pattern: `(?i)^[a-z]+$`},
	}
	for _, tt := range tests {
		s := mustNew(t, tt.pattern, tt.nonEmpty, tt.noBrace)
		got := [3]bool{s.MayBeEmpty(), s.MayContain('{'), s.MayStartWith('}')}
		if want := [3]bool{tt.empty, tt.open, tt.lead}; got != want {
			t.Errorf("%q nonEmpty=%v noBraces=%v: empty, '{', leading '}' = %v, want %v", tt.pattern, tt.nonEmpty, tt.noBrace, got, want)
		}
	}
}

func TestNewInvalid(t *testing.T) {
	for _, p := range []string{`[a`, `(`, `a**`, `\8`, `(?<`} {
		if _, err := New(p, false, false); err == nil {
			t.Errorf("New(%q) accepted an invalid pattern", p)
		}
	}
}

// TestCandidates checks that the candidates are members, distinct, and
// reach the adversarial members a pattern allows: braces where it allows
// them, a leading '}' when it allows one.
func TestCandidates(t *testing.T) {
	tests := []struct {
		pattern  string
		nonEmpty bool
		want     []string // candidates that must be among the results
		none     bool     // no member at all
	}{
		{pattern: "", want: []string{"", "}", "{}"}},
		{pattern: "", nonEmpty: true, want: []string{"}", "{"}},
		{pattern: `^[a-z}]+$`, want: []string{"}", "a}"}},
		// Only values the Adversarial list misses start with '}'.
		{pattern: `^\}[0-9]+$`, want: []string{"}0"}},
		{pattern: `^q\{[0-9]{2}\}$`},
		{pattern: `[a-z]+`, want: []string{"a", "{a", "}a"}},
		{pattern: `^(default|high)$`, want: []string{"default", "high"}},
		{pattern: `^[a-z]{20}$`},
		// Longer than a random walk builds: the shortest member still is
		// found.
		{pattern: `^(ab){1000}(cd){1000}x{1000}$`, want: []string{strings.Repeat("ab", 1000) + strings.Repeat("cd", 1000) + strings.Repeat("x", 1000)}},
		{pattern: `^$`, want: []string{""}},
		{pattern: `^$`, nonEmpty: true, none: true},
		{pattern: `a^b`, none: true},
		{pattern: `[^\x00-\x{10FFFF}]`, none: true},
	}
	for _, tt := range tests {
		s := mustNew(t, tt.pattern, tt.nonEmpty, false)
		got := s.Candidates(1)
		if tt.none != (len(got) == 0) {
			t.Errorf("%q: %d candidates %q, want none: %v", tt.pattern, len(got), got, tt.none)
		}
		seen := map[string]bool{}
		for _, v := range got {
			if !s.Contains(v) {
				t.Errorf("%q: candidate %q is not a member", tt.pattern, v)
			}
			if seen[v] {
				t.Errorf("%q: candidate %q twice", tt.pattern, v)
			}
			seen[v] = true
		}
		for _, w := range tt.want {
			if !seen[w] {
				t.Errorf("%q: candidates %q lack %q", tt.pattern, got, w)
			}
		}
		if s.MayContain('{') && !tt.none && tt.pattern != `^(default|high)$` {
			braced := false
			for _, v := range got {
				braced = braced || strings.ContainsAny(v, "{")
			}
			if !braced {
				t.Errorf("%q may hold '{' but no candidate does: %q", tt.pattern, got)
			}
		}
	}
}

func TestCandidatesDeterministic(t *testing.T) {
	s := mustNew(t, `^[a-z{}]+(:[0-9]+)?$`, true, false)
	a, b := s.Candidates(7), s.Candidates(7)
	if strings.Join(a, "\x00") != strings.Join(b, "\x00") {
		t.Fatalf("two runs differ:\n%q\n%q", a, b)
	}
}

func TestRandomMembers(t *testing.T) {
	s := mustNew(t, `^[a-z][a-z}]*$`, false, false)
	cands := s.Candidates(0)
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		v, ok := s.Random(rng, cands)
		if !ok || !s.Contains(v) {
			t.Fatalf("Random = %q, %v: not a member", v, ok)
		}
	}
	if _, ok := mustNew(t, `^$`, true, false).Random(rng, nil); ok {
		t.Fatal("Random found a member of an empty set")
	}
}

func TestDescribe(t *testing.T) {
	tests := []struct {
		s    *Set
		want string
	}{
		{&Set{}, "any byte strings"},
		{mustNew(t, `^[a-z]+$`, true, true), `values matching "^[a-z]+$", non-empty, without braces`},
		{&Set{NonEmpty: true}, "non-empty"},
	}
	for _, tt := range tests {
		if got := tt.s.Describe(); got != tt.want {
			t.Errorf("Describe = %q, want %q", got, tt.want)
		}
	}
}

// FuzzSet checks that what a set says no member holds, no member holds: a
// value the pattern accepts with a '{' means MayContain('{'), one starting
// with '}' means MayStartWith('}'), and "" means MayBeEmpty; and that every
// candidate is a member.
func FuzzSet(f *testing.F) {
	for _, s := range []struct{ pattern, v string }{
		{`^[a-z][a-z0-9_-]*$`, "queue"},
		{`^[a-z}]+$`, "}"},
		{`[a-z]+`, "}a{"},
		{`^x?`, "{"},
		{`(?m)^[a-z]+$`, "}\nab"},
		{`^(a|\{)*$`, "a{"},
		{`(?i)^K$`, "\u212a"},
		{`^.?$`, "\xff"},
		{`\b}`, "a}"},
	} {
		f.Add(s.pattern, s.v, false)
	}
	f.Fuzz(func(t *testing.T, pattern, v string, nonEmpty bool) {
		if len(pattern) > 64 || len(v) > 64 {
			return
		}
		s, err := New(pattern, nonEmpty, false)
		if err != nil {
			return
		}
		check := func(v string) {
			if !s.Contains(v) {
				return
			}
			if strings.Contains(v, "{") && !s.MayContain('{') {
				t.Fatalf("%q accepts %q, but MayContain('{') is false", pattern, v)
			}
			if strings.Contains(v, "}") && !s.MayContain('}') {
				t.Fatalf("%q accepts %q, but MayContain('}') is false", pattern, v)
			}
			if strings.HasPrefix(v, "}") && !s.MayStartWith('}') {
				t.Fatalf("%q accepts %q, but MayStartWith('}') is false", pattern, v)
			}
			if v == "" && !s.MayBeEmpty() {
				t.Fatalf("%q accepts \"\", but MayBeEmpty is false", pattern)
			}
		}
		check(v)
		check("")
		for _, c := range s.Candidates(0) {
			if !s.Contains(c) {
				t.Fatalf("%q: candidate %q is not a member", pattern, c)
			}
			check(c)
		}
	})
}

// BenchmarkCandidates measures building a pattern's candidates, as
// manifest.Load does once per declared placeholder.
func BenchmarkCandidates(b *testing.B) {
	s := mustNew(b, `^[a-z][a-z0-9_-]*(\{[0-9]+\})?$`, true, false)
	for b.Loop() {
		if len(s.Candidates(0)) == 0 {
			b.Fatal("no candidates")
		}
	}
}
