package manifest

import (
	"errors"
	"fmt"
	"strings"
)

// Error is one problem at a position: in a manifest, in a scripts.sum ledger
// or in a script file. Line and Col are 1-based; 0 means unknown.
type Error struct {
	File  string
	Line  int
	Col   int
	Field string // dotted path such as scripts.acquire.keys[1]; may be empty
	Msg   string
	Err   error // the underlying error, if any (for example an *os.PathError)
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
		if e.Col > 0 {
			fmt.Fprintf(&b, ":%d", e.Col)
		}
	}
	b.WriteString(": ")
	if e.Field != "" {
		b.WriteString(e.Field)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// Errors is every problem found in one manifest (or one scripts.sum), in file
// order. Load returns it (as error) when the manifest is invalid; it matches
// ErrInvalid with errors.Is.
type Errors []*Error

// Error prints the problem, or a count followed by one problem per line:
//
//	2 problems in manifest.yaml:
//	manifest.yaml:3:10: version: must be a positive integer, not 0
//	manifest.yaml:9:5: scripts.get.file: cannot read get.lua: no such file or directory
func (es Errors) Error() string {
	switch len(es) {
	case 0:
		return "no problems"
	case 1:
		return es[0].Error()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d problems in %s:", len(es), es[0].File)
	for _, e := range es {
		b.WriteString("\n")
		b.WriteString(e.Error())
	}
	return b.String()
}

// Is reports whether target is ErrInvalid.
func (es Errors) Is(target error) bool { return target == ErrInvalid }

// Unwrap returns the problems, so errors.As finds an underlying error.
func (es Errors) Unwrap() []error {
	out := make([]error, len(es))
	for i, e := range es {
		out[i] = e
	}
	return out
}

// ErrInvalid is matched by errors.Is for any manifest validation error.
var ErrInvalid = errors.New("manifest: invalid")
