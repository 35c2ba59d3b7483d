package verify

import (
	"math"
	"testing"
)

func TestStrFormatIntegerCasts(t *testing.T) {
	runReplyCases(t, []replyCase{
		{"unsigned out of range", "return string.format('[%o][%x][%X][%u][%#4.4x]', 1e300, 1e20, 2^64, 1e300, 1e20)", `"[0][0][0][0][0000]"`},
		{"unsigned in range", "return string.format('[%x][%X][%o][%u]', 2^63, -2^63, -1, 2^63 + 2^62)", `"[8000000000000000][8000000000000000][1777777777777777777777][13835058055282163712]"`},
		{"nan and far negatives", "return string.format('[%x][%u][%o]', 0/0, -1e300, -(0/0))", `"[8000000000000000][9223372036854775808][1000000000000000000000]"`},
		{"below 2^64", "return string.format('[%x][%u]', 2^64 - 2048, -0.9)", `"[fffffffffffff800][0]"`},
		{"zero with flags", "return string.format('[%#o][%#x][%.0x][%#.0o]', 1e20, 2^64, 1e20, 1e300)", `"[0][0][][0]"`},
		{"signed", "return string.format('[%d][%i]', 1e300, -2^63)", `"[-9223372036854775808][-9223372036854775808]"`},
		{"c out of range", "return string.format('[%c][%c]', 123456789012, 256 + 65)", `"[][A]"`},
		{"c int limits", "return string.format('[%c][%c][%c]', 2^31, -2^31, 2^31 - 1 + 0.5)", `"[][][\xff]"`},
		{"c nan and padding", "return string.format('[%c][%3c][%-3c]', 0/0, 2^40 + 66, 1e100)", `"[][  ][]"`},
	})
}

func TestCasts(t *testing.T) {
	for _, tc := range []struct {
		f     float64
		u     uint64
		i32   int32
		label string
	}{
		{0, 0, 0, "zero"},
		{-1, 1<<64 - 1, -1, "minus one"},
		{-0.9, 0, 0, "truncation"},
		{1 << 63, 1 << 63, -1 << 31, "2^63"},
		{1<<63 + 1<<62, 1<<63 + 1<<62, -1 << 31, "2^63 + 2^62"},
		{1 << 64, 0, -1 << 31, "2^64"},
		{1e300, 0, -1 << 31, "1e300"},
		{-1e300, 1 << 63, -1 << 31, "-1e300"},
		{math.NaN(), 1 << 63, -1 << 31, "nan"},
		{1<<31 - 0.5, 1<<31 - 1, 1<<31 - 1, "below 2^31"},
		{-1<<31 - 0.5, 1<<64 - 1<<31, -1 << 31, "-2^31 - 0.5"},
		{-1<<31 - 1, 1<<64 - 1<<31 - 1, -1 << 31, "-2^31 - 1"},
	} {
		if got := cUint(tc.f); got != tc.u {
			t.Errorf("cUint(%s) = %#x, want %#x", tc.label, got, tc.u)
		}
		if got := cInt32(tc.f); got != tc.i32 {
			t.Errorf("cInt32(%s) = %d, want %d", tc.label, got, tc.i32)
		}
	}
}
