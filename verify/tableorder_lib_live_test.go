package verify

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// randomLibTableScript writes a script whose table goes through the
// library's stores as well as the language's: table.insert and
// table.remove at a position (each shifted element one lua_rawseti),
// rawset, appends by #t, removals while pairs walks, a copy through
// pairs; keys of every kind (long strings, floats, integers past 2^31,
// booleans); the table from a constructor, cjson or cmsgpack. It returns
// #t, the pairs order, cjson.encode (or its error) and cmsgpack.pack.
func randomLibTableScript(r *rand.Rand) string {
	var b strings.Builder
	key := func() string {
		switch r.IntN(10) {
		case 0, 1:
			return fmt.Sprintf("[%d]", 1+r.IntN(40))
		case 2:
			return fmt.Sprintf("[%d]", []int{-1, 0, 2147483648, 4294967296, 9007199254740992, -7}[r.IntN(6)])
		case 3:
			return fmt.Sprintf("[%s]", []string{"0.5", "1e-3", "3.25", "-2.5", "1e300", "0/0 == 0/0 and 1 or 2.5"}[r.IntN(6)])
		case 4:
			return fmt.Sprintf("[%q]", strings.Repeat("abcdefghij", 3+r.IntN(6))+fmt.Sprint(r.IntN(10)))
		case 5:
			return []string{"[true]", "[false]"}[r.IntN(2)]
		default:
			return fmt.Sprintf(".k%d", r.IntN(40))
		}
	}
	b.WriteString("local t = ")
	switch r.IntN(4) {
	case 0:
		b.WriteString("{}\n")
	case 1:
		b.WriteString("{")
		for i := 0; i < r.IntN(10); i++ {
			if r.IntN(2) == 0 {
				fmt.Fprintf(&b, "k%d = %d, ", r.IntN(40), i)
			} else {
				fmt.Fprintf(&b, "'v%d', ", i)
			}
		}
		b.WriteString("}\n")
	case 2:
		b.WriteString(`cjson.decode('{"id":"job-1","queue":"default","attempts":0,"data":{"a":1},"tags":["x","y"],"ts":1700000000.25}')` + "\n")
	default:
		b.WriteString(`cmsgpack.unpack(cmsgpack.pack({a=1,b=2,c={1,2,3},[1]=9,[2]=8}))` + "\n")
	}
	b.WriteString("local none\n")
	for i, n := 0, r.IntN(50); i < n; i++ {
		lhs := "t" + key()
		switch r.IntN(20) {
		case 0, 1, 2:
			fmt.Fprintf(&b, "%s = nil\n", lhs)
		case 3:
			fmt.Fprintf(&b, "table.insert(t, %d)\n", i)
		case 4:
			fmt.Fprintf(&b, "if #t >= 1 then table.insert(t, %d, 'ins%d') end\n", 1+r.IntN(3), i)
		case 5:
			b.WriteString("table.remove(t)\n")
		case 6:
			fmt.Fprintf(&b, "if #t >= 2 then table.remove(t, %d) end\n", 1+r.IntN(2))
		case 7:
			fmt.Fprintf(&b, "rawset(t, '%s', %d)\n", fmt.Sprintf("r%d", r.IntN(20)), i)
		case 8:
			fmt.Fprintf(&b, "for j = 1, %d do t[#t + 1] = j end\n", 1+r.IntN(20))
		case 9:
			fmt.Fprintf(&b, "for k, v in pairs(t) do if type(v) == 'number' and v %% %d == 0 then t[k] = nil end end\n", 2+r.IntN(3))
		case 10:
			fmt.Fprintf(&b, "do local c = {} for k, v in pairs(t) do c[k] = v end t = c end\n")
		case 11:
			fmt.Fprintf(&b, "for j = 1, %d do t['s' .. j .. '_%d'] = j end\n", 1+r.IntN(30), i)
		case 12:
			fmt.Fprintf(&b, "%s = none\n", lhs)
		default:
			fmt.Fprintf(&b, "%s = %d\n", lhs, i)
		}
	}
	b.WriteString(`local out = {#t}
for k, v in pairs(t) do out[#out + 1] = type(k) .. ':' .. tostring(k) .. '=' .. (type(v) == 'table' and 'table' or tostring(v)) end
local ok, enc = pcall(cjson.encode, t)
out[#out + 1] = tostring(ok) .. ' ' .. (ok and enc or tostring(enc))
out[#out + 1] = (cmsgpack.pack(t):gsub('.', function(c) return string.format('%02x', c:byte()) end))
return out`)
	return b.String()
}

// TestTableLibOrderLive runs random histories of randomLibTableScript
// through the engine and a real server: #t, the pairs order, cjson and
// cmsgpack must agree, and no order may be guessed.
func TestTableLibOrderLive(t *testing.T) {
	ctx, srv, e := liveEngine(t)
	r := rand.New(rand.NewPCG(1, 7))
	for i := 0; i < 200; i++ {
		evalBoth(t, ctx, srv, e, i, randomLibTableScript(r))
	}
}
