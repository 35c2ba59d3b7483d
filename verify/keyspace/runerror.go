package keyspace

import "fmt"

// RunError reports a run the offline engine cannot judge: it is never a Redis
// reply. Code is one of "not-implemented", "undeclared-key", "step-limit",
// "timeout", "stack-overflow", "memory", "server-crash" (a script that crashes the
// target's server itself) or "unknown-target".
type RunError struct {
	Code string
	Msg  string
	// Chunk and Line are where the script stood when the run stopped (the
	// chunk as Redis names it, user_script or user_function, and its
	// 1-based line); "" and 0 when unknown (a timeout, a failure outside
	// Lua code).
	Chunk string
	Line  int
}

func (e *RunError) Error() string { return e.Msg }

// RunError codes.
const (
	CodeNotImplemented = "not-implemented"
	CodeUndeclaredKey  = "undeclared-key"
	CodeStepLimit      = "step-limit" // the run spent Options.StepLimit
	CodeTimeout        = "timeout"    // the run outlived Options.Timeout, or its context
	CodeStackOverflow  = "stack-overflow"
	CodeMemory         = "memory"
	CodeServerCrash    = "server-crash"
	CodeUnknownTarget  = "unknown-target"
)

// NotImplemented is the RunError of something the engine does not emulate.
func NotImplemented(format string, args ...any) *RunError {
	return &RunError{Code: CodeNotImplemented, Msg: "not implemented offline: " + fmt.Sprintf(format, args...)}
}
