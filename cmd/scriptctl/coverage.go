package main

import (
	"bytes"
	"context"
	"fmt"
	"time"

	"github.com/scriptctl/scriptctl/coverage"
	"github.com/scriptctl/scriptctl/explore"
	"github.com/scriptctl/scriptctl/internal/atomicfile"
	"github.com/scriptctl/scriptctl/internal/cmdutil"
	"github.com/scriptctl/scriptctl/manifest"
	"github.com/scriptctl/scriptctl/verify"
	"github.com/scriptctl/scriptctl/verify/scenario"
)

// writeVerifyCoverage adds the models' runs to cov (when verify runs every
// scenario), writes the report to --coverage and prints the summary.
func writeVerifyCoverage(ctx context.Context, opts *verifyOptions, m *manifest.Manifest, cov *verify.LineCoverage) error {
	if len(opts.Scenarios) == 0 && opts.Against == "" {
		paths, err := explore.Models(m)
		if err != nil {
			return cmdutil.Input(withCode("model", err))
		}
		if len(paths) > 0 {
			opts.IO.Progress("Exploring %d models for coverage...", len(paths))
			// The verdicts are explore's and check's; here only what ran.
			if _, err := runModels(ctx, m, paths, defaultExploreMaxTime); err != nil {
				return err
			}
		}
	}
	rep := coverage.Collect(m, cov)
	var b bytes.Buffer
	var err error
	if opts.CovFormat == "cobertura" {
		err = rep.WriteCobertura(&b, m.Dir, m.Library, time.Now())
	} else {
		err = rep.WriteLCOV(&b, m.Dir)
	}
	if err != nil {
		return cmdutil.Env(err)
	}
	if err := atomicfile.Write(opts.Coverage, b.Bytes()); err != nil {
		return cmdutil.Env(fmt.Errorf("--coverage: %w", err))
	}
	if opts.Format == "json" {
		return nil
	}
	ios := opts.IO
	fmt.Fprintln(ios.Out)
	t := ios.NewTable("SCRIPT", "LINES", "BRANCHES")
	for _, s := range rep.Scripts {
		st := s.Totals()
		t.Row(s.Name, fmt.Sprintf("%d/%d (%.1f%%)", st.LinesHit, st.Lines, st.LinePercent()), fmt.Sprintf("%d/%d (%.1f%%)", st.BranchesHit, st.Branches, st.BranchPercent()))
	}
	if err := t.Render(); err != nil {
		return err
	}
	all := rep.Totals()
	ios.Detail("coverage: %d of %d lines, %d of %d branches, written to %s", all.LinesHit, all.Lines, all.BranchesHit, all.Branches, opts.Coverage)
	return nil
}

// codeUntestedScript is check's warning about a script no scenario step and
// no model role calls.
const codeUntestedScript = "untested-script"

// untestedScripts warns, at the script's entry in the manifest, about every
// script that no scenario of rep calls and no model of m names: nothing
// proves it offline. A model that does not load is left to the explore step.
func untestedScripts(m *manifest.Manifest, rep *scenario.Report) []checkFinding {
	called := map[string]bool{}
	for _, r := range rep.Results {
		if r.Scenario == nil {
			continue
		}
		for _, st := range r.Scenario.Steps {
			if st.Kind == scenario.StepCall {
				called[st.Script] = true
			}
		}
	}
	if paths, err := explore.Models(m); err == nil {
		for _, p := range paths {
			md, err := explore.Load(p, m)
			if err != nil {
				continue
			}
			for _, role := range md.Roles {
				called[role.Script] = true
			}
		}
	}
	var fs []checkFinding
	for _, s := range m.Scripts {
		if !called[s.Name] {
			fs = append(fs, checkFinding{Severity: "warning", File: displayPath(m.Path), Line: s.Line, Code: codeUntestedScript,
				Message: fmt.Sprintf("script %s is called by no scenario and no model: nothing proves it offline (scriptctl new scenario %s)", s.Name, s.Name)})
		}
	}
	return fs
}
