package verify

import (
	"context"
	"fmt"
	"math/rand"
	"strconv"
	"testing"
)

// liveSteps runs each command on a fresh engine and a flushed live server
// and requires identical replies, step by step.
func liveSteps(t *testing.T, live func(...string) Reply, e *Engine, cmds [][]string) {
	t.Helper()
	for _, c := range cmds {
		want := live(c...)
		got, err := e.Do(context.Background(), c...)
		if err != nil {
			t.Fatalf("%.80q: %v (live %.200s)", c, err, want)
		}
		if !got.Equal(want) {
			t.Fatalf("%.80q:\noffline %.400s\nlive    %.400s", c, got, want)
		}
	}
}

// TestHLLLive adds thousands of elements, in batches, to HLLs that cross
// the sparse to dense promotion, and compares every PFADD reply, PFCOUNT and
// the bytes GET answers (cached cardinality included) with redis-server.
func TestHLLLive(t *testing.T) {
	if testing.Short() {
		t.Skip("live differential: needs redis-server")
	}
	live := liveServer(t)
	live("FLUSHALL")
	e := New(Options{})
	rng := rand.New(rand.NewSource(7))
	var cmds [][]string
	for round := 0; round < 60; round++ {
		for _, k := range []string{"h1", "h2", "h3"} {
			n := 1 + rng.Intn(40)
			if k == "h3" {
				n = 1 + rng.Intn(3)
			}
			c := []string{"PFADD", k}
			for i := 0; i < n; i++ {
				c = append(c, fmt.Sprintf("%s-%d", k, rng.Intn(100000)))
			}
			cmds = append(cmds, c, []string{"GET", k})
			if round%5 == 0 {
				cmds = append(cmds, []string{"PFCOUNT", k}, []string{"GET", k})
			}
		}
		if round%10 == 9 {
			cmds = append(cmds,
				[]string{"PFCOUNT", "h1", "h2", "h3", "nokey"},
				[]string{"PFMERGE", "m" + strconv.Itoa(round), "h3", "h1"},
				[]string{"GET", "m" + strconv.Itoa(round)},
				[]string{"PFMERGE", "s" + strconv.Itoa(round), "h3"},
				[]string{"GET", "s" + strconv.Itoa(round)},
				[]string{"PFCOUNT", "s" + strconv.Itoa(round)},
				[]string{"GET", "s" + strconv.Itoa(round)},
				[]string{"OBJECT", "ENCODING", "h1"},
			)
		}
	}
	// Binary elements, single elements one by one and a large merge.
	for i := 0; i < 300; i++ {
		cmds = append(cmds, []string{"PFADD", "b", string([]byte{byte(i), 0, byte(i * 7), '\n'})})
	}
	cmds = append(cmds, []string{"GET", "b"}, []string{"PFCOUNT", "b"}, []string{"PFMERGE", "b", "h1", "h2"},
		[]string{"GET", "b"}, []string{"PFCOUNT", "b"}, []string{"PFCOUNT", "b", "h3"})
	liveSteps(t, live, e, cmds)
	// The run must have crossed the promotion: h1 dense, h3 still sparse.
	if en, _ := e.Entry("h1"); len(en.Value) != hllDenseSize || en.Value[4] != hllDense {
		t.Errorf("h1 is not dense: %d bytes", len(en.Value))
	}
	if en, _ := e.Entry("h3"); en.Value[4] != hllSparse {
		t.Errorf("h3 is not sparse")
	}
}
