package manifest

import (
	"errors"
	"path/filepath"
	"slices"
	"testing"

	"github.com/scriptctl/scriptctl/internal/valueset"
)

// FuzzManifest parses arbitrary manifests against the scripts in
// testdata/scripts (get.lua, put.lua, binary.lua). Parse must never panic; it
// either returns a manifest that satisfies the invariants Load promises, or
// an Errors value in which every problem has a position.
func FuzzManifest(f *testing.F) {
	f.Add([]byte(validManifest))
	f.Add([]byte(validManifest + "    placeholders:\n      id: {non_empty: true, pattern: '^[0-9]+$'}\n"))
	for _, tt := range invalidManifests {
		f.Add([]byte(tt.yaml))
	}
	path := filepath.Join("testdata", "scripts", "manifest.yaml")
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Parse(path, data)
		if err != nil {
			var errs Errors
			if !errors.As(err, &errs) || !errors.Is(err, ErrInvalid) || len(errs) == 0 {
				t.Fatalf("err is %T, want a non-empty Errors: %v", err, err)
			}
			for _, e := range errs {
				if e.File != path || e.Line < 1 || e.Col < 1 || e.Msg == "" {
					t.Fatalf("problem without a position or message: %+v", e)
				}
			}
			return
		}
		if m.Schema != SchemaVersion || m.Version < 1 || !isLibraryName(m.Library) || len(m.Scripts) == 0 {
			t.Fatalf("invalid header accepted: %+v", m)
		}
		for _, s := range m.Scripts {
			if !isScriptName(s.Name) || len(s.Source) == 0 || s.SHA != SHA1Hex(s.Source) {
				t.Fatalf("invalid script accepted: %+v", s)
			}
			for _, fl := range s.Flags {
				if !isFlag(fl) {
					t.Fatalf("unknown flag accepted: %q", fl)
				}
			}
			if flags, _, err := Shebang(s.Source); err != nil || slices.ContainsFunc(flags, func(f string) bool { return !isFlag(f) }) {
				t.Fatalf("unparseable shebang accepted: %v %v", flags, err)
			}
		}
		for _, c := range m.Callers {
			need := map[string]bool{}
			for _, name := range c.Scripts {
				s := m.Script(name)
				if s == nil {
					t.Fatalf("caller %s names unknown script %s", c.Name, name)
				}
				for _, k := range s.Keys {
					need[k] = true
				}
			}
			placeholders := map[string]bool{}
			for _, k := range c.Keys {
				if !need[k.Name] {
					t.Fatalf("caller %s binds undeclared key %s", c.Name, k.Name)
				}
				delete(need, k.Name)
				if _, problem := parseTemplate(k.Template); problem != "" {
					t.Fatalf("malformed template accepted: %q", k.Template)
				}
				for _, p := range k.Placeholders() {
					placeholders[p] = true
				}
			}
			if len(need) > 0 {
				t.Fatalf("caller %s misses templates for %v", c.Name, need)
			}
			for name, values := range c.Samples {
				if !placeholders[name] || len(values) == 0 {
					t.Fatalf("caller %s: sample %s accepted", c.Name, name)
				}
			}
			for name, ph := range c.Placeholders {
				if !placeholders[name] || ph.Name != name || ph.Line < 1 || ph.Col < 1 {
					t.Fatalf("caller %s: placeholder %+v accepted", c.Name, ph)
				}
				set, err := valueset.New(ph.Pattern, ph.NonEmpty, false)
				if err != nil {
					t.Fatalf("caller %s: placeholder %s: pattern %q accepted: %v", c.Name, name, ph.Pattern, err)
				}
				for _, v := range c.Samples[name] {
					if !set.Contains(v) {
						t.Fatalf("caller %s: sample %q outside %s accepted", c.Name, v, set.Describe())
					}
				}
			}
		}
	})
}

// FuzzSum parses arbitrary ledgers: no panic, every problem has a line, and
// what parses round-trips through Bytes.
func FuzzSum(f *testing.F) {
	f.Add([]byte(sumHeader + "1 get " + shaA + "\n1 put " + shaC + "\n2 get " + shaB + "\n"))
	f.Add([]byte("1 get abc\n0 x y\n"))
	f.Add([]byte("<<<<<<< HEAD\n1 get " + shaA + "\n=======\n"))
	f.Add([]byte("1 get " + shaA + "\n1 get " + shaB + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ParseSum("scripts.sum", data)
		if err != nil {
			var errs Errors
			if !errors.As(err, &errs) || len(errs) == 0 {
				t.Fatalf("err is %T: %v", err, err)
			}
			for _, e := range errs {
				if e.Line < 1 || e.Col < 1 {
					t.Fatalf("problem without a position: %+v", e)
				}
			}
			return
		}
		again, err := ParseSum("scripts.sum", s.Bytes())
		if err != nil {
			t.Fatalf("Bytes does not parse: %v\n%s", err, s.Bytes())
		}
		strip := func(es []SumEntry) []SumEntry {
			out := slices.Clone(es)
			for i := range out {
				out[i].Line = 0
			}
			return out
		}
		if !slices.Equal(strip(s.Entries), strip(again.Entries)) {
			t.Fatalf("round trip: %v != %v", again.Entries, s.Entries)
		}
	})
}
