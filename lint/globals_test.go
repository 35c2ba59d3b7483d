package lint

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/scriptctl/scriptctl/internal/redistest"
)

// TestGlobalsMatchRedis lists the globals and the fields of the library
// tables a script sees on a real redis-server and compares them with
// redisGlobals and libFields.
func TestGlobalsMatchRedis(t *testing.T) {
	srv := redistest.Standalone(t)
	list := func(t *testing.T, table string) []string {
		t.Helper()
		script := "local out = {} for k in pairs(" + table + ") do out[#out+1] = tostring(k) end table.sort(out) return table.concat(out, ' ')"
		s, err := srv.Do(context.Background(), "EVAL", script, "0").ToString()
		if err != nil {
			t.Fatalf("list %s: %v", table, err)
		}
		return strings.Fields(s)
	}
	t.Run("globals", func(t *testing.T) {
		for _, g := range list(t, "_G") {
			if !redisGlobals.Get()[g] {
				t.Errorf("Redis defines global %s; the linter would flag it", g)
			}
		}
		got := list(t, "_G")
		for g := range redisGlobals.Get() {
			if !slices.Contains(got, g) && g != "__redis__err__handler" {
				t.Errorf("the linter accepts global %s; Redis does not define it", g)
			}
		}
	})
	for lib, fields := range libFields.Get() {
		t.Run(lib, func(t *testing.T) {
			got := list(t, lib)
			for _, f := range got {
				if !fields[f] {
					t.Errorf("%s.%s exists in Redis; the linter would flag it", lib, f)
				}
			}
			for f := range fields {
				if !slices.Contains(got, f) {
					t.Errorf("the linter accepts %s.%s; Redis does not define it", lib, f)
				}
			}
		})
	}
}
