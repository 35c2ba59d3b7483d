package verify

import (
	"testing"
	"time"
)

// TestMemoryLimit: strings a script keeps, or values it writes, past
// Options.MemoryLimit stop the run with a memory RunError; the same bytes
// built as garbage, or written over one another, do not.
func TestMemoryLimit(t *testing.T) {
	const limit = 32 << 20 // 4 MB strings: the 9th passes the limit
	for _, tc := range []struct {
		name, src string
		stops     bool
	}{
		{"strings kept in a table", "local t = {} for i = 1, 50 do t[i] = string.rep('x', 4194304) end return #t", true},
		{"strings kept, built by ..", "local t, s = {}, string.rep('y', 2097152) for i = 1, 50 do t[i] = s .. s end return #t", true},
		{"values appended to a key", "for i = 1, 50 do redis.call('APPEND', KEYS[1], string.rep('z', 4194304)) end return 1", true},
		{"garbage strings", "for i = 1, 50 do local s = string.rep('x', 4194304) end return 50", false},
		{"a key written over", "for i = 1, 50 do redis.call('SET', KEYS[1], string.rep('z', 4194304)) end return 50", false},
		{"a string grown by .. in a loop", "local s = '' for i = 1, 5000 do s = s .. 'abcdefgh' end return #s", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// A generous time limit: only memory may stop these runs.
			e := New(Options{MemoryLimit: limit, Timeout: time.Minute})
			r, err := evalT(t, e, tc.src, []string{"k"}, nil)
			if tc.stops {
				if err == nil || runErrCode(t, err) != CodeMemory {
					t.Fatalf("want a memory RunError, got %s %v", r, err)
				}
				return
			}
			if err != nil || r.Kind != Int {
				t.Fatalf("want a reply, got %s %v", r, err)
			}
		})
	}
}

// TestMemoryLimitDefault: 0 means DefaultMemoryLimit, 256 MB; the budget
// counts the keyspace a Put wrote.
func TestMemoryLimitDefault(t *testing.T) {
	if e := New(Options{}); e.memLimit != DefaultMemoryLimit || DefaultMemoryLimit != 256<<20 {
		t.Fatalf("default limit %d", e.memLimit)
	}
	e := New(Options{MemoryLimit: 16 << 20})
	big := make([]byte, 12<<20)
	e.Put(Entry{Key: "big", Value: string(big)})
	if _, err := evalT(t, e, "local s = string.rep('x', 6291456) return #s", nil, nil); err == nil || runErrCode(t, err) != CodeMemory {
		t.Fatalf("12 MB stored plus a 6 MB string: want a memory RunError under 16 MB, got %v", err)
	}
}
