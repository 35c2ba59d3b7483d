package verify

import (
	"context"
	"runtime"
	"testing"
)

// TestMemoryOutside: the engine's memory limit is the script's. Heap the
// caller holds (explore's stored states, here a ballast) and says it
// holds through Options.MemoryOutside is left out: a script whose own
// live memory is small runs even when the process's heap is past the
// limit. Without MemoryOutside the same run is blamed for the ballast,
// as explore's runs were.
func TestMemoryOutside(t *testing.T) {
	const limit = 16 << 20
	ballast := make([]byte, 48<<20)
	for i := range ballast {
		ballast[i] = byte(i)
	}
	// Strings of 1 MB, each garbage at once: 64 MB charged, little live.
	const script = "local n = 0 for i = 1, 64 do n = n + #string.rep('x', 1000000) end return n"
	run := func(outside func() int64) (Reply, error) {
		e := New(Options{MemoryLimit: limit, MemoryOutside: outside})
		return e.Eval(context.Background(), []byte(script), nil, nil)
	}
	r, err := run(func() int64 { return int64(len(ballast)) })
	if err != nil || !r.Equal(IntReply(64000000)) {
		t.Fatalf("with the ballast left out: %s %v", r, err)
	}
	_, err = run(nil)
	if re, ok := err.(*RunError); !ok || re.Code != CodeMemory {
		t.Errorf("ballast counted: got %v, want a %s RunError", err, CodeMemory)
	}
	runtime.KeepAlive(ballast)
}
