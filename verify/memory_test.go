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

// TestLibraryStringsCharged: strings made by the library functions that
// do not charge as they build (string.format, upper, lower, reverse,
// cjson.encode, cmsgpack.pack, struct.pack) and those a decoder makes
// (cjson.decode, cmsgpack.unpack, struct.unpack) count against the
// budget: a script doubling a string through one of them, or keeping
// copies, stops with a memory RunError (it took the process's memory);
// the same calls on small strings answer as before.
func TestLibraryStringsCharged(t *testing.T) {
	const limit = 16 << 20
	for _, tc := range []struct {
		name, src string
		want      int64 // the reply when the run does not stop
	}{
		{"format doubling", "local s = 'x' for i = 1, 40 do s = string.format('%s%s', s, s) end return #s", -1},
		{"cjson.encode doubling", "local s = 'x' for i = 1, 40 do s = cjson.encode({s, s}) end return #s", -1},
		{"cmsgpack.pack doubling", "local s = 'x' for i = 1, 40 do s = cmsgpack.pack(s, s) end return #s", -1},
		{"struct.pack doubling", "local s = 'x' for i = 1, 40 do s = struct.pack('c0c0', s, s) end return #s", -1},
		{"upper copies kept", "local s = string.rep('a', 1048576) local t = {} for i = 1, 40 do t[i] = s:upper() end return #t", -1},
		{"lower copies kept", "local s = string.rep('A', 1048576) local t = {} for i = 1, 40 do t[i] = s:lower() end return #t", -1},
		{"reverse copies kept", "local s = string.rep('a', 1048576) local t = {} for i = 1, 40 do t[i] = s:reverse() end return #t", -1},
		{"cjson.decode copies kept", "local s = cjson.encode({string.rep('a', 1048576)}) local t = {} for i = 1, 40 do t[i] = cjson.decode(s) end return #t", -1},
		// cmsgpack.unpack's strings share the message's bytes: charged,
		// then measured on the live heap, they do not stop the run
		{"cmsgpack.unpack shares its input", "local s = cmsgpack.pack(string.rep('a', 1048576)) local t = {} for i = 1, 40 do t[i] = cmsgpack.unpack(s) end return #t", 40},
		{"small strings", "local n = 0 for i = 1, 1000 do n = n + #string.format('%05d', i) + #cjson.encode({i}) + #cmsgpack.pack(i) + #struct.pack('i', i) + #('ab'):upper() end return n", 5000 + 4893 + 2618 + 4000 + 2000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := New(Options{MemoryLimit: limit, Timeout: time.Minute})
			r, err := evalT(t, e, tc.src, nil, nil)
			if tc.want < 0 {
				if err == nil || runErrCode(t, err) != CodeMemory {
					t.Fatalf("want a memory RunError, got %s %v", r, err)
				}
				return
			}
			if err != nil || r.Int != tc.want {
				t.Fatalf("want %d, got %s %v", tc.want, r, err)
			}
		})
	}
}
