package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/scriptctl/scriptctl/internal/cmdutil"
	"github.com/scriptctl/scriptctl/internal/diag"
	"github.com/scriptctl/scriptctl/internal/iostreams"
	"github.com/scriptctl/scriptctl/manifest"
	"github.com/scriptctl/scriptctl/mutate"
)

type mutateOptions struct {
	IO        *iostreams.IOStreams
	Manifest  string
	Format    string
	FailUnder float64
	Scripts   []string
	Operators []string
	Parallel  int
	StepLimit int64
	NoModels  bool
	Keys      keyRuleFlags // --topology, --strict-keys
}

// codeMutantSurvived is the code of a mutant no scenario or model caught.
const codeMutantSurvived = "mutant-survived"

func newCmdMutate(g *globalOptions) *cobra.Command {
	opts := &mutateOptions{IO: g.IO}
	cmd := &cobra.Command{
		Use:   "mutate",
		Short: "Measure the scenarios and models: plant single-point bugs in the scripts and see which go unnoticed",
		Long: `Plant single-point mutants in every script of the manifest and run the
scenarios (lua_test/*.yaml) and the models (lua_test/models/*.yaml) offline
against each, on every target of the manifest, as scriptctl check does. A
mutant some scenario or model fails on is killed; one they all pass is a
survivor: a bug the tests would let through, or an equivalent change.

The mutation operators (--operator picks some):
  relational    < <= > >= shifted at the boundary (< to <=, >= to >, ...)
  equality      == and ~= swapped
  logical       and and or swapped
  negation      a not removed
  arithmetic    + and -, * and / swapped
  constant      an integer literal plus one, and minus one
  boolean       true and false swapped
  option        'EX' and 'PX', 'NX' and 'XX' swapped
  call-deleted  a redis.call or redis.pcall statement removed

A mutant that does not compile is stillborn and not counted. Each Lua run of
a mutant stops past --step-limit VM instructions, which kills a mutant that
loops forever. A survivor is reported as "file:line:col: error
mutant-survived: ..." at the mutated token. An equivalent mutant (one that
cannot change what the script does) is kept from running by a comment on
its line or the line above:

  -- scriptctl:ignore mutant-survived <reason>

The score is killed / (killed + survived). Exit codes: 0 no survivor (or,
with --fail-under, a score at or above it), 1 survivors (or a score below
--fail-under; survivors are then warnings), or the unmutated scripts already
fail their scenarios or models, 2 an invalid manifest, scenario, model or
flag.`,
		Example: `  scriptctl mutate
  scriptctl mutate --script publish --operator relational,constant
  scriptctl mutate --fail-under 95 --format json
  scriptctl mutate --format sarif > mutate.sarif`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(cmd, opts.Format, "text", "json", "sarif"); err != nil {
				return err
			}
			if opts.FailUnder < 0 || opts.FailUnder > 100 {
				return cmdutil.Usage(fmt.Errorf("invalid --fail-under %v: want a percentage from 0 to 100", opts.FailUnder), fmt.Sprintf("'%s --help'", cmd.CommandPath()))
			}
			for _, op := range opts.Operators {
				if !containsString(mutate.Operators, op) {
					msg := fmt.Sprintf("unknown --operator %q: want one of %s", op, strings.Join(mutate.Operators, ", "))
					if s := manifest.Suggest(op, mutate.Operators); s != "" {
						msg += fmt.Sprintf(" (did you mean %q?)", s)
					}
					return cmdutil.Usage(errors.New(msg), fmt.Sprintf("'%s --help'", cmd.CommandPath()))
				}
			}
			if opts.Parallel < 0 {
				return cmdutil.Usage(fmt.Errorf("invalid --parallel %d: want 0 (one per core) or more", opts.Parallel), fmt.Sprintf("'%s --help'", cmd.CommandPath()))
			}
			if err := opts.Keys.check("mutate"); err != nil {
				return err
			}
			opts.Manifest = g.Manifest
			return runMutate(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Format, "format", "text", "output format: text, json or sarif")
	cmd.Flags().Float64Var(&opts.FailUnder, "fail-under", 0, "exit 1 only when the score (percent of mutants killed) is below this; 0: exit 1 on any survivor")
	cmd.Flags().StringSliceVar(&opts.Scripts, "script", nil, "mutate only these scripts (repeatable or comma-separated)")
	cmd.Flags().StringSliceVar(&opts.Operators, "operator", nil, "use only these mutation operators (repeatable or comma-separated)")
	cmd.Flags().IntVar(&opts.Parallel, "parallel", 0, "mutants run at once (0: one per core)")
	cmd.Flags().Int64Var(&opts.StepLimit, "step-limit", mutate.DefaultStepLimit, "Lua VM instructions each run of a mutant may take")
	cmd.Flags().BoolVar(&opts.NoModels, "no-models", false, "judge mutants by the scenarios only, not the models")
	opts.Keys.register(cmd)
	return cmd
}

func runMutate(ctx context.Context, opts *mutateOptions) error {
	m, err := manifest.Load(opts.Manifest)
	if err != nil {
		return err
	}
	opts.Keys.apply(m)
	for _, s := range opts.Scripts {
		if m.Script(s) == nil {
			msg := fmt.Sprintf("unknown --script %q: the manifest has %s", s, strings.Join(m.ScriptNames(), ", "))
			if sug := manifest.Suggest(s, m.ScriptNames()); sug != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", sug)
			}
			return cmdutil.Input(errors.New(msg))
		}
	}
	rep, err := runMutants(ctx, m, opts)
	if err != nil {
		return err
	}
	ds := mutateDiagnostics(rep, opts.FailUnder)
	switch opts.Format {
	case "json":
		err = writeMutateJSON(opts.IO, m, rep, ds)
	case "sarif":
		err = diag.WriteSARIF(opts.IO.Out, []diag.Run{mutateSARIFRun(ds)})
	default:
		err = writeMutateText(opts.IO, m, rep, ds)
	}
	if err != nil {
		return err
	}
	if mutateFails(rep, opts.FailUnder) {
		return cmdutil.Findings()
	}
	return nil
}

// runMutants runs mutate.Run with opts, turning its errors into exit codes:
// a baseline that already fails is a finding (exit 1), invalid scenarios or
// models invalid input.
func runMutants(ctx context.Context, m *manifest.Manifest, opts *mutateOptions) (*mutate.Report, error) {
	ios := opts.IO
	mo := mutate.Options{Parallel: opts.Parallel, StepLimit: opts.StepLimit, Scripts: opts.Scripts, Operators: opts.Operators, NoModels: opts.NoModels}
	if ios != nil {
		ios.Progress("Running the unmutated scripts' scenarios and models...")
		mo.Progress = func(done, total int) {
			if done == 1 || done == total || done%25 == 0 {
				ios.Progress("Mutant %d of %d...", done, total)
			}
		}
	}
	rep, err := mutate.Run(ctx, m, mo)
	if ios != nil {
		ios.ClearProgress()
	}
	var base *mutate.BaselineError
	var errs manifest.Errors
	switch {
	case err == nil:
		return rep, nil
	case errors.As(err, &base):
		return nil, &cmdutil.ExitError{Code: cmdutil.ExitFindings, Err: err}
	case errors.As(err, &errs):
		// The manifest loaded already: these are the equivalents file's.
		return nil, cmdutil.Input(withCode("mutate", err))
	case ctx.Err() != nil:
		return nil, cmdutil.Env(fmt.Errorf("mutate interrupted: %w", ctx.Err()))
	}
	return nil, cmdutil.Input(err)
}

// mutateFails reports whether the report fails the run: any survivor, or
// with failUnder a score below it.
func mutateFails(rep *mutate.Report, failUnder float64) bool {
	if failUnder > 0 {
		return rep.Score() < failUnder
	}
	return rep.Count(mutate.Survived) > 0
}

// mutateDiagnostics are the survivors as findings: errors when they fail
// the run, warnings when the score meets --fail-under.
func mutateDiagnostics(rep *mutate.Report, failUnder float64) []diag.Diagnostic {
	sev := diag.Error
	if failUnder > 0 && !mutateFails(rep, failUnder) {
		sev = diag.Warning
	}
	var out []diag.Diagnostic
	for _, r := range rep.Results {
		if r.Status != mutate.Survived {
			continue
		}
		out = append(out, diag.Diagnostic{
			File: displayPath(r.File), Line: r.Line, Column: r.Col, Severity: sev, Code: codeMutantSurvived,
			Message: fmt.Sprintf("%s mutant survived: %s passes every scenario and model", r.Operator, r.Description()),
			Detail:  []string{"a test that fails on this change guards the line; an equivalent change is kept from running by: -- scriptctl:ignore mutant-survived <reason>"},
		})
	}
	return out
}

func mutateSARIFRun(ds []diag.Diagnostic) diag.Run {
	return diag.Run{Tool: "scriptctl mutate", Version: version, Diagnostics: ds, Rules: []diag.Rule{{
		Code: codeMutantSurvived, Severity: diag.Error,
		Summary: "A single-point change of the script that no scenario or model notices",
		Help:    "Add a scenario step or a model invariant that fails on the changed line, or mark an equivalent mutant with '-- scriptctl:ignore mutant-survived <reason>' on its line or the line above.",
	}}}
}

// mutateScriptRow is one script's counts.
type mutateScriptRow struct {
	Name      string  `json:"name"`
	File      string  `json:"file"`
	Mutants   int     `json:"mutants"`
	Killed    int     `json:"killed"`
	Survived  int     `json:"survived"`
	Ignored   int     `json:"ignored"`
	Stillborn int     `json:"stillborn"`
	Score     float64 `json:"score"`
}

func mutateRows(m *manifest.Manifest, rep *mutate.Report) []mutateScriptRow {
	var rows []mutateScriptRow
	for _, s := range m.Scripts {
		row := mutateScriptRow{Name: s.Name, File: displayPath(s.Path)}
		for _, r := range rep.Results {
			if r.Script != s.Name {
				continue
			}
			row.Mutants++
			switch r.Status {
			case mutate.Killed:
				row.Killed++
			case mutate.Survived:
				row.Survived++
			case mutate.Ignored:
				row.Ignored++
			case mutate.Stillborn:
				row.Stillborn++
			}
		}
		if row.Mutants == 0 {
			continue
		}
		row.Score = 100
		if n := row.Killed + row.Survived; n > 0 {
			row.Score = round1(100 * float64(row.Killed) / float64(n))
		}
		rows = append(rows, row)
	}
	return rows
}

func round1(f float64) float64 { return float64(int64(f*10+0.5)) / 10 }

func writeMutateText(ios *iostreams.IOStreams, m *manifest.Manifest, rep *mutate.Report, ds []diag.Diagnostic) error {
	if err := diag.WriteText(ios.Out, ds, severityPainter(ios)); err != nil {
		return err
	}
	if len(ds) > 0 {
		fmt.Fprintln(ios.Out)
	}
	t := ios.NewTable("SCRIPT", "MUTANTS", "KILLED", "SURVIVED", "IGNORED", "STILLBORN", "SCORE")
	for _, r := range mutateRows(m, rep) {
		t.Row(r.Name, strconv.Itoa(r.Mutants), strconv.Itoa(r.Killed), strconv.Itoa(r.Survived), strconv.Itoa(r.Ignored), strconv.Itoa(r.Stillborn), fmt.Sprintf("%.1f%%", r.Score))
	}
	if err := t.Render(); err != nil {
		return err
	}
	// The summary follows the table on a terminal; piped, the rows stay
	// tab-separated data and the summary goes to stderr.
	w, lead := ios.ErrOut, ""
	if ios.StdoutTTY || ios.TableFormat {
		w, lead = ios.Out, "\n"
	}
	{
		fmt.Fprintf(w, lead+"%s: %d killed, %d survived, %d ignored, %d stillborn; score %.1f%% (%s, %s)\n",
			checkPlural(len(rep.Results), "mutant"), rep.Count(mutate.Killed), rep.Count(mutate.Survived), rep.Count(mutate.Ignored), rep.Count(mutate.Stillborn),
			round1(rep.Score()), checkPlural(rep.Scenarios, "scenario"), checkPlural(rep.Models, "model"))
	}
	return nil
}

// mutateJSON is the --format json document of scriptctl mutate
// (docs/json.md).
type mutateJSON struct {
	FormatVersion string             `json:"format_version"`
	Command       string             `json:"command"`
	Manifest      string             `json:"manifest"`
	Score         float64            `json:"score"`
	Mutants       int                `json:"mutants"`
	Killed        int                `json:"killed"`
	Survived      int                `json:"survived"`
	Ignored       int                `json:"ignored"`
	Stillborn     int                `json:"stillborn"`
	Scenarios     int                `json:"scenarios"`
	Models        int                `json:"models"`
	Scripts       []mutateScriptRow  `json:"scripts"`
	Results       []mutateResultJSON `json:"results"`
	Diagnostics   []diag.Diagnostic  `json:"diagnostics"`
}

type mutateResultJSON struct {
	Script   string `json:"script"`
	File     string `json:"file"`
	Line     int    `json:"line"`
	Column   int    `json:"column"`
	Operator string `json:"operator"`
	From     string `json:"from"`
	To       string `json:"to"`
	Status   string `json:"status"`
	// KilledBy is the first scenario or model that failed; Reason the
	// ignore comment's reason.
	KilledBy string `json:"killed_by,omitempty"`
	Reason   string `json:"reason,omitempty"`
}

func writeMutateJSON(ios *iostreams.IOStreams, m *manifest.Manifest, rep *mutate.Report, ds []diag.Diagnostic) error {
	doc := mutateJSON{
		FormatVersion: "1", Command: "mutate", Manifest: displayPath(m.Path), Score: round1(rep.Score()),
		Mutants: len(rep.Results), Killed: rep.Count(mutate.Killed), Survived: rep.Count(mutate.Survived),
		Ignored: rep.Count(mutate.Ignored), Stillborn: rep.Count(mutate.Stillborn),
		Scenarios: rep.Scenarios, Models: rep.Models,
		Scripts: mutateRows(m, rep), Results: []mutateResultJSON{}, Diagnostics: diag.Normalize(ds),
	}
	if doc.Scripts == nil {
		doc.Scripts = []mutateScriptRow{}
	}
	for _, r := range rep.Results {
		doc.Results = append(doc.Results, mutateResultJSON{Script: r.Script, File: displayPath(r.File), Line: r.Line, Column: r.Col,
			Operator: r.Operator, From: r.From, To: r.To, Status: r.Status, KilledBy: r.By, Reason: r.Ignored})
	}
	if doc.Diagnostics == nil {
		doc.Diagnostics = []diag.Diagnostic{}
	}
	return writeJSONDoc(ios, doc)
}

// checkMutateStep is check --mutate's last step: every survivor an error.
func checkMutateStep(ctx context.Context, m *manifest.Manifest) stepResult {
	rep, err := runMutants(ctx, m, &mutateOptions{StepLimit: mutate.DefaultStepLimit})
	if err != nil {
		return stepResult{Err: err}
	}
	var fs []checkFinding
	for _, d := range mutateDiagnostics(rep, 0) {
		fs = append(fs, checkFinding{Severity: d.Severity, File: d.File, Line: d.Line, Col: d.Column, Code: d.Code, Message: d.Message, Detail: d.Detail})
	}
	return stepResult{
		Summary:  fmt.Sprintf("%s, %d killed, score %.1f%%", checkPlural(len(rep.Results), "mutant"), rep.Count(mutate.Killed), round1(rep.Score())),
		Findings: fs,
	}
}
