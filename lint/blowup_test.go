package lint

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestPathologicalCallsBounded: helpers calling helpers many times do not
// make the linter's work explode.
func TestPathologicalCallsBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("local function f0(k) return redis.call('GET', k) end\n")
	for i := 1; i < 50; i++ {
		fmt.Fprintf(&b, "local function f%d(k)\n", i)
		for j := 0; j < 50; j++ {
			fmt.Fprintf(&b, "  f%d(k)\n", i-1)
		}
		b.WriteString("end\n")
	}
	b.WriteString("return f49(KEYS[1])\n")
	start := time.Now()
	ds := Source("p.lua", []byte(b.String()), nil)
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("took %v", d)
	}
	if len(ds) != 0 {
		t.Errorf("findings: %v", ds)
	}
}
