package testtier

import (
	"strings"
	"testing"
)

// TestFull: without the variable a full-tier test is skipped, naming the
// variable; with it, it runs.
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
	if IsFull() {
		t.Error("IsFull without the variable")
	}
	t.Setenv(Env, "full")
	t.Run("full", func(t *testing.T) {
		Full(t, "a whole corpus")
		ran = true
	})
	if !ran || !IsFull() {
		t.Error("full tier: the test did not run")
	}
	if !strings.Contains(Env, "TIER") {
		t.Errorf("Env = %q", Env)
	}
}

// TestEvery: the fast tier samples, the full tier takes everything.
func TestEvery(t *testing.T) {
	t.Setenv(Env, "")
	if got := Every(8); got != 8 {
		t.Errorf("fast tier: Every(8) = %d", got)
	}
	if got := Every(0); got != 1 {
		t.Errorf("Every(0) = %d", got)
	}
	t.Setenv(Env, "full")
	if got := Every(8); got != 1 {
		t.Errorf("full tier: Every(8) = %d", got)
	}
}
