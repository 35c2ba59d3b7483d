package keyspace

import (
	"math/big"
	"strconv"
	"strings"
)

// Long double arithmetic for INCRBYFLOAT and HINCRBYFLOAT. Redis computes in
// x86-64's 80-bit long double (64-bit mantissa, exponents to +-16383): the
// engine uses big.Float at 64 bits, rounding to nearest even, with the same
// overflow bound, so sums round exactly as the FPU does.

// Bounds of the 80-bit format, as big.Float exponents (x = m * 2^exp with
// 0.5 <= m < 1): at 2^16384 a value is infinite; under half the smallest
// subnormal (2^-16445) it rounds to zero.
const (
	ldMaxExp  = 16384
	ldZeroExp = -16445
)

func newLongDouble() *big.Float { return new(big.Float).SetPrec(64).SetMode(big.ToNearestEven) }

// parseLongDouble is Redis's string2ld: strtold over the whole argument (no
// leading space, no trailing bytes, no NUL), refusing NaN, overflow and an
// underflow to zero; "inf" and "infinity" are accepted, as are hexadecimal
// floats ("0x1.8p3"). Arguments of 5120 bytes or more are refused, as
// Redis's buffer does.
func parseLongDouble(s string) (*big.Float, bool) {
	if s == "" || len(s) >= 5*1024 || strings.IndexByte(s, 0) >= 0 || isCSpace(s[0]) {
		return nil, false
	}
	p, neg := s, false
	if p[0] == '+' || p[0] == '-' {
		neg, p = p[0] == '-', p[1:]
	}
	if l := strings.ToLower(p); l == "inf" || l == "infinity" {
		return newLongDouble().SetInf(neg), true
	}
	var x *big.Float
	var ok bool
	if len(p) > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X') {
		x, ok = parseHexLongDouble(p[2:])
	} else {
		x, ok = parseDecLongDouble(p)
	}
	if !ok {
		return nil, false
	}
	if neg {
		x.Neg(x)
	}
	return x, true
}

// scanDigits returns the length of the run of digits at the start of s.
func scanDigits(s string, hex bool) int {
	i := 0
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || hex && (s[i]|0x20 >= 'a' && s[i]|0x20 <= 'f')) {
		i++
	}
	return i
}

// splitFloat splits s into integer digits, fraction digits and the exponent
// after marker (e or p), which must be the whole rest of s. The exponent
// saturates at +-1e9, far past any finite long double.
func splitFloat(s string, hex bool, marker byte) (digits string, frac int, exp int64, ok bool) {
	n := scanDigits(s, hex)
	digits, s = s[:n], s[n:]
	if s != "" && s[0] == '.' {
		m := scanDigits(s[1:], hex)
		digits += s[1 : 1+m]
		frac, s = m, s[1+m:]
	}
	if digits == "" {
		return "", 0, 0, false
	}
	if s == "" {
		return digits, frac, 0, true
	}
	if s[0]|0x20 != marker {
		return "", 0, 0, false
	}
	s = s[1:]
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg, s = s[0] == '-', s[1:]
	}
	if s == "" || scanDigits(s, false) != len(s) {
		return "", 0, 0, false
	}
	for i := 0; i < len(s); i++ {
		if exp < 1e9 {
			exp = exp*10 + int64(s[i]-'0')
		}
	}
	if neg {
		exp = -exp
	}
	return digits, frac, exp, true
}

func parseDecLongDouble(s string) (*big.Float, bool) {
	digits, frac, exp, ok := splitFloat(s, false, 'e')
	if !ok {
		return nil, false
	}
	digits = strings.TrimLeft(digits, "0")
	if digits == "" {
		return newLongDouble(), true
	}
	// The value is 0.digits * 10^mag: beyond the format's range it is an
	// overflow or an underflow to zero without computing it.
	mag := exp - int64(frac) + int64(len(digits))
	if mag > 4933 {
		return nil, false
	}
	if mag < -4952 {
		return nil, false
	}
	x, _, err := newLongDouble().Parse(digits+"e"+strconv.FormatInt(exp-int64(frac), 10), 10)
	if err != nil {
		return nil, false
	}
	return x, inLongDoubleRange(x)
}

func parseHexLongDouble(s string) (*big.Float, bool) {
	digits, frac, exp, ok := splitFloat(s, true, 'p')
	if !ok {
		return nil, false
	}
	digits = strings.TrimLeft(digits, "0")
	if digits == "" {
		return newLongDouble(), true
	}
	mag := exp - 4*int64(frac) + 4*int64(len(digits))
	if mag > ldMaxExp+4 || mag < ldZeroExp-4 {
		return nil, false
	}
	m, _ := new(big.Int).SetString(digits, 16)
	x := newLongDouble().SetInt(m)
	return x.SetMantExp(x, int(exp-4*int64(frac))), inLongDoubleRange(x)
}

// inLongDoubleRange reports whether a parsed value is finite and not an
// underflow to zero in the 80-bit format.
func inLongDoubleRange(x *big.Float) bool {
	e := x.MantExp(nil)
	if e > ldMaxExp {
		return false
	}
	if e < ldZeroExp {
		return false // below half the smallest subnormal: rounds to zero
	}
	if e == ldZeroExp {
		// [2^-16446, 2^-16445): exactly half rounds to even (zero).
		half := new(big.Float).SetMantExp(big.NewFloat(0.5), ldZeroExp)
		return new(big.Float).Abs(x).Cmp(half) > 0
	}
	return true
}

// addLongDouble adds in the 80-bit format; false when the sum is infinite
// or NaN (an infinite operand makes it so).
func addLongDouble(x, y *big.Float) (*big.Float, bool) {
	if x.IsInf() || y.IsInf() {
		return nil, false
	}
	z := newLongDouble().Add(x, y)
	return z, z.MantExp(nil) <= ldMaxExp
}

// formatLongDouble is ld2string's LD_STR_HUMAN: "%.17Lf" without trailing
// zeros (nor a trailing point), and "-0" printed as "0".
func formatLongDouble(x *big.Float) string {
	s := x.Text('f', 17)
	if strings.IndexByte(s, '.') >= 0 {
		s = strings.TrimRight(s, "0")
		s = strings.TrimSuffix(s, ".")
	}
	if s == "-0" {
		s = "0"
	}
	return s
}
