package lint

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/scriptctl/scriptctl/manifest"
)

// BenchmarkLint measures a whole lint run: the bundled scripts with the
// repository's manifest, generated scripts of 5,000, 25,000 and 50,000
// lines, and 100,000-operator chains (chains_test.go) against gopher-lua's
// parse of each.
func BenchmarkLint(b *testing.B) {
	b.Run("bundled", func(b *testing.B) {
		m, err := manifest.Load("../manifest.yaml")
		if err != nil {
			b.Fatal(err)
		}
		cfg := Config{Files: ManifestFiles(m)}
		b.ReportAllocs()
		for b.Loop() {
			if _, err := Run(context.Background(), cfg); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, n := range []int{5000, 25000, 50000} {
		b.Run(fmt.Sprintf("generated-%d-lines", n), func(b *testing.B) { benchGenerated(b, n) })
	}
	benchChains(b)
}

// benchGenerated lints one generated script of n lines. Comparing the
// 25,000- and 50,000-line runs shows whether lint stays linear.
func benchGenerated(b *testing.B, n int) {
	{
		src := generated(n)
		cfg := Config{Files: []File{{Path: "big.lua", Source: src, Decl: &Decl{Script: "big", Keys: []string{"a", "b"}, Args: []string{"x", "ttl"}}}}}
		b.SetBytes(int64(len(src)))
		b.ReportAllocs()
		runtime.GC()
		cpu0, peak := cpuTime(), heapPeak(nil)
		for b.Loop() {
			ds, err := Run(context.Background(), cfg)
			if err != nil {
				b.Fatal(err)
			}
			if len(ds) != 0 {
				b.Fatalf("generated script has findings: %v", ds[0])
			}
			heapPeak(&peak)
		}
		// CPU time is what the lint costs on a shared machine, where wall
		// time also counts the waits for a core.
		b.ReportMetric(float64((cpuTime()-cpu0).Milliseconds())/float64(b.N), "cpu-ms/op")
		b.ReportMetric(float64(peak)/(1<<20), "heap-MB")
	}
}

// cpuTime returns the CPU time (user and system) the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// heapPeak raises *peak to the heap in use now (HeapAlloc after the run,
// before the next GC frees it: an estimate of the peak), and returns it.
func heapPeak(peak *uint64) uint64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	if peak != nil && ms.HeapAlloc > *peak {
		*peak = ms.HeapAlloc
	}
	if peak == nil {
		return 0
	}
	return *peak
}

// generated returns a clean script of about n lines: validation, then
// helper functions, branches and loops over KEYS.
func generated(n int) []byte {
	var s strings.Builder
	s.WriteString("local ttl = ARGV[2]\n")
	s.WriteString("if ttl == nil or not string.find(ttl, '^[1-9][0-9]*$') then\n  return redis.error_reply('ERR invalid TTL')\nend\n")
	s.WriteString("local total = 0\n")
	lines := 4
	for i := 0; lines < n; i++ {
		fmt.Fprintf(&s, "local function step%d(k, v)\n", i)
		fmt.Fprintf(&s, "  local cur = redis.call('GET', k)\n")
		fmt.Fprintf(&s, "  if cur == v then\n    return 0\n  end\n")
		fmt.Fprintf(&s, "  redis.call('SET', k, v, 'PX', ttl)\n  return 1\nend\n")
		fmt.Fprintf(&s, "for i = 1, #KEYS do\n  total = total + step%d(KEYS[i], ARGV[1] .. '%d')\nend\n", i, i)
		fmt.Fprintf(&s, "if total > %d then\n  redis.call('HINCRBY', KEYS[2], 'f%d', 1)\nelse\n  total = total - 1\nend\n", i, i)
		lines += 16
	}
	s.WriteString("return total\n")
	return []byte(s.String())
}
