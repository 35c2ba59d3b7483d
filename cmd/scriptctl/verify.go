package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/scriptctl/scriptctl/internal/cmdutil"
	"github.com/scriptctl/scriptctl/internal/connect"
	"github.com/scriptctl/scriptctl/internal/diag"
	"github.com/scriptctl/scriptctl/internal/iostreams"
	"github.com/scriptctl/scriptctl/liveconn"
	"github.com/scriptctl/scriptctl/manifest"
	"github.com/scriptctl/scriptctl/verify"
	"github.com/scriptctl/scriptctl/verify/scenario"
	"github.com/scriptctl/scriptctl/verify/scenario/render"
)

type verifyOptions struct {
	IO        *iostreams.IOStreams
	Manifest  string
	Mode      string
	Against   string
	Conn      connFlags // password, TLS and timeout for --against
	Format    string
	Verbose   bool
	Scenarios []string
	Target    string // --target: one server to imitate; "" every manifest target
	ClockTol  time.Duration
	JUnit     string       // --junit: write a JUnit XML report to this file
	Keys      keyRuleFlags // --topology, --strict-keys
	Coverage  string       // --coverage: write line and branch coverage to this file
	CovFormat string       // --coverage-format: lcov or cobertura

	multiTarget bool // the report covers several targets: show a TARGET column
}

func newCmdVerify(g *globalOptions) *cobra.Command {
	opts := &verifyOptions{IO: g.IO}
	cmd := &cobra.Command{
		Use:   "verify [SCENARIO...]",
		Short: "Run the scenario tests offline (and against a live Redis with --against)",
		Long: `Run scenario tests: each scenario sets up keys, runs the manifest's scripts
step by step as named workers with their tokens, advances a virtual clock, and
checks every reply and every stored value and TTL. Scripts run in scriptctl's
offline Redis 7 engine, as EVAL and as FCALL of the generated Functions
library (--mode both, the default). The format is documented in
lua_test/README.md.

Without SCENARIO arguments every lua_test/*.yaml beside the manifest runs; a
folder argument runs the *.yaml files in it.

A scenario with a control: section runs twice: with the manifest's scripts,
where its regression: blocks must not hold, and with the unsafe variants it
names, where they must ("control did not reach the dangerous interleaving"
otherwise).

--against redis://host:port repeats every run on a real server and compares
each step's reply and stored values with the offline run. A cluster node
(or several, separated by commas) stands for the whole cluster: every key
goes to its slot's primary, setup and readback included, as redis-cli -c
sends it, MOVED and ASK are followed, and the scripts and the library are
loaded on every primary. Keys get a prefix unique to the run inside their
hash tag, clock advances become real waits, and the keys and functions a
run created are deleted afterwards. Use a test server: the run writes keys
(prefixed) and loads a uniquely named library. The password comes from
--password-file, SCRIPTCTL_PASSWORD or REDISCLI_AUTH (a password in the URL
is still accepted) and is never printed; rediss:// URLs take the --tls-*
flags, and --timeout bounds connecting and each command.

Clocks: the offline run compared with a live one starts its clock at the
server's TIME, and numbers that come from the clock (TIME, timestamps a
script computes or stores, PEXPIRETIME, TTLs; found by re-running offline
with the clock moved) are equal within --clock-tolerance (default 50ms,
plus the real time the run ran ahead of the scenario's clock); the table
says how many values were equal only so. Everything else compares byte for
byte. A scenario marked live_only: true (a command the engine refuses) is
skipped offline with the reason and runs live with --against.

Offline, every scenario runs once per target the manifest lists (targets:,
default redis-7.0), each imitating that server; --target picks one. With
--against, the target is --target or the manifest's first.

Key rules: offline runs imitate a node of a Redis Cluster (--topology
cluster, the default, or the manifest's topology:): the slot rules of the
target's scripting layer, on a node that serves the declared keys' slot and
no other; --topology standalone has no slot rule. A key a script touches
without passing it in KEYS is an undeclared-key warning at the script's
line and the run goes on; --strict-keys (or strict_keys: true) makes it a
step that cannot be judged (the scenario fails), as strict proxies refuse it.

Coverage: --coverage FILE records which lines of each script ran, and
which way each comparison and test went, while the scenarios run offline
(every target, both modes; a script's EVAL and FCALL runs add up) and, when
no SCENARIO is named, while the models in lua_test/models/ are explored;
it writes an lcov tracefile (--coverage-format cobertura: a Cobertura XML
report) and prints a summary per script after the table. Lines are the
script file's; "end" lines and the shebang have no code.

Exit codes: 0 every scenario passed (and live matched; live_only scenarios
are skipped offline), 1 a scenario failed
or live differed, 2 a scenario or script is malformed, 3 the live server
failed.`,
		Example: `  scriptctl verify
  scriptctl verify -v lua_test/paused_writer.yaml
  scriptctl verify --mode function --format json
  scriptctl verify --against redis://127.0.0.1:6380
  scriptctl verify --coverage coverage.lcov`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(cmd, opts.Format, "text", "json"); err != nil {
				return err
			}
			switch opts.Mode {
			case "eval", "function", "both":
			default:
				return cmdutil.Usage(fmt.Errorf("invalid --mode %q: want eval, function or both", opts.Mode), fmt.Sprintf("'%s --help'", cmd.CommandPath()))
			}
			opts.Manifest = g.Manifest
			if err := opts.Conn.againstFromEnv(&opts.Against); err != nil {
				return err
			}
			for _, u := range connect.SplitURLs(opts.Against) {
				if !strings.HasPrefix(u, "redis://") && !strings.HasPrefix(u, "rediss://") {
					return cmdutil.Usage(fmt.Errorf("invalid --against: want redis://host:port or rediss://host:port"), fmt.Sprintf("'%s --help'", cmd.CommandPath()))
				}
			}
			if err := checkAgainstFlags(cmd, opts.Against); err != nil {
				return err
			}
			if cmd.Flags().Changed("clock-tolerance") && opts.Against == "" {
				return cmdutil.Usage(errors.New("--clock-tolerance applies to --against, which is not given"), fmt.Sprintf("'%s --help'", cmd.CommandPath()))
			}
			if opts.ClockTol < 0 {
				return cmdutil.Usage(fmt.Errorf("--clock-tolerance must not be negative, not %s", opts.ClockTol), fmt.Sprintf("'%s --help'", cmd.CommandPath()))
			}
			if err := opts.Keys.check("verify"); err != nil {
				return err
			}
			if opts.CovFormat != "lcov" && opts.CovFormat != "cobertura" {
				return cmdutil.Usage(fmt.Errorf("invalid --coverage-format %q: want lcov or cobertura", opts.CovFormat), fmt.Sprintf("'%s --help'", cmd.CommandPath()))
			}
			if cmd.Flags().Changed("coverage-format") && opts.Coverage == "" {
				return cmdutil.Usage(errors.New("--coverage-format applies to --coverage, which is not given"), fmt.Sprintf("'%s --help'", cmd.CommandPath()))
			}
			opts.Manifest = g.Manifest
			opts.Scenarios = args
			return runVerify(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Mode, "mode", "both", "how scripts run: eval, function or both")
	cmd.Flags().StringVar(&opts.Target, "target", "", "imitate only this server (`name`: redis-7.0, valkey-8.1, ...); default every target the manifest lists")
	cmd.Flags().StringVar(&opts.Against, "against", "", "also run on the server at `URL` (redis://[user@]host:port or rediss://...; a cluster node, or several separated by commas) and compare with offline")
	opts.Conn.registerAgainst(cmd)
	cmd.Flags().DurationVar(&opts.ClockTol, "clock-tolerance", scenario.DefaultClockTolerance*time.Millisecond, "with --against: how far a clock-derived number (TIME, a timestamp, a TTL) may be from offline")
	cmd.Flags().StringVar(&opts.Format, "format", "text", "output format: text, table or json (text piped: tab-separated rows, no header; table: aligned, with a header)")
	cmd.Flags().BoolVarP(&opts.Verbose, "verbose", "v", false, "print every step: the reply and the stored values and TTLs")
	cmd.Flags().StringVar(&opts.JUnit, "junit", "", "also write a JUnit XML report to `file`: a test case per scenario and mode, a suite per target")
	cmd.Flags().StringVar(&opts.Coverage, "coverage", "", "also write the scripts' line and branch coverage to `file` (offline runs, and the models)")
	cmd.Flags().StringVar(&opts.CovFormat, "coverage-format", "lcov", "format of --coverage: lcov or cobertura")
	opts.Keys.register(cmd)
	return cmd
}

func runVerify(ctx context.Context, opts *verifyOptions) error {
	m, err := manifest.Load(opts.Manifest)
	if err != nil {
		return err
	}
	opts.Keys.apply(m)
	paths, err := scenarioPaths(opts.Scenarios)
	if err != nil {
		return cmdutil.Input(err)
	}
	if len(paths) == 0 {
		if paths, err = scenario.Discover(m); err != nil {
			return cmdutil.Input(err)
		}
		if len(paths) == 0 {
			return cmdutil.Input(fmt.Errorf("no scenarios: no lua_test/*.yaml beside %s; pass scenario files as arguments", m.Path))
		}
	}
	scenarios, err := scenario.LoadAll(m, paths)
	if err != nil {
		return cmdutil.Input(err)
	}
	targets, err := runTargets(m, opts.Target, "verify")
	if err != nil {
		return err
	}
	ro := scenario.Options{}
	if opts.Mode != "both" {
		ro.Modes = []scenario.Mode{scenario.Mode(opts.Mode)}
	}
	if opts.Against != "" {
		targets = targets[:1]
		cfg, err := opts.Conn.resolveAgainst(connect.SplitURLs(opts.Against), "verify", true)
		if err != nil {
			return err
		}
		lc, err := liveconn.Dial(ctx, cfg, targets[0])
		if err != nil {
			return cmdutil.Env(err)
		}
		srv := scenario.NewServer(lc, lc.Addr)
		defer srv.Close()
		ro.Live = srv
		ro.ClockTolerance = opts.ClockTol.Milliseconds()
		if ro.ClockTolerance == 0 {
			ro.ClockTolerance = -1 // none
		}
		opts.IO.Progress("running %d scenarios on %s and offline...", len(scenarios), srv.Addr)
	}
	var cov *verify.LineCoverage
	if opts.Coverage != "" {
		cov = verify.NewLineCoverage()
		if !cov.Supported() {
			return cmdutil.Env(errors.New("--coverage: this build cannot read the Lua VM's frames"))
		}
		ctx = verify.WithLineCoverage(ctx, cov)
	}
	rep := &scenario.Report{}
	for _, t := range targets {
		ro.Target = t
		r, err := scenario.RunAll(ctx, m, scenarios, ro)
		if err != nil {
			return cmdutil.Env(err)
		}
		rep.Against = r.Against
		rep.Results = append(rep.Results, r.Results...)
	}
	opts.multiTarget = len(targets) > 1
	if opts.JUnit != "" {
		if err := diag.WriteJUnitFile(opts.JUnit, "scriptctl verify", verifySuites("", rep)); err != nil {
			return cmdutil.Env(err)
		}
	}
	if err := writeVerifyReport(opts, rep); err != nil {
		return err
	}
	if cov != nil {
		if err := writeVerifyCoverage(ctx, opts, m, cov); err != nil {
			return err
		}
	}
	switch {
	case rep.Malformed():
		return &cmdutil.ExitError{Code: cmdutil.ExitInput, Silent: true}
	case !rep.OK():
		return cmdutil.Findings()
	}
	return nil
}

func writeVerifyReport(opts *verifyOptions, rep *scenario.Report) error {
	io := opts.IO
	if opts.Format == "json" {
		return render.JSON(io.Out, rep, opts.Verbose)
	}
	if opts.Verbose {
		if err := render.Trace(io.Out, rep); err != nil {
			return err
		}
		fmt.Fprintln(io.Out)
	}
	// The painted column goes through colorCell, header included, so every
	// cell carries the same invisible bytes and the table stays aligned.
	header := []string{"SCENARIO", "MODE", colorCell(io, "", "RESULT"), "DETAIL"}
	if opts.multiTarget {
		header = append([]string{"TARGET"}, header...)
	}
	t := io.NewTable(header...)
	for _, r := range rep.Results {
		status := colorCell(io, iostreams.Red, string(r.Status))
		switch r.Status {
		case scenario.StatusPass:
			status = colorCell(io, iostreams.Green, string(r.Status))
		case scenario.StatusSkip:
			status = colorCell(io, iostreams.Yellow, string(r.Status))
		}
		// The scenario's name: its name: field, else its file's name.
		row := []string{r.Name, string(r.Mode), status, render.Summary(r)}
		if opts.multiTarget {
			row = append([]string{r.Target}, row...)
		}
		t.Row(row...)
	}
	if err := t.Render(); err != nil {
		return err
	}
	if !rep.OK() {
		fmt.Fprintln(io.Out)
		if err := diag.WriteText(io.Out, scenario.Diagnostics(rep.Problems(), diag.Error, "scenario-failed"), severityPainter(io)); err != nil {
			return err
		}
	}
	for _, d := range scenario.Diagnostics(rep.Warnings(), diag.Warning, "scenario-warning") {
		io.Notice("%s", d)
	}
	for _, d := range rep.KeyDiagnostics() {
		d.File = displayPath(d.File)
		io.Notice("%s", d)
	}
	if io.StdoutTTY {
		c := rep.Counts()
		where := "offline"
		if rep.Against != "" {
			where = "offline and on " + rep.Against
		}
		fmt.Fprintf(io.Out, "\n%d runs %s: %d passed, %d failed, %d differ, %d errors", len(rep.Results), where,
			c[scenario.StatusPass], c[scenario.StatusFail], c[scenario.StatusDiffers], c[scenario.StatusError])
		if c[scenario.StatusSkip] > 0 {
			fmt.Fprintf(io.Out, ", %d skipped (live only)", c[scenario.StatusSkip])
		}
		fmt.Fprintln(io.Out)
	}
	return nil
}

// scenarioPaths expands folder arguments to the *.yaml files in them.
func scenarioPaths(args []string) ([]string, error) {
	var out []string
	for _, a := range args {
		st, err := os.Stat(a)
		if err != nil || !st.IsDir() {
			out = append(out, a) // Load reports a missing file with its name
			continue
		}
		found, err := filepath.Glob(filepath.Join(a, "*.yaml"))
		if err != nil {
			return nil, err
		}
		if len(found) == 0 {
			return nil, fmt.Errorf("no scenarios: no *.yaml in %s", a)
		}
		sort.Strings(found)
		out = append(out, found...)
	}
	return out, nil
}

// scenarioName is a scenario file's name without folder and extension, the
// way the table names it.
func scenarioName(path string) string {
	base := path[strings.LastIndexAny(path, `/\`)+1:]
	return strings.TrimSuffix(strings.TrimSuffix(base, ".yaml"), ".yml")
}

// checkVerifyStep is the verify step of scriptctl check: every scenario of
// lua_test/ beside the manifest, offline, as EVAL and as FCALL. A
// manifest without scenarios passes with a note; a malformed scenario or a
// script that does not compile is invalid input (exit 2).
func checkVerifyStep(ctx context.Context, m *manifest.Manifest) stepResult {
	rep, err := scenario.Check(ctx, m)
	if err != nil {
		var errs scenario.Errors
		if !errors.As(err, &errs) {
			return stepResult{Err: cmdutil.Input(err)}
		}
		var fs []checkFinding
		for _, e := range errs {
			fs = append(fs, checkFinding{Severity: "error", File: e.File, Line: e.Line, Col: e.Col, Field: e.Field, Code: "scenario", Message: e.Msg})
		}
		return stepResult{Findings: fs, Err: cmdutil.Input(fmt.Errorf("invalid scenarios: %s", checkPlural(len(errs), "problem")))}
	}
	if len(rep.Results) == 0 {
		// A warning, not an error: a new project has no scenarios yet, and
		// check stays usable in CI while they are written.
		return stepResult{Summary: "no scenarios", Findings: []checkFinding{{Severity: "warning", File: m.Path,
			Message: "no scenarios: nothing proves the scripts' behaviour; add lua_test/*.yaml beside the manifest (lua_test/README.md)"}}}
	}
	var fs []checkFinding
	for _, p := range rep.Problems() {
		fs = append(fs, checkFinding{Severity: "error", File: p.File, Line: p.Line, Code: "scenario-failed", Message: p.Message})
	}
	for _, w := range rep.Warnings() {
		fs = append(fs, checkFinding{Severity: "warning", File: w.File, Line: w.Line, Code: "scenario-warning", Message: w.Message})
	}
	for _, d := range rep.KeyDiagnostics() {
		fs = append(fs, checkFinding{Severity: d.Severity, File: displayPath(d.File), Line: d.Line, Code: d.Code, Message: d.Message})
	}
	fs = append(fs, untestedScripts(m, rep)...)
	res := stepResult{Findings: fs, Suites: verifySuites("verify/", rep)}
	if rep.Malformed() {
		res.Err = cmdutil.Input(errors.New("a script does not compile or load"))
	}
	if res.count("error") == 0 {
		files, skipped := map[string]bool{}, map[string]bool{}
		for _, r := range rep.Results {
			files[r.File] = true
			if r.Status == scenario.StatusSkip {
				skipped[r.File] = true
			}
		}
		res.Summary = fmt.Sprintf("%s passed as EVAL and FCALL", checkPlural(len(files)-len(skipped), "scenario"))
		if len(m.Targets) > 1 {
			res.Summary += " on " + strings.Join(m.Targets, ", ")
		}
		if len(skipped) > 0 {
			res.Summary += fmt.Sprintf("; %d live only, skipped offline (verify --against runs them)", len(skipped))
		}
	}
	return res
}

// runTargets is the servers an offline command imitates: only the one
// --target names (which must be known to the engine), else every target the
// manifest lists. An unknown name is exit 2 with the list.
func runTargets(m *manifest.Manifest, flag, cmdName string) ([]string, error) {
	if flag == "" {
		return m.Targets, nil
	}
	if err := verify.CheckTarget(flag); err != nil {
		return nil, cmdutil.Usage(err, fmt.Sprintf("'scriptctl %s --help'", cmdName))
	}
	return []string{flag}, nil
}
