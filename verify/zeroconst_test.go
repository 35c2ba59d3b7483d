package verify

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"

	"github.com/scriptctl/scriptctl/verify/luac51"
)

// A function's one zero constant has the sign of the first zero Lua 5.1's
// code generator adds. The replies are redis-server 7.0.15's
// (lua_zero_const.yaml holds these and more, compared live).
func TestZeroConstant(t *testing.T) {
	runReplyCases(t, []replyCase{
		// -0 waits as a left operand while y * 0 adds 0
		{"left operand", "local y = 3 local a = -0 + y * 0 return {tostring(-0), tostring(a)}", `["0", "0"]`},
		// a comparison adds its left operand at once
		{"left operand of a comparison", "local y = 1 local c = -0 < y * 0 return tostring(0)", `"-0"`},
		{"right operand added at once", "local y = #KEYS local a = y + -0 local b = 0 return {tostring(a), tostring(b)}", `["0", "-0"]`},
		// not 0, 0 and x and if 0 add no constant
		{"not and", "local a = not 0 local b = 0 and 1 local c = -0 return {tostring(c), tostring(0)}", `["-0", "-0"]`},
		{"if", "if 0 then return {tostring(-0), tostring(0)} end", `["-0", "-0"]`},
		{"or loads the 0", "local a = 0 or 1 return tostring(-0)", `"0"`},
		{"folded", "local a = 0 * -1 local b = -1e-400 return {tostring(a), tostring(b), tostring(0)}", `["-0", "-0", "-0"]`},
		{"folded after a 0", "local a = 0 return {tostring(0 * -1), tostring(-(1 - 1))}", `["0", "0"]`},
		{"each function its own", "local function f() return tostring(-0) end local function g(v) local a = -0 + v * 0 return tostring(-0) end local z = 0 return {f(), g(1), tostring(-0)}", `["-0", "0", "0"]`},
		{"division by the zero constant", "local function f() local a = -0 return tostring(1 / 0) end local function g() local a = -0 + #KEYS * 0 return tostring(1 / 0) end return {f(), g()}", `["-inf", "inf"]`},
		{"loadstring", "return {loadstring('local a = -0 + #KEYS * 0 return tostring(-0)')()}", `["0"]`},
		{"format", "local a = -0 + #KEYS * 0 return string.format('%g %s', -0, -0)", `"0 0"`},
		// Lua 5.1 folds a power to an infinity: it reads no zero constant
		{"power to infinity", "local a = 0 return {tostring((-0) ^ -1), tostring(-(0 ^ -1)), tostring(2 ^ 2000)}", `["-inf", "-inf", "inf"]`},
		{"power to infinity after -0", "local a = -0 return tostring(0 ^ -1)", `"inf"`},
		// and folds: 3 and 0 is the numeral 0, (f() or 0) a number
		{"through and", "local a = 0 return {tostring(-(3 and 0)), tostring(0)}", `["0", "0"]`},
		{"through and, first", "local v = -(3 and 0) return {tostring(v), tostring(0)}", `["-0", "-0"]`},
		{"through or, with a call", "local n = 1 local function h() n = n + 1 end local v = -((h() or 0) and 0) return {tostring(v), n}", `["-0", 2]`},
	})
}

// The engine's own 0 (the long chain's trailing one) takes the sign Lua 5.1
// gives the function's zeros, and the chain helper never reads it.
func TestZeroConstantLongConcat(t *testing.T) {
	ops := "'a'"
	for i := 1; i < longConcat; i++ {
		ops += " .. 'x'"
	}
	runReplyCases(t, []replyCase{
		{"helper zero first", "local s = " + ops + " local z = -0 return {#s, tostring(z), tostring(0)}", `[48, "-0", "-0"]`},
		{"operand zeros", "local s = -0 .. " + ops + " .. 0 return {s:sub(1, 3), s:sub(-3), tostring(-0)}", `["-0a", "x-0", "-0"]`},
	})
}

// Only a chunk where a numeral folds to -0 is compiled a second time, by
// Lua 5.1's compiler: `-1` (LRANGE key 0 -1) is not one.
func TestZeroConstantTrigger(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want bool
	}{
		{"return redis.call('LRANGE', KEYS[1], 0, -1)", false},
		{"local a = -x return a * 0 - 1", false},
		{"return 0 - 0, -5 % 5, 5 % -5, 1e-300 / 1e300", false},
		{"return -0", true},
		{"return -(1 - 1)", true},
		{"return 0 * -1", true},
		{"return 0 / -5", true},
		{"return -1e-400", true},
		{"local f = function() return {x = -0.0} end", true},
		{"return (-0) ^ 1", true},
		{"return 6 % -3 * -1", true},
	} {
		_, got, err := rewriteChunk([]byte(tc.src), "@user_script")
		if err != nil {
			t.Fatalf("%s: %v", tc.src, err)
		}
		if got != tc.want {
			t.Errorf("%s: negZero %v, want %v", tc.src, got, tc.want)
		}
		_, luac, err := compileSites([]byte(tc.src), "@user_script")
		if err != nil {
			t.Fatalf("%s: %v", tc.src, err)
		}
		if (luac != nil) != tc.want {
			t.Errorf("%s: compiled by Lua 5.1's compiler: %v, want %v", tc.src, luac != nil, tc.want)
		}
	}
}

// compileCached hands the Lua 5.1 compile to string.dump.
func TestZeroConstantSharesDumpCompile(t *testing.T) {
	c := compileCached([]byte("local a = -0 + #KEYS * 0 return a -- "+t.Name()), "@user_script")
	if c.err != nil {
		t.Fatal(c.err)
	}
	if c.dump.proto == nil {
		t.Fatal("the Lua 5.1 compile is not kept for string.dump")
	}
	lp, err := c.luac()
	if err != nil || lp != c.dump.proto {
		t.Errorf("string.dump compiles again: %v", err)
	}
}

// Prototype trees of another shape are left alone.
func TestMatchZerosShapes(t *testing.T) {
	g := &lua.FunctionProto{
		Constants:          []lua.LValue{lua.LString("x"), lua.LNumber(0)},
		FunctionPrototypes: []*lua.FunctionProto{{Constants: []lua.LValue{lua.LNumber(0)}}},
	}
	negZero := luac51.Constant{Kind: luac51.KNumber, N: math.Copysign(0, -1)}
	other := &luac51.Proto{Constants: []luac51.Constant{negZero}}
	if matchZeros(g, other) {
		t.Error("matched trees of another shape")
	}
	if math.Signbit(float64(g.Constants[1].(lua.LNumber))) {
		t.Error("a zero changed although the trees differ")
	}
	same := &luac51.Proto{
		Constants: []luac51.Constant{negZero},
		Protos:    []*luac51.Proto{{}}, // no zero constant: gopher-lua's stays
	}
	if !matchZeros(g, same) {
		t.Fatal("trees of the same shape not matched")
	}
	if !math.Signbit(float64(g.Constants[1].(lua.LNumber))) {
		t.Error("the main function's zero is not Lua 5.1's -0")
	}
	if g.Constants[0] != lua.LString("x") {
		t.Error("another constant changed")
	}
	if math.Signbit(float64(g.FunctionPrototypes[0].Constants[0].(lua.LNumber))) {
		t.Error("a function without a Lua 5.1 zero constant changed")
	}
}

// TestZeroConstantsRandom: random chunks of numerals, operators, and/or/
// not, conditions, tables, calls and nested functions; in each function of
// each, the zero constant has the sign of Lua 5.1's compiler's (luac51,
// byte for byte luac's), and a chunk where Lua 5.1 has a -0 constant is one
// the rewriter noted.
func TestZeroConstantsRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 5))
	nums := []string{"0", "0", "1", "2", "3", "0.5", "1e-400", "0x0", "1e308", "0e5"}
	var expr func(depth int) string
	expr = func(depth int) string {
		if depth <= 0 || rng.IntN(4) == 0 {
			switch rng.IntN(5) {
			case 0:
				return "y"
			default:
				return nums[rng.IntN(len(nums))]
			}
		}
		a, b := expr(depth-1), expr(depth-1)
		switch rng.IntN(14) {
		case 0, 1:
			return "- " + a
		case 2:
			return "-(" + a + ")"
		case 3:
			return "(" + a + " " + []string{"<", "==", "<=", "~="}[rng.IntN(4)] + " " + b + ")"
		case 4:
			return "(" + a + " and " + b + ")"
		case 5:
			return "(" + a + " or " + b + ")"
		case 6:
			return "(not " + a + ")"
		case 7:
			return "{" + a + ", [" + b + "] = " + a + "}"
		case 8:
			return "f(" + a + ", " + b + ")"
		case 9:
			return "(" + a + " .. " + b + ")"
		default:
			return "(" + a + " " + []string{"+", "-", "*", "/", "%", "^"}[rng.IntN(6)] + " " + b + ")"
		}
	}
	var body func(depth int) string
	body = func(depth int) string {
		var sb strings.Builder
		for range 1 + rng.IntN(4) {
			switch rng.IntN(6) {
			case 0:
				fmt.Fprintf(&sb, "if %s then local z = %s end\n", expr(3), expr(3))
			case 1:
				fmt.Fprintf(&sb, "local a, b = %s, %s\n", expr(3), expr(3))
			case 2:
				if depth > 0 {
					fmt.Fprintf(&sb, "local function g(y)\n%send\n", body(depth-1))
					continue
				}
				fallthrough
			case 3:
				fmt.Fprintf(&sb, "for i = %s, %s do end\n", expr(2), expr(2))
			default:
				fmt.Fprintf(&sb, "local v = %s\n", expr(4))
			}
		}
		fmt.Fprintf(&sb, "return %s\n", expr(3))
		return sb.String()
	}
	srcs := make([]string, 3000)
	for i := range srcs {
		srcs[i] = "local y = #KEYS\nlocal function f() end\n" + body(2)
	}
	checked, negZeros := checkZeroConstants(t, srcs)
	if checked < 2500 || negZeros < 300 {
		t.Errorf("only %d chunks checked, %d with a -0 constant", checked, negZeros)
	}
}
