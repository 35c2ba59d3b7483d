package loader

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/scriptctl/scriptctl/internal/perf/stats"
	"github.com/scriptctl/scriptctl/internal/redistest"
	"github.com/scriptctl/scriptctl/manifest"
)

// BenchmarkDeployCluster compares whole processes, paired in one run: the
// scriptctl binary (built once, into a temp dir) against the route a user
// would take with redis-cli, on freshly flushed clusters. Each iteration
// flushes the script caches and libraries (untimed), runs scriptctl, flushes
// again, runs redis-cli. Every metric is the median ms per operation for each
// side and the ratio of the medians scriptctl/redis-cli (below 1: scriptctl
// is faster), of the wall
// time, and for the cases against redis-cli also of the processes' CPU time
// (cpu-ratio):
//
//   - scripts: `deploy --mode scripts` of the repository's 3 scripts to a
//     6-node cluster, against `redis-cli -x --cluster call <seed> SCRIPT
//     LOAD < file` once per script (goal: at most 0.8).
//   - 200-scripts: 200 scripts to 6 nodes, against one `redis-cli --pipe`
//     per node, one after the other, fed the 200 SCRIPT LOADs (goal: at
//     most 0.8).
//   - functions: `deploy --mode functions`, against one `redis-cli -x
//     --cluster call <seed> FUNCTION LOAD REPLACE --cluster-only-masters <
//     library` (goal: at most 1.2). The floor runs in the same loop, after
//     a flush of its own: internal/perf/funcload, a minimal Go program that
//     reads CLUSTER NODES, dials every node with rueidis and sends FUNCTION
//     LOAD REPLACE to the primaries (floor-ms/op, floor/redis-cli,
//     floor-cpu-ms/op, floor-cpu-ratio): what any deploy over rueidis
//     costs, before scriptctl's checks, lock, plan and confirmation. The
//     second floor runs after it, after a flush of its own:
//     internal/perf/funcdeploy, a minimal Go program that sends exactly
//     the commands scriptctl's deploy sends, in the same round trips
//     (discovery with the permission probes, the lock, the plan, the
//     loads, each replica's confirmation, the release), and nothing else
//     (deploy-floor-ms/op, deploy-floor/redis-cli, deploy-floor-cpu-ms/op,
//     deploy-floor-cpu-ratio): what deploy's guarantees cost over rueidis,
//     before any of scriptctl's own code. The third floor is the same
//     program built with -tags perfdeps, which links scriptctl's other
//     third-party packages too (gojq, yaml.v3, gopher-lua, cobra, x/term)
//     and so runs their package initialisation first (deps-deploy-floor-*):
//     the least any deploy program with scriptctl's libraries costs.
//   - 12-vs-6: the full deploy (scripts and library) to a 12-node cluster
//     against the same to a 6-node cluster (goal: at most 1.3).
//
// scriptctl's time is the whole command: process start, the pre-flight
// checks (scripts.sum, syntax on every target, check-keys), discovery, the
// permission check, the lock, the plan, the loads with their SHA checks and
// the replica confirmation; redis-cli checks nothing.
func BenchmarkDeployCluster(b *testing.B) {
	bin := buildScriptctl(b)
	cli := redistest.CLI(b)
	c6 := benchCluster(b, 3)
	proj := benchProject(b, bin, 0)
	proj200 := benchProject(b, bin, 200)
	m := loadManifest(b, 1)
	// ours returns the wall time of the deploy and its CPU time.
	ours := func(b *testing.B, c *benchClusterT, project string, args ...string) (wall, cpu time.Duration) {
		b.Helper()
		c.flush(b)
		start := time.Now()
		cpu = runProc(b, nil, bin, append([]string{"deploy", "-m", project, "--url", c.primaries[0].URL()}, args...)...)
		return time.Since(start), cpu
	}
	wallOf := func(wall, _ time.Duration) time.Duration { return wall }
	// Every figure is the median of the run's b.N operations: one slow
	// process (the machine busy for a moment) moves a mean of five by a
	// tenth, a median not.
	report := func(b *testing.B, a, z samples, aName, zName string) {
		b.ReportMetric(a.ms(), aName+"-ms/op")
		b.ReportMetric(z.ms(), zName+"-ms/op")
		b.ReportMetric(a.ratio(z), aName+"/"+zName)
	}
	seed := c6.primaries[0].Addr

	// What the process costs before it does anything, and what the
	// pre-flight checks cost: the same deploys with --skip-checks.
	procStart := func(b *testing.B) time.Duration {
		t := time.Now()
		runProc(b, nil, bin, "version")
		return time.Since(t)
	}
	extra := func(b *testing.B, skip, ver samples) {
		b.ReportMetric(skip.ms(), "skip-checks-ms/op")
		b.ReportMetric(ver.ms(), "version-ms/op")
	}

	// against runs scriptctl deploy (with and without the checks) and
	// `scriptctl version`, then theirs, each after a flush, b.N times;
	// then each floor after a flush too. theirs and the floors return
	// their processes' CPU time. Besides the wall times it reports the
	// CPU time (user+sys) of the full deploy and of theirs (cpu-ratio):
	// on a loaded machine the steadier figure of what scriptctl itself
	// costs, though redis-cli's CPU leaves out the servers' work.
	//
	// Every compared process follows an untimed run of the same command
	// (after a flush): the full deploy, theirs and each floor. On a 2-core
	// VM a process that follows a run of the same command takes about a
	// tenth less time, whatever the program (redis-cli too); a copy of the
	// binary in another file gains as much, so it is not the page cache.
	// Without these runs scriptctl alone had most of that advantage (its
	// deploy followed its other runs), and the ratios came out a tenth
	// or two too low.
	against := func(b *testing.B, project, mode string, theirs func() time.Duration, floors ...benchFloor) {
		var a, z, skip, ver, aCPU, zCPU samples
		fl := make([]samples, len(floors))
		flCPU := make([]samples, len(floors))
		for i := 0; i < b.N; i++ {
			skip = append(skip, wallOf(ours(b, c6, project, "--mode", mode, "--skip-checks")))
			ver = append(ver, procStart(b))
			ours(b, c6, project, "--mode", mode)
			wall, cpu := ours(b, c6, project, "--mode", mode)
			a, aCPU = append(a, wall), append(aCPU, cpu)
			c6.flush(b)
			theirs()
			c6.flush(b)
			start := time.Now()
			zCPU = append(zCPU, theirs())
			z = append(z, time.Since(start))
			for j, f := range floors {
				c6.flush(b)
				f.run()
				c6.flush(b)
				start := time.Now()
				flCPU[j] = append(flCPU[j], f.run())
				fl[j] = append(fl[j], time.Since(start))
			}
		}
		report(b, a, z, "scriptctl", "redis-cli")
		extra(b, skip, ver)
		b.ReportMetric(aCPU.ms(), "scriptctl-cpu-ms/op")
		b.ReportMetric(zCPU.ms(), "redis-cli-cpu-ms/op")
		b.ReportMetric(aCPU.ratio(zCPU), "cpu-ratio")
		for j, f := range floors {
			b.ReportMetric(fl[j].ms(), f.name+"-ms/op")
			b.ReportMetric(fl[j].ratio(z), f.name+"/redis-cli")
			b.ReportMetric(flCPU[j].ms(), f.name+"-cpu-ms/op")
			b.ReportMetric(flCPU[j].ratio(zCPU), f.name+"-cpu-ratio")
		}
	}

	b.Run("scripts", func(b *testing.B) {
		against(b, proj, "scripts", func() (cpu time.Duration) {
			for _, s := range m.Scripts {
				cpu += runProc(b, s.Source, cli, "-x", "--cluster", "call", seed, "SCRIPT", "LOAD")
			}
			return cpu
		})
	})

	b.Run("200-scripts", func(b *testing.B) {
		pm, err := manifest.Load(proj200)
		if err != nil {
			b.Fatal(err)
		}
		var pipe bytes.Buffer
		for _, s := range pm.Scripts {
			fmt.Fprintf(&pipe, "*3\r\n$6\r\nSCRIPT\r\n$4\r\nLOAD\r\n$%d\r\n%s\r\n", len(s.Source), s.Source)
		}
		against(b, proj200, "scripts", func() (cpu time.Duration) {
			for _, n := range c6.nodes() {
				cpu += runProc(b, pipe.Bytes(), cli, "-h", "127.0.0.1", "-p", strconv.Itoa(n.Port), "--pipe")
			}
			return cpu
		})
	})

	b.Run("functions", func(b *testing.B) {
		code := m.FunctionsLibrary()
		build := func(name string, flags ...string) string {
			bin := filepath.Join(b.TempDir(), name)
			args := append(append([]string{"-o", bin}, flags...), "github.com/scriptctl/scriptctl/internal/perf/"+name)
			if out, err := goBuild(args...).CombinedOutput(); err != nil {
				b.Fatalf("go build: %v\n%s", err, out)
			}
			return bin
		}
		funcload, funcdeploy := build("funcload"), build("funcdeploy")
		depsDeploy := build("funcdeploy", "-tags", "perfdeps")
		against(b, proj, "functions", func() time.Duration {
			return runProc(b, code, cli, "-x", "--cluster", "call", seed, "FUNCTION", "LOAD", "REPLACE", "--cluster-only-masters")
		}, benchFloor{"floor", func() time.Duration {
			return runProc(b, code, funcload, seed)
		}}, benchFloor{"deploy-floor", func() time.Duration {
			return runProc(b, code, funcdeploy, seed, m.Library)
		}}, benchFloor{"deps-deploy-floor", func() time.Duration {
			return runProc(b, code, depsDeploy, seed, m.Library)
		}})
	})

	b.Run("12-vs-6", func(b *testing.B) {
		c12 := benchCluster(b, 6)
		// One untimed deploy to each first: a cluster just started is still
		// settling (replicas syncing, gossip), which is not what the
		// number of nodes costs.
		ours(b, c12, proj)
		ours(b, c6, proj)
		b.ResetTimer()
		var a, z samples
		for i := 0; i < b.N; i++ {
			a = append(a, wallOf(ours(b, c12, proj)))
			z = append(z, wallOf(ours(b, c6, proj)))
		}
		report(b, a, z, "12-nodes", "6-nodes")
	})
}

// samples are one measure of each of a benchmark's operations.
type samples []time.Duration

// median is the middle sample (the mean of the two middle ones of an even
// count).
func (s samples) median() time.Duration { return stats.Median(s) }

// ms is the median in milliseconds.
func (s samples) ms() float64 { return float64(s.median().Microseconds()) / 1000 }

// ratio is s's median over o's.
func (s samples) ratio(o samples) float64 { return float64(s.median()) / float64(o.median()) }

// benchFloor is a floor program run in BenchmarkDeployCluster's loop: its
// metrics' prefix, and a run returning the process's CPU time.
type benchFloor struct {
	name string
	run  func() time.Duration
}

// buildScriptctl builds the scriptctl binary into a temp dir.
func buildScriptctl(b *testing.B) string {
	b.Helper()
	bin := filepath.Join(b.TempDir(), "scriptctl")
	out, err := goBuild("-o", bin, "github.com/scriptctl/scriptctl/cmd/scriptctl").CombinedOutput()
	if err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// benchProject writes a project to a temp dir and records its scripts.sum:
// the released version 1 of the repository's library (three scripts) when
// n is 0, else n small scripts.
func benchProject(b *testing.B, bin string, n int) string {
	b.Helper()
	dir := b.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "lua"), 0o755); err != nil {
		b.Fatal(err)
	}
	var manifest []byte
	if n == 0 {
		var err error
		if manifest, err = os.ReadFile("../lua/v1/manifest.yaml"); err != nil {
			b.Fatal(err)
		}
		for _, name := range []string{"acquire.lua", "publish.lua", "release.lua"} {
			src, err := os.ReadFile(filepath.Join("../lua/v1", name))
			if err != nil {
				b.Fatal(err)
			}
			writeFile(b, filepath.Join(dir, name), src)
		}
	} else {
		var mb strings.Builder
		mb.WriteString("schema: 1\nlibrary: bench\nversion: 1\ntargets: [redis-7.0, redis-8.0, valkey-8.1]\nscripts:\n")
		for i := range n {
			fmt.Fprintf(&mb, "  s%03d:\n    file: lua/s%03d.lua\n    keys: [k]\n    args: []\n", i, i)
			writeFile(b, filepath.Join(dir, "lua", fmt.Sprintf("s%03d.lua", i)),
				[]byte(fmt.Sprintf("-- script %d\nreturn redis.call('GET', KEYS[1]) or %d\n", i, i)))
		}
		manifest = []byte(mb.String())
	}
	path := filepath.Join(dir, "manifest.yaml")
	writeFile(b, path, manifest)
	runProc(b, nil, bin, "sum", "-m", path)
	return path
}

func writeFile(b *testing.B, path string, data []byte) {
	b.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		b.Fatal(err)
	}
}

// runProc runs a process with stdin, fails the benchmark when it fails, and
// returns its CPU time (user+sys).
func runProc(b *testing.B, stdin []byte, name string, args ...string) time.Duration {
	b.Helper()
	cmd := exec.Command(name, args...)
	cmd.Stdin = bytes.NewReader(stdin)
	cmd.Env = []string{"NO_COLOR=1"}
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); k != "SCRIPTCTL_URL" && k != "SCRIPTCTL_PASSWORD" && k != "REDISCLI_AUTH" {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		b.Fatalf("%s %v: %v\n%s", filepath.Base(name), args, err, out)
	}
	return cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
}

// benchClusterT is a cluster of any size with one replica per primary.
type benchClusterT struct {
	primaries, replicas []*redistest.Server
}

func (c *benchClusterT) nodes() []*redistest.Server {
	return append(append([]*redistest.Server{}, c.primaries...), c.replicas...)
}

func (c *benchClusterT) flush(b *testing.B) {
	b.Helper()
	for _, n := range c.nodes() {
		n.MustDo("SCRIPT", "FLUSH")
	}
	for _, p := range c.primaries {
		p.MustDo("FUNCTION", "FLUSH")
	}
	// Wait until the replicas have the flush too: a library left on a
	// replica would make the next deploy's plan see a conflict.
	for _, r := range c.replicas {
		for deadline := time.Now().Add(5 * time.Second); ; {
			msg := r.MustDo("FUNCTION", "LIST")
			if libs, _ := msg.ToArray(); len(libs) == 0 {
				break
			}
			if time.Now().After(deadline) {
				b.Fatalf("%s: FUNCTION FLUSH not replicated", r.Addr)
			}
			time.Sleep(time.Millisecond)
		}
	}
}

// benchCluster starts a cluster of primaries primaries, each with one
// replica, the slots split evenly, and waits until every node says ok.
func benchCluster(b *testing.B, primaries int) *benchClusterT {
	b.Helper()
	c := &benchClusterT{}
	opt := redistest.WithArgs("--cluster-enabled", "yes", "--cluster-node-timeout", "2000", "--repl-ping-replica-period", "1")
	for i := 0; i < 2*primaries; i++ {
		s := redistest.Standalone(b, opt)
		if i < primaries {
			c.primaries = append(c.primaries, s)
		} else {
			c.replicas = append(c.replicas, s)
		}
	}
	for i, p := range c.primaries {
		lo, hi := i*16384/primaries, (i+1)*16384/primaries-1
		p.MustDo("CLUSTER", "ADDSLOTSRANGE", strconv.Itoa(lo), strconv.Itoa(hi))
	}
	for _, n := range c.nodes()[1:] {
		c.primaries[0].MustDo("CLUSTER", "MEET", "127.0.0.1", strconv.Itoa(n.Port))
	}
	ctx := context.Background()
	waitFor := func(what string, ok func() bool) {
		for deadline := time.Now().Add(30 * time.Second); !ok(); time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				b.Fatalf("cluster of %d: %s", 2*primaries, what)
			}
		}
	}
	for _, n := range c.nodes() {
		waitFor("every node known", func() bool {
			out, err := n.Do(ctx, "CLUSTER", "NODES").ToString()
			return err == nil && strings.Count(strings.TrimSpace(out), "\n")+1 == 2*primaries
		})
	}
	for i, r := range c.replicas {
		id, err := c.primaries[i].Do(ctx, "CLUSTER", "MYID").ToString()
		if err != nil {
			b.Fatal(err)
		}
		waitFor("replicate", func() bool { return r.Do(ctx, "CLUSTER", "REPLICATE", id).Error() == nil })
	}
	for _, n := range c.nodes() {
		waitFor("cluster_state:ok, replicas linked", func() bool {
			info, err := n.Do(ctx, "CLUSTER", "INFO").ToString()
			if err != nil || !strings.Contains(info, "cluster_state:ok") {
				return false
			}
			out, err := n.Do(ctx, "CLUSTER", "NODES").ToString()
			if err != nil || strings.Count(out, "slave") < primaries {
				return false
			}
			repl, err := n.Do(ctx, "INFO", "replication").ToString()
			return err == nil && (strings.Contains(repl, "role:master") || strings.Contains(repl, "master_link_status:up"))
		})
	}
	return c
}

// goBuild is `go build args...` as `make build` builds scriptctl: static,
// without cgo. The floor programs are built the same way, so each ratio
// compares like with like.
func goBuild(args ...string) *exec.Cmd {
	cmd := exec.Command("go", append([]string{"build"}, args...)...)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	return cmd
}
