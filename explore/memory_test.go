package explore

import (
	"path/filepath"
	"testing"
)

// TestMaxMemory: the explorer's own bound on what its stored states hold
// stops the exploration before the bound is passed, says which bound it
// was, and is not the engine's (the script's) memory limit.
func TestMaxMemory(t *testing.T) {
	md := loadModel(t, repoManifest(t), filepath.Join(modelsDir, "paused_writer_v1.yaml"))
	full := explore(t, md, Options{})
	if full.Truncated || full.StoredBytes <= 0 {
		t.Fatalf("full run: truncated %t, stored %d bytes", full.Truncated, full.StoredBytes)
	}
	bound := full.StoredBytes / 3
	res := explore(t, md, Options{MaxMemory: bound})
	if !res.Truncated || res.TruncatedBy != "memory" || res.Bound != bound {
		t.Fatalf("truncated %t by %q at %d, want memory at %d", res.Truncated, res.TruncatedBy, res.Bound, bound)
	}
	if res.StoredBytes > bound || res.States >= full.States || res.States < 2 {
		t.Errorf("stored %d bytes (bound %d), %d states of %d", res.StoredBytes, bound, res.States, full.States)
	}
	if o := (Outcome{Model: md, Result: res}); o.Status() != "truncated" {
		t.Errorf("status %q", o.Status())
	}
	// The state bound says so too.
	if res := explore(t, md, Options{MaxStates: 10}); res.TruncatedBy != "states" || res.Bound != 10 {
		t.Errorf("state bound: by %q at %d", res.TruncatedBy, res.Bound)
	}
}
