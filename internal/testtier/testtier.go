// Package testtier is how a test says it belongs to the full tier: a live
// multi-server run, a whole corpus, a language toolchain. make test (the
// fast tier) skips such a test; make test-full sets SCRIPTCTL_TEST_TIER=full
// and runs it. Every test marked here is named in the Makefile's FULL_RUN
// (cmd/scriptctl's TestMakefileTiersCoverEveryPackage checks it), so CI
// runs it.
package testtier

import (
	"os"
	"testing"
)

// Env is the environment variable that selects the tier.
const Env = "SCRIPTCTL_TEST_TIER"

// IsFull reports whether the full tier runs (SCRIPTCTL_TEST_TIER=full).
func IsFull() bool { return os.Getenv(Env) == "full" }

// Full skips t unless the full tier runs; why says what makes the test
// slow, for the skip message.
func Full(t testing.TB, why string) {
	t.Helper()
	if !IsFull() {
		t.Skipf("full tier (%s): run with %s=full, as make test-full does", why, Env)
	}
}

// Every is the stride a test samples its corpus with: n in the fast tier
// (every n-th item, deterministically), 1 (everything) in the full tier.
// A test that calls it runs in both tiers and is named in FULL_RUN too.
func Every(n int) int {
	if IsFull() || n < 1 {
		return 1
	}
	return n
}
