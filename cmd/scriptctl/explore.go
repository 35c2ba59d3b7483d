package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/scriptctl/scriptctl/explore"
	"github.com/scriptctl/scriptctl/internal/cmdutil"
	"github.com/scriptctl/scriptctl/internal/diag"
	"github.com/scriptctl/scriptctl/internal/iostreams"
	"github.com/scriptctl/scriptctl/manifest"
)

type exploreOptions struct {
	IO       *iostreams.IOStreams
	Manifest string
	Format   string
	Models   []string
	Keys     keyRuleFlags // --topology, --strict-keys
	MaxTime  time.Duration
}

func newCmdExplore(g *globalOptions) *cobra.Command {
	opts := &exploreOptions{IO: g.IO}
	cmd := &cobra.Command{
		Use:   "explore [MODEL...]",
		Short: "Check every interleaving of a model's workers against the scripts, offline",
		Long: `Explore every interleaving of a model: workers that call the manifest's
scripts by name (or by protocol role: acquire, publish, release, renew,
invalidate), save values from replies and branch on them; an environment
that advances the clock, expires keys, crashes and pauses workers (and, for
the lease protocol, changes the source); all within the model's bounds.
Each step runs in the offline engine; equal states (keyspace, clock,
workers) are explored once, breadth-first, so a violation comes with the
shortest interleaving that reaches it. After every step, and at the end,
the invariants are checked: the model's Lua predicates (run read-only in
the engine over the keyspace, the replies and the history), its
comparisons, and for the lease protocol no-regression,
no-rejected-candidate-served and single-owner. The format is documented in
lua_test/models/README.md.

Without MODEL arguments every lua_test/models/*.yaml beside the manifest
runs; a folder argument runs the *.yaml files in it. A model with
requires_version runs only against that version of the scripts, and is
reported skipped otherwise.

A violation prints its timeline, one line per step: the worker (or clock,
source, expiry), the step, the reply (and for the lease protocol the
visible value and its revision). A model
with expect: violation is a negative control: it passes when exactly that
invariant is violated.

Exit codes: 0 every model as expected (the states, transitions and
interleavings explored are reported with the bounds), 1 a violation (or a
negative control found none, or the state, memory or --max-time limit was
reached), 2 a model or
the manifest is invalid, 3 a step the offline engine cannot run.`,
		Example: `  scriptctl explore
  scriptctl explore lua_test/models/invalidation_race.yaml
  scriptctl explore --format json`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(cmd, opts.Format, "text", "json"); err != nil {
				return err
			}
			// --topology and --strict-keys: the server the engine
			// imitates, as in verify.
			if err := opts.Keys.check("explore"); err != nil {
				return err
			}
			opts.Manifest = g.Manifest
			opts.Models = args
			return runExplore(cmd.Context(), opts)
		},
	}
	cmd.Flags().DurationVar(&opts.MaxTime, "max-time", defaultExploreMaxTime, "stop exploring a model after this long (exploration-truncated); 0 for no limit")
	cmd.Flags().StringVar(&opts.Format, "format", "text", "output format: text, table or json (text piped: tab-separated rows, no header; table: aligned, with a header)")
	opts.Keys.register(cmd)
	return cmd
}

func runExplore(ctx context.Context, opts *exploreOptions) error {
	m, err := manifest.Load(opts.Manifest)
	if err == nil {
		opts.Keys.apply(m)
	}
	if err != nil {
		return err
	}
	paths, err := scenarioPaths(opts.Models)
	if err != nil {
		return cmdutil.Input(err)
	}
	if len(opts.Models) == 0 {
		if paths, err = explore.Models(m); err != nil {
			return cmdutil.Input(withCode("model", err))
		}
		if len(paths) == 0 {
			return cmdutil.Input(fmt.Errorf("no models: no %s/*.yaml beside %s", explore.ModelsDir, m.Path))
		}
	}
	opts.IO.Progress("Exploring %d models...", len(paths))
	outs, err := runModels(ctx, m, paths, opts.MaxTime)
	if err != nil {
		return err
	}
	if opts.Format == "json" {
		err = writeExploreJSON(opts, outs)
	} else {
		err = writeExploreText(opts.IO, outs)
	}
	if err != nil {
		return err
	}
	for _, o := range outs {
		if s := o.Status(); s != "ok" && s != "skipped" {
			return &cmdutil.ExitError{Code: cmdutil.ExitFindings, Silent: true}
		}
	}
	return nil
}

// runModels explores the models against m on its first target; invalid
// models are input errors, a step the engine cannot run an environment one.
func runModels(ctx context.Context, m *manifest.Manifest, paths []string, maxTime time.Duration) ([]explore.Outcome, error) {
	outs, err := explore.RunFiles(ctx, m, paths, explore.Options{Target: m.Targets[0], Topology: m.Topology, StrictKeys: m.StrictKeys, MaxTime: maxTime})
	var errs manifest.Errors
	switch {
	case errors.As(err, &errs):
		return nil, cmdutil.Input(withCode("model", err))
	case err != nil:
		return nil, cmdutil.Env(err)
	}
	return outs, nil
}

func exploreBounds(b explore.Bounds) string {
	s := fmt.Sprintf("depth %d, %d steps per worker", b.Depth, b.Steps)
	if b.ClockMS > 0 {
		s += fmt.Sprintf(", clock %dms", b.ClockMS)
	}
	return s
}

func writeExploreText(ios *iostreams.IOStreams, outs []explore.Outcome) error {
	t := ios.NewTable("MODEL", colorCell(ios, "", "RESULT"), "STATES", "TRANSITIONS", "INTERLEAVINGS", "BOUNDS")
	for _, o := range outs {
		status := o.Status()
		color := iostreams.Red
		switch status {
		case "ok":
			color = iostreams.Green
			if o.Model.Expect != "" {
				status = "ok (" + o.Model.Expect + " found, as expected)"
			}
		case "skipped":
			color = iostreams.Yellow
		}
		row := []string{scenarioName(o.File), colorCell(ios, color, status), "-", "-", "-", "-"}
		if r := o.Result; r != nil {
			row[2], row[3], row[4] = strconv.Itoa(r.States), strconv.Itoa(r.Transitions), strconv.FormatUint(r.Interleavings, 10)
			row[5] = exploreBounds(o.Model.Bounds)
		}
		t.Row(row...)
	}
	if err := t.Render(); err != nil {
		return err
	}
	var b strings.Builder
	safe := func(s string) string { return iostreams.Safe(s, false) }
	for _, o := range outs {
		switch {
		case o.Result == nil:
			fmt.Fprintf(&b, "\n%s: skipped: %s\n", o.File, o.Model.Skip)
		case o.Result.OK() && o.Result.Violation != nil:
			// A negative control's expected violation: not a finding.
			v := o.Result.Violation
			fmt.Fprintf(&b, "\n%s: %s violated (expected): %s\n", o.File, v.Invariant, safe(v.Message))
			fmt.Fprintf(&b, "shortest counterexample, %d steps:\n", len(v.Timeline))
			for _, l := range timelineLines(o.Model, v, safe) {
				fmt.Fprintf(&b, "  %s\n", l)
			}
		default:
			if d, ok := exploreDiagnostic(o, safe); ok {
				fmt.Fprintf(&b, "\n%s\n", d)
			}
		}
	}
	_, err := fmt.Fprint(ios.Out, b.String())
	return err
}

// Explore's diagnostic codes, one per status that exits 1.
const (
	codeInvariantViolated = "invariant-violated"
	codeViolationMissing  = "violation-missing"
	codeExploreTruncated  = "exploration-truncated"
)

// exploreDiagnostic is an outcome that exits 1 as a shared diagnostic at
// the model file: a violation the model does not expect
// (invariant-violated, at the invariant's line when the model names it;
// detail the shortest counterexample), a negative control that found
// nothing (violation-missing, at expect.violation) or an exploration the
// state limit stopped (exploration-truncated, at bounds). safe escapes
// server-supplied text for a terminal. ok is false for an outcome as
// expected.
func exploreDiagnostic(o explore.Outcome, safe func(string) string) (d diag.Diagnostic, ok bool) {
	d = diag.Diagnostic{File: o.File, Severity: diag.Error}
	switch o.Status() {
	case "violation":
		v := o.Result.Violation
		d.Code, d.Line = codeInvariantViolated, o.Model.Lines[v.Invariant]
		if v.Invariant == explore.ReplyContract {
			d.Code = explore.ReplyContract
		}
		d.Message = fmt.Sprintf("%s violated: %s", v.Invariant, safe(v.Message))
		d.Detail = append([]string{fmt.Sprintf("shortest counterexample, %d steps:", len(v.Timeline))}, timelineLines(o.Model, v, safe)...)
	case "missing-violation":
		d.Code, d.Line = codeViolationMissing, o.Model.Lines["expect"]
		d.Message = fmt.Sprintf("negative control: expected a %s violation, found none within the bounds (%s)", o.Model.Expect, exploreBounds(o.Model.Bounds))
	case "truncated":
		d.Code, d.Line = codeExploreTruncated, o.Model.Lines["bounds"]
		d.Message = fmt.Sprintf("stopped at %d states, %s: the exploration is incomplete; tighten the bounds", o.Result.States, truncatedBound(o.Result))
	default:
		return d, false
	}
	return d, true
}

// truncatedBound names the bound that stopped a truncated exploration.
func truncatedBound(r *explore.Result) string {
	switch r.TruncatedBy {
	case "memory":
		return fmt.Sprintf("the bound of %d MiB on the explorer's stored states reached", r.Bound>>20)
	case "time":
		return fmt.Sprintf("the time bound of %s reached", time.Duration(r.Bound)*time.Millisecond)
	}
	return fmt.Sprintf("the bound of %d states reached", r.Bound)
}

// exploreDiagnostics are the findings of every outcome (exploreDiagnostic).
func exploreDiagnostics(outs []explore.Outcome, safe func(string) string) []diag.Diagnostic {
	var ds []diag.Diagnostic
	for _, o := range outs {
		if d, ok := exploreDiagnostic(o, safe); ok {
			ds = append(ds, d)
		}
	}
	return ds
}

// timelineLines is a counterexample one line per step: the step, the
// worker (or clock, source), the action, the reply, the visible value and
// its revision.
func timelineLines(md *explore.Model, v *explore.Violation, safe func(string) string) []string {
	var out []string
	for _, l := range v.Timeline {
		if !md.Lease {
			// a general model: the step, the actor, the action, the reply
			out = append(out, strings.TrimRight(fmt.Sprintf("%2d  %-10s %-28s -> %s", l.N, l.Actor, safe(l.Action), safe(l.Reply)), " "))
			continue
		}
		val := "(absent)"
		if l.Present {
			val = strconv.Quote(l.Value)
		}
		rev := "-"
		if l.Revision >= 0 {
			rev = strconv.Itoa(l.Revision)
		}
		out = append(out, fmt.Sprintf("%2d  %-10s %-16s %-22s value %s rev %s", l.N, l.Actor, safe(l.Action), safe(l.Reply), safe(val), rev))
	}
	return out
}

// exploreJSON is the --format json document of scriptctl explore (docs/json.md).
type exploreJSON struct {
	FormatVersion string             `json:"format_version"`
	Manifest      string             `json:"manifest"`
	OK            bool               `json:"ok"`
	Models        []exploreModelJSON `json:"models"`
	Diagnostics   []diag.Diagnostic  `json:"diagnostics"`
}

type exploreModelJSON struct {
	File          string                `json:"file"`
	Name          string                `json:"name"`
	Status        string                `json:"status"`
	SkipReason    string                `json:"skip_reason"`
	Expect        string                `json:"expected_violation"`
	States        int                   `json:"states"`
	Transitions   int                   `json:"transitions"`
	Interleavings uint64                `json:"interleavings"`
	Depth         int                   `json:"depth"`
	Bounds        exploreBoundsJSON     `json:"bounds"`
	Violation     *exploreViolationJSON `json:"violation"`
	TruncatedBy   string                `json:"truncated_by"`
	Bound         int64                 `json:"bound"`
}

type exploreBoundsJSON struct {
	Depth   int   `json:"depth"`
	Steps   int   `json:"steps"`
	ClockMS int64 `json:"clock_ms"`
}

type exploreViolationJSON struct {
	Invariant string            `json:"invariant"`
	Message   string            `json:"message"`
	Timeline  []exploreStepJSON `json:"timeline"`
}

type exploreStepJSON struct {
	Step     int               `json:"step"`
	Actor    string            `json:"actor"`
	Action   string            `json:"action"`
	Script   string            `json:"script"`
	Args     map[string]string `json:"args"`
	Reply    string            `json:"reply"`
	Value    *string           `json:"value"`
	Revision *int              `json:"revision"`
}

func writeExploreJSON(opts *exploreOptions, outs []explore.Outcome) error {
	doc := exploreJSON{FormatVersion: diag.FormatVersion, Manifest: opts.Manifest, OK: true, Models: []exploreModelJSON{},
		Diagnostics: diag.Normalize(exploreDiagnostics(outs, func(s string) string { return s }))}
	for _, o := range outs {
		b := o.Model.Bounds
		mj := exploreModelJSON{File: o.File, Name: o.Model.Name, Status: o.Status(), SkipReason: o.Model.Skip, Expect: o.Model.Expect,
			Bounds: exploreBoundsJSON{Depth: b.Depth, Steps: b.Steps, ClockMS: b.ClockMS}}
		if mj.Status != "ok" && mj.Status != "skipped" {
			doc.OK = false
		}
		if r := o.Result; r != nil {
			mj.States, mj.Transitions, mj.Interleavings, mj.Depth = r.States, r.Transitions, r.Interleavings, r.Depth
			if r.Truncated {
				mj.TruncatedBy, mj.Bound = r.TruncatedBy, r.Bound
			}
			if v := r.Violation; v != nil {
				vj := &exploreViolationJSON{Invariant: v.Invariant, Message: v.Message, Timeline: []exploreStepJSON{}}
				for _, l := range v.Timeline {
					sj := exploreStepJSON{Step: l.N, Actor: l.Actor, Action: l.Action, Script: l.Script, Args: l.Args, Reply: l.Reply}
					if sj.Args == nil {
						sj.Args = map[string]string{}
					}
					if l.Present {
						val := l.Value
						sj.Value = &val
					}
					if l.Revision >= 0 {
						rev := l.Revision
						sj.Revision = &rev
					}
					vj.Timeline = append(vj.Timeline, sj)
				}
				mj.Violation = vj
			}
		}
		doc.Models = append(doc.Models, mj)
	}
	return writeJSONDoc(opts.IO, doc)
}

// checkExploreStep is the explore step of scriptctl check: every model in
// lua_test/models/ beside the manifest. No models passes with a note.
func checkExploreStep(ctx context.Context, m *manifest.Manifest) stepResult {
	paths, err := explore.Models(m)
	if err != nil {
		return stepResult{Err: cmdutil.Input(err)}
	}
	if len(paths) == 0 {
		return stepResult{Summary: "no " + explore.ModelsDir + "/*.yaml beside the manifest"}
	}
	outs, err := runModels(ctx, m, paths, defaultExploreMaxTime)
	if err != nil {
		var errs manifest.Errors
		if errors.As(err, &errs) {
			fs := checkFindingsOf("error", errs)
			for i := range fs {
				fs[i].Code = "model" // as scriptctl explore reports them
			}
			return stepResult{Findings: fs, Err: cmdutil.Input(fmt.Errorf("invalid models: %s", checkPlural(len(errs), "problem")))}
		}
		return stepResult{Err: err}
	}
	var fs []checkFinding
	ran, skipped, states := 0, 0, 0
	for _, o := range outs {
		if o.Result == nil {
			skipped++
			continue
		}
		ran++
		states += o.Result.States
		// The codes and lines of scriptctl explore; the timeline is left to
		// it.
		d, ok := exploreDiagnostic(o, func(s string) string { return s })
		if !ok {
			continue
		}
		msg := d.Message
		switch d.Code {
		case codeInvariantViolated, explore.ReplyContract:
			v := o.Result.Violation
			msg = fmt.Sprintf("%s violated in %d steps: %s (scriptctl explore %s prints the timeline)", v.Invariant, len(v.Timeline), v.Message, o.File)
		case codeViolationMissing:
			msg = fmt.Sprintf("negative control: expected a %s violation, found none", o.Model.Expect)
		case codeExploreTruncated:
			msg = fmt.Sprintf("stopped at %d states, %s: the exploration is incomplete", o.Result.States, truncatedBound(o.Result))
		}
		fs = append(fs, checkFinding{Severity: "error", File: o.File, Line: d.Line, Code: d.Code, Message: msg})
	}
	res := stepResult{Findings: fs}
	if len(fs) == 0 {
		res.Summary = fmt.Sprintf("%s explored, %d states", checkPlural(ran, "model"), states)
		if skipped > 0 {
			res.Summary += fmt.Sprintf(", %d skipped (written for another version)", skipped)
		}
	}
	return res
}

// defaultExploreMaxTime bounds one model's exploration in explore, check
// and verify --coverage.
const defaultExploreMaxTime = 10 * time.Minute
