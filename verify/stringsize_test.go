package verify

import (
	"strings"
	"testing"
)

// TestStringsPastOldCap: a script's strings and a command's padding are
// bounded by the memory budget only (Redis: by proto-max-bulk-len for a
// command, by the machine for Lua), so 80 MB is built as on a server and
// 300 MB is a memory RunError under the default 256 MB budget.
func TestStringsPastOldCap(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      int64 // the reply, or 0 for a memory RunError
		strlen    int   // k's length afterwards
	}{
		{"string.rep of 80 MB", "return #string.rep('ab', 40000000)", 80000000, 0},
		{"SETRANGE to 80 MB", "redis.call('SET', KEYS[1], 'abc') return redis.call('SETRANGE', KEYS[1], 79999999, 'x')", 80000000, 80000000},
		{"string.rep of 300 MB", "return #string.rep('x', 300000000)", 0, 0},
		{"string.rep of 8 GB", "return #string.rep('abcd', 2147483647)", 0, 0},
		{"SETRANGE to 300 MB", "redis.call('SET', KEYS[1], 'abc') return redis.call('SETRANGE', KEYS[1], 299999999, 'x')", 0, 3},
		{"SETBIT to 300 MB", "return redis.call('SETBIT', KEYS[1], 2399999999, 1)", 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := New(Options{})
			r, err := evalT(t, e, tc.src, []string{"k"}, nil)
			if tc.want == 0 {
				if err == nil || runErrCode(t, err) != CodeMemory {
					t.Fatalf("want a memory RunError, got %s %v", r, err)
				}
			} else if err != nil || r.Kind != Int || r.Int != tc.want {
				t.Fatalf("want %d, got %s %v", tc.want, r, err)
			}
			en, ok := e.Entry("k")
			if len(en.Value) != tc.strlen || ok != (tc.strlen > 0) {
				t.Fatalf("k holds %d bytes (exists %v), want %d", len(en.Value), ok, tc.strlen)
			}
			if tc.strlen > 3 && (!strings.HasPrefix(en.Value, "abc\x00") || !strings.HasSuffix(en.Value, "\x00x")) {
				t.Fatalf("k is %q...%q", en.Value[:4], en.Value[len(en.Value)-2:])
			}
		})
	}
}
