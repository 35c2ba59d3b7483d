package cnum

import (
	"math"
	"strconv"
	"strings"
)

// Number formatting as C's printf and Redis's util.c write numbers; Go's
// own formatting differs (0.1+0.2 is 0.30000000000000004 in Go, 0.3 with
// "%.14g").

// Dtoa is deps/fpconv's fpconv_dtoa: grisu2's digits, written as an
// integer, a plain decimal or in exponent form by emit_digits' rules.
func Dtoa(f float64) string {
	sign := ""
	if math.Signbit(f) {
		sign = "-"
	}
	switch {
	case f == 0:
		return sign + "0"
	case math.IsNaN(f):
		return sign + "nan"
	case math.IsInf(f, 0):
		return sign + "inf"
	}
	d, k := grisu2(math.Abs(f))
	digits, nd := string(d), len(d)
	x := k + nd - 1 // the decimal exponent of the first digit
	exp := x
	if exp < 0 {
		exp = -exp
	}
	switch {
	case k >= 0 && exp < nd+7: // plain integer
		return sign + digits + strings.Repeat("0", k)
	case k < 0 && (k > -7 || exp < 4) && nd+k <= 0: // 0.000ddd
		return sign + "0." + strings.Repeat("0", -(nd+k)) + digits
	case k < 0 && (k > -7 || exp < 4): // ddd.ddd
		return sign + digits[:nd+k] + "." + digits[nd+k:]
	}
	if max := 18 - len(sign); nd > max {
		nd = max
	}
	out := sign + digits[:1]
	if nd > 1 {
		out += "." + digits[1:nd]
	}
	if x < 0 {
		return out + "e-" + strconv.Itoa(exp)
	}
	return out + "e+" + strconv.Itoa(exp)
}

// Format formats f like C printf's %.<prec><verb> (verb e, E, f, g or G;
// alt is the # flag), including glibc's inf, -inf, nan and -nan.
func Format(f float64, verb byte, prec int, alt bool) string {
	upper := verb == 'E' || verb == 'G'
	if math.IsInf(f, 0) || math.IsNaN(f) {
		var s string
		switch {
		case math.IsInf(f, 1):
			s = "inf"
		case math.IsInf(f, -1):
			s = "-inf"
		case math.Signbit(f):
			s = "-nan"
		default:
			s = "nan"
		}
		if upper {
			s = strings.ToUpper(s)
		}
		return s
	}
	switch verb {
	case 'e', 'E':
		s := strconv.FormatFloat(f, 'e', prec, 64)
		if alt && prec == 0 {
			i := strings.IndexByte(s, 'e')
			s = s[:i] + "." + s[i:]
		}
		if upper {
			s = strings.ToUpper(s)
		}
		return s
	case 'f', 'F':
		s := strconv.FormatFloat(f, 'f', prec, 64)
		if alt && prec == 0 {
			s += "."
		}
		return s
	}
	// %g: precision P (0 means 1); exponent X of %e; if P > X >= -4 use %f
	// with precision P-1-X, else %e with precision P-1; then, without #,
	// trailing zeros (and a trailing point) are removed.
	if prec == 0 {
		prec = 1
	}
	var s string
	if f == 0 {
		s = strconv.FormatFloat(f, 'f', prec-1, 64)
	} else {
		es := strconv.FormatFloat(f, 'e', prec-1, 64)
		x, _ := strconv.Atoi(es[strings.IndexByte(es, 'e')+1:])
		if prec > x && x >= -4 {
			s = strconv.FormatFloat(f, 'f', prec-1-x, 64)
		} else {
			s = es
		}
	}
	if !alt {
		mant, exp := s, ""
		if i := strings.IndexByte(s, 'e'); i >= 0 {
			mant, exp = s[:i], s[i:]
		}
		if strings.IndexByte(mant, '.') >= 0 {
			mant = strings.TrimRight(mant, "0")
			mant = strings.TrimSuffix(mant, ".")
		}
		s = mant + exp
	} else if strings.IndexByte(s, '.') < 0 {
		if i := strings.IndexByte(s, 'e'); i >= 0 {
			s = s[:i] + "." + s[i:]
		} else {
			s += "."
		}
	}
	if upper {
		s = strings.ToUpper(s)
	}
	return s
}

// Long converts a double to a C long the way x86-64 does: truncation, and
// 0x8000000000000000 for NaN and anything out of range.
func Long(f float64) int64 {
	if math.IsNaN(f) || f >= 9223372036854775808.0 || f < -9223372036854775808.0 {
		return math.MinInt64
	}
	return int64(f)
}

// ULong converts a double to a C unsigned long as gcc compiles the cast on
// x86-64: below 2^63 (NaN included: the comparison is unordered) it is the
// signed conversion, so negative numbers wrap and NaN or anything below
// -2^63 gives 0x8000000000000000; from 2^63 on it is the signed conversion
// of n - 2^63 with the top bit flipped, which is 0 once n >= 2^64.
// lualib's truncUint64 (verify/lualib) is the same cast for struct.
func ULong(f float64) uint64 {
	if !(f >= 9223372036854775808.0) {
		return uint64(Long(f))
	}
	return uint64(Long(f-9223372036854775808.0)) ^ (1 << 63)
}

// Int converts a double to a C int on x86-64: truncation, and INT_MIN
// for NaN and anything out of range.
func Int(f float64) int32 {
	if !(f > -2147483649.0 && f < 2147483648.0) {
		return math.MinInt32
	}
	return int32(f)
}

// D2string is Redis 7.2's d2string (util.c), which addReplyDouble uses from
// 7.2 on: "nan", "inf", "-inf", "0" and "-0" spelled out, an integral value
// double2ll accepts (within +-2^62) as an integer, anything else as
// fpconv_dtoa writes it.
func D2string(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case f == 0:
		if math.Signbit(f) {
			return "-0"
		}
		return "0"
	case f >= -(1<<62) && f <= 1<<62 && f == math.Trunc(f):
		return strconv.FormatInt(int64(f), 10)
	}
	return Dtoa(f)
}
