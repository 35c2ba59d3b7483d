// Package testtier is how a test says it belongs to the full tier: a live
// multi-server run, a whole corpus, a language toolchain. make test (the
// fast tier) skips such a test, or samples its corpus; make test-full sets
// SCRIPTCTL_TEST_TIER=rest and runs it, each sampled corpus only where the
// fast tier did not go (so CI runs each corpus item once);
// SCRIPTCTL_TEST_TIER=full runs everything whole. Every test marked here is
// named in the Makefile's FULL_RUN (cmd/scriptctl's
// TestMakefileTiersCoverEveryPackage checks it), so CI runs it.
package testtier

import (
	"os"
	"testing"
)

// Env is the environment variable that selects the tier: unset (the fast
// tier), "full" or "rest".
const Env = "SCRIPTCTL_TEST_TIER"

// IsFull reports whether the full tier's tests run: SCRIPTCTL_TEST_TIER is
// "full" (everything whole) or "rest" (the complement of the fast tier).
func IsFull() bool { v := os.Getenv(Env); return v == "full" || v == "rest" }

// IsRest reports whether SCRIPTCTL_TEST_TIER=rest: the full tier's tests
// run, and of each sampled corpus only what the fast tier left out.
func IsRest() bool { return os.Getenv(Env) == "rest" }

// Full skips t unless the full tier runs; why says what makes the test
// slow, for the skip message.
func Full(t testing.TB, why string) {
	t.Helper()
	if !IsFull() {
		t.Skipf("full tier (%s): run with %s=full (or rest, as make test-full does)", why, Env)
	}
}

// Sample reports whether a test runs item i of a corpus the fast tier
// samples every n-th item of: in the fast tier every n-th (i%n == 0,
// deterministically), in the full tier every item, in the rest tier the
// others (i%n != 0): the fast and the rest tier together run each item
// once. A test that calls it is named in FULL_RUN too.
func Sample(i, n int) bool {
	switch {
	case n <= 1:
		return !IsRest()
	case IsRest():
		return i%n != 0
	case IsFull():
		return true
	}
	return i%n == 0
}
