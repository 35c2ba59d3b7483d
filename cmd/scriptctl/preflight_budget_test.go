package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/scriptctl/scriptctl/internal/cmdutil"
	"github.com/scriptctl/scriptctl/internal/iostreams"
)

// TestPreflightLoadBudget: a library whose load runs past the pre-flight's
// budget (a count of Lua instructions, lowered here so that a small
// library reaches it; by default it stands for Redis's 500 ms) is refused
// with its own code, load-budget, exit 1: never as a syntax error (exit
// 2), which a valid library is not. With the default budget the same
// manifest passes the checks and plan goes on to the (absent) server.
func TestPreflightLoadBudget(t *testing.T) {
	dir := t.TempDir()
	if r := loaderRun(t, "init", dir); r.code != 0 {
		t.Fatalf("init: exit %d\n%s", r.code, r.errOut)
	}
	m := filepath.Join(dir, "manifest.yaml")
	args := []string{"plan", "-m", m, "--url", "redis://127.0.0.1:1", "--timeout", "2s"}

	// The default budget: the checks pass; the server is unreachable.
	if r := loaderRun(t, args...); r.code != cmdutil.ExitEnv || strings.Contains(r.errOut, "plan refused") {
		t.Fatalf("default budget: exit %d, want %d (checks passed)\n%s", r.code, cmdutil.ExitEnv, r.errOut)
	}

	defer func(n int64) { preflightLoadSteps = n }(preflightLoadSteps)
	preflightLoadSteps = 5

	ios, _, out, errOut := iostreams.Test()
	if code := run(context.Background(), ios, append(args, "--format", "json")); code != cmdutil.ExitFindings {
		t.Fatalf("exit %d, want %d\n%s%s", code, cmdutil.ExitFindings, out, errOut)
	}
	var doc struct {
		Diagnostics []struct {
			Code, Severity, File, Message string
		} `json:"diagnostics"`
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(doc.Diagnostics) == 0 {
		t.Fatalf("no diagnostics:\n%s", out)
	}
	for _, d := range doc.Diagnostics {
		if d.Code != "load-budget" || d.Severity != "error" || !strings.Contains(d.Message, "5 Lua instructions") {
			t.Errorf("diagnostic %+v, want load-budget naming the budget", d)
		}
	}
	if !strings.Contains(errOut.String(), "plan refused") || !strings.Contains(errOut.String(), "(syntax)") {
		t.Errorf("stderr:\n%s", errOut)
	}

	// Text: the shared format with the code.
	r := loaderRun(t, args...)
	if r.code != cmdutil.ExitFindings || !strings.Contains(r.errOut, "error load-budget:") || strings.Contains(r.errOut, "error syntax:") {
		t.Fatalf("text: exit %d\n%s", r.code, r.errOut)
	}
}
