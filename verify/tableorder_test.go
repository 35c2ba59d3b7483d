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
