package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/scriptctl/scriptctl/internal/iostreams"
	"github.com/scriptctl/scriptctl/verify/scenario"
)

// Summary is a one-line account of a result for a table: "7 steps",
// "2 failures", "3 differences", the error.
func Summary(r *scenario.Result) string {
	if r.Status == scenario.StatusSkip {
		return "skipped offline: " + firstLine(r.SkipReason)
	}
	var fails, steps int
	errText := ""
	for _, run := range r.Judged() {
		fails += len(run.Failures)
		if run.Variant == scenario.VariantManifest {
			steps = len(run.Steps)
		}
		if run.Error != "" && errText == "" {
			errText = run.Error
		}
	}
	switch {
	case r.Status == scenario.StatusError:
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

// Problems writes every failure, error and difference, one block per
// result that did not pass, each line led by file:line.
func Problems(w io.Writer, rep *scenario.Report) error {
	ew := &iostreams.Printer{W: w}
	for _, r := range rep.Results {
		if r.Status == scenario.StatusPass || r.Status == scenario.StatusSkip {
			continue
		}
		ew.Printf("%s %s [%s] (%s)\n", strings.ToUpper(string(r.Status)), r.Name, r.Mode, r.File)
		for _, run := range r.Judged() {
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

// Trace writes every step of every run: the action, the reply and the
// scenario's keys after it (value and TTL), offline and, when there is a
// live run, live.
func Trace(w io.Writer, rep *scenario.Report) error {
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
			var lv *scenario.Run
			if i < len(r.Live) {
				lv = r.Live[i]
			}
			if r.Control {
				ew.Printf("--- %s scripts\n", run.Variant)
			}
			for j, st := range run.Steps {
				ew.Printf("step %d  line %d  %s\n", st.Index, st.Line, st.Action)
				var ls *scenario.StepResult
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

func writeStep(ew *iostreams.Printer, side string, st scenario.StepResult) {
	if st.Error != "" {
		ew.Printf("  %serror: %s\n", side, st.Error)
		return
	}
	if st.Reply != nil {
		ew.Printf("  %sreply: %s\n", side, st.Reply)
	}
	if len(st.Published) > 0 {
		ew.Printf("  %spublished: %s\n", side, scenario.MessagesString(st.Published))
	}
	if len(st.State) == 0 {
		ew.Printf("  %skeys:  (none)\n", side)
	}
	for i, k := range st.State {
		label := "keys: "
		if i > 0 {
			label = "      "
		}
		ew.Printf("  %s%s %s = %s\n", side, label, k.Name, scenario.KeyString(k))
	}
}
