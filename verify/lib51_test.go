package verify

import (
	"context"
	"math"
	"testing"

	"github.com/scriptctl/scriptctl/verify/crmath"
)

// The values below were observed on redis-server 7.0.15 (difftest
// lua_coerce.yaml); the corpus checks them end to end, these pin the
// helpers.

func TestStrtoul(t *testing.T) {
	tests := []struct {
		s    string
		base int
		want float64 // -1: no number (nil)
	}{
		{"-ff", 16, 18446744073709551361},
		{" 10 ", 2, 2},
		{"z", 36, 35},
		{"0x10", 16, 16},
		{"0X1f", 16, 31},
		{"0x", 16, -1},
		{"ffffffffffffffffff", 16, math.MaxUint64},
		{"-80000000", 16, 18446744071562067968},
		{"+ff", 16, 255},
		{"- 1", 16, -1},
		{"-0", 16, 0},
		{"1.5", 16, -1},
		{" ", 16, -1},
		{"12", 2, -1},
		{"-zz", 36, 18446744073709550321},
		{"0b101", 2, -1},
	}
	for _, tc := range tests {
		n, end := strtoul(tc.s, tc.base, false)
		for end > 0 && end < len(tc.s) && isSpaceC(tc.s[end]) {
			end++
		}
		got := float64(n)
		if end == 0 || end != len(tc.s) {
			got = -1
		}
		if got != tc.want {
			t.Errorf("tonumber(%q, %d) = %v, want %v", tc.s, tc.base, got, tc.want)
		}
	}
	// C23's strtoul (a Lua compiled as C23 on glibc 2.38+) skips a binary
	// prefix in base 2 when a binary digit follows, as 0x in base 16.
	for _, tc := range []struct {
		s    string
		want float64
	}{{"0b101", 5}, {" -0B1", 18446744073709551615}, {"0b", -1}, {"0b2", -1}, {"101", 5}} {
		n, end := strtoul(tc.s, 2, true)
		got := float64(n)
		if end == 0 || end != len(tc.s) {
			got = -1
		}
		if got != tc.want {
			t.Errorf("C23 tonumber(%q, 2) = %v, want %v", tc.s, got, tc.want)
		}
	}
}

func TestCPow(t *testing.T) {
	nan, negNaN := math.NaN(), math.Copysign(math.NaN(), -1)
	sign := func(f float64) string {
		switch {
		case !math.IsNaN(f):
			return luaNumber(f)
		case math.Signbit(f):
			return "-nan"
		}
		return "nan"
	}
	tests := []struct {
		x, y float64
		want string
	}{
		{negNaN, 2, "-nan"}, {negNaN, 3, "nan"}, {negNaN, -1, "nan"}, {negNaN, 0.5, "-nan"},
		{negNaN, 0, "1"}, {negNaN, math.Inf(1), "-nan"}, {2, negNaN, "-nan"}, {2, nan, "nan"},
		{negNaN, nan, "-nan"}, {nan, negNaN, "nan"}, {1, negNaN, "1"}, {-8, 1.0 / 3, "-nan"},
		{math.Copysign(0, -1), -1, "-inf"}, {2, 10, "1024"},
	}
	for _, tc := range tests {
		if got := sign(cPow(tc.x, tc.y)); got != tc.want {
			t.Errorf("pow(%v, %v) = %s, want %s", tc.x, tc.y, got, tc.want)
		}
	}
}

func TestLog10PowersOfTen(t *testing.T) {
	for _, x := range []float64{1, 10, 1000, 1e15, 1e22, 1e23, 1e-3, 1e308, 1e-300} {
		if got, want := crmath.Log10(x), math.Round(math.Log10(x)); got != want {
			t.Errorf("log10(%g) = %.17g, want %g", x, got, want)
		}
	}
}

// TestLib51Args runs scripts through the engine: numeric strings where
// numbers are expected, C casts, and Lua 5.1's errors.
func TestLib51Args(t *testing.T) {
	tests := []struct{ src, want string }{
		{"return string.rep('a', '3')", "aaa"},
		{"return string.rep('ab', 2^32 + 2)", "abab"},
		{"return string.rep('a', 2.9)", "aa"},
		{"return string.sub('hello', 1e300)", "hello"},
		{"return string.char(2^32 + 65)", "A"},
		{"return tostring(math.floor(' 3 '))", "3"},
		{"return select('2', 'a', 'b')", "b"},
		{"return table.concat({1, 2, 3}, ',', '1', '2')", "1,2"},
		{"return tostring(tonumber('-ff', 16))", "1.844674407371e+19"},
		{"return tostring(math.modf(math.huge)) .. ' ' .. tostring(select(2, math.modf(-math.huge)))", "inf -0"},
		{"local ok, err = pcall(function() return string.rep('a', 'x') end) return err", "user_script:1: bad argument #2 to 'rep' (number expected, got string)"},
		{"local ok, err = pcall(function() return string.sub('abc') end) return err", "user_script:1: bad argument #2 to 'sub' (number expected, got no value)"},
		{"local ok, err = pcall(function() assert(false, 42) end) return err", "user_script:1: 42"},
		{"local ok, err = pcall(function() return tonumber('1', 37) end) return err", "user_script:1: bad argument #2 to 'tonumber' (base out of range)"},
		{"local ok, err = pcall(string.byte, string.rep('a', 8000), 1, -1) return err", "stack overflow (string slice too long)"},
	}
	e := New(Options{})
	for _, tc := range tests {
		r, err := e.Eval(context.Background(), []byte(tc.src), nil, nil)
		if err != nil || r.Kind != Bulk || r.Str != tc.want {
			t.Errorf("%s: got %v %v, want %q", tc.src, r, err, tc.want)
		}
	}
}
