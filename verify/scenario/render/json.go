package render

import (
	"encoding/json"
	"io"
	"sort"

	"github.com/scriptctl/scriptctl/internal/diag"
	"github.com/scriptctl/scriptctl/verify/scenario"
)

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
	File        string                `json:"file"`
	Name        string                `json:"name"`
	Mode        scenario.Mode         `json:"mode"`
	Target      string                `json:"target"`
	Status      scenario.Status       `json:"status"`
	Control     bool                  `json:"control"`
	LiveOnly    bool                  `json:"live_only,omitempty"`
	SkipReason  string                `json:"skip_reason,omitempty"`
	Steps       int                   `json:"steps"`
	Errors      []string              `json:"errors,omitempty"`
	Failures    []jsonFailure         `json:"failures,omitempty"`
	Warnings    []jsonFailure         `json:"warnings,omitempty"`
	Differences []scenario.Difference `json:"differences,omitempty"`
	// ClockTolerated are live values equal only within the clock tolerance.
	ClockTolerated []scenario.Difference `json:"clock_tolerated,omitempty"`
	Trace          []jsonStep            `json:"trace,omitempty"`
}

type jsonFailure struct {
	Variant string `json:"variant"`
	scenario.Failure
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
	Key   string            `json:"key"`
	Type  string            `json:"type"`
	Value *string           `json:"value,omitempty"`
	Hash  scenario.JSONHash `json:"hash,omitempty"`
	List  []string          `json:"list,omitempty"`
	Set   []string          `json:"set,omitempty"`
	ZSet  [][2]string       `json:"zset,omitempty"`
	// Stream is a stream's contents (scenario.JSONStream).
	Stream *scenario.JSONStream `json:"stream,omitempty"`
	PTTL   int64                `json:"pttl_ms"`
	// FieldTTL is a hash's fields' remaining ms, for those that expire.
	FieldTTL map[string]int64 `json:"field_ttl_ms,omitempty"`
}

// JSON writes the report as one JSON document; with trace, every step of
// every run is included.
func JSON(w io.Writer, rep *scenario.Report, trace bool) error {
	out := jsonReport{FormatVersion: diag.FormatVersion, Against: rep.Against, Summary: map[string]int{}, Results: []jsonResult{}, Diagnostics: rep.Diagnostics()}
	for _, st := range []scenario.Status{scenario.StatusPass, scenario.StatusFail, scenario.StatusDiffers, scenario.StatusError, scenario.StatusSkip} {
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
					jr.Warnings = append(jr.Warnings, jsonFailure{Variant: run.Variant, Failure: scenario.Failure{Step: st.Index, Line: st.Line, Message: w}})
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
func (jr *jsonResult) addRun(run *scenario.Run) {
	if run.Variant == scenario.VariantManifest {
		jr.Steps = len(run.Steps)
	}
	if run.Error != "" {
		jr.Errors = append(jr.Errors, run.Error)
	}
	for _, f := range run.Failures {
		jr.Failures = append(jr.Failures, jsonFailure{Variant: run.Variant, Failure: f})
	}
}

func jsonSteps(run *scenario.Run, side string) []jsonStep {
	var out []jsonStep
	for _, st := range run.Steps {
		js := jsonStep{Variant: run.Variant, Side: side, Step: st.Index, Line: st.Line, Action: st.Action, Error: st.Error, Keys: []jsonKey{}}
		if st.Reply != nil {
			js.Reply = st.Reply.String()
		}
		keys := append([]scenario.Key(nil), st.State...)
		sort.Slice(keys, func(i, j int) bool { return keys[i].Name < keys[j].Name })
		for _, k := range keys {
			jk := jsonKey{Key: k.Name, Type: k.Type, Hash: k.Hash, List: k.List, Set: k.Set, ZSet: scenario.JSONZSet(k.ZSet), Stream: scenario.ToJSONStream(k.Stream), PTTL: k.PTTL, FieldTTL: k.FieldTTL}
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
