package target

import (
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, name := range Names() {
		if got, err := Parse(name); err != nil || got.Name != name {
			t.Errorf("Parse(%q) = %v, %v", name, got, err)
		}
	}
	_, err := Parse("redis-6.2")
	if err == nil || !strings.Contains(err.Error(), "redis-7.0, redis-7.2") {
		t.Fatalf("Parse(redis-6.2) error %v, want the list of known targets", err)
	}
}

func TestCovered(t *testing.T) {
	cases := []struct {
		targets         []string
		family, version string
		want            bool
	}{
		{[]string{"redis-7.0"}, Redis, "7.0.15", true},
		{[]string{"redis-7.0"}, Redis, "8.0.2", false},
		{[]string{"redis-7.0", "valkey-8.1"}, Valkey, "8.1.1", true},
		{[]string{"redis-7.2"}, Valkey, "7.2.5", false}, // a family is part of the target
		{[]string{"redis-7.0"}, Redis, "", false},
		{[]string{"redis-7.0"}, Redis, "seven", false},
	}
	for _, tc := range cases {
		if got := Covered(tc.targets, tc.family, tc.version); got != tc.want {
			t.Errorf("Covered(%v, %s, %s) = %v, want %v", tc.targets, tc.family, tc.version, got, tc.want)
		}
	}
}

func TestLuaCVEs(t *testing.T) {
	const (
		a = Affected
		u = Unaffected
		x = Unknown
		n = NotJudged
	)
	// Columns: CVE-2025-49844 (and its three siblings), CVE-2024-46981,
	// CVE-2024-31449, CVE-2022-24834, CVE-2021-32626.
	ids := []string{"CVE-2025-49844", "CVE-2024-46981", "CVE-2024-31449", "CVE-2022-24834", "CVE-2021-32626"}
	cases := []struct {
		family, version string
		want            []Verdict
	}{
		{Redis, "6.0.20", []Verdict{a, a, a, u, u}},
		{Redis, "6.2.6", []Verdict{a, a, a, a, u}},
		{Redis, "6.2.5", []Verdict{a, a, a, a, a}},
		{Redis, "6.2.19", []Verdict{a, u, u, u, u}},
		{Redis, "6.2.20", []Verdict{u, u, u, u, u}},
		{Redis, "7.0.11", []Verdict{a, a, a, a, u}},
		{Redis, "7.0.15", []Verdict{a, a, a, u, u}}, // end of life: no 2024 or 2025 fix
		{Redis, "7.2.5", []Verdict{a, a, a, u, u}},
		{Redis, "7.2.6", []Verdict{a, a, u, u, u}},
		{Redis, "7.2.7", []Verdict{a, u, u, u, u}},
		{Redis, "7.2.10", []Verdict{a, u, u, u, u}},
		{Redis, "7.2.11", []Verdict{u, u, u, u, u}},
		{Redis, "7.4.0", []Verdict{a, a, a, u, u}},
		{Redis, "7.4.5", []Verdict{a, u, u, u, u}},
		{Redis, "7.4.6", []Verdict{u, u, u, u, u}},
		{Redis, "8.0.2", []Verdict{a, u, u, u, u}}, // upstream; Debian's build carries the fix
		{Redis, "8.0.3", []Verdict{a, u, u, u, u}},
		{Redis, "8.0.4", []Verdict{u, u, u, u, u}},
		{Redis, "8.0.6", []Verdict{u, u, u, u, u}},
		{Redis, "8.2.1", []Verdict{a, u, u, u, u}},
		{Redis, "8.2.2", []Verdict{u, u, u, u, u}},
		{Redis, "8.4.0", []Verdict{u, u, u, u, u}}, // released after the fixes
		{Redis, "8.6.1", []Verdict{x, x, x, x, x}}, // a line the table has no row for
		{Redis, "5.0.14", []Verdict{x, x, x, x, x}},
		{Valkey, "7.2.5", []Verdict{a, a, a, u, u}},
		{Valkey, "7.2.7", []Verdict{a, a, u, u, u}},
		{Valkey, "7.2.8", []Verdict{a, u, u, u, u}},
		{Valkey, "7.2.10", []Verdict{a, u, u, u, u}},
		{Valkey, "7.2.11", []Verdict{u, u, u, u, u}},
		{Valkey, "8.0.0", []Verdict{a, a, a, u, u}},
		{Valkey, "8.0.5", []Verdict{a, u, u, u, u}},
		{Valkey, "8.0.6", []Verdict{u, u, u, u, u}},
		{Valkey, "8.1.1", []Verdict{a, u, u, u, u}},
		{Valkey, "8.1.4", []Verdict{u, u, u, u, u}},
		{Valkey, "9.0.0", []Verdict{u, u, u, u, u}},
		{Valkey, "9.1.2", []Verdict{u, u, u, u, u}},
		{Valkey, "9.2.0", []Verdict{x, x, x, x, x}},
		{"dragonfly", "1.0.0", []Verdict{n, n, n, n, n}},
		{Redis, "x", []Verdict{x, x, x, x, x}},
	}
	for _, tc := range cases {
		for i, id := range ids {
			c, ok := LookupCVE(id)
			if !ok {
				t.Fatalf("%s is not in the table", id)
			}
			if got := c.Judge(tc.family, tc.version); got != tc.want[i] {
				t.Errorf("%s %s, %s: verdict %d, want %d", tc.family, tc.version, id, got, tc.want[i])
			}
		}
	}
	// The October 2025 four share their rows.
	four := map[string]bool{"CVE-2025-49844": true, "CVE-2025-46817": true, "CVE-2025-46818": true, "CVE-2025-46819": true}
	for _, tc := range cases {
		n := 0
		for _, c := range AffectingCVEs(tc.family, tc.version) {
			if four[c.ID] {
				n++
			}
		}
		if want := map[bool]int{true: 4, false: 0}[tc.want[0] == a]; n != want {
			t.Errorf("%s %s: %d October 2025 CVEs, want %d", tc.family, tc.version, n, want)
		}
	}
	// CVE-2025-67733, fixed in February 2026.
	inj, ok := LookupCVE("CVE-2025-67733")
	if !ok {
		t.Fatal("CVE-2025-67733 is not in the table")
	}
	for _, tc := range []struct {
		family, version string
		want            Verdict
	}{
		{Redis, "7.0.15", a}, {Redis, "6.2.20", x}, {Redis, "7.2.11", x}, {Redis, "7.4.7", a}, {Redis, "7.4.8", u},
		{Redis, "8.0.2", a}, {Redis, "8.0.5", a}, {Redis, "8.0.6", u}, {Redis, "8.2.4", a}, {Redis, "8.2.5", u},
		{Redis, "8.4.1", a}, {Redis, "8.4.2", u}, {Redis, "8.6.0", x},
		{Valkey, "7.2.11", a}, {Valkey, "7.2.12", u}, {Valkey, "8.0.6", a}, {Valkey, "8.0.7", u}, {Valkey, "8.1.1", a},
		{Valkey, "8.1.6", u}, {Valkey, "9.0.1", a}, {Valkey, "9.0.2", u}, {Valkey, "9.1.2", u},
	} {
		if got := inj.Judge(tc.family, tc.version); got != tc.want {
			t.Errorf("CVE-2025-67733, %s %s: verdict %d, want %d", tc.family, tc.version, got, tc.want)
		}
	}
	c, _ := LookupCVE("CVE-2025-49844")
	if got := c.FixedIn(Redis, "8.0.2"); got != "8.0.4" {
		t.Errorf("FixedIn(redis 8.0.2) = %q", got)
	}
	if got := c.FixedIn(Redis, "7.0.15"); got != "" {
		t.Errorf("FixedIn(redis 7.0.15) = %q", got)
	}
	w := CVEWarning(c, []string{"redis 8.0.2", "valkey 8.1.1"})
	for _, s := range []string{"CVE-2025-49844 (use-after-free in the Lua parser, remote code execution by a script): ", "upstream redis 8.0.2, valkey 8.1.1 are affected", "unless your build carries the fix"} {
		if !strings.Contains(w, s) {
			t.Errorf("warning %q lacks %q", w, s)
		}
	}
	// Every entry names an advisory, and every fixed row is a release of
	// its own line.
	for _, c := range CVEs() {
		if len(c.Advisories[Redis]) == 0 || !strings.HasPrefix(c.ID, "CVE-") {
			t.Errorf("%s: no advisory", c.ID)
		}
		for family, lines := range c.Lines {
			for line, row := range lines {
				if row == LineAffected || row == LineUnaffected {
					continue
				}
				if !strings.HasPrefix(row, line+".") {
					t.Errorf("%s %s line %s: fixed row %q is not a release of the line", c.ID, family, line, row)
				}
			}
		}
	}
}
