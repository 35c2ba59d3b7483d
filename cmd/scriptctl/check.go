package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/spf13/cobra"

	"github.com/scriptctl/scriptctl/internal/cmdutil"
	"github.com/scriptctl/scriptctl/internal/iostreams"
	"github.com/scriptctl/scriptctl/manifest"
)

func init() { commands = append(commands, newCmdCheck) }

// checkSteps are the steps of scriptctl check, run in this order on a valid
// manifest. Every step runs, whatever the others found. Add a step with one
// line: a name and a func(ctx, *manifest.Manifest) stepResult.
var checkSteps = []checkStep{
	{"manifest", checkManifestStep},
	{"sum", checkSumStep},
	{"check-keys", checkKeysStep},
	{"lint", checkLintStep},
	{"verify", checkVerifyStep},
	{"explore", checkExploreStep},
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
	// code (cmdutil.ExitCode: 2 invalid input, 3 environment) wins over 1.
	Err error
}

// checkFinding is one problem or warning of a step, at a position.
type checkFinding struct {
	Severity string // "error" or "warning"
	File     string
	Line     int // 1-based; 0 when unknown
	Col      int // 1-based; 0 when unknown
	Field    string
	Message  string
}

func (f checkFinding) String() string {
	e := manifest.Error{File: f.File, Line: f.Line, Col: f.Col, Field: f.Field, Msg: f.Message}
	if f.Severity == "warning" {
		e.Msg = "warning: " + e.Msg
	}
	return e.Error()
}

// checkFindingsOf converts manifest errors (or scripts.sum problems) to findings.
func checkFindingsOf(severity string, errs []*manifest.Error) []checkFinding {
	out := make([]checkFinding, 0, len(errs))
	for _, e := range errs {
		out = append(out, checkFinding{Severity: severity, File: e.File, Line: e.Line, Col: e.Col, Field: e.Field, Message: e.Msg})
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
		return stepResult{Err: cmdutil.Input(err)}
	}
	problems := manifest.CheckSum(m, sum)
	if len(problems) > 0 {
		return stepResult{Findings: checkFindingsOf("error", problems)}
	}
	return stepResult{Summary: fmt.Sprintf("version %d recorded in %s", m.Version, m.SumPath())}
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

Every step runs and reports; a step prints "ok" or its problems, one per line,
as file:line:col: message. Warnings are reported but do not fail the check.

Exit status: 0 when every step passed, 1 when a step found a problem, 2 when
the manifest, scripts.sum, a script or a scenario is invalid.`,
		Example: `  scriptctl check
  scriptctl check -m deploy/manifest.yaml --format json`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(cmd, opts.Format, "text", "json"); err != nil {
				return err
			}
			opts.Manifest = g.Manifest
			return runCheck(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Format, "format", "text", "output format: text or json")
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
	Name     string             `json:"name"`
	Status   string             `json:"status"` // ok, problems, error, skipped
	Summary  string             `json:"summary"`
	Error    string             `json:"error"`
	Problems int                `json:"problems"`
	Warnings int                `json:"warnings"`
	Findings []checkFindingJSON `json:"findings"`
}

type checkFindingJSON struct {
	Severity string `json:"severity"`
	File     string `json:"file"`
	Line     int    `json:"line"`
	Col      int    `json:"col"`
	Field    string `json:"field"`
	Message  string `json:"message"`
}

func runCheck(ctx context.Context, opts *checkOptions) error {
	m, err := manifest.Load(opts.Manifest)
	if err != nil {
		var errs manifest.Errors
		if opts.Format != "json" || !errors.As(err, &errs) {
			return err
		}
		// The JSON report names the manifest's problems; the other steps
		// are skipped.
		results := make([]stepResult, len(checkSteps))
		results[0] = stepResult{
			Findings: checkFindingsOf("error", errs),
			Err:      cmdutil.Input(fmt.Errorf("invalid manifest: %s", checkPlural(len(errs), "problem"))),
		}
		if err := writeCheckJSON(opts, results, 1); err != nil {
			return err
		}
		return &cmdutil.ExitError{Code: cmdutil.ExitInput, Err: err, Silent: true}
	}

	results := make([]stepResult, 0, len(checkSteps))
	for _, step := range checkSteps {
		if err := ctx.Err(); err != nil {
			return cmdutil.Env(fmt.Errorf("check interrupted before step %s: %w", step.Name, err))
		}
		opts.IO.Progress("Running %s...", step.Name)
		results = append(results, step.Run(ctx, m))
	}

	code := cmdutil.ExitOK
	for _, r := range results {
		switch {
		case r.Err != nil:
			code = max(code, cmdutil.ExitCode(r.Err))
		case r.count("error") > 0:
			code = max(code, cmdutil.ExitFindings)
		}
	}
	if opts.Format == "json" {
		if err := writeCheckJSON(opts, results, len(results)); err != nil {
			return err
		}
	} else if err := writeCheckText(opts, results); err != nil {
		return err
	}
	if code == cmdutil.ExitOK {
		return nil
	}
	return &cmdutil.ExitError{Code: code, Silent: true}
}

func writeCheckText(opts *checkOptions, results []stepResult) error {
	ios := opts.IO
	var b strings.Builder
	for i, r := range results {
		name := checkSteps[i].Name
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
		for _, f := range r.Findings {
			fmt.Fprintf(&b, "  %s\n", f)
		}
	}
	_, err := fmt.Fprint(ios.Out, b.String())
	return err
}

// writeCheckJSON writes the report; steps from ran on are reported skipped.
func writeCheckJSON(opts *checkOptions, results []stepResult, ran int) error {
	doc := checkJSON{FormatVersion: "1", Manifest: opts.Manifest, OK: true, Steps: []checkStepJSON{}}
	for i, step := range checkSteps {
		s := checkStepJSON{Name: step.Name, Status: "skipped", Findings: []checkFindingJSON{}}
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
			for _, f := range r.Findings {
				s.Findings = append(s.Findings, checkFindingJSON(f))
			}
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
