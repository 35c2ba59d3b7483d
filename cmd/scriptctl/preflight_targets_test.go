package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/scriptctl/scriptctl/internal/cmdutil"
)

// TestPreflightSyntaxPerTarget: the pre-flight syntax check judges the
// library on every target. A library that only registers functions (the
// generated one) passes on all three; one whose script ends its function
// early and registers a bad name at load time is refused on each target in
// that target's words (Redis 7.0 and 8.0 while the code runs, naming the
// name a library's; Valkey 8.1 after, a function's), in target order,
// before anything is sent.
func TestPreflightSyntaxPerTarget(t *testing.T) {
	dir := t.TempDir()
	if r := loaderRun(t, "init", dir, "--target", "redis-7.0", "--target", "redis-8.0", "--target", "valkey-8.1"); r.code != 0 {
		t.Fatalf("init: exit %d\n%s", r.code, r.errOut)
	}
	m := filepath.Join(dir, "manifest.yaml")
	lib := filepath.Base(dir) + "_v1"
	args := []string{"plan", "-m", m, "--url", "redis://127.0.0.1:1", "--timeout", "2s", "--mode", "functions", "--verbose"}

	// The checks pass; the server is unreachable.
	r := loaderRun(t, args...)
	if want := "library " + lib + " loads on redis-7.0, redis-8.0, valkey-8.1"; r.code != cmdutil.ExitEnv || !strings.Contains(r.errOut, want) {
		t.Fatalf("exit %d, want %d and %q\n%s", r.code, cmdutil.ExitEnv, want, r.errOut)
	}

	script := "return 1\nend, flags={}}\nredis.register_function{function_name='bad name', callback=function(KEYS, ARGV)\nreturn 0\n"
	if err := os.WriteFile(filepath.Join(dir, "lua", "release.lua"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := loaderRun(t, "sum", "--force", "-m", m); r.code != 0 {
		t.Fatalf("sum --force: %s", r.errOut)
	}
	r = loaderRun(t, args...)
	if r.code != cmdutil.ExitInput || !strings.Contains(r.errOut, "plan refused: the pre-flight checks failed (syntax); nothing was changed") {
		t.Fatalf("exit %d, want %d\n%s", r.code, cmdutil.ExitInput, r.errOut)
	}
	var got []string
	for _, line := range strings.Split(r.errOut, "\n") {
		if strings.Contains(line, "error syntax:") {
			got = append(got, line)
		}
	}
	refused := ": FUNCTION LOAD of library " + lib + " fails: ERR "
	names := " names can only contain letters, numbers, or underscores(_) and must be at least one character long"
	want := []string{
		m + ": error syntax: redis-7.0" + refused + "Error registering functions: ERR Library" + names,
		m + ": error syntax: redis-8.0" + refused + "Error registering functions: ERR Library" + names,
		m + ": error syntax: valkey-8.1" + refused + "Function" + names,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("syntax findings:\n%s\nwant:\n%s\nstderr:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"), r.errOut)
	}
}
