package testtier

import (
	"fmt"
	"strings"
	"testing"
)

// TestFull: without the variable a full-tier test is skipped, naming the
// variable; with it (full or rest), it runs.
func TestFull(t *testing.T) {
	t.Setenv(Env, "")
	ran := false
	sub := t.Run("fast", func(t *testing.T) {
		Full(t, "a whole corpus")
		ran = true
	})
	if ran || !sub {
		t.Errorf("fast tier: ran = %v (want a skip), passed = %v", ran, sub)
	}
	if IsFull() || IsRest() {
		t.Error("IsFull or IsRest without the variable")
	}
	for _, tier := range []string{"full", "rest"} {
		t.Setenv(Env, tier)
		ran = false
		t.Run(tier, func(t *testing.T) {
			Full(t, "a whole corpus")
			ran = true
		})
		if !ran || !IsFull() {
			t.Errorf("%s tier: the test did not run", tier)
		}
		if IsRest() != (tier == "rest") {
			t.Errorf("%s tier: IsRest() = %v", tier, IsRest())
		}
	}
	if !strings.Contains(Env, "TIER") {
		t.Errorf("Env = %q", Env)
	}
}

// TestSample: the fast tier takes every n-th item, the full tier
// everything, the rest tier the others: fast and rest together take each
// item exactly once.
func TestSample(t *testing.T) {
	take := func(tier string, n int) []int {
		t.Setenv(Env, tier)
		var out []int
		for i := 0; i < 10; i++ {
			if Sample(i, n) {
				out = append(out, i)
			}
		}
		return out
	}
	for _, tt := range []struct {
		tier string
		n    int
		want string
	}{
		{"", 4, "[0 4 8]"},
		{"full", 4, "[0 1 2 3 4 5 6 7 8 9]"},
		{"rest", 4, "[1 2 3 5 6 7 9]"},
		{"", 1, "[0 1 2 3 4 5 6 7 8 9]"},
		{"", 0, "[0 1 2 3 4 5 6 7 8 9]"},
		{"full", 1, "[0 1 2 3 4 5 6 7 8 9]"},
		{"rest", 1, "[]"},
	} {
		if got := fmt.Sprint(take(tt.tier, tt.n)); got != tt.want {
			t.Errorf("tier %q, n = %d: took %s, want %s", tt.tier, tt.n, got, tt.want)
		}
	}
}
