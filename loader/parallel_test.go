package loader

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestParallelBoundsAndCovers(t *testing.T) {
	var running, peak atomic.Int32
	var mu sync.Mutex
	seen := map[int]bool{}
	parallel(20, 3, func(i int) {
		now := running.Add(1)
		for {
			p := peak.Load()
			if now <= p || peak.CompareAndSwap(p, now) {
				break
			}
		}
		time.Sleep(5 * time.Millisecond)
		running.Add(-1)
		mu.Lock()
		seen[i] = true
		mu.Unlock()
	})
	if len(seen) != 20 {
		t.Fatalf("ran %d of 20 indexes", len(seen))
	}
	if p := peak.Load(); p > 3 || p < 2 {
		t.Fatalf("peak concurrency %d, want at most 3 (and more than 1)", p)
	}
}
