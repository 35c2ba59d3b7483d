package main

import (
	"fmt"
	"strings"

	"github.com/scriptctl/scriptctl/internal/diag"
	"github.com/scriptctl/scriptctl/verify/scenario"
	"github.com/scriptctl/scriptctl/verify/scenario/render"
)

// verifySuites turns a verify report into JUnit suites: one suite per
// target, one test case per scenario and mode (the scenario's steps as one
// group), named "<scenario> [<mode>]"; a failing case carries every failure
// with the expected and actual values, and the live differences; a case's
// warnings (undeclared keys among them) are its <system-out>.
func verifySuites(prefix string, rep *scenario.Report) []diag.Suite {
	var suites []diag.Suite
	index := map[string]int{}
	for _, r := range rep.Results {
		target := r.Target
		if target == "" {
			target = "default"
		}
		i, ok := index[target]
		if !ok {
			i = len(suites)
			index[target] = i
			suites = append(suites, diag.Suite{Name: prefix + target})
		}
		c := diag.Case{
			Name:      fmt.Sprintf("%s [%s]", r.Name, r.Mode),
			ClassName: target + "/" + scenarioName(r.File),
			File:      r.File,
		}
		one := &scenario.Report{Results: []*scenario.Result{r}, Against: rep.Against}
		var warnings []diag.Diagnostic
		for _, d := range one.Diagnostics() {
			if d.Severity == diag.Warning {
				warnings = append(warnings, d)
			}
		}
		c.SystemOut = diag.Lines(warnings)
		if r.Status != scenario.StatusPass {
			var b strings.Builder
			if err := render.Problems(&b, one); err != nil {
				b.WriteString(err.Error())
			}
			f := &diag.Failure{Message: fmt.Sprintf("%s: %s", r.Status, render.Summary(r)), Text: b.String()}
			if r.Status == scenario.StatusError {
				c.Error = f
			} else {
				c.Failure = f
			}
		}
		suites[i].Cases = append(suites[i].Cases, c)
	}
	return suites
}
