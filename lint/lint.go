// Package lint owns the static analysis of Redis Lua scripts: it parses a
// script the way Redis 7 would (gopher-lua's parser, shebang stripped, Lua 5.1
// rules), tracks values through locals, and reports what would break in a
// cluster or in Redis's Lua sandbox. Every rule is an Analyzer with a stable
// code, registered once. It does not run scripts (package verify does) and
// does not talk to Redis; manifest declarations arrive as a Decl.
package lint

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"sort"
	"unicode/utf8"
)

// Severity of a diagnostic.
type Severity string

// Severities, from the most to the least severe.
const (
	Error   Severity = "error"
	Warning Severity = "warning"
)

// AtLeast reports whether s is as severe as min or more.
func (s Severity) AtLeast(min Severity) bool {
	return min == Warning || s == Error
}

// ParseSeverity parses "error" or "warning".
func ParseSeverity(s string) (Severity, error) {
	switch Severity(s) {
	case Error, Warning:
		return Severity(s), nil
	}
	return "", fmt.Errorf("lint: unknown severity %q: want error or warning", s)
}

// Pos is a position in a script. Line and Col are 1-based; Col counts
// Unicode characters. Col is 0 when only the line is known.
type Pos struct {
	File string
	Line int
	Col  int
}

func (p Pos) String() string { return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col) }

// Diagnostic is one finding.
type Diagnostic struct {
	Pos      Pos
	Code     string
	Severity Severity
	Message  string
}

func (d Diagnostic) String() string {
	return fmt.Sprintf("%s: %s %s: %s", d.Pos, d.Severity, d.Code, d.Message)
}

// Decl is what the manifest declares about one script.
type Decl struct {
	Script string   // the script's name in the manifest
	Keys   []string // names of KEYS[1], KEYS[2], ...
	Args   []string // names of ARGV[1], ARGV[2], ...
	Flags  []string // the manifest's flags for the script
	// Targets are the server lines the manifest proves the script on
	// ("redis-7.0", "valkey-8.1"); nil means redis-7.0.
	Targets []string
}

// File is one script to lint.
type File struct {
	// Path is where the script is read from when Source is nil, and the
	// name diagnostics carry (use a path relative to the repository).
	Path   string
	Source []byte
	// Decl is the manifest's declaration; nil for a file the manifest does
	// not list, which gets every rule that does not need a manifest.
	Decl *Decl
}

// Config is one lint run.
type Config struct {
	Files []File
}

// ErrUnreadable is matched by errors.Is when a file cannot be linted at all
// (missing, unreadable, binary).
var ErrUnreadable = errors.New("lint: unreadable input")

// InputError is a file that cannot be linted.
type InputError struct {
	Path string
	Err  error
}

func (e *InputError) Error() string        { return fmt.Sprintf("%s: %v", e.Path, e.Err) }
func (e *InputError) Unwrap() error        { return e.Err }
func (e *InputError) Is(target error) bool { return target == ErrUnreadable }

// Run lints every file of cfg and returns the diagnostics sorted by file,
// line, column and code. The error is an *InputError for a file that cannot
// be read; the context stops the run between files.
func Run(ctx context.Context, cfg Config) ([]Diagnostic, error) {
	var out []Diagnostic
	for _, f := range cfg.Files {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		src := f.Source
		if src == nil {
			data, err := os.ReadFile(f.Path)
			if err != nil {
				var pe *os.PathError
				if errors.As(err, &pe) {
					err = pe.Err
				}
				return nil, &InputError{Path: f.Path, Err: err}
			}
			src = data
		}
		if bytes.IndexByte(src, 0) >= 0 {
			return nil, &InputError{Path: f.Path, Err: errors.New("binary file (contains a NUL byte), not a Lua script")}
		}
		if !utf8.Valid(src) {
			return nil, &InputError{Path: f.Path, Err: errors.New("not valid UTF-8, not a Lua script")}
		}
		out = append(out, Source(f.Path, src, f.Decl)...)
	}
	Sort(out)
	return out, nil
}

// Source lints one script held in memory. It never fails: a script that
// does not parse yields a syntax diagnostic.
func Source(path string, src []byte, decl *Decl) []Diagnostic {
	p := newPass(path, src, decl)
	var out []Diagnostic
	for _, a := range registry {
		r := a.(*rule)
		if r.needsManifest && decl == nil {
			continue
		}
		if p.Facts == nil && !r.withoutParse {
			continue // the script does not parse: only syntax and the line-based rules run
		}
		out = append(out, a.Analyze(p)...)
	}
	out = p.suppress(out)
	Sort(out)
	return slices.CompactFunc(out, func(a, b Diagnostic) bool { return a == b })
}

// Sort orders diagnostics by file, line, column, code and message.
func Sort(ds []Diagnostic) {
	sort.SliceStable(ds, func(i, j int) bool {
		a, b := ds[i], ds[j]
		if a.Pos.File != b.Pos.File {
			return a.Pos.File < b.Pos.File
		}
		if a.Pos.Line != b.Pos.Line {
			return a.Pos.Line < b.Pos.Line
		}
		if a.Pos.Col != b.Pos.Col {
			return a.Pos.Col < b.Pos.Col
		}
		if a.Code != b.Code {
			return a.Code < b.Code
		}
		return a.Message < b.Message
	})
}

// Count returns how many diagnostics are at min severity or above.
func Count(ds []Diagnostic, min Severity) int {
	n := 0
	for _, d := range ds {
		if d.Severity.AtLeast(min) {
			n++
		}
	}
	return n
}
