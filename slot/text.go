package slot

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/scriptctl/scriptctl/internal/diag"
)

// Detail is a one-line summary of a check for a table cell: the shared hash
// tag, the counterexample's values and slots, or why there is nothing to
// prove.
func (c Check) Detail() string {
	switch c.Status {
	case Proven:
		if c.HashTag != "" {
			return "hash tag " + c.HashTag
		}
		switch len(c.Keys) {
		case 0:
			return "no keys"
		case 1:
			return "one key"
		}
		return "same template"
	case Mismatch:
		if c.Counterexample == nil {
			return ""
		}
		var slots []string
		for _, k := range c.Counterexample.Keys {
			slots = append(slots, strconv.Itoa(k.Slot))
		}
		return fmt.Sprintf("%s: slots %s", formatValues(c.Counterexample.Values), strings.Join(slots, ", "))
	case Tested:
		return fmt.Sprintf("no proof; %d assignments agree", c.Tried)
	case Skipped:
		return "no-cluster"
	}
	return ""
}

// KeyNames returns the names of the check's keys joined by sep.
func (c Check) KeyNames(sep string) string {
	names := make([]string, len(c.Keys))
	for i, k := range c.Keys {
		names[i] = k.Name
	}
	return strings.Join(names, sep)
}

// Position returns where a mismatch is reported: the template of the first
// key whose counterexample slot differs from the first key's, and its
// field.
func (c Check) Position() (line, col int, field string) {
	i := 0
	if ce := c.Counterexample; ce != nil {
		for j, k := range ce.Keys {
			if k.Slot != ce.Keys[0].Slot {
				i = j
				break
			}
		}
	}
	if len(c.Keys) == 0 {
		return 0, 0, "callers." + c.Caller
	}
	return c.Keys[i].Line, c.Keys[i].Col, "callers." + c.Caller + ".keys." + c.Keys[i].Name
}

// Diagnostics returns the report's findings in the shared diagnostic shape
// (internal/diag): every mismatch as an error cross-slot at the key
// template that splits, its counterexample and hint as detail lines, then
// every warning. A field path leads the message.
func (r *Report) Diagnostics() []diag.Diagnostic {
	out := []diag.Diagnostic{}
	for _, c := range r.Mismatches() {
		line, col, field := c.Position()
		d := diag.Diagnostic{File: r.Manifest, Line: line, Column: col, Severity: diag.Error, Code: "cross-slot",
			Message: fmt.Sprintf("%s: script %s: keys %s can hash to different slots: %s", field, c.Script, c.KeyNames(", "), c.Reason)}
		if ce := c.Counterexample; ce != nil {
			d.Detail = append(d.Detail, "counterexample: "+formatValues(ce.Values))
			nameWidth, keyWidth := 0, 0
			for _, k := range ce.Keys {
				nameWidth = max(nameWidth, len(k.Name))
				keyWidth = max(keyWidth, len(strconv.Quote(k.Key)))
			}
			for _, k := range ce.Keys {
				d.Detail = append(d.Detail, fmt.Sprintf("  %-*s  %-*s  slot %d", nameWidth, k.Name, keyWidth, strconv.Quote(k.Key), k.Slot))
			}
		}
		if c.Hint != "" {
			d.Detail = append(d.Detail, "hint: "+c.Hint)
		}
		out = append(out, d)
	}
	for _, w := range r.Warnings {
		out = append(out, diag.Diagnostic{File: w.File, Line: w.Line, Column: w.Col, Severity: diag.Warning, Code: w.Code, Message: w.Field + ": " + w.Message})
	}
	return diag.Normalize(out)
}

// Document is the JSON form of a report (scriptctl check-keys --format
// json, format_version "2"): the checks as they are, and the mismatches and
// warnings as shared diagnostics.
type Document struct {
	FormatVersion string            `json:"format_version"` // "2"
	Manifest      string            `json:"manifest"`
	Values        Values            `json:"values"`
	Checks        []Check           `json:"checks"`
	Diagnostics   []diag.Diagnostic `json:"diagnostics"`
}

// Document returns r's JSON form.
func (r *Report) Document() Document {
	checks := r.Checks
	if checks == nil {
		checks = []Check{}
	}
	return Document{FormatVersion: diag.FormatVersion, Manifest: r.Manifest, Values: r.Values, Checks: checks, Diagnostics: r.Diagnostics()}
}

// WriteText writes the report's problems for a terminal or a CI log: every
// mismatch with its counterexample and a hint, every warning, each in the
// shared diagnostic format (file:line:col: severity code: field: message,
// detail lines indented), then a summary line.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	if err := diag.WriteText(&b, r.Diagnostics(), nil); err != nil {
		return err
	}
	fmt.Fprintf(&b, "%s\n", r.Summary())
	_, err := io.WriteString(w, b.String())
	return err
}

// Summary is one line: how many checks ended how, the warnings, and the
// value set the proofs cover (narrowed, when a caller declares its
// placeholders' values).
func (r *Report) Summary() string {
	var parts []string
	for _, s := range []Status{Proven, Tested, Mismatch, Skipped} {
		if n := r.Count(s); n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, s))
		}
	}
	if len(parts) == 0 {
		parts = append(parts, "nothing to check")
	}
	covered := r.Values.Describe()
	for _, c := range r.Checks {
		if len(c.Domains) > 0 {
			covered += "; callers' placeholders narrow them"
			break
		}
	}
	return fmt.Sprintf("check-keys: %d %s: %s; %d %s; placeholder values covered: %s",
		len(r.Checks), plural(len(r.Checks), "check", "checks"), strings.Join(parts, ", "),
		len(r.Warnings), plural(len(r.Warnings), "warning", "warnings"), covered)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// formatValues renders placeholder values sorted by name: id="", tenant="a".
func formatValues(vals map[string]string) string {
	if len(vals) == 0 {
		return "(no placeholders)"
	}
	names := make([]string, 0, len(vals))
	for p := range vals {
		names = append(names, p)
	}
	slices.Sort(names)
	parts := make([]string, len(names))
	for i, p := range names {
		parts[i] = p + "=" + strconv.Quote(vals[p])
	}
	return strings.Join(parts, ", ")
}
