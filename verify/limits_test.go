package verify

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// BenchmarkEngineLoop measures the VM's cost per instruction: a loop of a
// million iterations (two instructions each, as in Lua 5.1).
func BenchmarkEngineLoop(b *testing.B) {
	ctx := context.Background()
	e := New(Options{})
	src := []byte("local x = 0 for i = 1, 1e6 do x = x + i end return x")
	b.ReportAllocs()
	for b.Loop() {
		if r, err := e.Eval(ctx, src, nil, nil); err != nil || !r.Equal(IntReply(500000500000)) {
			b.Fatalf("%s %v", r, err)
		}
	}
}

// TestStepLimit: the budget counts VM instructions, so a run that fits
// completes and one more iteration stops it, with the count in the
// message; a wall-clock Timeout is a separate stop, reported as such.
func TestStepLimit(t *testing.T) {
	ctx := context.Background()
	src := []byte("local x = 0 for i = 1, 1000 do x = x + i end return x")
	// Measure the run's steps: the smallest budget it completes under.
	fits := func(limit int64) bool {
		t.Helper()
		e := New(Options{StepLimit: limit})
		r, err := e.Eval(ctx, src, nil, nil)
		if err != nil {
			if code := runErrCode(t, err); code != CodeStepLimit {
				t.Fatalf("limit %d: %v", limit, err)
			}
			return false
		}
		if !r.Equal(IntReply(500500)) {
			t.Fatalf("limit %d: %s", limit, r)
		}
		return true
	}
	lo, hi := int64(1), int64(1_000_000)
	for lo < hi {
		mid := (lo + hi) / 2
		if fits(mid) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	// Two instructions an iteration, plus the chunk's setup and return.
	if lo < 2000 || lo > 2100 {
		t.Errorf("the loop took %d steps, want about 2000", lo)
	}
	e := New(Options{StepLimit: lo - 1})
	_, err := e.Eval(ctx, src, nil, nil)
	if runErrCode(t, err) != CodeStepLimit || !strings.Contains(err.Error(), fmt.Sprintf("more than %d steps", lo-1)) {
		t.Errorf("one step short: %v", err)
	}

	e = New(Options{Timeout: time.Millisecond})
	_, err = e.Eval(ctx, []byte("while true do end"), nil, nil)
	if runErrCode(t, err) != CodeTimeout || !strings.Contains(err.Error(), "wall-clock timeout of 1ms") {
		t.Errorf("timeout: %v", err)
	}
}

// TestStepLimitDefault: the default budget lets a loop of the size a
// server runs in well under a second complete.
func TestStepLimitDefault(t *testing.T) {
	e := New(Options{})
	r, err := e.Eval(context.Background(), []byte("local x = 0 for i = 1, 3e6 do x = x + i end return x"), nil, nil)
	if err != nil || !r.Equal(IntReply(4500001500000)) {
		t.Fatalf("%s %v", r, err)
	}
	if e.steps != DefaultStepLimit {
		t.Errorf("budget %d", e.steps)
	}
}
