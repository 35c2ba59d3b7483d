package scenario

import (
	"fmt"

	"github.com/scriptctl/scriptctl/internal/diag"
	"github.com/scriptctl/scriptctl/verify"
)

// Warnings lists, in result order, every call of an offline run whose reply
// the engine could not make certain to match Redis's (for example pairs
// over a table with several hash keys): the run passes, but what it proved
// rests on an approximation. Each message names the scenario, the mode,
// the variant of a negative control and the step.
func (rep *Report) Warnings() []Problem {
	var out []Problem
	for _, r := range rep.Results {
		for _, run := range r.Runs {
			tag := ""
			if r.Control {
				tag = " (" + run.Variant + " scripts)"
			}
			for _, st := range run.Steps {
				for _, w := range st.Warnings {
					out = append(out, Problem{File: r.File, Line: st.Line,
						Message: fmt.Sprintf("scenario %q [%s]%s: step %d: %s", r.Name, r.Mode, tag, st.Index, w)})
				}
			}
		}
	}
	return out
}

// Diagnostics returns the report's problems (severity error, code
// scenario-failed), then its warnings (severity warning, code
// scenario-warning), then its undeclared key accesses (KeyDiagnostics) in
// the shared diagnostic shape; [] when none.
func (rep *Report) Diagnostics() []diag.Diagnostic {
	out := append(Diagnostics(rep.Problems(), diag.Error, "scenario-failed"), Diagnostics(rep.Warnings(), diag.Warning, "scenario-warning")...)
	return diag.Normalize(append(out, rep.KeyDiagnostics()...))
}

// KeyDiagnostics are the offline runs' accesses to keys not declared in
// KEYS, as warnings (code undeclared-key) at the script line that made
// them, each once however many scenarios, modes and steps made it.
func (rep *Report) KeyDiagnostics() []diag.Diagnostic {
	type at struct {
		file      string
		line      int
		key, cmd  string
		chunk     string
		chunkLine int
	}
	seen := map[at]bool{}
	var out []diag.Diagnostic
	for _, r := range rep.Results {
		for _, run := range r.Runs {
			for _, st := range run.Steps {
				for _, f := range st.KeyFindings {
					k := at{f.File, f.Line, f.Key, f.Command, "", 0}
					if f.File == "" {
						k.chunk, k.chunkLine = f.Chunk, f.Finding.Line
					}
					if seen[k] {
						continue
					}
					seen[k] = true
					d := diag.Diagnostic{File: f.File, Line: f.Line, Severity: diag.Warning, Code: f.Code, Message: f.Message()}
					if f.File == "" {
						d.File = r.File
						d.Message = fmt.Sprintf("scenario %q [%s]: %s", r.Name, r.Mode, d.Message)
					}
					out = append(out, d)
				}
			}
		}
	}
	return out
}

// Diagnostics converts problems or warnings to shared diagnostics of one
// severity and code (a problem's own Code, when it has one, instead).
func Diagnostics(ps []Problem, severity, code string) []diag.Diagnostic {
	out := make([]diag.Diagnostic, 0, len(ps))
	for _, p := range ps {
		c := code
		if p.Code != "" {
			c = p.Code
		}
		out = append(out, diag.Diagnostic{File: p.File, Line: p.Line, Severity: severity, Code: c, Message: p.Message})
	}
	return out
}

// Problem is one failure, stopped run or live difference of a report, at a
// position: what "scriptctl check" lists for its verify step.
type Problem struct {
	File    string
	Line    int // 0 when the problem has no single line (a library that does not load)
	Message string
	// Code replaces the code Diagnostics gives when set: reply-contract
	// for a reply that breaks its script's contract.
	Code string
}

// Problems lists every problem of the report, in result order. Each message
// names the scenario, the mode and (for a negative control) the variant.
func (rep *Report) Problems() []Problem {
	var out []Problem
	for _, r := range rep.Results {
		if r.Status == StatusPass || r.Status == StatusSkip {
			continue
		}
		head := fmt.Sprintf("scenario %q [%s]", r.Name, r.Mode)
		if r.Target != "" && r.Target != verify.DefaultTarget {
			head = fmt.Sprintf("scenario %q [%s, %s]", r.Name, r.Mode, r.Target)
		}
		for _, run := range r.Runs {
			tag := ""
			if r.Control {
				tag = " (" + run.Variant + " scripts)"
			}
			if run.Error != "" {
				line := 0
				if n := len(run.Steps); n > 0 {
					line = run.Steps[n-1].Line
				}
				out = append(out, Problem{File: r.File, Line: line, Message: head + tag + ": " + run.Error})
			}
			for _, f := range run.Failures {
				out = append(out, Problem{File: r.File, Line: f.Line, Code: f.Code, Message: fmt.Sprintf("%s%s: step %d: %s", head, tag, f.Step, f.Message)})
			}
		}
		if r.LiveOnly {
			for _, run := range r.Live {
				for _, f := range run.Failures {
					out = append(out, Problem{File: r.File, Line: f.Line, Code: f.Code, Message: fmt.Sprintf("%s (live): step %d: %s", head, f.Step, f.Message)})
				}
				if run.Error != "" {
					out = append(out, Problem{File: r.File, Message: head + " (live): " + run.Error})
				}
			}
		}
		for _, d := range r.Differences {
			out = append(out, Problem{File: r.File, Line: d.Line, Message: fmt.Sprintf("%s: step %d: %s differs live: offline %s, live %s", head, d.Step, d.What, d.Offline, d.Live)})
		}
	}
	return out
}
