package main

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/scriptctl/scriptctl/internal/iostreams"
	"github.com/scriptctl/scriptctl/internal/redistest"
)

// exampleRepo is one of the repositories under examples/ that users copy.
type exampleRepo struct {
	name      string
	scenarios int    // lua_test/*.yaml files
	script    string // the manifest script its negative control replaces
	control   string // the unsafe variant, relative to lua_test/
	file      string // that script's file, relative to the example
}

var exampleRepos = []exampleRepo{
	{"rate_limiter", 7, "allow", "controls/allow_records_refused.lua", "lua/allow.lua"},
	{"reliable_queue", 8, "requeue", "controls/requeue_unconditional.lua", "lua/requeue.lua"},
	{"token_bucket", 7, "take", "controls/take_restart_clock.lua", "lua/take.lua"},
}

func exampleManifest(name string) string {
	return filepath.Join("..", "..", "examples", name, "manifest.yaml")
}

// TestExamplesCheck runs the pre-flight check on every example, as CI does:
// each must pass every step, with all its scenarios run in both modes.
func TestExamplesCheck(t *testing.T) {
	for _, ex := range exampleRepos {
		t.Run(ex.name, func(t *testing.T) {
			ios, _, out, errOut := iostreams.Test()
			code := run(context.Background(), ios, []string{"check", "-m", exampleManifest(ex.name)})
			if code != 0 {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
			}
			for _, want := range []string{
				"manifest: ok (" + ex.name + " version 1:",
				"sum: ok (version 1 recorded in",
				"check-keys: ok (",
				"lint: ok (",
				"verify: ok (" + strconv.Itoa(ex.scenarios) + " scenarios passed as EVAL and FCALL)",
				"explore: ok (2 models explored, ",
			} {
				if !strings.Contains(out.String(), want) {
					t.Errorf("stdout lacks %q:\n%s", want, out)
				}
			}
			if strings.Contains(out.String()+errOut.String(), "warning") {
				t.Errorf("check warned:\n%s%s", out, errOut)
			}
		})
	}
}

// TestExamplesControlsDiscriminate proves each example's negative control
// tells safe from unsafe: with the control variant made safe (a copy of the
// manifest's script) verify fails because the control no longer reaches the
// regression, and with the manifest's script made unsafe (the control copied
// over it) verify fails because the manifest's scripts reach it too.
func TestExamplesControlsDiscriminate(t *testing.T) {
	for _, ex := range exampleRepos {
		t.Run(ex.name, func(t *testing.T) {
			src := filepath.Join("..", "..", "examples", ex.name)
			safe, err := os.ReadFile(filepath.Join(src, ex.file))
			if err != nil {
				t.Fatal(err)
			}
			unsafe, err := os.ReadFile(filepath.Join(src, "lua_test", ex.control))
			if err != nil {
				t.Fatal(err)
			}
			for _, tc := range []struct {
				name, path string
				body       []byte
				want       string
			}{
				{"control made safe", filepath.Join("lua_test", ex.control), safe, "control did not reach the dangerous interleaving"},
				{"script made unsafe", ex.file, unsafe, "the manifest's scripts also reach the regression"},
			} {
				dir := copyExample(t, src)
				if err := os.WriteFile(filepath.Join(dir, tc.path), tc.body, 0o644); err != nil {
					t.Fatal(err)
				}
				ios, _, out, errOut := iostreams.Test()
				code := run(context.Background(), ios, []string{"verify", "-m", filepath.Join(dir, "manifest.yaml")})
				if code != 1 {
					t.Errorf("%s: exit %d, want 1\nstdout:\n%s\nstderr:\n%s", tc.name, code, out, errOut)
				}
				if !strings.Contains(out.String()+errOut.String(), tc.want) {
					t.Errorf("%s: output lacks %q\nstdout:\n%s\nstderr:\n%s", tc.name, tc.want, out, errOut)
				}
			}
		})
	}
}

// TestExamplesVerifyAgainstLiveServer repeats every example's scenarios on a
// throwaway redis-server, as CI does: live must match offline, and nothing
// is left behind.
func TestExamplesVerifyAgainstLiveServer(t *testing.T) {
	srv := redistest.Standalone(t)
	for _, ex := range exampleRepos {
		t.Run(ex.name, func(t *testing.T) {
			ios, _, out, errOut := iostreams.Test()
			code := run(context.Background(), ios, []string{"verify", "-m", exampleManifest(ex.name), "--against", "redis://" + srv.Addr, "--format", "json"})
			if code != 0 {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
			}
			var rep struct {
				Against string         `json:"against"`
				Summary map[string]int `json:"summary"`
			}
			if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			want := 2 * ex.scenarios // every scenario as EVAL and as FCALL
			if rep.Against != srv.Addr || rep.Summary["total"] != want || rep.Summary["pass"] != want {
				t.Errorf("against %q, summary %v; want %d of %d passed", rep.Against, rep.Summary, want, want)
			}
			if n, err := srv.Do(context.Background(), "DBSIZE").AsInt64(); err != nil || n != 0 {
				t.Errorf("DBSIZE after verify = %d, %v; want 0", n, err)
			}
		})
	}
}

// copyExample copies the example folder src into a temporary folder.
func copyExample(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}
