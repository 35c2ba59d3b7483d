package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/scriptctl/scriptctl/internal/cmdutil"
	"github.com/scriptctl/scriptctl/internal/iostreams"
	"github.com/scriptctl/scriptctl/internal/redistest"
	"github.com/scriptctl/scriptctl/manifest"
)

// TestVerifyAgainstLiveServer runs the CLI's differential on a throwaway
// redis-server: every bundled scenario matches, and nothing is left behind.
func TestVerifyAgainstLiveServer(t *testing.T) {
	srv := redistest.Standalone(t, redistest.WithPassword("pw-never-printed"))
	ios, _, out, errOut := iostreams.Test()
	url := "redis://:pw-never-printed@" + srv.Addr
	code := run(context.Background(), ios, []string{"verify", "-m", filepath.Join("..", "..", "manifest.yaml"), "--against", url, "--format", "json"})
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	for _, want := range []string{`"against": "` + srv.Addr + `"`, `"total": 44`, `"pass": 44`} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("stdout lacks %s:\n%s", want, out)
		}
	}
	if strings.Contains(out.String()+errOut.String(), "pw-never-printed") {
		t.Error("the password was printed")
	}
	if n, err := srv.Do(context.Background(), "DBSIZE").AsInt64(); err != nil || n != 0 {
		t.Errorf("DBSIZE after verify = %d, %v; want 0", n, err)
	}
}

func TestCheckVerifyStepBundled(t *testing.T) {
	m, err := manifest.Load(filepath.Join("..", "..", "manifest.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	res := checkVerifyStep(context.Background(), m)
	if res.Err != nil || len(res.Findings) != 0 {
		t.Fatalf("err %v, findings %v", res.Err, res.Findings)
	}
	if !strings.HasSuffix(res.Summary, "scenarios passed as EVAL and FCALL on "+strings.Join(m.Targets, ", ")) {
		t.Errorf("summary = %q", res.Summary)
	}
}

func TestCheckVerifyStepFindings(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"manifest.yaml":   "schema: 1\nlibrary: t\nversion: 1\nscripts:\n  ping:\n    file: ping.lua\n    keys: []\n    args: [msg]\n",
		"ping.lua":        "return ARGV[1]\n",
		"lua_test/a.yaml": "steps:\n  - call: ping\n    args: [hi]\n    expect:\n      reply: bye\n",
	}
	for name, src := range files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	m, err := manifest.Load(filepath.Join(dir, "manifest.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	res := checkVerifyStep(context.Background(), m)
	if res.Err != nil || len(res.Findings) != 2 {
		t.Fatalf("err %v, findings %v", res.Err, res.Findings)
	}
	f := res.Findings[0]
	if f.File != filepath.Join(dir, "lua_test", "a.yaml") || f.Line != 5 || f.Message != `scenario "a" [eval]: step 1: reply: want "bye", got "hi"` {
		t.Errorf("finding = %+v", f)
	}

	os.WriteFile(filepath.Join(dir, "lua_test", "a.yaml"), []byte("steps: 1\n"), 0o644)
	res = checkVerifyStep(context.Background(), m)
	if exitCode(res.Err) != cmdutil.ExitInput || len(res.Findings) != 1 || res.Findings[0].Line != 1 {
		t.Errorf("malformed scenario: err %v, findings %+v", res.Err, res.Findings)
	}
}

// TestCheckVerifyStepLiveOnlyAndNone: a project without scenarios passes
// with a warning; a live_only scenario is counted as skipped, not passed.
func TestCheckVerifyStepLiveOnlyAndNone(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) {
		t.Helper()
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("manifest.yaml", "schema: 1\nlibrary: t\nversion: 1\nscripts:\n  ping:\n    file: ping.lua\n    keys: []\n    args: [msg]\n")
	write("ping.lua", "return ARGV[1]\n")
	m, err := manifest.Load(filepath.Join(dir, "manifest.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	res := checkVerifyStep(context.Background(), m)
	if res.Err != nil || len(res.Findings) != 1 || res.Findings[0].Severity != "warning" || !strings.HasPrefix(res.Findings[0].Message, "no scenarios:") {
		t.Fatalf("no scenarios: err %v, findings %+v", res.Err, res.Findings)
	}
	write("lua_test/a.yaml", "steps:\n  - call: ping\n    args: [hi]\n    expect:\n      reply: hi\n")
	write("lua_test/b.yaml", "live_only: true\nsteps:\n  - do: [LASTSAVE]\n")
	res = checkVerifyStep(context.Background(), m)
	if res.Err != nil || len(res.Findings) != 0 {
		t.Fatalf("err %v, findings %+v", res.Err, res.Findings)
	}
	if want := "1 scenario passed as EVAL and FCALL; 1 live only, skipped offline (verify --against runs them)"; res.Summary != want {
		t.Errorf("summary %q, want %q", res.Summary, want)
	}
}
