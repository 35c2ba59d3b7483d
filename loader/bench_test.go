package loader

import (
	"bytes"
	"context"
	"os/exec"
	"testing"
	"time"

	"github.com/scriptctl/scriptctl/internal/redistest"
)

// BenchmarkDeployCluster deploys the repository's manifest (3 scripts and
// the library) to a freshly flushed 6-node cluster, and runs status, and in
// the same run takes the route a user would take today with redis-cli:
//
//	redis-cli -x --cluster call <node> SCRIPT LOAD < file        (per script)
//	redis-cli -x --cluster call <node> FUNCTION LOAD REPLACE --cluster-only-masters < lib
//
// (-x: the body read from stdin, byte for byte. Passed as an argument, a
// script starting with "--" is taken for an option, and "$(cat file)"
// strips the trailing newline, which changes the SHA.)
//
// It reports ms per deploy for both and their ratio (redis-cli time divided
// by scriptctl time; above 1 means scriptctl is faster). scriptctl's time
// includes discovery, the deploy lock, the plan, the loads, the SHA checks
// and waiting for every replica to show the library; redis-cli checks
// nothing.
func BenchmarkDeployCluster(b *testing.B) {
	c := redistest.NewCluster(b)
	cli := redistest.CLI(b)
	m := loadManifest(b, 1)
	code := string(m.FunctionsLibrary())
	ctx := context.Background()
	flush := func() {
		for _, n := range c.Nodes() {
			n.MustDo("SCRIPT", "FLUSH")
		}
		for _, p := range c.Primaries {
			p.MustDo("FUNCTION", "FLUSH")
		}
	}
	seed := c.Primaries[0].Addr

	b.Run("deploy", func(b *testing.B) {
		var ours, theirs time.Duration
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			flush()
			b.StartTimer()
			start := time.Now()
			tp := topo(b, "", c.Primaries[0])
			if _, err := Deploy(ctx, tp, m, DeployOptions{}); err != nil {
				b.Fatal(err)
			}
			tp.Close()
			ours += time.Since(start)

			b.StopTimer()
			flush()
			start = time.Now()
			for _, s := range m.Scripts {
				redisCLI(b, cli, s.Source, "-x", "--cluster", "call", seed, "SCRIPT", "LOAD")
			}
			redisCLI(b, cli, []byte(code), "-x", "--cluster", "call", seed, "FUNCTION", "LOAD", "REPLACE", "--cluster-only-masters")
			theirs += time.Since(start)
			b.StartTimer()
		}
		b.StopTimer()
		assertLoaded(b, m, c.Primaries, c.Replicas)
		b.ReportMetric(float64(ours.Microseconds())/1000/float64(b.N), "scriptctl-ms/op")
		b.ReportMetric(float64(theirs.Microseconds())/1000/float64(b.N), "redis-cli-ms/op")
		b.ReportMetric(float64(theirs)/float64(ours), "redis-cli/scriptctl")
	})

	b.Run("status", func(b *testing.B) {
		tp := topo(b, "", c.Primaries[0])
		if _, err := Deploy(ctx, tp, m, DeployOptions{}); err != nil {
			b.Fatal(err)
		}
		tp.Close()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			tp := topo(b, "", c.Primaries[0])
			st, err := Status(ctx, tp, m, Options{})
			if err != nil || len(st.Drift()) != 0 {
				b.Fatalf("status: %v %v", err, st.Drift())
			}
			tp.Close()
		}
	})
}

func redisCLI(b *testing.B, cli string, stdin []byte, args ...string) {
	b.Helper()
	cmd := exec.Command(cli, args...)
	cmd.Stdin = bytes.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	if err != nil {
		b.Fatalf("redis-cli %v: %v\n%s", args, err, out)
	}
}
