package main

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/scriptctl/scriptctl/internal/cmdutil"
	"github.com/scriptctl/scriptctl/internal/diag"
	"github.com/scriptctl/scriptctl/internal/iostreams"
	"github.com/scriptctl/scriptctl/lint"
	"github.com/scriptctl/scriptctl/loader"
	"github.com/scriptctl/scriptctl/manifest"
	"github.com/scriptctl/scriptctl/verify"
)

// preflightSteps are the checks plan and deploy run before they change
// anything (the nodes' discovery, which only reads, runs meanwhile): scripts.sum, script syntax on every target, check-keys, and
// lint's shebang-flags (a shebang whose flags differ from the manifest's
// makes EVAL and FCALL run the script differently). The manifest itself is
// already valid (it loaded). The other lint rules and the scenarios stay
// with check: they judge, these refuse what must never reach a server.
func preflightSteps(mode loader.Mode) []checkStep {
	return []checkStep{
		{"sum", checkSumStep},
		{"syntax", func(ctx context.Context, m *manifest.Manifest) stepResult { return checkSyntaxStep(ctx, m, mode) }},
		{"check-keys", checkKeysStep},
		{"shebang-flags", func(ctx context.Context, m *manifest.Manifest) stepResult { return checkShebangStep(ctx, m, mode) }},
	}
}

// checkShebangStep runs lint's shebang-flags rule on every script of the
// manifest as mode deploys it: a finding refuses the deploy (exit 1). A
// mode that loads scripts for EVALSHA needs the flags in a shebang,
// whatever the manifest's deploy says.
func checkShebangStep(ctx context.Context, m *manifest.Manifest, mode loader.Mode) stepResult {
	files := lint.ManifestFiles(m)
	for i := range files {
		files[i].Decl.FunctionsOnly = mode == loader.ModeFunctions
	}
	return lintFilesStep(ctx, files, []string{"shebang-flags"}, false)
}

// codeLoadBudget is the syntax step's finding for a library whose
// top-level code ran past FUNCTION LOAD's budget in the offline engine: a
// count of Lua instructions standing for Redis's 500 ms load limit
// (verify.DefaultLoadStepLimit), the same on every machine.
const codeLoadBudget = "load-budget"

// preflightLoadSteps is the load budget the syntax step gives the engine;
// 0 is verify's default. Tests lower it.
var preflightLoadSteps int64

// checkSyntaxStep compiles every script (SCRIPT LOAD) and the generated
// Functions library (FUNCTION LOAD) in the offline engine of every target
// the manifest lists, as the servers would: an error is invalid input.
// Only what mode sends is checked: scripts mode loads no library,
// functions mode no script. A library that only registers functions is
// judged from its compiled registrations, or loaded on the others only
// when the first target refuses it (see below).
func checkSyntaxStep(ctx context.Context, m *manifest.Manifest, mode loader.Mode) stepResult {
	var res stepResult
	// One engine per target, all at once; findings in target order.
	byTarget := make([][]checkFinding, len(m.Targets))
	var library []byte
	judged, shared := false, false
	if mode != loader.ModeScripts {
		library = m.FunctionsLibrary()
		// A library whose top-level code only registers functions (what
		// the manifest generates, unless a script ends its function
		// early) loads on every target if it loads on one
		// (verify.RegistersOnly), and whether it does follows from its
		// registrations alone (verify.LoadsOnEveryTarget): such a
		// library is not loaded at all when they pass register_function's
		// checks; else the first target's engine loads it, and the
		// others only when it refuses, so that each target's refusal is
		// reported in its own words.
		judged = verify.LoadsOnEveryTarget(library, preflightLoadSteps)
		shared = !judged && len(m.Targets) > 1 && verify.RegistersOnly(library)
	}
	firstDone := make(chan struct{})
	firstLoaded := false
	var wg sync.WaitGroup
	for i, t := range m.Targets {
		if mode == loader.ModeFunctions && judged {
			break // nothing left to load
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			var fs []checkFinding
			// Each engine serves this check alone (Once): its sandbox
			// is not recorded for reuse.
			e := verify.New(verify.Options{Target: t, LoadStepLimit: preflightLoadSteps, Once: true})
			// A script compiles once for every target (the engines share
			// their compiles): each target starts at another script, so the
			// targets compile different scripts at once and then find the
			// rest compiled. Findings stay in manifest order.
			n := len(m.Scripts)
			found := make([]*checkFinding, n)
			for k := range n {
				if mode == loader.ModeFunctions {
					break
				}
				j := (k + i*n/len(m.Targets)) % n
				s := m.Scripts[j]
				r, err := e.Do(ctx, "SCRIPT", "LOAD", string(s.Source))
				switch {
				case err != nil:
					found[j] = &checkFinding{Severity: "warning", File: s.Path, Message: fmt.Sprintf("%s: cannot be judged offline: %v", t, err)}
				case r.IsError():
					found[j] = &checkFinding{Severity: "error", File: s.Path, Message: fmt.Sprintf("%s: SCRIPT LOAD fails: %s", t, r.Str)}
				}
			}
			for _, f := range found {
				if f != nil {
					fs = append(fs, *f)
				}
			}
			if mode == loader.ModeScripts || judged {
				byTarget[i] = fs
				return
			}
			if shared && i > 0 {
				<-firstDone
				if firstLoaded {
					byTarget[i] = fs
					return
				}
			}
			r, err := e.FunctionLoad(library, false)
			if shared && i == 0 {
				firstLoaded = err == nil && !r.IsError()
				close(firstDone)
			}
			if steps, spent := e.LoadBudgetSpent(); err == nil && r.IsError() && spent {
				fs = append(fs, checkFinding{Severity: "error", File: m.Path, Code: codeLoadBudget,
					Message: fmt.Sprintf("%s: FUNCTION LOAD of library %s ran past the load budget of %d Lua instructions, the offline measure of Redis's 500 ms load limit: a server this fast refuses it with \"FUNCTION LOAD timeout\"; the library's code is not in question (split the library, or --skip-checks to let the servers decide)", t, m.LibraryName(), steps)})
			} else if err == nil && r.IsError() {
				fs = append(fs, checkFinding{Severity: "error", File: m.Path, Message: fmt.Sprintf("%s: FUNCTION LOAD of library %s fails: %s", t, m.LibraryName(), r.Str)})
			}
			byTarget[i] = fs
		}()
	}
	wg.Wait()
	for _, fs := range byTarget {
		res.Findings = append(res.Findings, fs...)
	}
	budget := 0
	for _, f := range res.Findings {
		if f.Code == codeLoadBudget {
			budget++
		}
	}
	// A syntax error is invalid input (exit 2); a spent budget is a
	// finding (exit 1) with its own code, never "syntax".
	if n := res.count("error") - budget; n > 0 {
		res.Err = cmdutil.Input(fmt.Errorf("script syntax: %s", checkPlural(n, "problem")))
	} else if budget == 0 {
		what := checkPlural(len(m.Scripts), "script") + " compile"
		switch mode {
		case loader.ModeFunctions:
			what = "library " + m.LibraryName() + " loads"
		case loader.ModeScripts:
		default:
			what += " and library " + m.LibraryName() + " loads"
		}
		res.Summary = fmt.Sprintf("%s on %s", what, strings.Join(m.Targets, ", "))
	}
	return res
}

// preflight runs preflightSteps for cmdName (plan or deploy) and refuses
// with the step's exit code (1 a finding, 2 invalid input) before anything
// is sent. With skip it runs nothing and says so on stderr, every time.
// The problems print on stderr as shared diagnostics, or with format json
// as a diag.Document on stdout.
func preflight(ctx context.Context, ios *iostreams.IOStreams, m *manifest.Manifest, mode loader.Mode, cmdName, format string, skip bool) error {
	return runPreflight(ctx, ios, m, preflightSteps(mode), cmdName, format, skip)
}

// runPreflight is preflight with its steps given.
func runPreflight(ctx context.Context, ios *iostreams.IOStreams, m *manifest.Manifest, steps []checkStep, cmdName, format string, skip bool) error {
	if skip {
		ios.Notice("warning: --skip-checks: %s runs without its pre-flight checks (scripts.sum, syntax, check-keys, shebang-flags)", cmdName)
		return nil
	}
	code, failed := 0, []string{}
	// The steps are independent: run them at once, report in order.
	results := make([]stepResult, len(steps))
	var wg sync.WaitGroup
	for i, st := range steps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = st.Run(ctx, m)
		}()
	}
	wg.Wait()
	var problems []diag.Diagnostic
	for i, st := range steps {
		res := results[i]
		for _, f := range res.Findings {
			if f.Severity == diag.Error {
				problems = append(problems, f.diagnostic(st.Name))
			}
		}
		stepCode := 0
		switch {
		case res.Err != nil:
			stepCode = exitCode(res.Err)
		case res.count("error") > 0:
			stepCode = cmdutil.ExitFindings
		}
		ios.Detail("%s: pre-flight %s: %s", cmdName, st.Name, res.outcome())
		if stepCode != 0 {
			failed = append(failed, st.Name)
		}
		// Invalid input (2) outranks a finding (1), as in check.
		if stepCode == cmdutil.ExitInput || code == 0 {
			code = max(code, stepCode)
		}
	}
	if len(failed) == 0 {
		return nil
	}
	if format == "json" {
		if err := diag.WriteJSON(ios.Out, problems); err != nil {
			return err
		}
	} else {
		for _, d := range problems {
			ios.Notice("%s", d)
		}
	}
	return &cmdutil.ExitError{Code: code,
		Err:  fmt.Errorf("%s refused: the pre-flight checks failed (%s); nothing was changed", cmdName, strings.Join(failed, ", ")),
		Hint: "scriptctl check shows every problem; --skip-checks bypasses the gate"}
}

// checksState is the JSON checks field: "passed" or "skipped".
func checksState(skipped bool) string {
	if skipped {
		return "skipped"
	}
	return "passed"
}
