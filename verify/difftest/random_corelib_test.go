package difftest

import (
	"context"
	"flag"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/scriptctl/scriptctl/verify"
)

var (
	corelibCalls = flag.Int("difftest.corelibn", 150, "calls per batch in TestRandomCorelib")
	corelibSeeds = flag.Int("difftest.corelibseeds", 4, "batches (seeds 1..n) in TestRandomCorelib")
)

// corelibPrelude is the Lua both sides run before the generated calls: C
// calls f with pcall and prints its status and every result (strings with
// their bytes escaped, numbers with %.17g, tables by their length).
const corelibPrelude = `local out = {}
local function S(v)
  local t = type(v)
  if t == 'string' then
    return 's"' .. v:gsub('[^%w%p ]', function(c) return '\\' .. c:byte() end) .. '"'
  elseif t == 'number' then
    return 'n' .. string.format('%.17g', v)
  elseif t == 'table' then
    return 't#' .. #v
  end
  return t .. ':' .. tostring(v)
end
local function C(f, ...)
  local r = {n = 0}
  local function pack(...) r.n = select('#', ...) for i = 1, r.n do r[i] = (select(i, ...)) end end
  pack(pcall(f, ...))
  local parts = {}
  for i = 1, r.n do parts[i] = S(r[i]) end
  out[#out + 1] = table.concat(parts, ' ')
end
local function G(f, s, p, ...)
  local acc = {}
  local ok, err = pcall(function(...) for a, b in f(s, p) do acc[#acc + 1] = S(a) .. ',' .. S(b) end end)
  out[#out + 1] = tostring(ok) .. ' ' .. (ok and table.concat(acc, ';') or S(err))
end
`

// coreGen writes random calls of Lua's core library as the servers embed
// it: string.format, tonumber, tostring, patterns, string.rep/sub/byte/char,
// table.concat/insert/remove, select, unpack, bit, struct, cjson and
// cmsgpack.
type coreGen struct{ r *rand.Rand }

func (g coreGen) pick(xs ...string) string { return xs[g.r.Intn(len(xs))] }

var coreNumbers = []string{
	"0", "-0", "1", "-1", "2", "3.5", "-3.5", "0.1", "1e15", "1e100", "1e300", "-1e300", "2^31", "2^32", "2^53", "2^63", "2^64",
	"-2^31", "-2^63", "255", "256", "65535", "127", "128", "-128", "-129", "-32", "-33", "0.5", "1/0", "-1/0", "0/0",
	"123456789", "4294967295", "1.5", "99.995", "1e-300", "5e-324", "7", "-7", "10", "36", "37", "65", "300",
}

var coreStrings = []string{
	"''", "'a'", "'abc'", "'hello world'", "'\\0'", "'a\\0b'", "'\\1\\2\\31'", "'\\127\\128\\255'", "'\"q\"'", "'back\\\\slash'",
	"'line\\nbreak\\r'", "' 12 '", "'0x1F'", "'1e'", "'0x'", "'  -7.5e3'", "'inf'", "'-nan'", "'nan'", "'-inf'", "'1e500'",
	"'z'", "'ZZ'", "'-ff'", "'777'", "'10'", "'  0x10  '", "'1.5.2'", "'x y z'", "'(a)(b)'", "'[x]'", "'%d'", "'aaa'",
	"'THE (quick) fox'", "'key=val; k2=v2'", "'caf\\195\\169'",
}

func (g coreGen) num() string { return g.pick(coreNumbers...) }
func (g coreGen) str() string { return g.pick(coreStrings...) }

func (g coreGen) any() string {
	switch g.r.Intn(8) {
	case 0, 1, 2:
		return g.num()
	case 3, 4, 5:
		return g.str()
	case 6:
		return g.pick("nil", "true", "false")
	}
	return g.pick("{}", "{1, 2}", "{'a', 'b', 3}", "{x = 1}")
}

// scalar is any but a table (whose tostring is an address).
func (g coreGen) scalar() string {
	if g.r.Intn(2) == 0 {
		return g.num()
	}
	return g.str()
}

func (g coreGen) smallInt() string {
	return g.pick("0", "1", "2", "3", "-1", "-2", "-3", "5", "10", "100", "-100", "2^31", "-2^31", "2^53", "1e300", "-1e300", "1.5", "-0.5", "'2'", "'x'", "nil")
}

func (g coreGen) formatSpec() string {
	var b strings.Builder
	b.WriteByte('%')
	for i := g.r.Intn(3); i > 0; i-- {
		b.WriteByte("-+ #0"[g.r.Intn(5)])
	}
	if g.r.Intn(2) == 0 {
		fmt.Fprintf(&b, "%d", g.r.Intn(30))
	}
	if g.r.Intn(2) == 0 {
		fmt.Fprintf(&b, ".%d", g.r.Intn(25))
	}
	b.WriteByte("diouxXeEfgGcqs%%yDz"[g.r.Intn(19)])
	return b.String()
}

func (g coreGen) pattern() string {
	atoms := []string{"a", "%a", "%d+", "%s*", "%w-", ".", ".-", "(%a+)", "()", "%b()", "%f[%w]", "[a-c]", "[^%s]+", "^", "$", "%", "[", "(", ")", "%1", "(a)%1", "%z", "[%]]", "x?", "%x", "%u", "%l+", "%p", "[%a-]", "%B", "(()", "%g"}
	var b strings.Builder
	for i := 1 + g.r.Intn(3); i > 0; i-- {
		b.WriteString(atoms[g.r.Intn(len(atoms))])
	}
	return "'" + strings.ReplaceAll(b.String(), "\\", "\\\\") + "'"
}

func (g coreGen) call() string {
	switch g.r.Intn(26) {
	case 20:
		return fmt.Sprintf("C(string.format, %s, %s)", g.pick("'%100d'", "'%99d'", "'%.100f'", "'%.99f'", "'%'", "'%5.2s'", "'%-5.2s|'", "'%.0s'", "'%q'", "'%c%c'", "'%5c'", "'%-5c|'", "'%#x'", "'%#o'", "'%+.3e'", "'% g'", "'%a'", "'%i'", "'%5%'", "'%0-5d'", "'%123'"), g.any())
	case 21:
		return fmt.Sprintf("C(string.format, '%%q', %s)", g.pick(`'\0\1\2\r\n\t\\\"'`, `'\255\0z'`, `'a\0'`, "1/3", "1e300", "-0", "0/0"))
	case 22:
		return fmt.Sprintf("C(tonumber, %s, %s)", g.pick("'  z  '", "'Z'", "'-z'", "'+z'", "'1 1'", "' '", "''", "'\\t10\\n'", "'10\\0'", "'-'", "'0b1'", "'zzzzzzzzzzzzzz'", "'1111111111111111111111111111111111111111111111111111111111111111111'", "'8000000000000000'", "'-8000000000000000'", "'ffffffffffffffff'", "'10000000000000000'"), g.pick("2", "16", "36", "10", "35"))
	case 23:
		return fmt.Sprintf("C(tonumber, %s)", g.pick("'0x'", "'0x1p4'", "'1e+'", "'.'", "'.5'", "'5.'", "'0X1F'", "'1e308'", "'1e309'", "'-1e309'", "'infinity'", "'INF'", "'NaN'", "'-0'", "'  1e2  '", "'1e2x'", "'0x-1'", "'- 1'", "'1_000'", "'0x1.8'", "'\\f1\\v'", "'00012'", "'+5'", "'+-5'", "'2^3'"))
	case 24:
		return fmt.Sprintf("C(string.%s, %s, %s, %s, %s)", g.pick("find", "match"), g.str(), g.pattern(), g.pick("1", "-2", "100", "-100", "0"), g.pick("true", "nil", "1"))
	case 25:
		return fmt.Sprintf("C(function(...) cjson.%s return cjson.encode(...) end, %s)", g.pick("encode_number_precision(3)", "encode_number_precision(14)", "encode_sparse_array(true)", "encode_sparse_array(false, 2, 3)", "encode_keep_buffer(false)", "encode_max_depth(2)", "encode_invalid_numbers(true)", "encode_invalid_numbers('null')", "encode_number_precision(0)"), g.pick("{1/3, 2/3}", "{[1] = 1, [5] = 5}", "{{{1}}}", "0/0", "1/0", "{a = 0.1}", "3.14159265358979", "{[1] = 1, [4] = 4, [3] = 3}"))
	case 0, 1:
		n := 1 + g.r.Intn(3)
		specs, args := make([]string, n), make([]string, n)
		for i := range specs {
			specs[i] = g.formatSpec()
			args[i] = g.any()
		}
		return fmt.Sprintf("C(string.format, '[%s]', %s)", strings.Join(specs, "]["), strings.Join(args, ", "))
	case 2:
		if g.r.Intn(2) == 0 {
			return fmt.Sprintf("C(tonumber, %s)", g.any())
		}
		return fmt.Sprintf("C(tonumber, %s, %s)", g.pick(append(coreStrings, coreNumbers[:10]...)...), g.pick("2", "8", "10", "16", "36", "37", "1", "0", "'16'", "17.5", "nil"))
	case 3:
		// (no table.insert at a huge position: Lua 5.1 moves up to 2^31
		// elements one by one there.)
		return fmt.Sprintf("C(tostring, %s)", g.scalar())
	case 4:
		return fmt.Sprintf("C(string.%s, %s, %s, %s)", g.pick("find", "match"), g.str(), g.pattern(), g.smallInt())
	case 5:
		return fmt.Sprintf("C(string.find, %s, %s, %s, %s)", g.str(), g.pattern(), g.smallInt(), g.pick("true", "false", "nil"))
	case 6:
		repl := g.pick("'<%0>'", "'%1'", "'%2'", "'%%'", "'%x'", "'%'", "{a = 'A', b = true, c = false}", "function(x) return x:upper() end", "function() return nil end", "function() return {} end", "''", "7")
		return fmt.Sprintf("C(string.gsub, %s, %s, %s, %s)", g.str(), g.pattern(), repl, g.pick("nil", "1", "0", "-1", "2.5", "'x'"))
	case 7:
		return fmt.Sprintf("G(string.gmatch, %s, %s)", g.str(), g.pattern())
	case 8:
		return fmt.Sprintf("C(string.rep, %s, %s)", g.str(), g.pick("0", "1", "3", "-1", "2.7", "'2'", "nil", "-2^31"))
	case 9:
		return fmt.Sprintf("C(string.%s, %s, %s, %s)", g.pick("sub", "byte"), g.str(), g.smallInt(), g.smallInt())
	case 10:
		return fmt.Sprintf("C(string.char, %s, %s)", g.pick("65", "0", "255", "256", "-1", "97.9", "'66'", "'x'", "nil"), g.pick("66", "1e300", "-0.5", "true"))
	case 11:
		return fmt.Sprintf("C(table.concat, %s, %s, %s, %s)", g.pick("{1, 2, 3}", "{'a', 'b'}", "{1, {}, 3}", "{}", "{1.5, 2^53, 0.1}", "{'x', nil, 'z'}", "'str'"), g.pick("nil", "', '", "''", "1", "{}"), g.smallInt(), g.smallInt())
	case 12:
		if g.r.Intn(2) == 0 {
			return fmt.Sprintf("C(function(...) local t = {1, 2, 3} table.insert(t, ...) return #t, t[1], t[2], t[3], t[4] end, %s, %s)", g.pick("0", "1", "2", "3", "4", "5", "-1", "1.5", "'2'", "'x'", "nil"), g.any())
		}
		return fmt.Sprintf("C(function(...) local t = {1, 2, 3} local v = table.remove(t, ...) return v, #t end, %s)", g.smallInt())
	case 13:
		return fmt.Sprintf("C(select, %s, 'a', 'b', 'c')", g.smallInt())
	case 14:
		return fmt.Sprintf("C(unpack, {1, 2, 3}, %s, %s)", g.pick("1", "0", "-1", "2", "3", "4", "nil", "'2'", "1.5"), g.pick("1", "0", "3", "5", "nil", "-1", "2.5"))
	case 15:
		f := g.pick("tobit", "tohex", "bnot", "band", "bor", "bxor", "lshift", "rshift", "arshift", "rol", "ror", "bswap")
		return fmt.Sprintf("C(bit.%s, %s, %s)", f, g.pick(append(coreNumbers, "0xffffffff", "-0xffffffff", "0x12345678", "'12'", "'x'", "nil", "1.5", "2.5", "-2.5")...), g.pick("0", "1", "4", "8", "31", "32", "33", "-1", "-8", "64", "100", "nil", "7.5"))
	case 16:
		fmtS := g.pick("'<i4'", "'>I2'", "'b'", "'B'", "'h'", "'H'", "'l'", "'L'", "'<d'", "'>f'", "'i8'", "'!4i2'", "'c3'", "'s'", "'bx'", "'i3'", "'I5'", "'i17'", "'q'", "'<i2>i2'", "'c0'", "'='")
		if g.r.Intn(2) == 0 {
			return fmt.Sprintf("C(struct.pack, %s, %s, %s)", fmtS, g.any(), g.any())
		}
		return fmt.Sprintf("C(struct.unpack, %s, %s, %s)", fmtS, g.pick("'abcdefgh'", "'\\255\\255\\255\\255\\255\\255\\255\\255'", "'\\0\\1'", "''", "'\\1\\0\\0\\0hello\\0'"), g.pick("nil", "1", "2", "0", "-1", "9"))
	case 17:
		v := g.pick(append(coreNumbers, "{1, 2, 3}", "{a = 1}", "{[1] = 1, [3] = 3}", "{[1] = 1, [20] = 20}", "{'\\0\\1\\31/\"'}", "{{}}", "{x = {y = {1.5}}}", "'\\127\\255/'", "true", "nil", "{[0.5] = 1}", "{[true] = 1}")...)
		return fmt.Sprintf("C(cjson.encode, %s)", v)
	case 18:
		return fmt.Sprintf("C(function(s) local v = cjson.decode(s) if type(v) == 'table' then local k = {} for a, b in pairs(v) do k[#k+1] = tostring(a) .. '=' .. (type(b) == 'number' and string.format('%%.17g', b) or tostring(b)) end table.sort(k) return table.concat(k, ',') end return v end, %s)", g.pick("'0.1'", "'1e400'", "'-0'", "'[1,2,3]'", "'{\"a\":1}'", "'\"\\\\u00e9\\\\ud83d\\\\ude00\"'", "'[1,]'", "'01'", "'1.'", "'.5'", "'-'", "'\"\\\\x\"'", "'null'", "'true'", "'[null]'", "'{\"a\":null}'", "'9007199254740993'", "'1E2'", "'  [ ]  '", "'\"\\t\"'", "'nan'", "'Infinity'", "'0x10'", "'{1:2}'", "'\"unterminated'", "''"))
	}
	v := g.pick(append(coreNumbers, "'abc'", "{1, 2}", "{a = 1}", "true", "nil", "2^32 + 0.5", "-2^31 - 1", "4294967296", "1.0000001", "3.4028234663852886e38", "1e39")...)
	return fmt.Sprintf("C(function(v) return (cmsgpack.pack(v):gsub('.', function(c) return string.format('%%02x', c:byte()) end)) end, %s)", v)
}

// TestRandomCorelib runs batches of random core library calls in one EVAL
// each, on the live server and offline, and requires every call's status
// and results to match. A fixed seed list keeps make test's runs the same;
// -difftest.corelibseeds and -difftest.corelibn explore further.
func TestRandomCorelib(t *testing.T) {
	l := startLive(t)
	target := l.srv.Kind.Target()
	ctx := context.Background()
	for seed := int64(1); seed <= int64(*corelibSeeds); seed++ {
		g := coreGen{r: rand.New(rand.NewSource(seed))}
		calls := make([]string, *corelibCalls)
		for i := range calls {
			calls[i] = g.call()
		}
		script := corelibPrelude + strings.Join(calls, "\n") + "\nreturn table.concat(out, '\\n')"
		l.reset(t)
		live, lerr := l.srv.Do(ctx, "EVAL", script, "0").ToString()
		e := verify.New(verify.Options{Target: target})
		rep, oerr := e.Eval(ctx, []byte(script), nil, nil)
		if lerr != nil || oerr != nil || rep.Kind == verify.Error {
			t.Errorf("seed %d: live error %v, offline %v %v", seed, lerr, oerr, rep)
			continue
		}
		lv, ov := strings.Split(live, "\n"), strings.Split(rep.Str, "\n")
		if len(lv) != len(ov) {
			t.Errorf("seed %d: %d live results, %d offline", seed, len(lv), len(ov))
			continue
		}
		for i := range lv {
			if lv[i] != ov[i] {
				if d, ok := BuildCallDivergences[l.srv.Kind.Name]; ok && d.Call.MatchString(calls[i]) {
					t.Logf("seed %d: %s differs on %s, a known build divergence: %s", seed, calls[i], l.srv.Kind.Name, d.Why)
					continue
				}
				t.Errorf("seed %d: %s\n  live:    %s\n  offline: %s", seed, calls[i], lv[i], ov[i])
			}
		}
	}
}
