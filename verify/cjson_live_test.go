package verify

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// randJSON writes a random JSON document of the shapes job payloads take:
// objects of up to 12 members (names that look like numbers, escapes, long
// names, repeated names), arrays, numbers of every class, escapes and
// surrogate pairs.
func randJSON(r *rand.Rand, depth int) string {
	switch k := r.IntN(10); {
	case k < 2 && depth < 4:
		n := r.IntN(8)
		parts := make([]string, n)
		for i := range parts {
			parts[i] = randJSON(r, depth+1)
		}
		return "[" + strings.Join(parts, ",") + "]"
	case k < 5 && depth < 4:
		n := r.IntN(12)
		parts := make([]string, n)
		for i := range parts {
			key := []string{"id", "queue", "attempts", "data", "name", "opts", "delay", "timestamp", "priority", "1", "2", "10", "-1", "0", "1.5", "a b", "\\u00e9t\\u00e9", "k\\n", "x" + fmt.Sprint(r.IntN(40)), strings.Repeat("long", 10) + fmt.Sprint(r.IntN(5))}[r.IntN(20)]
			parts[i] = fmt.Sprintf("%q:%s", key, randJSON(r, depth+1))
			parts[i] = strings.ReplaceAll(parts[i], `\\u`, `\u`)
			parts[i] = strings.ReplaceAll(parts[i], `\\n`, `\n`)
		}
		return "{" + strings.Join(parts, ",") + "}"
	default:
		return []string{"0", "-0", "1", "-1", "0.1", "1e15", "1e16", "123456789012345678", "1.5e-7", "3.14159265358979", "1E+2", "-0.0", "true", "false", "null", `""`, `"s"`, `"\u0000x"`, `"\ud83d\ude00"`, `"\/"`, `"tab\t"`, "9007199254740993", "1e308", "2.5", "100", "1.0"}[r.IntN(26)]
	}
}

// TestCJSONRoundTripLive decodes random documents, changes them as queue
// scripts do (attempts bumped, a member removed), and compares the pairs
// order, cjson.encode, cmsgpack.pack and a cmsgpack round trip with a
// real server's.
func TestCJSONRoundTripLive(t *testing.T) {
	ctx, srv, e := liveEngine(t)
	r := rand.New(rand.NewPCG(1, 3))
	for i := 0; i < 150; i++ {
		doc := randJSON(r, 0)
		src := `local ok, t = pcall(cjson.decode, ARGV[1])
if not ok then return 'decode error: ' .. tostring(t) end
local out = {}
if type(t) == 'table' then
  t.attempts = (tonumber(t.attempts) or 0) + 1
  t.extra = nil
  for k, v in pairs(t) do out[#out + 1] = type(k) .. ':' .. tostring(k) .. '=' .. type(v) end
end
local ok2, enc = pcall(cjson.encode, t)
out[#out + 1] = tostring(ok2) .. ' ' .. tostring(enc)
local mp = cmsgpack.pack(t)
out[#out + 1] = (mp:gsub('.', function(c) return string.format('%02x', c:byte()) end))
local ok3, back = pcall(cjson.encode, cmsgpack.unpack(mp))
out[#out + 1] = tostring(ok3) .. ' ' .. tostring(back)
return out`
		evalBoth(t, ctx, srv, e, i, src, doc)
	}
}
