//go:build !race

package mutate

// testStepLimit is TestRun's step limit: the default (see race_test.go).
const testStepLimit = 0
