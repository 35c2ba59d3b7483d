package verify

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// zeroConstScript is three functions and a chunk of random number
// expressions (numerals that are zero or underflow to it, y, unary minus,
// the six arithmetic operators, and folds through and, or and not), each
// printed with tostring, the results joined: which zero each function's
// constant is, and every fold, shows in the text.
func zeroConstScript(r *rand.Rand) string {
	nums := []string{"0", "0", "1", "2", "0.5", "1e-400", "0x0", "1e308", "3"}
	var num func(d int) string
	num = func(d int) string {
		if d <= 0 || r.IntN(3) == 0 {
			if r.IntN(5) == 0 {
				return "y"
			}
			return nums[r.IntN(len(nums))]
		}
		a, b := num(d-1), num(d-1)
		switch r.IntN(12) {
		case 0, 1:
			return "- " + a
		case 2:
			return "(3 and " + a + ")"
		case 3:
			return "(nil or " + a + ")"
		case 4:
			return "((y or 0) and " + a + ")"
		case 5:
			return "(not nil and " + a + ")"
		case 6:
			return "('s' and " + a + ")"
		default:
			return "(" + a + " " + []string{"+", "-", "*", "/", "%", "^"}[r.IntN(6)] + " " + b + ")"
		}
	}
	var b strings.Builder
	b.WriteString("local y = tonumber(ARGV[1])\nlocal r = {}\n")
	for f := range 3 {
		fmt.Fprintf(&b, "local function f%d()\n", f)
		for range 4 {
			fmt.Fprintf(&b, "r[#r + 1] = tostring(%s)\n", num(3))
		}
		b.WriteString("end\n")
	}
	for range 3 {
		fmt.Fprintf(&b, "r[#r + 1] = tostring(%s)\n", num(3))
	}
	b.WriteString("f0() f1() f2()\nreturn table.concat(r, '|')\n")
	return b.String()
}

// TestZeroConstantsLive runs random number expressions on the engine and
// a real server (zeroConstScript), with y 0, -0 and 2: every printed
// value must agree. Before each function's zero constant took Lua 5.1's
// sign and the rewriter folded through and, or and not, 65 of these 300
// scripts differed on Redis 7.0.15.
func TestZeroConstantsLive(t *testing.T) {
	ctx, srv, e := liveEngine(t)
	r := rand.New(rand.NewPCG(7, 9))
	for i := range 300 {
		evalBothKeys(t, ctx, srv, e, i, zeroConstScript(r), nil, []string{"0", "-0", "2"}[i%3])
	}
}
