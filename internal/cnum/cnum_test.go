package cnum

import (
	"math"
	"strings"
	"testing"
)

func TestStr2d(t *testing.T) {
	cases := []struct {
		in   string
		want float64
		ok   bool
	}{
		{"1.5", 1.5, true},
		{" 0x10 ", 16, true},
		{"-inf", math.Inf(-1), true},
		{"1e", 1, false}, // strtod stops before the e: not the whole string
		{"0x", 0, false},
		{"", 0, false},
		{"7\x00junk", 7, true}, // the string ends at its NUL byte
	}
	for _, c := range cases {
		got, ok := Str2d(c.in)
		if ok != c.ok || (ok && got != c.want) {
			t.Errorf("Str2d(%q) = %v, %v; want %v, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

// TestSmallIntegerIsStrtod: the digits-only fast path of Str2d reads
// every string it takes as the path through strtod does, and takes
// exactly the strings of 1 to 15 digits.
func TestSmallIntegerIsStrtod(t *testing.T) {
	for _, s := range []string{
		"0", "7", "00100", "0123", "999999999999999", "000000000000001",
		"9007199254740991", "9007199254740993", "1234567890123456789", "",
		"1.", "1e2", "+1", " 1", "1 ", "0x10", "1\x00", "\x001",
	} {
		v, fast := smallInteger(s)
		if want := len(s) > 0 && len(s) <= 15 && strings.Trim(s, "0123456789") == ""; fast != want {
			t.Errorf("smallInteger(%q) took it: %v, want %v", s, fast, want)
		}
		w, ok := str2d(s)
		if fast && (!ok || v != w) {
			t.Errorf("smallInteger(%q) = %v; strtod reads %v, %v", s, v, w, ok)
		}
		if got, gotOK := Str2d(s); gotOK != ok || ok && got != w {
			t.Errorf("Str2d(%q) = %v, %v; strtod reads %v, %v", s, got, gotOK, w, ok)
		}
	}
}

func TestFormat(t *testing.T) {
	cases := []struct {
		f    float64
		verb byte
		prec int
		want string
	}{
		{0.3, 'g', 14, "0.3"},
		{0.3, 'g', 17, "0.29999999999999999"},
		{1e20, 'g', 14, "1e+20"},
		{math.Inf(1), 'g', 17, "inf"},
		{math.NaN(), 'G', 17, "NAN"},
	}
	for _, c := range cases {
		if got := Format(c.f, c.verb, c.prec, false); got != c.want {
			t.Errorf("Format(%v, %c, %d) = %q, want %q", c.f, c.verb, c.prec, got, c.want)
		}
	}
	if got := D2string(3); got != "3" {
		t.Errorf("D2string(3) = %q", got)
	}
	if got := Dtoa(123e20); got != "12300000000000001000000" {
		t.Errorf("Dtoa(123e20) = %q (grisu2 is not shortest there)", got)
	}
	if got := Long(math.NaN()); got != math.MinInt64 {
		t.Errorf("Long(NaN) = %d", got)
	}
}
