package scenario

import (
	"encoding/json"
	"fmt"
	"github.com/scriptctl/scriptctl/verify"
	"io"
	"sort"
	"strings"

	"github.com/scriptctl/scriptctl/internal/diag"
	"github.com/scriptctl/scriptctl/internal/iostreams"
)

// Summary is a one-line account of a result for a table: "7 steps",
// "2 failures", "3 differences", the error.
func (r *Result) Summary() string {
	if r.Status == StatusSkip {
		return "skipped offline: " + firstLine(r.SkipReason)
	}
	var fails, steps int
	errText := ""
	for _, run := range r.judged() {
		fails += len(run.Failures)
		if run.Variant == VariantManifest {
			steps = len(run.Steps)
		}
		if run.Error != "" && errText == "" {
			errText = run.Error
		}
	}
	switch {
	case r.Status == StatusError:
		return firstLine(errText)
	case errText != "":
		return firstLine(errText)
	case fails > 0:
		return plural(fails, "failure")
	case len(r.Differences) > 0:
		return plural(len(r.Differences), "difference") + " from offline"
	}
	s := plural(steps, "step")
	if r.Control {
		s += ", control reached the regression"
	}
	switch {
	case r.LiveOnly:
		s += " live (live only)"
	case len(r.ClockTolerated) > 0:
		s += fmt.Sprintf(", live matches (%s equal within the clock tolerance)", plural(len(r.ClockTolerated), "value"))
	case len(r.Live) > 0:
		s += ", live matches"
	}
	return s
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// WriteProblems writes every failure, error and difference, one block per
// result that did not pass, each line led by file:line.
func (rep *Report) WriteProblems(w io.Writer) error {
	ew := &iostreams.Printer{W: w}
	for _, r := range rep.Results {
		if r.Status == StatusPass || r.Status == StatusSkip {
			continue
		}
		ew.Printf("%s %s [%s] (%s)\n", strings.ToUpper(string(r.Status)), r.Name, r.Mode, r.File)
		for _, run := range r.judged() {
			tag := ""
			if r.Control {
				tag = " (" + run.Variant + ")"
			}
			if run.Error != "" {
				ew.Printf("  %s%s\n", run.Error, tag)
			}
			for _, f := range run.Failures {
				ew.Printf("  %s:%d: step %d%s: %s\n", r.File, f.Line, f.Step, tag, f.Message)
			}
		}
		for _, d := range r.Differences {
			tag := ""
			if r.Control {
				tag = " (" + d.Variant + ")"
			}
			ew.Printf("  %s:%d: step %d%s: %s differs\n", r.File, d.Line, d.Step, tag, d.What)
			ew.Printf("      offline: %s\n      live:    %s\n", d.Offline, d.Live)
		}
	}
	return ew.Err
}

// WriteTrace writes every step of every run: the action, the reply and the
// scenario's keys after it (value and TTL), offline and, when there is a
// live run, live.
func (rep *Report) WriteTrace(w io.Writer) error {
	ew := &iostreams.Printer{W: w}
	for _, r := range rep.Results {
		ew.Printf("=== %s [%s] %s (%s)\n", r.Name, r.Mode, r.Status, r.File)
		if r.LiveOnly {
			ew.Printf("offline: skipped (%s)\n", r.SkipReason)
			for _, run := range r.Live {
				if r.Control {
					ew.Printf("--- %s scripts\n", run.Variant)
				}
				for _, st := range run.Steps {
					ew.Printf("step %d  line %d  %s\n", st.Index, st.Line, st.Action)
					writeStep(ew, "live ", st)
				}
				if run.Error != "" {
					ew.Printf("stopped: %s\n", run.Error)
				}
			}
			continue
		}
		for i, run := range r.Runs {
			var lv *Run
			if i < len(r.Live) {
				lv = r.Live[i]
			}
			if r.Control {
				ew.Printf("--- %s scripts\n", run.Variant)
			}
			for j, st := range run.Steps {
				ew.Printf("step %d  line %d  %s\n", st.Index, st.Line, st.Action)
				var ls *StepResult
				if lv != nil && j < len(lv.Steps) {
					ls = &lv.Steps[j]
				}
				writeStep(ew, "", st)
				if ls != nil {
					writeStep(ew, "live ", *ls)
				}
			}
			if run.Error != "" {
				ew.Printf("stopped: %s\n", run.Error)
			}
		}
		for _, d := range r.ClockTolerated {
			ew.Printf("step %d  %s equal within the clock tolerance: offline %s, live %s\n", d.Step, d.What, d.Offline, d.Live)
		}
	}
	return ew.Err
}

func writeStep(ew *iostreams.Printer, side string, st StepResult) {
	if st.Error != "" {
		ew.Printf("  %serror: %s\n", side, st.Error)
		return
	}
	if st.Reply != nil {
		ew.Printf("  %sreply: %s\n", side, st.Reply)
	}
	if len(st.Published) > 0 {
		ew.Printf("  %spublished: %s\n", side, messagesString(st.Published))
	}
	if len(st.State) == 0 {
		ew.Printf("  %skeys:  (none)\n", side)
	}
	for i, k := range st.State {
		label := "keys: "
		if i > 0 {
			label = "      "
		}
		ew.Printf("  %s%s %s = %s\n", side, label, k.Name, keyString(k))
	}
}

// JSON output (docs/json.md, "scriptctl verify"). Consumers must ignore
// unknown fields.

type jsonReport struct {
	FormatVersion string         `json:"format_version"`
	Against       string         `json:"against,omitempty"`
	Summary       map[string]int `json:"summary"`
	Results       []jsonResult   `json:"results"`
	// Diagnostics are the report's problems and warnings in the shared
	// shape (format_version 2).
	Diagnostics []diag.Diagnostic `json:"diagnostics"`
}

type jsonResult struct {
	File        string        `json:"file"`
	Name        string        `json:"name"`
	Mode        Mode          `json:"mode"`
	Target      string        `json:"target"`
	Status      Status        `json:"status"`
	Control     bool          `json:"control"`
	LiveOnly    bool          `json:"live_only,omitempty"`
	SkipReason  string        `json:"skip_reason,omitempty"`
	Steps       int           `json:"steps"`
	Errors      []string      `json:"errors,omitempty"`
	Failures    []jsonFailure `json:"failures,omitempty"`
	Warnings    []jsonFailure `json:"warnings,omitempty"`
	Differences []Difference  `json:"differences,omitempty"`
	// ClockTolerated are live values equal only within the clock tolerance.
	ClockTolerated []Difference `json:"clock_tolerated,omitempty"`
	Trace          []jsonStep   `json:"trace,omitempty"`
}

type jsonFailure struct {
	Variant string `json:"variant"`
	Failure
}

type jsonStep struct {
	Variant string    `json:"variant"`
	Side    string    `json:"side"` // offline or live
	Step    int       `json:"step"`
	Line    int       `json:"line"`
	Action  string    `json:"action"`
	Reply   string    `json:"reply,omitempty"`
	Error   string    `json:"error,omitempty"`
	Keys    []jsonKey `json:"keys"`
}

type jsonKey struct {
	Key   string      `json:"key"`
	Type  string      `json:"type"`
	Value *string     `json:"value,omitempty"`
	Hash  JSONHash    `json:"hash,omitempty"`
	List  []string    `json:"list,omitempty"`
	Set   []string    `json:"set,omitempty"`
	ZSet  [][2]string `json:"zset,omitempty"`
	// Stream is a stream's contents (JSONStream).
	Stream *JSONStream `json:"stream,omitempty"`
	PTTL   int64       `json:"pttl_ms"`
	// FieldTTL is a hash's fields' remaining ms, for those that expire.
	FieldTTL map[string]int64 `json:"field_ttl_ms,omitempty"`
}

// WriteJSON writes the report as one JSON document; with trace, every step
// of every run is included.
func (rep *Report) WriteJSON(w io.Writer, trace bool) error {
	out := jsonReport{FormatVersion: diag.FormatVersion, Against: rep.Against, Summary: map[string]int{}, Results: []jsonResult{}, Diagnostics: rep.Diagnostics()}
	for _, st := range []Status{StatusPass, StatusFail, StatusDiffers, StatusError, StatusSkip} {
		out.Summary[string(st)] = 0
	}
	for st, n := range rep.Counts() {
		out.Summary[string(st)] = n
	}
	out.Summary["total"] = len(rep.Results)
	for _, r := range rep.Results {
		jr := jsonResult{File: r.File, Name: r.Name, Mode: r.Mode, Target: r.Target, Status: r.Status, Control: r.Control,
			LiveOnly: r.LiveOnly, SkipReason: r.SkipReason, Differences: r.Differences, ClockTolerated: r.ClockTolerated}
		if r.LiveOnly {
			for _, run := range r.Live {
				jr.addRun(run)
				if trace {
					jr.Trace = append(jr.Trace, jsonSteps(run, "live")...)
				}
			}
		}
		for i, run := range r.Runs {
			jr.addRun(run)
			for _, st := range run.Steps {
				for _, w := range st.Warnings {
					jr.Warnings = append(jr.Warnings, jsonFailure{Variant: run.Variant, Failure: Failure{Step: st.Index, Line: st.Line, Message: w}})
				}
			}
			if trace {
				jr.Trace = append(jr.Trace, jsonSteps(run, "offline")...)
				if i < len(r.Live) {
					jr.Trace = append(jr.Trace, jsonSteps(r.Live[i], "live")...)
				}
			}
		}
		out.Results = append(out.Results, jr)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}

// addRun adds a judged run's step count, errors and failures.
func (jr *jsonResult) addRun(run *Run) {
	if run.Variant == VariantManifest {
		jr.Steps = len(run.Steps)
	}
	if run.Error != "" {
		jr.Errors = append(jr.Errors, run.Error)
	}
	for _, f := range run.Failures {
		jr.Failures = append(jr.Failures, jsonFailure{Variant: run.Variant, Failure: f})
	}
}

func jsonSteps(run *Run, side string) []jsonStep {
	var out []jsonStep
	for _, st := range run.Steps {
		js := jsonStep{Variant: run.Variant, Side: side, Step: st.Index, Line: st.Line, Action: st.Action, Error: st.Error, Keys: []jsonKey{}}
		if st.Reply != nil {
			js.Reply = st.Reply.String()
		}
		keys := append([]Key(nil), st.State...)
		sort.Slice(keys, func(i, j int) bool { return keys[i].Name < keys[j].Name })
		for _, k := range keys {
			jk := jsonKey{Key: k.Name, Type: k.Type, Hash: k.Hash, List: k.List, Set: k.Set, ZSet: JSONZSet(k.ZSet), Stream: ToJSONStream(k.Stream), PTTL: k.PTTL, FieldTTL: k.FieldTTL}
			if k.Type == "string" {
				v := k.Value
				jk.Value = &v
			}
			js.Keys = append(js.Keys, jk)
		}
		out = append(out, js)
	}
	return out
}

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
