package verify

import (
	"context"
	"testing"
)

// TestTableOrderPerTarget: the same script, the order each server's Lua
// gives (read from Redis 7.0.15 and Valkey 8.1.1, whose string hash is
// MurmurHash3).
func TestTableOrderPerTarget(t *testing.T) {
	cases := []struct{ target, src, want string }{
		{"redis-7.0", "local t = {x = 1, y = 2} local s = '' for k in pairs(t) do s = s .. k end return s", "yx"},
		{"valkey-8.1", "local t = {x = 1, y = 2} local s = '' for k in pairs(t) do s = s .. k end return s", "xy"},
		{"redis-7.0", "local t = {} for i = 1, 5 do t['k'..i] = i end local s = '' for k in pairs(t) do s = s .. k end return s", "k5k1k4k3k2"},
		{"valkey-8.1", "local t = {} for i = 1, 5 do t['k'..i] = i end local s = '' for k in pairs(t) do s = s .. k end return s", "k1k3k4k5k2"},
		// cjson.encode walks the same order; table.foreach too
		{"redis-7.0", "return cjson.encode({id = 'job-1', queue = 'default', attempts = 1})", `{"id":"job-1","attempts":1,"queue":"default"}`},
		{"redis-7.0", "local s = '' table.foreach({x = 1, y = 2}, function(k) s = s .. k end) return s", "yx"},
		// next continues from a key set to nil during the traversal
		{"redis-7.0", "local t = {a = 1, b = 2, c = 3} local n = 0 for k in pairs(t) do t[k] = nil n = n + 1 end return n .. tostring(next(t))", "3nil"},
	}
	for _, c := range cases {
		e := New(Options{Target: c.target})
		r, err := e.Eval(context.Background(), []byte(c.src), nil, nil)
		if err != nil {
			t.Fatalf("%s: %s: %v", c.target, c.src, err)
		}
		if r.Str != c.want {
			t.Errorf("%s: %s\n got %s\nwant %s", c.target, c.src, r, c.want)
		}
	}
}

// TestNextKeepsOrder: a traversal builds its table's order once, whatever
// the table's parts (the order was rebuilt at every step of a table with
// a hash part: 5 s for 5,000 keys), and still gives Lua 5.1's walk.
func TestNextKeepsOrder(t *testing.T) {
	cases := []struct {
		src    string
		want   int64
		builds int
	}{
		// array part, a recorded hole, a hash key
		{"local t = {x = 1} for i = 1, 3000 do t[i] = i end t[5] = nil local n = 0 for k, v in pairs(t) do n = n + v end return n", 4501496, 1},
		// hash keys only
		{"local t = {} for i = 1, 3000 do t['k'..i] = i end local n = 0 for k, v in pairs(t) do n = n + v end return n", 4501500, 1},
		// keys removed while walking: one order for the whole walk
		{"local t = {} for i = 1, 3000 do t['k'..i] = i end local n = 0 for k, v in pairs(t) do t[k] = nil n = n + v end return n + (next(t) == nil and 0 or 1)", 4501500, 2},
		// two traversals, two orders
		{"local t = {a = 1, b = 2} local n = 0 for k, v in pairs(t) do n = n + v end for k, v in pairs(t) do n = n + v end return n", 6, 2},
	}
	for _, c := range cases {
		e := New(Options{})
		r, err := e.Eval(context.Background(), []byte(c.src), nil, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.src, err)
		}
		if r.Int != c.want {
			t.Errorf("%s\n got %s, want %d", c.src, r, c.want)
		}
		if got := e.evalRun.iterBuilds; got != c.builds {
			t.Errorf("%s\n built the order %d times, want %d", c.src, got, c.builds)
		}
	}
}

// TestLongHistory: a table's history is recorded whole while the memory
// budget allows (it was cut at 65,536 stores): a table with a string
// field grown by 100,000 integer keys, then a hole punched in it, has the
// servers' border (read from Redis 7.0.15: 100000). Under a budget too
// small for the record, the border is the engine's guess, warned.
func TestLongHistory(t *testing.T) {
	src := "local t = {x = 1} for i = 1, 100000 do t[i] = i end t[5] = nil return #t"
	e := New(Options{})
	r, err := e.Eval(context.Background(), []byte(src), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Int != 100000 || len(e.Warnings()) != 0 {
		t.Errorf("got %s, warnings %q; want 100000 and none", r, e.Warnings())
	}
	small := New(Options{MemoryLimit: 1 << 20})
	r, err = small.Eval(context.Background(), []byte(src), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(small.Warnings()) == 0 {
		t.Errorf("a 1 MB budget recorded the whole history: got %s and no warning", r)
	}
}
