package gen

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/scriptctl/scriptctl/internal/redistest"
	"github.com/scriptctl/scriptctl/internal/testtier"
	"github.com/scriptctl/scriptctl/manifest"
)

// needTool skips t when name is not on PATH (fails under CI=true).
func needTool(t *testing.T, name string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not on PATH (CI=true: .ci/run installs it)", name)
		}
		t.Skipf("%s is not on PATH: the TypeScript bindings are untested", name)
	}
}

// tsModule copies testdata/tstest to a temporary folder, generates every
// TypeScript binding into gen/<name>/ and installs the packages
// (typescript, ioredis, node-redis) with npm.
func tsModule(t *testing.T) string {
	t.Helper()
	needTool(t, "node")
	needTool(t, "npm")
	dir := t.TempDir()
	for _, name := range []string{"package.json", "tsconfig.json", "live.ts"} {
		data, err := os.ReadFile(filepath.Join("testdata", "tstest", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for folder, path := range bindings {
		m, err := manifest.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		sum, err := manifest.ReadSum(m.SumPath())
		if err != nil {
			t.Fatal(err)
		}
		files, err := Generate("ts", m, sum, Options{})
		if err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, "gen", folder)
		if err := os.MkdirAll(out, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if err := os.WriteFile(filepath.Join(out, f.Name), f.Data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	cmd := exec.Command("npm", "install", "--no-audit", "--no-fund", "--silent")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("npm install:\n%s", out)
		}
		t.Skipf("npm install failed (no registry?): the TypeScript bindings are untested:\n%s", out)
	}
	return dir
}

func run(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s:\n%s", name, strings.Join(args, " "), out)
	}
	return string(out)
}

// The TypeScript bindings of the bundled manifest, the examples and a
// no-writes library pass tsc --strict, then call every script through
// ioredis and node-redis on a standalone server and through ioredis on a
// cluster: typed replies, NOSCRIPT recovery after SCRIPT FLUSH, _RO
// commands, typed errors, cross-slot refusal.
func TestTSBindings(t *testing.T) {
	testtier.Full(t, "npm, tsc --strict and Node on a server and a cluster")
	dir := tsModule(t)
	run(t, dir, nil, filepath.Join(dir, "node_modules", ".bin", "tsc"), "--strict", "--noEmit", "-p", ".")
	run(t, dir, nil, filepath.Join(dir, "node_modules", ".bin", "tsc"), "-p", ".")
	out := run(t, dir, liveEnv(t), "node", filepath.Join("out", "live.js"))
	for _, want := range []string{"ok placeholders", "ok protocol", "ok replica standalone/ioredis", "ok replica standalone/node-redis", "ok replica cluster/ioredis", "ok replica cluster/node-redis",
		"ok catalog standalone/ioredis", "ok examples standalone/ioredis", "ok catalog standalone/node-redis", "ok examples standalone/node-redis", "ok catalog cluster/ioredis", "ok examples cluster/ioredis", "ok catalog cluster/node-redis", "ok examples cluster/node-redis"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
}

// liveEnv starts the servers of the TypeScript and Python live tests (a
// standalone server, a primary with a replica, a cluster of three primaries
// with a replica each) and returns their addresses and the ro library's
// Functions code and peek script for the live programs.
func liveEnv(t *testing.T) []string {
	t.Helper()
	standalone := redistest.Standalone(t)
	primary, replica := redistest.Replicated(t)
	cluster := redistest.NewCluster(t)
	peek, err := filepath.Abs(filepath.Join("testdata", "ro", "lua", "peek.lua"))
	if err != nil {
		t.Fatal(err)
	}
	return []string{
		"BINDTEST_STANDALONE=" + standalone.Addr,
		"BINDTEST_REPLICATED=" + primary.Addr + "," + replica.Addr,
		"BINDTEST_CLUSTER=" + strings.Join(cluster.Addrs(), ","),
		"BINDTEST_RO_FUNCTIONS=" + functionsFile(t, "rotest"),
		"BINDTEST_RO_PEEK=" + peek,
	}
}

func runErr(dir, name string, args ...string) ([]byte, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	return cmd.CombinedOutput()
}
