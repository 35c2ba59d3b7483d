package crmath

import "math"

// Sinh, Cosh and Tanh are glibc's (__ieee754_sinh, __ieee754_cosh and
// __tanh of its dbl-64 e_sinh.c, e_cosh.c, s_tanh.c, fdlibm's) over
// glibc's exp (Exp) and expm1 (expm1.go): the same double arithmetic, so
// the same results. Their own products never fuse where it could matter
// (glibc 2.42's -mfma builds of sinh and tanh differ from the plain ones
// only in calling expm1's -mfma build directly). NaN results are Go's NaN.

func hiWord(x float64) int32 { return int32(math.Float64bits(x) >> 32) }

// overflowLow reports |x| at most fdlibm's overflow threshold
// 0x408633ce8fb9f87d, past which sinh and cosh overflow.
func belowOverflow(ix int32, x float64) bool {
	lx := uint32(math.Float64bits(x))
	return ix < 0x408633ce || (ix == 0x408633ce && lx <= 0x8fb9f87d)
}

// Sinh is glibc's sinh.
func Sinh(x float64) float64 {
	jx := hiWord(x)
	ix := jx & 0x7fffffff
	if ix >= 0x7ff00000 {
		return x + x
	}
	h := 0.5
	if jx < 0 {
		h = -h
	}
	ax := math.Abs(x)
	if ix < 0x40360000 { // |x| < 22
		if ix < 0x3e300000 { // |x| < 2^-28
			return x
		}
		t := expm1(ax)
		if ix < 0x3ff00000 {
			return h * (2.0*t - t*t/(t+1))
		}
		return h * (t + t/(t+1))
	}
	if ix < 0x40862e42 {
		return h * Exp(ax)
	}
	if belowOverflow(ix, x) {
		w := Exp(0.5 * ax)
		t := h * w
		return t * w
	}
	return x * 1.0e307
}

// Cosh is glibc's cosh.
func Cosh(x float64) float64 {
	ix := hiWord(x) & 0x7fffffff
	ax := math.Abs(x)
	if ix < 0x40360000 {
		if ix < 0x3fd62e43 {
			if ix < 0x3c800000 {
				return 1
			}
			t := expm1(ax)
			w := 1 + t
			return 1 + (t*t)/(w+w)
		}
		t := Exp(ax)
		return 0.5*t + 0.5/t
	}
	if ix < 0x40862e42 {
		return 0.5 * Exp(ax)
	}
	if belowOverflow(ix, x) {
		w := Exp(0.5 * ax)
		t := 0.5 * w
		return t * w
	}
	if ix >= 0x7ff00000 {
		return x * x
	}
	return math.Inf(1)
}

// Tanh is glibc's tanh.
func Tanh(x float64) float64 {
	jx := hiWord(x)
	ix := jx & 0x7fffffff
	if ix >= 0x7ff00000 {
		if jx >= 0 {
			return 1/x + 1
		}
		return 1/x - 1
	}
	var z float64
	if ix < 0x40360000 {
		if x == 0 {
			return x
		}
		if ix < 0x3c800000 {
			return x * (1 + x)
		}
		if ix >= 0x3ff00000 {
			t := expm1(2 * math.Abs(x))
			z = 1 - 2/(t+2)
		} else {
			t := expm1(-2 * math.Abs(x))
			z = -t / (t + 2)
		}
	} else {
		z = 1 - 1.0e-300
	}
	if jx >= 0 {
		return z
	}
	return -z
}
