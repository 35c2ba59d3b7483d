package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/scriptctl/scriptctl/internal/atomicfile"
	"github.com/scriptctl/scriptctl/internal/cmdutil"
	"github.com/scriptctl/scriptctl/internal/diag"
	"github.com/scriptctl/scriptctl/internal/iostreams"
	"github.com/scriptctl/scriptctl/lint"
	"github.com/scriptctl/scriptctl/manifest"
)

// checkSteps are the steps of scriptctl check, reported in this order on a
// valid manifest (they run at once). Every step runs, whatever the others
// found. Add a step with one
// line: a name and a func(ctx, *manifest.Manifest) stepResult.
var checkSteps = []checkStep{
	{"manifest", checkManifestStep},
	{"sum", checkSumStep},
	{"check-keys", checkKeysStep},
	{"lint", checkLintStep},
	{"verify", checkVerifyStep},
	{"explore", checkExploreStep},
	{"bindings", checkBindingsStep},
}

type checkStep struct {
	Name string
	Run  func(ctx context.Context, m *manifest.Manifest) stepResult
}

// stepResult is what one check step found.
type stepResult struct {
	// Summary is a short line shown next to "ok", such as "3 scripts".
	Summary string
	// Findings are the step's problems (severity "error": check exits 1)
	// and warnings (severity "warning": reported, exit 0).
	Findings []checkFinding
	// Err means the step could not run or its input is invalid; its exit
	// code (exitCode: 2 invalid input, 3 environment) wins over 1.
	Err error
	// Suites are the step's JUnit test cases when it has finer ones than
	// the step itself (verify: one per scenario and mode, per target).
	Suites []diag.Suite
}

// checkFinding is one problem or warning of a step, at a position. It is
// printed in the shared diagnostic format (internal/diag): Code defaults to
// the step's name, and a Field is put before the message.
type checkFinding struct {
	Severity string // "error" or "warning"
	File     string
	Line     int // 1-based; 0 when unknown
	Col      int // 1-based; 0 when unknown
	Field    string
	Code     string // stable code; "" is the step's name
	Message  string
	Detail   []string // more lines, printed indented
	Related  []diag.Related
}

// diagnostic is f in the shared format, for the step named step.
func (f checkFinding) diagnostic(step string) diag.Diagnostic {
	d := diag.Diagnostic{File: f.File, Line: f.Line, Column: f.Col, Severity: f.Severity, Code: f.Code, Message: f.Message, Detail: f.Detail, Related: f.Related}
	if d.Code == "" {
		d.Code = step
	}
	if f.Field != "" {
		d.Message = f.Field + ": " + d.Message
	}
	return d
}

// String is the finding in the shared format, its code defaulting to
// "check"; a step's report uses diagnostic(step name).
func (f checkFinding) String() string { return f.diagnostic("check").String() }

// checkFindingsOf converts manifest errors (or scripts.sum problems) to findings.
func checkFindingsOf(severity string, errs []*manifest.Error) []checkFinding {
	out := make([]checkFinding, 0, len(errs))
	for _, e := range errs {
		out = append(out, checkFinding{Severity: severity, File: e.File, Line: e.Line, Col: e.Col, Field: e.Field, Message: e.Msg})
	}
	return out
}

func (r stepResult) diagnostics(step string) []diag.Diagnostic {
	out := make([]diag.Diagnostic, 0, len(r.Findings))
	for _, f := range r.Findings {
		out = append(out, f.diagnostic(step))
	}
	return out
}

func (r stepResult) count(severity string) int {
	n := 0
	for _, f := range r.Findings {
		if f.Severity == severity {
			n++
		}
	}
	return n
}

// checkManifestStep reports the manifest that Load already validated.
func checkManifestStep(ctx context.Context, m *manifest.Manifest) stepResult {
	return stepResult{Summary: fmt.Sprintf("%s version %d: %s, %s", m.Library, m.Version,
		checkPlural(len(m.Scripts), "script"), checkPlural(len(m.Callers), "caller"))}
}

// checkSumStep checks scripts.sum: the current version is recorded, and no
// script changed while version did not.
func checkSumStep(ctx context.Context, m *manifest.Manifest) stepResult {
	sum, err := manifest.ReadSum(m.SumPath())
	switch {
	case errors.Is(err, fs.ErrNotExist):
		sum = nil
	case err != nil:
		var errs manifest.Errors
		if errors.As(err, &errs) {
			return stepResult{Findings: checkFindingsOf("error", errs), Err: cmdutil.Input(fmt.Errorf("invalid %s: %s", m.SumPath(), checkPlural(len(errs), "problem")))}
		}
		return stepResult{Err: cmdutil.Input(err)}
	}
	problems := manifest.CheckSum(m, sum)
	if len(problems) > 0 {
		return stepResult{Findings: checkFindingsOf("error", problems)}
	}
	return stepResult{Summary: fmt.Sprintf("version %d recorded in %s", m.Version, m.SumPath())}
}

// outcome says in a few words how a step ended, for --verbose lines.
func (r stepResult) outcome() string {
	s := fmt.Sprintf("%s, %s", checkPlural(r.count(diag.Error), "problem"), checkPlural(r.count(diag.Warning), "warning"))
	switch {
	case r.Err != nil:
		s = "could not run: " + r.Err.Error() + "; " + s
	case r.Summary != "":
		s = r.Summary + "; " + s
	}
	return s
}

func checkPlural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

type checkOptions struct {
	IO       *iostreams.IOStreams
	Manifest string
	Format   string
	FailOn   string       // "error" (default) or "warning"
	JUnit    string       // --junit: write a JUnit XML report to this file
	SARIF    string       // --sarif: write the SARIF log to this file
	Keys     keyRuleFlags // --topology, --strict-keys
	Mutate   bool         // --mutate: run the mutate step after the others
}

// steps are the steps this check runs: checkSteps, then mutate when asked.
func (o *checkOptions) steps() []checkStep {
	if !o.Mutate {
		return checkSteps
	}
	return append(slices.Clone(checkSteps), checkStep{"mutate", checkMutateStep})
}

func newCmdCheck(g *globalOptions) *cobra.Command {
	opts := &checkOptions{IO: g.IO}
	cmd := &cobra.Command{
		Use:   "check",
		Short: "Run every offline check: the pre-flight of a deploy",
		Long: `Validate the manifest, then run every offline check on it, in order:

  manifest    the manifest is valid (an invalid one exits 2 before any step)
  sum         scripts.sum records the current version, and no script's bytes
              changed while version did not
  check-keys  the keys each caller binds to one script always share a slot
  lint        static analysis of every script against the manifest
              (errors fail the check, warnings are reported)
  verify      every scenario in lua_test/ beside the manifest, offline, in
              both modes (EVAL and FCALL); live_only scenarios are counted as
              skipped; no scenarios at all is a warning
  explore     every model in lua_test/models/: every interleaving within
              its bounds keeps the invariants (scriptctl explore)
  bindings    every binding the manifest's bindings: lists is what
              'scriptctl gen' writes now (bindings-stale otherwise)
  mutate      with --mutate only: every single-point mutant of every script
              is caught by a scenario or a model (scriptctl mutate); a
              survivor is a mutant-survived error

Every step runs and reports; a step prints "ok" or its findings, one per
line, as "file:line:col: severity code: message" (detail lines indented).
Warnings are reported but do not fail the check unless --fail-on warning.

The verify and explore steps imitate the manifest's topology (cluster by
default; --topology overrides it); a key a script touches without passing it
in KEYS is an undeclared-key warning at the script's line, or, with
--strict-keys (strict_keys: true), an error that stops the run. The lint
step's dynamic-key finding about such a line follows the same rule: a
warning, an error with strict keys.

For CI: --format sarif prints a SARIF 2.1.0 log with one run per step (GitHub
code scanning), --sarif FILE writes that log to a file whatever --format
is, and --junit FILE writes a JUnit XML report (one test case per step, and
per scenario and mode for each target of the verify step; a failing case
carries its findings and the expected and actual values). One run can so
print the text report and write both files.

Exit status: 0 when every step passed, 1 when a step found a problem (at or
above --fail-on), 2 when the manifest, scripts.sum, a script or a scenario is
invalid.`,
		Example: `  scriptctl check
  scriptctl check -m deploy/manifest.yaml --format json
  scriptctl check --format sarif --junit scriptctl-junit.xml > scriptctl.sarif
  scriptctl check --sarif scriptctl.sarif --junit scriptctl-junit.xml
  scriptctl check --fail-on warning`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(cmd, opts.Format, "text", "json", "sarif"); err != nil {
				return err
			}
			if opts.FailOn != diag.Error && opts.FailOn != diag.Warning {
				return cmdutil.Usage(fmt.Errorf("invalid --fail-on %q: want error or warning", opts.FailOn), fmt.Sprintf("'%s --help'", cmd.CommandPath()))
			}
			if err := opts.Keys.check("check"); err != nil {
				return err
			}
			opts.Manifest = g.Manifest
			return runCheck(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Format, "format", "text", "output format: text, json or sarif")
	cmd.Flags().StringVar(&opts.FailOn, "fail-on", "error", "exit 1 on findings of this severity or above: error or warning")
	cmd.Flags().StringVar(&opts.JUnit, "junit", "", "also write a JUnit XML report to `file`")
	cmd.Flags().StringVar(&opts.SARIF, "sarif", "", "also write the SARIF 2.1.0 log to `file`")
	cmd.Flags().BoolVar(&opts.Mutate, "mutate", false, "also run scriptctl mutate as a last step (slow: every mutant runs the scenarios)")
	opts.Keys.register(cmd)
	return cmd
}

// checkJSON is the --format json document of scriptctl check (docs/json.md).
type checkJSON struct {
	FormatVersion string          `json:"format_version"`
	Manifest      string          `json:"manifest"`
	OK            bool            `json:"ok"`
	Problems      int             `json:"problems"`
	Warnings      int             `json:"warnings"`
	Steps         []checkStepJSON `json:"steps"`
}

type checkStepJSON struct {
	Name     string            `json:"name"`
	Status   string            `json:"status"` // ok, problems, error, skipped
	Summary  string            `json:"summary"`
	Error    string            `json:"error"`
	Problems int               `json:"problems"`
	Warnings int               `json:"warnings"`
	Findings []diag.Diagnostic `json:"findings"`
}

func runCheck(ctx context.Context, opts *checkOptions) error {
	m, err := manifest.Load(opts.Manifest)
	if err != nil {
		var errs manifest.Errors
		if opts.Format == "text" || !errors.As(err, &errs) {
			return err
		}
		// The JSON report names the manifest's problems; the other steps
		// are skipped.
		results := make([]stepResult, len(opts.steps()))
		results[0] = stepResult{
			Findings: checkFindingsOf("error", errs),
			Err:      cmdutil.Input(fmt.Errorf("invalid manifest: %s", checkPlural(len(errs), "problem"))),
		}
		if err := writeCheckReport(opts, results, 1); err != nil {
			return err
		}
		return &cmdutil.ExitError{Code: cmdutil.ExitInput, Err: err, Silent: true}
	}

	opts.Keys.apply(m)
	// The steps are independent: they run at once (verify and explore
	// spread their own work over the cores), and their progress and
	// results are reported in the steps' order, as one after the other.
	steps := opts.steps()
	type done struct {
		r    stepResult
		took time.Duration
	}
	finished := make([]chan done, len(steps))
	for i, step := range steps {
		finished[i] = make(chan done, 1)
		go func() {
			start := time.Now()
			r := step.Run(ctx, m)
			finished[i] <- done{r, time.Since(start)}
		}()
	}
	results := make([]stepResult, 0, len(steps))
	for i, step := range steps {
		opts.IO.Progress("Running %s...", step.Name)
		d := <-finished[i]
		if err := ctx.Err(); err != nil {
			return cmdutil.Env(fmt.Errorf("check interrupted before step %s: %w", step.Name, err))
		}
		opts.IO.Detail("check: %s: %s (%s)", step.Name, d.r.outcome(), d.took.Round(time.Millisecond))
		results = append(results, d.r)
	}

	code := cmdutil.ExitOK
	for _, r := range results {
		switch {
		case r.Err != nil:
			code = max(code, exitCode(r.Err))
		case r.count(diag.Error) > 0, opts.FailOn == diag.Warning && r.count(diag.Warning) > 0:
			code = max(code, cmdutil.ExitFindings)
		}
	}
	if err := writeCheckReport(opts, results, len(results)); err != nil {
		return err
	}
	if code == cmdutil.ExitOK {
		return nil
	}
	return &cmdutil.ExitError{Code: code, Silent: true}
}

// writeCheckReport writes the report in opts.Format, and the JUnit file
// when asked; steps from ran on did not run.
func writeCheckReport(opts *checkOptions, results []stepResult, ran int) error {
	if opts.JUnit != "" {
		if err := diag.WriteJUnitFile(opts.JUnit, "scriptctl check", checkSuites(opts, results, ran)); err != nil {
			return cmdutil.Env(err)
		}
	}
	if opts.SARIF != "" {
		var b bytes.Buffer
		if err := writeCheckSARIF(&b, opts, results, ran); err != nil {
			return err
		}
		if err := atomicfile.Write(opts.SARIF, b.Bytes()); err != nil {
			return cmdutil.Env(fmt.Errorf("write %s: %w", opts.SARIF, err))
		}
	}
	switch opts.Format {
	case "json":
		return writeCheckJSON(opts, results, ran)
	case "sarif":
		return writeCheckSARIF(opts.IO.Out, opts, results, ran)
	}
	return writeCheckText(opts, results)
}

// writeCheckSARIF writes to w one SARIF run per step that ran, the lint
// step with every lint rule's help.
func writeCheckSARIF(w io.Writer, opts *checkOptions, results []stepResult, ran int) error {
	var runs []diag.Run
	for i := 0; i < ran; i++ {
		name := opts.steps()[i].Name
		r := results[i]
		run := diag.Run{Tool: "scriptctl " + name, Version: buildVersion().Version, Diagnostics: r.diagnostics(name)}
		if name == "lint" {
			run.Rules = lint.SARIFRules()
		}
		if r.Err != nil && len(r.Findings) == 0 {
			// A step that could not run still shows up as a result.
			run.Diagnostics = append(run.Diagnostics, diag.Diagnostic{File: opts.Manifest, Severity: diag.Error, Code: name + "-failed", Message: r.Err.Error()})
		}
		runs = append(runs, run)
	}
	return diag.WriteSARIF(w, runs)
}

// checkSuites is the JUnit report of a check: one suite "check" with a case
// per step, and the verify step's own suites (per target, a case per
// scenario and mode). Findings below --fail-on are the case's <system-out>.
func checkSuites(opts *checkOptions, results []stepResult, ran int) []diag.Suite {
	steps := diag.Suite{Name: "check"}
	var more []diag.Suite
	for i, step := range opts.steps() {
		c := diag.Case{Name: step.Name, ClassName: "scriptctl.check"}
		if i >= ran {
			c.Skipped = "the manifest is invalid"
			steps.Cases = append(steps.Cases, c)
			continue
		}
		r := results[i]
		var failing, other []diag.Diagnostic
		for _, d := range r.diagnostics(step.Name) {
			if diag.AtOrAbove(d, opts.FailOn) {
				failing = append(failing, d)
			} else {
				other = append(other, d)
			}
		}
		c.SystemOut = diag.Lines(other)
		switch {
		case r.Err != nil:
			c.Error = &diag.Failure{Message: r.Err.Error(), Text: r.Err.Error()}
			if f := diag.FailureOf(r.diagnostics(step.Name)); f != nil {
				c.Error.Text += "\n" + f.Text
			}
		case len(failing) > 0:
			c.Failure = diag.FailureOf(failing)
		}
		steps.Cases = append(steps.Cases, c)
		more = append(more, r.Suites...)
	}
	return append([]diag.Suite{steps}, more...)
}

func writeCheckText(opts *checkOptions, results []stepResult) error {
	ios := opts.IO
	var b strings.Builder
	for i, r := range results {
		name := opts.steps()[i].Name
		errs, warns := r.count("error"), r.count("warning")
		switch {
		case r.Err != nil:
			fmt.Fprintf(&b, "%s: %s\n", name, ios.Paint(iostreams.Red, "failed"))
			for _, line := range strings.Split(r.Err.Error(), "\n") {
				fmt.Fprintf(&b, "  %s\n", line)
			}
		case errs > 0:
			status := ios.Paint(iostreams.Red, checkPlural(errs, "problem"))
			if warns > 0 {
				status += ", " + ios.Paint(iostreams.Yellow, checkPlural(warns, "warning"))
			}
			fmt.Fprintf(&b, "%s: %s\n", name, status)
		default:
			status := ios.Paint(iostreams.Green, "ok")
			if warns > 0 {
				status += ", " + ios.Paint(iostreams.Yellow, checkPlural(warns, "warning"))
			}
			if r.Summary != "" {
				status += " (" + r.Summary + ")"
			}
			fmt.Fprintf(&b, "%s: %s\n", name, status)
		}
		if err := diag.WriteText(&b, r.diagnostics(name), severityPainter(ios)); err != nil {
			return err
		}
	}
	_, err := fmt.Fprint(ios.Out, b.String())
	return err
}

// severityPainter colors a severity word: errors red, warnings yellow.
func severityPainter(ios *iostreams.IOStreams) func(string) string {
	return func(sev string) string {
		if sev == diag.Error {
			return ios.Paint(iostreams.Red, sev)
		}
		return ios.Paint(iostreams.Yellow, sev)
	}
}

// writeCheckJSON writes the report; steps from ran on are reported skipped.
func writeCheckJSON(opts *checkOptions, results []stepResult, ran int) error {
	doc := checkJSON{FormatVersion: diag.FormatVersion, Manifest: opts.Manifest, OK: true, Steps: []checkStepJSON{}}
	for i, step := range opts.steps() {
		s := checkStepJSON{Name: step.Name, Status: "skipped", Findings: []diag.Diagnostic{}}
		if i < ran {
			r := results[i]
			s.Summary = r.Summary
			s.Problems, s.Warnings = r.count("error"), r.count("warning")
			switch {
			case r.Err != nil:
				s.Status = "error"
				s.Error = r.Err.Error()
			case s.Problems > 0:
				s.Status = "problems"
			default:
				s.Status = "ok"
			}
			s.Findings = diag.Normalize(r.diagnostics(step.Name))
		}
		if s.Status != "ok" {
			doc.OK = false
		}
		doc.Problems += s.Problems
		doc.Warnings += s.Warnings
		doc.Steps = append(doc.Steps, s)
	}
	return writeJSONDoc(opts.IO, doc)
}
