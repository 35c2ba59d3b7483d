// Package cmdutil holds what every scriptctl command shares: the exit code
// contract and the errors that carry it. It does not parse flags or print
// reports; commands do.
package cmdutil

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
)

// Exit codes, the same for every command (scriptctl help exit-codes).
const (
	ExitOK       = 0 // success
	ExitFindings = 1 // the check ran and found a problem
	ExitInput    = 2 // invalid input: usage, manifest, script syntax
	ExitEnv      = 3 // the environment failed: unreachable node, auth, timeout, partial deploy
	ExitPending  = 4 // plan --exit-code: a deploy would load something, and nothing failed
)

// ExitError carries an exit code. When Silent is set the command has already
// reported the problem and main prints nothing more.
type ExitError struct {
	Code   int
	Err    error
	Silent bool
	Hint   string // printed as "Try: ..." after the error
}

func (e *ExitError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit %d", e.Code)
	}
	return e.Err.Error()
}

func (e *ExitError) Unwrap() error { return e.Err }

// Findings returns a silent error for a report that already printed its
// findings: exit 1, nothing more printed.
func Findings() error { return &ExitError{Code: ExitFindings, Silent: true} }

// Pending returns a silent error for a plan that printed its pending
// changes and found nothing wrong: exit 4 (plan --exit-code).
func Pending() error { return &ExitError{Code: ExitPending, Silent: true} }

// Usage wraps a usage problem (exit 2) with a hint such as
// "scriptctl slot --help".
func Usage(err error, hint string) error { return &ExitError{Code: ExitInput, Err: err, Hint: hint} }

// Input marks err as invalid input (exit 2).
func Input(err error) error { return wrap(ExitInput, err) }

// Env marks err as an environment failure (exit 3).
func Env(err error) error { return wrap(ExitEnv, err) }

func wrap(code int, err error) error {
	if err == nil {
		return nil
	}
	var ee *ExitError
	if errors.As(err, &ee) {
		return err
	}
	return &ExitError{Code: code, Err: err}
}

// ExitCode maps an error returned by a command to its exit code: an
// ExitError's code; an unreadable input file exits 2 (the command layer
// adds an invalid manifest);
// anything else (a failed connection, a timeout, an interrupted run) exits 3.
func ExitCode(err error) int {
	if err == nil {
		return ExitOK
	}
	var ee *ExitError
	if errors.As(err, &ee) {
		return ee.Code
	}
	// A file the user named (manifest, script, scenario, state) that cannot
	// be opened or read is invalid input, not a failed environment; a write
	// that fails (a full disk, a closed pipe on standard output) is the
	// environment.
	var pe *fs.PathError
	if errors.As(err, &pe) {
		if pe.Op == "write" {
			return ExitEnv
		}
		return ExitInput
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return ExitEnv
	}
	return ExitEnv
}
