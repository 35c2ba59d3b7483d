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
		if got := cPow(c.x, c.y); got != c.want {
			t.Errorf("cPow(%v, %v) = %v, want %v", c.x, c.y, got, c.want)
		}
	}
	if r := cPow(-2, 0.5); !math.IsNaN(r) {
		t.Errorf("cPow(-2, 0.5) is not NaN")
	}
	// Exact ties, which glibc's pow rounds its own way (up, here).
	for _, c := range [][3]float64{{10, 23, 0x1.52d02c7e14af7p+76}, {1.5, 34, 0x1.d9fe779881945p+19}} {
		if got := cPow(c[0], c[1]); got != c[2] {
			t.Errorf("cPow(%v, %v) = %x, glibc %x", c[0], c[1], got, c[2])
		}
	}
}
