package lint

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/scriptctl/scriptctl/internal/diag"
)

// WriteText writes one line per diagnostic, file:line:col: severity code:
// message, then an indented detail line per related location.
func WriteText(w io.Writer, ds []Diagnostic) error {
	for _, d := range ds {
		if _, err := fmt.Fprint(w, d.String()+"\n"+Details(d)); err != nil {
			return err
		}
	}
	return nil
}

// Details returns the indented detail lines of d ("    reached from
// 12:3"), each ending in a newline; "" without related locations.
func Details(d Diagnostic) string {
	var b strings.Builder
	for _, r := range d.Related {
		b.WriteString("    " + r.Message + "\n")
	}
	return b.String()
}

// JSONDiagnostic is the stable JSON form of a diagnostic (docs/json.md).
type JSONDiagnostic struct {
	File     string   `json:"file"`
	Line     int      `json:"line"`
	Column   int      `json:"column"`
	Severity Severity `json:"severity"`
	Code     string   `json:"code"`
	Message  string   `json:"message"`
	// Related lists the call paths through which the cause is reached;
	// omitted when there are none.
	Related []JSONRelated `json:"related,omitempty"`
}

// JSONRelated is a related location of a diagnostic.
type JSONRelated struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	Column  int    `json:"column"`
	Message string `json:"message"`
}

// WriteJSON writes the diagnostics as a JSON array (an empty array when
// there are none).
func WriteJSON(w io.Writer, ds []Diagnostic) error {
	out := make([]JSONDiagnostic, 0, len(ds))
	for _, d := range ds {
		j := JSONDiagnostic{File: d.Pos.File, Line: d.Pos.Line, Column: d.Pos.Col, Severity: d.Severity, Code: d.Code, Message: d.Message}
		for _, r := range d.Related {
			j.Related = append(j.Related, JSONRelated{File: r.Pos.File, Line: r.Pos.Line, Column: r.Pos.Col, Message: r.Message})
		}
		out = append(out, j)
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// SARIFRules are the lint rules as SARIF rules (internal/diag), their
// Markdown help naming the suppression comment.
func SARIFRules() []diag.Rule {
	var out []diag.Rule
	for _, r := range Rules() {
		out = append(out, diag.Rule{Code: r.Code, Summary: r.Summary, Help: r.Help, Severity: string(r.Severity),
			Markdown: fmt.Sprintf("**%s** (%s): %s\n\nSuppress one finding with `-- scriptctl:ignore %s <reason>` on its line or the line above.", r.Code, r.SeverityText(), r.Help, r.Code)})
	}
	return out
}

// WriteSARIF writes the diagnostics as a SARIF 2.1.0 log for GitHub code
// scanning (internal/diag's writer): one run, tool "scriptctl", every
// registered rule with its help text, one result per diagnostic with its
// call paths as relatedLocations. File paths should be relative to the
// repository root; they are written with forward slashes against
// %SRCROOT%. The run has no automationDetails, as before it was shared, so
// code scanning keeps the category of earlier uploads.
func WriteSARIF(w io.Writer, ds []Diagnostic, version string) error {
	run := diag.Run{Tool: "scriptctl", Version: version, Rules: SARIFRules(), NoAutomationDetails: true}
	for _, d := range ds {
		dd := diag.Diagnostic{File: d.Pos.File, Line: d.Pos.Line, Column: d.Pos.Col, Severity: string(d.Severity), Code: d.Code, Message: d.Message}
		for _, r := range d.Related {
			dd.Related = append(dd.Related, diag.Related{File: r.Pos.File, Line: r.Pos.Line, Column: r.Pos.Col, Message: r.Message})
		}
		run.Diagnostics = append(run.Diagnostics, dd)
	}
	return diag.WriteSARIF(w, []diag.Run{run})
}
