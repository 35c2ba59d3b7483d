// Package cnum reads numbers as the C library does: glibc's strtod
// (decimal, hexadecimal, inf, nan) and Lua 5.1's luaO_str2d over it. Both
// Lua's tonumber and Redis's commands read numbers this way; this leaf
// knows nothing of either.
package cnum

import (
	"math"
	"strconv"
	"strings"
)

// Str2d is Lua 5.1's luaO_str2d: strtod over the whole string (up to its
// first NUL byte), white space allowed around the number.
func Str2d(s string) (float64, bool) {
	if v, ok := smallInteger(s); ok {
		return v, true
	}
	return str2d(s)
}

// str2d is Str2d without its fast path.
func str2d(s string) (float64, bool) {
	if i := strings.IndexByte(s, 0); i >= 0 {
		s = s[:i]
	}
	f, n := Strtod(s)
	if n == 0 {
		return 0, false
	}
	if n < len(s) && (s[n] == 'x' || s[n] == 'X') {
		// "0x" without digits: strtod stopped before the x; Lua retries
		// with strtoul base 16, which fails the same way.
		return 0, false
	}
	for n < len(s) && isSpace(s[n]) {
		n++
	}
	return f, n == len(s)
}

// smallInteger reads s when it is only decimal digits, at most 15 of them:
// an integer below 2^53, which strtod reads exactly, so the value is the
// same. Most numerals and numeric arguments are such.
func smallInteger(s string) (float64, bool) {
	if len(s) == 0 || len(s) > 15 {
		return 0, false
	}
	v := int64(0)
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return 0, false
		}
		v = v*10 + int64(s[i]-'0')
	}
	return float64(v), true
}

// Strtod parses the longest prefix of s that glibc's strtod accepts and
// returns its value and length; n is 0 when nothing was parsed.
func Strtod(s string) (f float64, n int) {
	i := 0
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	sign := func(v float64) float64 {
		if neg {
			return -v
		}
		return v
	}
	rest := s[i:]
	switch {
	case hasPrefixFold(rest, "infinity"):
		return sign(math.Inf(1)), i + 8
	case hasPrefixFold(rest, "inf"):
		return sign(math.Inf(1)), i + 3
	case hasPrefixFold(rest, "nan"):
		j := i + 3
		if j < len(s) && s[j] == '(' {
			k := j + 1
			for k < len(s) && (isDigit(s[k]) || s[k]|0x20 >= 'a' && s[k]|0x20 <= 'z' || s[k] == '_') {
				k++
			}
			if k < len(s) && s[k] == ')' {
				j = k + 1
			}
		}
		return sign(math.Float64frombits(0x7FF8000000000000)), j
	}
	if hasPrefixFold(rest, "0x") {
		start := i + 2
		j, digits := mantissa(s, start, isHex)
		if digits > 0 {
			mant := s[start:j]
			exp := "p0"
			if j < len(s) && (s[j] == 'p' || s[j] == 'P') {
				k := j + 1
				if k < len(s) && (s[k] == '+' || s[k] == '-') {
					k++
				}
				if k < len(s) && isDigit(s[k]) {
					for k < len(s) && isDigit(s[k]) {
						k++
					}
					exp = "p" + s[j+1:k]
					j = k
				}
			}
			if mant[0] == '.' {
				mant = "0" + mant
			}
			v, _ := strconv.ParseFloat("0x"+mant+exp, 64)
			return sign(v), j
		}
		// "0x" alone: the "0" is the number.
		return sign(0), i + 1
	}
	j, digits := mantissa(s, i, isDigit)
	if digits == 0 {
		return 0, 0
	}
	if j < len(s) && (s[j] == 'e' || s[j] == 'E') {
		k := j + 1
		if k < len(s) && (s[k] == '+' || s[k] == '-') {
			k++
		}
		if k < len(s) && isDigit(s[k]) {
			for k < len(s) && isDigit(s[k]) {
				k++
			}
			j = k
		}
	}
	v, _ := strconv.ParseFloat(s[i:j], 64) // ErrRange keeps ±Inf or 0, as strtod
	return sign(v), j
}

// mantissa scans digits[.digits] from s[i] and returns where it ends and
// how many digits it holds.
func mantissa(s string, i int, isDig func(byte) bool) (end, digits int) {
	j := i
	for j < len(s) && isDig(s[j]) {
		j++
	}
	digits = j - i
	if j < len(s) && s[j] == '.' {
		j++
		k := j
		for j < len(s) && isDig(s[j]) {
			j++
		}
		digits += j - k
	}
	return j, digits
}

func isSpace(c byte) bool {
	return c == ' ' || (c >= '\t' && c <= '\r')
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isHex(c byte) bool {
	return isDigit(c) || (c|0x20 >= 'a' && c|0x20 <= 'f')
}

func hasPrefixFold(s, p string) bool {
	return len(s) >= len(p) && strings.EqualFold(s[:len(p)], p)
}
