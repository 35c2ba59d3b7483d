package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/scriptctl/scriptctl/internal/perf/stats"
	"github.com/scriptctl/scriptctl/internal/redistest"
)

// The speed benchmarks run whole processes against whole processes, paired
// in one loop (ours, then theirs, each iteration), so the load of other
// processes on the machine hits both alike. Each reports, per side, the
// median wall time (ms) and the median CPU time (user+sys, ms) of its
// runs, and the ratios of the medians scriptctl/baseline (below 1:
// scriptctl is faster). The CPU ratio is the steadier figure on a busy
// machine; the wall ratio is what a user waits. docs/performance.md lists
// the goals.

// procTime is one process run: wall time, CPU time (user+sys) and peak RSS.
type procTime struct {
	wall, cpu time.Duration
	rssKB     int64
}

// runTimed runs name with args (stdin from in, in dir) and fails the
// benchmark when it fails or prints something that does not contain want.
func runTimed(b *testing.B, dir string, in []byte, want, name string, args ...string) procTime {
	b.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Stdin = bytes.NewReader(in)
	cmd.Env = benchEnv()
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if err != nil || !strings.Contains(out.String(), want) {
		b.Fatalf("%s %v: %v (want %q)\n%s", filepath.Base(name), args, err, want, out.Bytes())
	}
	st := cmd.ProcessState
	pt := procTime{wall: wall, cpu: st.UserTime() + st.SystemTime()}
	if ru, ok := st.SysUsage().(*syscall.Rusage); ok {
		pt.rssKB = ru.Maxrss
	}
	return pt
}

// benchEnv is the environment without any server URL or password.
func benchEnv() []string {
	env := []string{"NO_COLOR=1"}
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); k != "SCRIPTCTL_URL" && k != "SCRIPTCTL_PASSWORD" && k != "REDISCLI_AUTH" {
			env = append(env, kv)
		}
	}
	return env
}

// pairedProcs runs ours and theirs alternately b.N times and reports the
// medians and their ratios; it returns theirs' median wall time in ms.
func pairedProcs(b *testing.B, ours, theirs func() procTime, oursName, theirsName string) (theirsMS float64) {
	b.Helper()
	var a, z []procTime
	for b.Loop() {
		a = append(a, ours())
		z = append(z, theirs())
	}
	report := func(name string, ts []procTime) (wall, cpu float64) {
		wall = median(ts, func(p procTime) float64 { return float64(p.wall) / 1e6 })
		cpu = median(ts, func(p procTime) float64 { return float64(p.cpu) / 1e6 })
		b.ReportMetric(wall, name+"-ms")
		b.ReportMetric(cpu, name+"-cpu-ms")
		return wall, cpu
	}
	aw, ac := report(oursName, a)
	zw, zc := report(theirsName, z)
	b.ReportMetric(aw/zw, "ratio")
	b.ReportMetric(ac/zc, "cpu-ratio")
	b.ReportMetric(median(a, func(p procTime) float64 { return float64(p.rssKB) / 1024 }), oursName+"-MB")
	return zw
}

// median is the median of f over ts.
func median(ts []procTime, f func(procTime) float64) float64 {
	v := make([]float64, len(ts))
	for i, t := range ts {
		v[i] = f(t)
	}
	return stats.Median(v)
}

// benchBinary builds scriptctl once per benchmark run, into a temp dir.
func benchBinary(b *testing.B) string {
	b.Helper()
	bin := filepath.Join(b.TempDir(), "scriptctl")
	cmd := goBuild("-o", bin, ".")
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// cliPath is redis-cli, or a skip (a failure under CI=true).
func cliPath(b *testing.B) string {
	b.Helper()
	return redistest.CLI(b)
}

// BenchmarkSpeedVersion: `scriptctl version` against `redis-cli --version`,
// process start to exit (goal: ratio at most 1.0). Two floors run in the
// same loop: a minimal Go program that prints a line (hello-go-*), the cost
// of any Go process start, and internal/perf/depsinit (deps-floor-*), a
// minimal Go program linking scriptctl's third-party packages, so running
// their package initialisation: scriptctl cannot start faster than that
// (deps-floor-cpu-ratio is its CPU time over redis-cli's).
func BenchmarkSpeedVersion(b *testing.B) {
	bin := benchBinary(b)
	cli := cliPath(b)
	hello := minimalGo(b)
	deps := filepath.Join(b.TempDir(), "depsinit")
	if out, err := goBuild("-o", deps, "github.com/scriptctl/scriptctl/internal/perf/depsinit").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	var h, d, c []procTime
	pairedProcs(b,
		func() procTime {
			h = append(h, runTimed(b, "", nil, "hello", hello))
			d = append(d, runTimed(b, "", nil, "depsinit", deps))
			return runTimed(b, "", nil, "scriptctl", bin, "version")
		},
		func() procTime {
			t := runTimed(b, "", nil, "redis-cli", cli, "--version")
			c = append(c, t)
			return t
		},
		"scriptctl", "redis-cli")
	wall := func(p procTime) float64 { return float64(p.wall) / 1e6 }
	cpu := func(p procTime) float64 { return float64(p.cpu) / 1e6 }
	b.ReportMetric(median(h, wall), "hello-go-ms")
	b.ReportMetric(median(h, cpu), "hello-go-cpu-ms")
	b.ReportMetric(median(d, wall), "deps-floor-ms")
	b.ReportMetric(median(d, cpu), "deps-floor-cpu-ms")
	if cc := median(c, cpu); cc > 0 {
		b.ReportMetric(median(d, cpu)/cc, "deps-floor-cpu-ratio")
	}
}

// minimalGo builds a Go program that prints one line: the cost of a Go
// process start on this machine.
func minimalGo(b *testing.B) string {
	b.Helper()
	dir := b.TempDir()
	src := filepath.Join(dir, "main.go")
	if err := os.WriteFile(src, []byte("package main\n\nimport \"os\"\n\nfunc main() { os.Stdout.WriteString(\"hello\\n\") }\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	bin := filepath.Join(dir, "hello")
	if out, err := goBuild("-o", bin, src).CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// BenchmarkSpeedCheck: `scriptctl check` of this repository, the whole
// process (goal: at most 120 ms wall); its CPU time and peak RSS, and
// `scriptctl version` in the same loop as the process-start floor (the
// ratio is check over version).
func BenchmarkSpeedCheck(b *testing.B) {
	bin := benchBinary(b)
	root, err := filepath.Abs("../..")
	if err != nil {
		b.Fatal(err)
	}
	pairedProcs(b,
		func() procTime { return runTimed(b, root, nil, "verify: ok", bin, "check") },
		func() procTime { return runTimed(b, root, nil, "scriptctl", bin, "version") },
		"check", "version")
}

// bigScript is a script of n lines: a local, n-2 additions, a return.
func bigScript(n int) (src []byte, sum int) {
	var sb strings.Builder
	sb.WriteString("local x = 0\n")
	for i := range n - 2 {
		fmt.Fprintf(&sb, "x = x + %d\n", i%7)
		sum += i % 7
	}
	sb.WriteString("return x\n")
	return []byte(sb.String()), sum
}

// BenchmarkSpeedEvalBig: `scriptctl eval` of a 50,000-line script offline
// against `redis-cli --eval` of the same file on a local redis-server
// (goal: ratio at most 1.5). The server caches the compiled script by SHA
// after the first call, so each iteration makes the script new (its first
// line differs) on both sides alike: the compile is part of the work.
// gopher-lua-floor-ms is a minimal Go program doing the same parse, compile
// and run with gopher-lua alone, in the same loop: the limit of any offline
// eval built on it (its ratio to redis-cli is floor-ms over redis-cli-ms).
func BenchmarkSpeedEvalBig(b *testing.B) {
	bin := benchBinary(b)
	cli := cliPath(b)
	srv := redistest.Standalone(b)
	dir := b.TempDir()
	src, sum := bigScript(49999) // and the "-- run" line: 50,000
	want := "(integer) " + strconv.Itoa(sum)
	i := 0
	write := func() string {
		i++
		path := filepath.Join(dir, fmt.Sprintf("big%d.lua", i))
		if err := os.WriteFile(path, append([]byte(fmt.Sprintf("-- run %d\n", i)), src...), 0o644); err != nil {
			b.Fatal(err)
		}
		return path
	}
	port := strconv.Itoa(srv.Port)
	floor := filepath.Join(b.TempDir(), "luacompile")
	if out, err := goBuild("-o", floor, "github.com/scriptctl/scriptctl/internal/perf/luacompile").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	var fl, tree []procTime
	cliMS := pairedProcs(b,
		func() procTime {
			fl = append(fl, runTimed(b, "", nil, want, floor, write()))
			tree = append(tree, runTimed(b, "", nil, want, floor, "-tree", write()))
			return runTimed(b, "", nil, want, bin, "eval", write())
		},
		func() procTime {
			return runTimed(b, "", nil, strconv.Itoa(sum), cli, "-h", "127.0.0.1", "-p", port, "--eval", write())
		},
		"scriptctl", "redis-cli")
	// Plain gopher-lua: its parse, compile and run of the same file in a
	// minimal Go program (internal/perf/luacompile), no engine around it.
	b.ReportMetric(median(fl, func(p procTime) float64 { return float64(p.wall) / 1e6 }), "gopher-lua-ms")
	b.ReportMetric(median(fl, func(p procTime) float64 { return float64(p.cpu) / 1e6 }), "gopher-lua-cpu-ms")
	// The floor: the same program with the tree built without a parser
	// (luacompile -tree), then gopher-lua's compile and run; its ratio to
	// redis-cli is the least any offline eval on gopher-lua can reach.
	treeMS := median(tree, func(p procTime) float64 { return float64(p.wall) / 1e6 })
	b.ReportMetric(treeMS, "floor-ms")
	b.ReportMetric(median(tree, func(p procTime) float64 { return float64(p.cpu) / 1e6 }), "floor-cpu-ms")
	b.ReportMetric(treeMS/cliMS, "floor-ratio")
}

// goBuild is `go build args...` as `make build` builds scriptctl: static,
// without cgo. The floor programs are built the same way, so each ratio
// compares like with like.
func goBuild(args ...string) *exec.Cmd {
	cmd := exec.Command("go", append([]string{"build"}, args...)...)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	return cmd
}
