package lualib

import (
	"math"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"

	"github.com/scriptctl/scriptctl/internal/redistest"
)

func TestFormatNumber(t *testing.T) {
	negNaN := math.Float64frombits(0xFFF8000000000000)
	tests := []struct {
		in   float64
		want string
	}{
		{0.1 + 0.2, "0.3"},
		{1e15, "1e+15"},
		{1e14, "1e+14"},
		{123456789012345, "1.2345678901234e+14"},
		{12345678901234, "12345678901234"},
		{3, "3"},
		{-3, "-3"},
		{0, "0"},
		{math.Copysign(0, -1), "-0"},
		{0.5, "0.5"},
		{1.0 / 3, "0.33333333333333"},
		{1e-5, "1e-05"},
		{0.0001, "0.0001"},
		{1e100, "1e+100"},
		{2.5e-300, "2.5e-300"},
		{math.MaxFloat64, "1.7976931348623e+308"},
		{math.Inf(1), "inf"},
		{math.Inf(-1), "-inf"},
		{negNaN, "-nan"},
		{math.NaN(), "nan"},
	}
	for _, tt := range tests {
		if got := FormatNumber(tt.in); got != tt.want {
			t.Errorf("FormatNumber(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestTruncUint64(t *testing.T) {
	tests := []struct {
		in   float64
		want uint64
	}{
		{0, 0},
		{7.9, 7},
		{-1, 1<<64 - 1},
		{1 << 63, 1 << 63},
		{1<<63 + 1<<62, 1<<63 + 1<<62},
		{1 << 64, 0},
		{1e300, 0},
		{-1e300, 1 << 63},
		{math.NaN(), 1 << 63},
		{math.Float64frombits(0xFFF8000000000000), 1 << 63},
	}
	for _, tt := range tests {
		if got := truncUint64(tt.in); got != tt.want {
			t.Errorf("truncUint64(%v) = %#x, want %#x", tt.in, got, tt.want)
		}
	}
}

func TestToNumber(t *testing.T) {
	tests := []struct {
		in   string
		want float64
		ok   bool
	}{
		{"10", 10, true},
		{" 10 ", 10, true},
		{"\t-1.5e2\n", -150, true},
		{"0x10", 16, true},
		{"0X1p4", 16, true},
		{"0x", 0, false},
		{"1e", 1, false}, // "1" parses, "e" is trailing garbage
		{"1e+", 0, false},
		{".5", 0.5, true},
		{"5.", 5, true},
		{".", 0, false},
		{"", 0, false},
		{"abc", 0, false},
		{"inf", math.Inf(1), true},
		{"-Infinity", math.Inf(-1), true},
		{"12\x00junk", 12, true}, // a C string ends at NUL
		{"1e400", math.Inf(1), true},
		{"+3", 3, true},
		{"- 3", 0, false},
	}
	for _, tt := range tests {
		got, ok := ToNumber(lua.LString(tt.in))
		if ok != tt.ok || (ok && got != tt.want) {
			t.Errorf("ToNumber(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
	if got, ok := ToNumber(lua.LString("nan")); !ok || !math.IsNaN(got) {
		t.Errorf("ToNumber(nan) = %v, %v; want NaN, true", got, ok)
	}
	if _, ok := ToNumber(lua.LTrue); ok {
		t.Error("ToNumber(true) succeeded")
	}
}

// numberExprs are Lua expressions whose tostring() Redis prints; offline,
// gopher-lua computes the same double and FormatNumber prints it.
var numberExprs = []string{
	"0.1+0.2", "1e15", "1e14", "2^53", "2^63", "-2^63", "1/3", "-1/3", "100",
	"-0", "0/-1", "1e-5", "123.456", "1/0", "-1/0", "0/0", "-(0/0)", "2^-1074",
	"1.7976931348623157e308", "12345678901234567", "0.1", "3.0", "1e300*1e10",
	"math.pi", "-(1/0)", "255/256", "1e21", "7.0e-7",
}

func TestLiveFormatNumber(t *testing.T) {
	srv := redistest.Standalone(t)
	cli := redistest.CLI(t)
	for _, e := range numberExprs {
		out, err := exec.Command(cli, "--no-raw", "-p", strconv.Itoa(srv.Port), "EVAL", "return tostring("+e+")", "0").Output()
		if err != nil {
			t.Fatalf("redis-cli: %v", err)
		}
		want := strings.TrimSuffix(string(out), "\n")
		L := lua.NewState()
		if err := L.DoString("x = " + e); err != nil {
			t.Fatalf("%s: %v", e, err)
		}
		n, ok := L.GetGlobal("x").(lua.LNumber)
		L.Close()
		if !ok {
			t.Fatalf("%s is not a number offline", e)
		}
		if got := quote(FormatNumber(float64(n))); got != want {
			t.Errorf("tostring(%s): redis %s, FormatNumber %s", e, want, got)
		}
	}
}
