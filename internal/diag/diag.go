// Package diag owns the one shape every scriptctl command reports a finding
// in: file:line:col: severity code: message, with optional indented detail
// lines; the same fields in JSON; SARIF 2.1.0 logs (one run per tool) for
// code scanning; and JUnit XML reports for CI test views, written by its
// XMLWriter (which coverage's Cobertura report uses too). It does not find
// anything: commands and library packages turn their results into
// Diagnostics.
package diag

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
)

// FormatVersion is the format_version of JSON documents whose findings are
// Diagnostics. Version 2 is the first with the shared field names (file,
// line, column, severity, code, message, detail).
const FormatVersion = "2"

// Severities.
const (
	Error   = "error"
	Warning = "warning"
	// Info is a suggestion: it never decides an exit code.
	Info = "info"
)

// Diagnostic is one finding at a position.
type Diagnostic struct {
	File     string   `json:"file"`
	Line     int      `json:"line"`   // 1-based; 0 when unknown
	Column   int      `json:"column"` // 1-based; 0 when unknown
	Severity string   `json:"severity"`
	Code     string   `json:"code"` // stable, such as global-write or scenario-failed
	Message  string   `json:"message"`
	Detail   []string `json:"detail"` // more lines (a diff, a hint); never nil in JSON
	// Related are other positions that explain the finding, such as the
	// call paths that reach a cause inside a function; omitted when none.
	Related []Related `json:"related,omitempty"`
}

// Related is a position that explains a Diagnostic.
type Related struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	Column  int    `json:"column"`
	Message string `json:"message"`
}

// Pos is file:line:col, leaving out what is unknown (0).
func (d Diagnostic) Pos() string {
	var b strings.Builder
	b.WriteString(d.File)
	if d.Line > 0 {
		fmt.Fprintf(&b, ":%d", d.Line)
		if d.Column > 0 {
			fmt.Fprintf(&b, ":%d", d.Column)
		}
	}
	return b.String()
}

// String is the text form: "file:line:col: severity code: message", then
// each detail line indented by four spaces.
func (d Diagnostic) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s %s: %s", d.Pos(), d.Severity, d.Code, d.Message)
	for _, l := range d.Detail {
		b.WriteString("\n    ")
		b.WriteString(l)
	}
	return b.String()
}

// Count returns how many of ds have severity sev.
func Count(ds []Diagnostic, sev string) int {
	n := 0
	for _, d := range ds {
		if d.Severity == sev {
			n++
		}
	}
	return n
}

// AtOrAbove reports whether d's severity is at or above min ("warning"
// counts warnings and errors, "error" only errors).
func AtOrAbove(d Diagnostic, min string) bool {
	return d.Severity == Error || min == Warning && d.Severity == Warning
}

// Normalize returns ds with nil Detail made empty, so JSON shows [].
func Normalize(ds []Diagnostic) []Diagnostic {
	out := make([]Diagnostic, len(ds))
	for i, d := range ds {
		if d.Detail == nil {
			d.Detail = []string{}
		}
		out[i] = d
	}
	return out
}

// WriteText writes one diagnostic per line (plus detail lines). paint, when
// not nil, colors the severity word.
func WriteText(w io.Writer, ds []Diagnostic, paint func(sev string) string) error {
	for _, d := range ds {
		if paint != nil {
			d.Severity = paint(d.Severity)
		}
		if _, err := fmt.Fprintln(w, d.String()); err != nil {
			return err
		}
	}
	return nil
}

// Document is the JSON form of a report that is only findings (lint):
// {"format_version": "2", "diagnostics": [...]}.
type Document struct {
	FormatVersion string       `json:"format_version"`
	Diagnostics   []Diagnostic `json:"diagnostics"`
}

// WriteJSON writes ds as a Document.
func WriteJSON(w io.Writer, ds []Diagnostic) error {
	return encode(w, Document{FormatVersion: FormatVersion, Diagnostics: Normalize(ds)})
}

func encode(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// URI writes a path as a SARIF artifact URI relative to the source root:
// forward slashes, no leading ./, spaces and % escaped.
func URI(path string) string {
	p := filepath.ToSlash(filepath.Clean(path))
	p = strings.TrimPrefix(p, "./")
	var b strings.Builder
	for _, r := range p {
		switch {
		case r == ' ':
			b.WriteString("%20")
		case r == '%':
			b.WriteString("%25")
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
