package luac51

import (
	"math"
	"testing"
)

// glibc's pow of these operands (Redis 7.0.15's constant folding of
// x ^ y), where Go's math.Pow is off by an ulp or more.
func TestCPow(t *testing.T) {
	for _, c := range []struct{ x, y, want float64 }{
		{10, 256, 1e256},
		{2, 53, 9007199254740992},
		{2, 0.5, math.Sqrt2},
		{10, -5, 1e-5},
		{3, 2, 9},
		{-2, 3, -8},
		{-2, 2, 4},
		{7, 0, 1},
		{1, 1e300, 1},
		{10, 400, math.Inf(1)},
		{10, -400, 0},
		{10, -300, 1e-300},
		{2, -1074, 5e-324},
		{1.0000001, 1e300, math.Inf(1)},
		{0.5, 1e300, 0},
	} {
		if got, _ := cPow(c.x, c.y); got != c.want {
			t.Errorf("cPow(%v, %v) = %v, want %v", c.x, c.y, got, c.want)
		}
	}
	if r, _ := cPow(-2, 0.5); !math.IsNaN(r) {
		t.Errorf("cPow(-2, 0.5) is not NaN")
	}
	// Exact ties: glibc rounds these either way.
	for _, c := range [][2]float64{{10, 23}, {1.5, 34}} {
		if _, tie := cPow(c[0], c[1]); !tie {
			t.Errorf("cPow(%v, %v) is not reported as a tie", c[0], c[1])
		}
	}
	if _, tie := cPow(10, 256); tie {
		t.Errorf("cPow(10, 256) is reported as a tie")
	}
	p, err := Compile([]byte("local f = function() return 1.5 ^ 34 end return 2 ^ 10"), "=t")
	if err != nil || p.Exact() {
		t.Fatalf("a chunk whose function folds 1.5^34 is reported exact (err %v)", err)
	}
	if p.Protos[0].Exact() {
		t.Errorf("a function folding 1.5^34 is reported exact")
	}
}
