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
	cases := []struct {
		family, version string
		affected        bool
	}{
		{Redis, "7.0.15", true}, // end-of-life line, never fixed upstream
		{Redis, "6.2.19", true},
		{Redis, "6.2.20", false},
		{Redis, "7.2.10", true},
		{Redis, "7.2.11", false},
		{Redis, "7.4.5", true},
		{Redis, "7.4.6", false},
		{Redis, "8.0.2", true}, // upstream; Debian's build carries the fix
		{Redis, "8.0.4", false},
		{Redis, "8.2.1", true},
		{Redis, "8.2.2", false},
		{Redis, "8.4.0", false}, // released after the fixes
		{Valkey, "7.2.10", true},
		{Valkey, "7.2.11", false},
		{Valkey, "8.0.5", true},
		{Valkey, "8.0.6", false},
		{Valkey, "8.1.1", true},
		{Valkey, "8.1.4", false},
		{Valkey, "9.0.0", false},
		{"dragonfly", "1.0.0", false},
		{Redis, "x", false},
	}
	for _, tc := range cases {
		got := len(AffectingCVEs(tc.family, tc.version)) == len(CVEs)
		none := len(AffectingCVEs(tc.family, tc.version)) == 0
		if tc.affected && !got || !tc.affected && !none {
			t.Errorf("%s %s: affected by %d of %d CVEs, want affected=%v", tc.family, tc.version, len(AffectingCVEs(tc.family, tc.version)), len(CVEs), tc.affected)
		}
	}
	w := CVEWarning(Redis, "8.0.2", AffectingCVEs(Redis, "8.0.2"))
	for _, s := range []string{"upstream redis 8.0.2 is affected by CVE-2025-49844", "unless your build carries the fix"} {
		if !strings.Contains(w, s) {
			t.Errorf("warning %q lacks %q", w, s)
		}
	}
}
