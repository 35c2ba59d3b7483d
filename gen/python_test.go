package gen

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/scriptctl/scriptctl/internal/testtier"
	"github.com/scriptctl/scriptctl/manifest"
)

// The Python bindings of the bundled manifest, the examples and a no-writes
// library pass mypy --strict, then call their scripts through redis-py
// (sync and asyncio on a standalone server, sync on a cluster): typed
// replies, NOSCRIPT recovery after SCRIPT FLUSH, _RO commands, typed errors.
// python3 with redis-py and mypy come from Debian (.ci/run installs them).
func TestPythonBindings(t *testing.T) {
	testtier.Full(t, "mypy --strict and redis-py on a server and a cluster")
	needTool(t, "python3")
	needTool(t, "mypy")
	dir := t.TempDir()
	for folder, path := range bindings {
		m, err := manifest.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		sum, err := manifest.ReadSum(m.SumPath())
		if err != nil {
			t.Fatal(err)
		}
		files, err := Generate("python", m, sum, Options{})
		if err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, "gen", folder)
		if err := os.MkdirAll(out, 0o755); err != nil {
			t.Fatal(err)
		}
		files = append(files, File{Name: "__init__.py"})
		for _, f := range files {
			if err := os.WriteFile(filepath.Join(out, f.Name), f.Data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	live, err := os.ReadFile(filepath.Join("testdata", "pytest", "live.py"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "live.py"), live, 0o644); err != nil {
		t.Fatal(err)
	}
	run(t, filepath.Join(dir, "gen"), nil, "mypy", "--strict", "--cache-dir", filepath.Join(dir, ".mypy_cache"), ".")
	// The python3 first on PATH may be another installation than the
	// one Debian's python3-redis went to.
	python := ""
	var out []byte
	for _, p := range []string{"python3", "/usr/bin/python3"} {
		if out, err = runErr(dir, p, "-c", "import redis"); err == nil {
			python = p
			break
		}
	}
	if python == "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("redis-py is not installed:\n%s", out)
		}
		t.Skipf("redis-py is not installed (Debian python3-redis): the Python bindings are untested live:\n%s", out)
	}
	got := run(t, dir, liveEnv(t), python, "live.py")
	for _, want := range []string{"ok placeholders", "ok protocol", "ok replica standalone/redis-py", "ok replica standalone/redis-py-asyncio", "ok replica cluster/redis-py", "ok replica cluster/redis-py-asyncio",
		"ok catalog standalone/redis-py", "ok examples standalone/redis-py", "ok catalog standalone/redis-py-asyncio", "ok catalog cluster/redis-py", "ok catalog cluster/redis-py-asyncio", "ok examples cluster/redis-py"} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in:\n%s", want, got)
		}
	}
}
