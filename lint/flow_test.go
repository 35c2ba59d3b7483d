package lint

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestFlowPrecision runs the reproductions of the flow cases: literals
// through helpers and `a and 'X' or 'Y'`, helpers never called, guards
// that also read replies, nil narrowing, and a write followed by an
// operation that raises on a bad argument. want lists "line code" of every
// finding, in order.
func TestFlowPrecision(t *testing.T) {
	for _, tc := range []struct {
		name string
		src  string
		want []string
	}{
		{"literal into a parameter", `local function run(cmd, k) return redis.call(cmd, k) end
return run('GET', KEYS[1])
`, nil},
		{"cond and 'A' or 'B'", `local cmd = ARGV[1] == 'lifo' and 'RPUSH' or 'LPUSH'
return redis.call(cmd, KEYS[1], ARGV[2])
`, nil},
		{"option table through a helper", `local function add(opts, key, v)
  return redis.call(opts.lifo and 'RPUSH' or 'LPUSH', key, v)
end
return add({lifo = ARGV[2] == '1'}, KEYS[1], ARGV[1])
`, nil},
		{"helper never called", `local function raw(cmd, k) return redis.call(cmd, 'tmp:' .. k) end
local function fail() return redis.error_reply('bad ' .. ARGV[1]) end
local function pick() redis.call('SET', KEYS[2], math.random(10)) end
return redis.call('GET', KEYS[1])
`, nil},
		{"helper called with a computed name", `local function raw(cmd, k) return redis.call(cmd, k) end
raw('GET', KEYS[1])
return raw(ARGV[1], KEYS[1])
`, []string{"1 dynamic-command"}},
		{"a helper that escapes keeps its own findings", `local function raw(cmd, k) return redis.call(cmd, k) end
local t = {f = raw}
return t.f('GET', KEYS[1])
`, []string{"1 dynamic-command"}},
		{"table of literal names", `local cmds = {'SADD', 'SREM'}
local i = ARGV[2] == 'rm' and 2 or 1
return redis.call(cmds[i], KEYS[1], ARGV[1])
`, nil},
		{"guard reading a reply too", `local ttl = tonumber(ARGV[1])
if not ttl then return redis.error_reply('ERR ttl') end
local ret = redis.call('SET', KEYS[1], ARGV[2], 'NX')
if ret and ttl > 0 then
  redis.call('EXPIRE', KEYS[1], ttl)
end
return 1
`, nil},
		{"guard on a computed value", `local window = tonumber(ARGV[1]) or 1000
local reset_after = window - redis.call('PTTL', KEYS[1])
if reset_after > 0 then
  redis.call('PEXPIRE', KEYS[1], reset_after)
end
return reset_after
`, nil},
		{"the else branch of a guard is not checked", `local ttl = tonumber(ARGV[1]) or 60
if ttl > 0 and redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
return redis.call('EXPIRE', KEYS[1], ttl)
`, []string{"3 unvalidated-ttl"}},
		{"equality with a number is a guard", `local ttl = tonumber(ARGV[1])
if ttl == 60 and redis.call('EXISTS', KEYS[1]) == 1 then
  redis.call('EXPIRE', KEYS[1], ttl)
end
return 1
`, nil},
		{"inequality that failed is a guard", `local ttl = ARGV[1]
if ttl ~= '60' or redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
return redis.call('EXPIRE', KEYS[1], ttl)
`, nil},
		{"equality is no guard on the else branch", `local ttl = ARGV[1]
if ttl == '0' or redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
return redis.call('EXPIRE', KEYS[1], ttl)
`, []string{"3 unvalidated-ttl"}},
		{"equality with a word is no number", `if ARGV[1] == 'none' and redis.call('EXISTS', KEYS[1]) == 1 then
  redis.call('SET', KEYS[1], 'v', 'EX', ARGV[1])
end
return 1
`, []string{"2 unvalidated-ttl"}},
		{"equality of two arguments is no guard", `local ttl = ARGV[1]
if ttl == ARGV[2] and redis.call('EXISTS', KEYS[1]) == 1 then
  redis.call('EXPIRE', KEYS[1], ttl)
end
return 1
`, []string{"3 unvalidated-ttl"}},
		{"equality with a literal makes the literal", `local cmd = ARGV[2]
if cmd == 'RPUSH' or cmd == 'LPUSH' then return 0 end
if cmd == 'LPUSH' then redis.call(cmd, KEYS[1], ARGV[1]) end
return 1
`, nil},
		{"a key compared with a literal stays a key", `local k = KEYS[1]
if k == 'x' then redis.call('INCR', KEYS[2]) end
local function f(p) if p == 'y' then redis.call('INCR', KEYS[2]) end return redis.call('GET', p) end
local t = {f = f}
redis.call('EXPIRE', k, 10)
return redis.call('GET', k) .. t.f(KEYS[2])
`, nil},
		{"table field narrowing", `local opts = {parent = ARGV[4] ~= '' and KEYS[3] or nil}
if opts.parent then redis.call('SADD', opts.parent, ARGV[3]) end
return redis.call('SADD', opts.parent, ARGV[3])
`, []string{"3 dynamic-key"}},
		{"nil narrowing", `local parentKey
if ARGV[1] ~= '' then parentKey = KEYS[2] end
if parentKey then redis.call('SADD', parentKey, ARGV[1]) end
local child = nil
if #KEYS > 2 then child = KEYS[3] end
if type(child) == 'string' then redis.call('DEL', child) end
if child == nil then return 0 end
return redis.call('EXISTS', child)
`, nil},
		{"no narrowing without a test", `local child = nil
if #KEYS > 2 then child = KEYS[3] end
return redis.call('EXISTS', child)
`, []string{"3 dynamic-key"}},
		{"lock: SETNX then a comparison that raises", `local ttl = tonumber(ARGV[2])
local ok = redis.call('SETNX', KEYS[1], ARGV[1])
if ok == 1 and ttl > 0 then
  redis.call('PEXPIRE', KEYS[1], ttl)
end
return ok
`, []string{"2 write-before-validation"}},
		{"counter: INCRBY then arithmetic", `local n = redis.call('INCRBY', KEYS[1], 1)
local left = ARGV[1] - n
if left > 0 then return left end
return 0
`, []string{"1 write-before-validation"}},
		{"a redis.call Redis refuses after a write", `redis.call('SET', KEYS[1], 'v')
return redis.call('INCRBY', KEYS[2], ARGV[1])
`, []string{"1 write-before-validation"}},
		{"converted and checked first: no error after the write", `local ttl = tonumber(ARGV[1])
if not ttl or ttl <= 0 then return redis.error_reply('ERR ttl') end
local ok = redis.call('SETNX', KEYS[1], 'x')
if ok == 1 and ttl > 0 then redis.call('EXPIRE', KEYS[1], ttl) end
return ok
`, nil},
		{"tonumber with a default cannot raise", `redis.call('INCR', KEYS[1])
local n = (tonumber(ARGV[1]) or 0) + 1
return n
`, nil},
		{"two strings compare without error", `local cur = redis.call('GET', KEYS[1])
redis.call('SET', KEYS[1], ARGV[2])
if cur and cur > ARGV[1] then return 1 end
return 0
`, nil},
		{"a string compared with a number raises", `redis.call('SET', KEYS[1], 'x')
if ARGV[1] > 10 then return 1 end
return 0
`, []string{"1 write-before-validation"}},
		{"one finding per cause, every path listed", `local function put(k, v, ttl)
  redis.call('SET', k, v, 'PX', ttl)
end
put(KEYS[1], ARGV[1], ARGV[2])
put(KEYS[2], ARGV[1], ARGV[2])
put(KEYS[3], ARGV[1], ARGV[2])
return 1
`, []string{"2 unvalidated-ttl"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantLines(t, Source("s.lua", []byte(tc.src), nil), tc.want)
		})
	}
}

// TestFindingOncePerCause: a cause inside a helper reached from three call
// sites is one finding listing the three paths.
func TestFindingOncePerCause(t *testing.T) {
	src := `local function put(k, v, ttl)
  redis.call('SET', k, v, 'PX', ttl)
end
local function twice(k) put(k, 'a', ARGV[2]) put(k, 'b', ARGV[2]) end
put(KEYS[1], ARGV[1], ARGV[2])
twice(KEYS[2])
return 1
`
	ds := Source("s.lua", []byte(src), nil)
	if len(ds) != 1 {
		t.Fatalf("got %d findings, want 1:\n%s", len(ds), lines(ds))
	}
	var got []string
	for _, r := range ds[0].Related {
		got = append(got, r.Message)
	}
	want := []string{"reached from 5:1", "reached from 6:1, then 4:25", "reached from 6:1, then 4:46"}
	if !slices.Equal(got, want) {
		t.Errorf("related %q, want %q", got, want)
	}
}

// TestOncePerPositionAndCode: a helper's key reached once as LPUSH and
// once as LPUSH or RPUSH is one finding whose message names both commands,
// with both paths.
func TestOncePerPositionAndCode(t *testing.T) {
	src := `local function push(cmd, k, v)
  return redis.call(cmd, 'q:' .. k, v)
end
push('LPUSH', ARGV[1], ARGV[2])
push(ARGV[3] == '1' and 'RPUSH' or 'LPUSH', ARGV[1], ARGV[2])
return 1
`
	ds := Source("s.lua", []byte(src), nil)
	if len(ds) != 1 {
		t.Fatalf("got %d findings, want 1:\n%s", len(ds), lines(ds))
	}
	if !strings.Contains(ds[0].Message, "key argument 1 of LPUSH/RPUSH ") {
		t.Errorf("message %q does not name LPUSH/RPUSH", ds[0].Message)
	}
	if len(ds[0].Related) != 2 {
		t.Errorf("related %v, want the paths from 4:1 and 5:1", ds[0].Related)
	}
}

func TestMergeMessages(t *testing.T) {
	for _, tc := range []struct {
		in   []string
		want string
	}{
		{[]string{"key argument 1 of LPUSH comes from ARGV[1], not KEYS[n]", "key argument 1 of LPUSH/RPUSH comes from ARGV[1], not KEYS[n]"},
			"key argument 1 of LPUSH/RPUSH comes from ARGV[1], not KEYS[n]"},
		{[]string{"key argument 1 of GET comes from ARGV[2], not KEYS[n]", "key argument 1 of GET comes from ARGV[1], not KEYS[n]"},
			"key argument 1 of GET comes from ARGV[1] or ARGV[2], not KEYS[n]"},
		{[]string{"a  b", "a x b"}, "a  or x b"},
		{[]string{"SET runs before x", "SET runs before y at line 3"},
			"SET runs before x (on another path: SET runs before y at line 3)"},
	} {
		if got := mergeMessages(tc.in); got != tc.want {
			t.Errorf("mergeMessages(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestIgnoreAtHelperOrCaller: a dynamic-key reported at the caller's
// expression is silenced by an ignore comment there, or by one left at the
// helper's key argument.
func TestIgnoreAtHelperOrCaller(t *testing.T) {
	for _, tc := range []struct {
		name string
		src  string
		want int
	}{
		{"no comment", `local function get(k)
  return redis.call('GET', k)
end
return get('user:' .. ARGV[1])
`, 1},
		{"in the helper", `local function get(k)
  -- scriptctl:ignore dynamic-key the prefix is one slot by design
  return redis.call('GET', k)
end
return get('user:' .. ARGV[1])
`, 0},
		{"at the caller", `local function get(k)
  return redis.call('GET', k)
end
-- scriptctl:ignore dynamic-key the prefix is one slot by design
return get('user:' .. ARGV[1])
`, 0},
		{"another code in the helper", `local function get(k)
  -- scriptctl:ignore unbounded-command not this one
  return redis.call('GET', k)
end
return get('user:' .. ARGV[1])
`, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ds := Source("s.lua", []byte(tc.src), nil)
			if len(ds) != tc.want {
				t.Errorf("got %d findings, want %d:\n%s", len(ds), tc.want, lines(ds))
			}
			for _, d := range ds {
				if d.Code != "dynamic-key" {
					t.Errorf("unexpected %s", d)
				}
			}
		})
	}
}

// TestNeverCalledHelper: a local function never called reports nothing of
// its own (globals, KEYS/ARGV indexes beyond the manifest, unordered
// replies), except the unused-style rules: a key or argument read only in
// it is unused, and its Lua 5.2 syntax still stops the script loading.
func TestNeverCalledHelper(t *testing.T) {
	decl := &Decl{Script: "s", Keys: []string{"a", "b"}, Args: []string{"x"}}
	for _, tc := range []struct {
		name string
		src  string
		want []string
	}{
		{"globals and indexes", `local function old(x)
  counter = (counter or 0) + 1
  local v = redis.call('GET', KEYS[3]) .. ARGV[4] .. string.lenn(x)
  return cjson.encode(redis.call('SMEMBERS', KEYS[2]))
end
return redis.call('SET', KEYS[1], ARGV[1])
`, []string{"1 unused-key"}},
		{"calls in a dead helper", `local function dead(x)
  redis.call('SET', KEYS[1], 'v')
  redis.call('FLUSHALL')
  redis.call(x, 'k:' .. ARGV[1], math.random(), tonumber(ARGV[1]) > 0)
  return redis.error_reply('bad ' .. ARGV[1]), redis.call('SMEMBERS', KEYS[2])
end
return redis.call('GET', KEYS[1]) .. redis.call('GET', KEYS[2]) .. ARGV[1]
`, nil},
		{"called only from a dead helper, or only by itself", `local function a(k) g1 = 1 return redis.call('GET', 'x' .. k) .. KEYS[4] end
local function b() return a(ARGV[1]) end
local function r(n) if n > 0 then return r(n - 1) end g2 = ARGV[7] return 1 end
return redis.call('SET', KEYS[1], ARGV[1]) .. redis.call('GET', KEYS[2])
`, nil},
		{"a helper called from a live one is live", `local function a(k) g1 = 1 return redis.call('GET', k) end
local function b() return a(KEYS[2]) end
return redis.call('SET', KEYS[1], ARGV[1]) .. b()
`, []string{"1 global-write"}},
		{"a helper called from a callback is live", `local function a(k) g1 = 1 return redis.call('GET', 'n:' .. k) end
local list = redis.call('LRANGE', KEYS[2], 0, 9)
table.sort(list, function(x, y) return a(x) < a(y) end)
return redis.call('SET', KEYS[1], ARGV[1])
`, []string{"1 global-write", "1 dynamic-key"}},
		{"nested in a called helper", `local function run(k)
  local function never() return KEYS[5] .. ARGV[1] end
  return redis.call('GET', k)
end
return run(KEYS[1]) .. redis.call('GET', KEYS[2])
`, []string{"1 unused-arg"}},
		{"dynamic index in a dead helper", `local function all() for i = 1, #KEYS do redis.call('DEL', KEYS[i]) end end
return redis.call('SET', KEYS[1], ARGV[1])
`, []string{"1 unused-key"}},
		{"Lua 5.2 syntax still counts", `local function old()
  goto done
  ::done::
end
return redis.call('SET', KEYS[1], ARGV[1]) .. redis.call('GET', KEYS[2])
`, []string{"2 syntax", "3 syntax"}},
		{"a called helper keeps its findings", `local function old()
  counter = 1
  return KEYS[3]
end
old()
return redis.call('SET', KEYS[1], ARGV[1]) .. redis.call('GET', KEYS[2])
`, []string{"2 global-write", "3 keys-out-of-range"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantLines(t, Source("s.lua", []byte(tc.src), decl), tc.want)
		})
	}
}

// wantLines checks that ds are, in order, the findings "line code" of want.
func wantLines(t *testing.T, ds []Diagnostic, want []string) {
	t.Helper()
	var got []string
	for _, d := range ds {
		got = append(got, fmt.Sprintf("%d %s", d.Pos.Line, d.Code))
	}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q\n%s", got, want, lines(ds))
	}
}
