//go:build race

package mutate

// testStepLimit is TestRun's step limit. Under the race detector (make
// test runs TestRun so for its parallel workers) a mutant that loops
// forever stops after a million instructions, not DefaultStepLimit's ten
// million: the same verdicts for a tenth of the instrumented steps. The run
// without -race keeps the default (0).
const testStepLimit = 1_000_000
