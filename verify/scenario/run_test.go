package scenario

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/scriptctl/scriptctl/manifest"
	"github.com/scriptctl/scriptctl/verify"
)

func TestBundledScenariosPassOffline(t *testing.T) {
	m := repoManifest(t)
	ss := bundled(t, m)
	for _, mode := range Modes {
		t.Run(string(mode), func(t *testing.T) {
			rep, err := RunAll(context.Background(), m, ss, Options{Modes: []Mode{mode}})
			if err != nil {
				t.Fatal(err)
			}
			if !rep.OK() {
				t.Errorf("bundled scenarios fail offline in %s mode:\n%s", mode, problems(rep))
			}
			// Beyond the scenario's own expectations: the seed incident's
			// end state, read from the run itself.
			for _, r := range rep.Results {
				if r.Name != "paused writer is rejected" || len(r.Runs) == 0 {
					continue
				}
				steps := r.Runs[0].Steps
				if len(steps) != 6 {
					t.Errorf("paused writer ran %d steps, want 6", len(steps))
					continue
				}
				last := steps[len(steps)-1]
				v, ok := find(last.State, "catalog:{product-42}:value")
				if !ok || v.Value != "summary@rev8" {
					t.Errorf("paused writer end state: value = %+v, %v; want CURRENT's summary@rev8", v, ok)
				}
				if rej := steps[4].Reply; rej == nil || !rej.Equal(verify.IntReply(0)) {
					t.Errorf("OLD's late publish replied %v, want 0", rej)
				}
			}
		})
	}
}

// fixture writes a manifest with version 1 of the repository's scripts
// (lua/v1, kept as released: acquire, publish, release on two keys) plus
// extra files into a temp dir and returns the loaded manifest.
func fixture(t *testing.T, files map[string]string) *manifest.Manifest {
	t.Helper()
	dir := t.TempDir()
	for _, name := range []string{"acquire.lua", "publish.lua", "release.lua"} {
		src, err := os.ReadFile(filepath.Join("..", "..", "lua", "v1", name))
		if err != nil {
			t.Fatal(err)
		}
		write(t, filepath.Join(dir, "lua", name), string(src))
	}
	mf, err := os.ReadFile(filepath.Join("..", "..", "lua", "v1", "manifest.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "manifest.yaml"), strings.ReplaceAll(string(mf), "    file: ", "    file: lua/"))
	for name, src := range files {
		write(t, filepath.Join(dir, name), src)
	}
	m, err := manifest.Load(filepath.Join(dir, "manifest.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func write(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func runFixture(t *testing.T, m *manifest.Manifest, modes ...Mode) *Report {
	t.Helper()
	paths, err := Discover(m)
	if err != nil {
		t.Fatal(err)
	}
	ss, err := LoadAll(m, paths)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := RunAll(context.Background(), m, ss, Options{Modes: modes})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// problems is the report's problems, one "file:line: message" a line (the
// text rendering is package render's, tested there).
func problems(rep *Report) string {
	var b strings.Builder
	for _, p := range rep.Problems() {
		fmt.Fprintf(&b, "%s:%d: %s\n", p.File, p.Line, p.Message)
	}
	return b.String()
}

const lateWriter = `caller: catalog_summary
vars: {id: "1"}
workers:
  old: {token: tok-old}
  cur: {token: tok-cur}
steps:
  - worker: old
    call: acquire
    args: {lease_ttl_ms: 100}
  - sleep_ms: 101
  - worker: cur
    call: acquire
    args: {lease_ttl_ms: 1000}
  - worker: cur
    call: publish
    args: {candidate: new, cache_ttl_ms: 5000}
  - worker: old
    call: publish
    args: {candidate: old, cache_ttl_ms: 5000}
`

func TestFailedExpectationsNameTheLine(t *testing.T) {
	m := fixture(t, map[string]string{"lua_test/late.yaml": lateWriter + `    expect:
      reply: 1
      keys:
        value: {value: old, ttl_ms: {min: 4000, max: 4500}}
        lease: {value: tok-cur}
`})
	rep := runFixture(t, m, ModeEval)
	r := rep.Results[0]
	if r.Status != StatusFail || rep.OK() {
		t.Fatalf("status %s, want fail", r.Status)
	}
	out := problems(rep)
	for _, want := range []string{
		`late.yaml:21: scenario "late" [eval]: step 5: reply: want 1, got 0`,
		`late.yaml:23: scenario "late" [eval]: step 5: key "catalog:{product-1}:value": value: want "old", got "new", ttl_ms: want 4000..4500, got 5000`,
		`late.yaml:24: scenario "late" [eval]: step 5: key "catalog:{product-1}:lease": want present, got absent`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("problems\n%s\nlack %q", out, want)
		}
	}
}

func TestControlThatMissesFails(t *testing.T) {
	safe, _ := os.ReadFile(filepath.Join("..", "..", "lua", "v1", "publish.lua"))
	m := fixture(t, map[string]string{
		"lua_test/controls/not_unsafe.lua": string(safe),
		"lua_test/ctl.yaml": "control: {publish: controls/not_unsafe.lua}\n" + lateWriter + `    regression:
      reply: 1
      keys: {value: {value: old}}
`,
	})
	rep := runFixture(t, m, ModeEval)
	r := rep.Results[0]
	if r.Status != StatusFail {
		t.Fatalf("status %s, want fail", r.Status)
	}
	out := problems(rep)
	want := `ctl.yaml:21: scenario "ctl" [eval] (control scripts): step 5: ` + ErrControlMissed + ": reply: want 1, got 0"
	if !strings.Contains(out, want) {
		t.Errorf("problems\n%s\nlack %q", out, want)
	}
	if strings.Contains(out, "(manifest scripts)") {
		t.Errorf("the manifest run should pass:\n%s", out)
	}
}

func TestControlWhoseRegressionTheSafeScriptAlsoReachesFails(t *testing.T) {
	unsafe, _ := os.ReadFile(filepath.Join("..", "..", "lua_test", "controls", "publish_unconditional.lua"))
	m := fixture(t, map[string]string{
		"lua_test/controls/u.lua": string(unsafe),
		"lua_test/ctl.yaml": "control: {publish: controls/u.lua}\n" + lateWriter + `    regression:
      keys: {lease: absent}
`,
	})
	rep := runFixture(t, m, ModeEval)
	out := problems(rep)
	if rep.Results[0].Status != StatusFail || !strings.Contains(out, "(manifest scripts): step 5: the manifest's scripts also reach the regression") {
		t.Errorf("status %s, problems:\n%s", rep.Results[0].Status, out)
	}
}

func TestScriptThatDoesNotCompileIsMalformed(t *testing.T) {
	m := fixture(t, map[string]string{
		"lua/release.lua":       "if then\n",
		"lua_test/release.yaml": "vars: {id: '1'}\nsteps:\n  - call: release\n    args: [t]\n",
	})
	rep := runFixture(t, m, ModeEval)
	if !rep.Malformed() || rep.Results[0].Status != StatusError {
		t.Fatalf("status %s, want error; problems:\n%s", rep.Results[0].Status, problems(rep))
	}
	if out := problems(rep); !strings.Contains(out, "script release does not compile: ERR Error compiling script") {
		t.Errorf("problems:\n%s", out)
	}
}

func TestStepTheEngineCannotJudgeFails(t *testing.T) {
	m := fixture(t, map[string]string{
		"lua/release.lua":       "return redis.call('GET', 'somewhere:else')\n",
		"lua_test/release.yaml": "vars: {id: '1'}\nsteps:\n  - call: release\n    args: [t]\n  - sleep_ms: 5\n",
	})
	m.StrictKeys = true // an undeclared key stops the run
	rep := runFixture(t, m, ModeEval)
	r := rep.Results[0]
	if r.Status != StatusFail || rep.Malformed() {
		t.Fatalf("status %s, want fail", r.Status)
	}
	if len(r.Runs[0].Steps) != 1 {
		t.Errorf("the run went on after a step it could not judge: %d steps", len(r.Runs[0].Steps))
	}
	if out := problems(rep); !strings.Contains(out, "release.yaml:3: step 1 cannot be judged offline") {
		t.Errorf("problems:\n%s", out)
	}
}

// TestUndeclaredKeyFindings: without strict_keys a run goes on past an
// undeclared key, which is one warning at the script's line whatever the
// modes and steps that made it; on a cluster node (the default) the key's
// slot, not the declared keys', is another node's: an error reply.
func TestUndeclaredKeyFindings(t *testing.T) {
	files := map[string]string{
		"lua/release.lua":       "local x = 1\nreturn redis.call('GET', 'somewhere:else')\n",
		"lua_test/release.yaml": "vars: {id: '1'}\nsteps:\n  - call: release\n    args: [t]\n    expect: {reply: null}\n  - call: release\n    args: [t]\n",
	}
	m := fixture(t, files)
	m.Topology = manifest.TopologyStandalone
	rep := runFixture(t, m)
	if !rep.OK() {
		t.Fatalf("standalone: %s", problems(rep))
	}
	ds := rep.KeyDiagnostics()
	want := filepath.Join(m.Dir, "lua", "release.lua")
	if len(ds) != 1 || ds[0].File != want || ds[0].Line != 2 || ds[0].Code != verify.CodeUndeclaredKey || ds[0].Severity != "warning" ||
		!strings.Contains(ds[0].Message, `key "somewhere:else" of GET is not in KEYS`) {
		t.Errorf("key diagnostics %+v, want one at %s:2", ds, want)
	}
	if n := len(rep.Diagnostics()); n != 1 {
		t.Errorf("diagnostics %+v", rep.Diagnostics())
	}
	m = fixture(t, files)
	rep = runFixture(t, m, ModeEval)
	if rep.OK() || !strings.Contains(problems(rep), "non local key") {
		t.Errorf("cluster: %s", problems(rep))
	}
	if len(rep.KeyDiagnostics()) != 1 {
		t.Errorf("cluster key diagnostics %+v", rep.KeyDiagnostics())
	}
}
