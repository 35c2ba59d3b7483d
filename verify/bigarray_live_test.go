package verify

import (
	"testing"

	"github.com/scriptctl/scriptctl/internal/testtier"
)

// bigArrayTail is the end of every big-array script: #t, table.getn(t)
// and how far ipairs goes, from the script's table t.
const bigArrayTail = `
local n = 0
for _ in ipairs(t) do n = n + 1 end
return {#t, table.getn(t), n}`

// bigArrayScripts build arrays past 2^22 elements, where gopher-lua's dense
// array ends (lua.MaxArrayIndex) and the engine's border comes from the
// Lua 5.1 table model.
var bigArrayScripts = []struct{ name, src string }{
	{"appends-holes-across-2^22", `
local t = {}
for i = 1, 4194310 do t[i] = i end
t[4194300] = nil
t[4194305] = nil
t[100] = nil`},
	{"5M-holes-then-removals-from-end", `
local t = {}
for i = 1, 5000000 do t[i] = true end
t[3000000] = nil
t[4500000] = nil
for i = 5000000, 4999000, -1 do t[i] = nil end`},
	{"table-insert-remove", `
local t = {}
for i = 1, 4194330 do table.insert(t, i) end
for _ = 1, 20 do table.remove(t) end
table.remove(t, 1)
t[4194200] = nil`},
	{"appends-after-holes", `
local t = {}
for i = 1, 4194300 do t[i] = i end
t[4194290] = nil
for _ = 1, 50 do t[#t + 1] = 0 end`},
	{"length-appends-past-2^22", `
local t = {}
for _ = 1, 4194304 + 3000 do t[#t + 1] = 1 end
t.x = 1
for _ = 1, 100 do t[#t + 1] = 2 end
t[4194400] = nil
t[#t + 1] = 3
t[#t + 1] = 4`},
	{"reverse-fill-across-2^22", `
local t = {}
for i = 1, 4194000 do t[i] = i end
for i = 4194320, 4194001, -1 do t[i] = i end
t[4194310] = nil`},
	{"constructor-then-grown", `
local t = {1, 2, 3, nil, 5}
for i = 6, 4194330 do t[i] = i end
t[4194329] = nil
t[4] = 4
t.x = 1`},
	{"unpack-slice", `
local big = {}
for i = 1, 4194330 do big[i] = i end
big[4194310] = nil
local t = {unpack(big, 4194290, 4194320)}
local u = {}
for i = 1, 4194300 do u[i] = i end
t[#t + 1] = select('#', unpack(u, 4194200, 4194310))
t[#t + 1] = #u`},
}

// TestBigArrayBorderLive compares #t, table.getn and ipairs of arrays
// longer than 2^22 elements with a server's.
func TestBigArrayBorderLive(t *testing.T) {
	testtier.Full(t, "arrays of 4-5 million elements, hundreds of MB per case")
	ctx, srv, e := liveEngine(t)
	for i, c := range bigArrayScripts {
		t.Run(c.name, func(t *testing.T) {
			evalBoth(t, ctx, srv, e, i, c.src+bigArrayTail)
		})
	}
}

// bigStringScripts build strings past 64 MB, the engine's former cap, by
// each way a script builds one, and grow keys past it by command.
var bigStringScripts = []struct {
	name, src string
	keys      []string
}{
	{"string.rep", `local s = string.rep('ab', 40000000) return {#s, s:sub(-3)}`, nil},
	{"concat-operator", `local s = string.rep('x', 40000000) s = s .. s .. 'y' return {#s, s:sub(-2)}`, nil},
	{"table.concat", `local t = {} for i = 1, 80 do t[i] = string.rep('x', 1000000) end
local s = table.concat(t, ',') return {#s, s:sub(-3)}`, nil},
	{"string.gsub", `local big = string.rep('y', 1000000) local r, n = string.rep('x.', 80):gsub('x', big) return {#r, n, r:sub(-3)}`, nil},
	{"load-reader", `local n = 0
local f = load(function()
  n = n + 1
  if n <= 80 then return '--' .. string.rep('x', 999997) .. '\n' end
  if n == 81 then return 'return 42' end
end)
return {n, f()}`, nil},
	{"setrange-append", `redis.call('SETRANGE', KEYS[1], 79999999, 'x') redis.call('APPEND', KEYS[1], 'yz')
return {redis.call('STRLEN', KEYS[1]), redis.call('GETRANGE', KEYS[1], -4, -1)}`, []string{"k"}},
	{"setbit-bitfield", `redis.call('SETBIT', KEYS[1], 639999999, 1)
return {redis.call('STRLEN', KEYS[1]), redis.call('BITCOUNT', KEYS[1]),
  redis.call('BITFIELD', KEYS[1], 'SET', 'u8', '#89999999', 255), redis.call('STRLEN', KEYS[1])}`, []string{"k"}},
	{"past-proto-max-bulk-len", `return {redis.pcall('SETRANGE', KEYS[1], 536870912, 'x'), redis.pcall('SETBIT', KEYS[1], 4294967296, 1),
  redis.pcall('BITFIELD', KEYS[1], 'SET', 'u8', '#536870912', 1), redis.call('EXISTS', KEYS[1])}`, []string{"k"}},
}

// TestBigStringLive compares strings past 64 MB, built by Lua and by
// commands, with a server's: only the memory budget (256 MB by default)
// bounds them offline.
func TestBigStringLive(t *testing.T) {
	testtier.Full(t, "strings of 80 MB on both sides")
	ctx, srv, e := liveEngine(t)
	for i, c := range bigStringScripts {
		t.Run(c.name, func(t *testing.T) {
			evalBothKeys(t, ctx, srv, e, i, c.src, c.keys)
		})
	}
}
