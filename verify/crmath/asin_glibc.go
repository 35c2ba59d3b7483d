package crmath

import "math"

// Asin and Acos are glibc's asin and acos (sysdeps/ieee754/dbl-64/e_asin.c,
// the IBM Accurate Mathematical Library without its slow paths) as
// x86-64's libm runs them on a CPU with FMA, fused as gcc 12 fuses them
// (see atan_glibc.go). Between 0.125 and 0.96875 they evaluate a
// polynomial around a point of asncs; above, asin x = pi/2 - 2 asin
// sqrt((1-x)/2), that square root from asinInroot and two Newton steps.

// The constants of uasncs.h.
const (
	asinF1  = 0x1.55555555554f9p-3 // asin's odd series: x + x^3 (f1 + f2 x^2 ...)
	asinF2  = 0x1.333333336127dp-4
	asinF3  = 0x1.6db6dae42c0e4p-5
	asinF4  = 0x1.f1c7e04f4ad99p-6
	asinF5  = 0x1.6e442c822d419p-6
	asinF6  = 0x1.292d80f453c72p-6
	asinRt0 = 0x1.fffffffecc1ddp-1 // 1/sqrt(1 - r) ~ rt0 + r(rt1 + r(rt2 + r rt3))
	asinRt1 = 0x1.fffffff757304p-2
	asinRt2 = 0x1.800496769c91ap-2
	asinRt3 = 0x1.4006318d1dab9p-2
	asinHp0 = atanHpi // pi/2 and the rest of it
	asinHp1 = atanHpi1
)

// domainNaN is what glibc's asin and acos return for |x| > 1: their
// wrappers' positive quiet NaN (SVID's __kernel_standard), not the
// invalid operation's negative one.
func domainNaN() float64 { return math.Float64frombits(0x7ff8000000000000) }

// asinSeries is f1 + f2 v + ... + f6 v^5.
func asinSeries(v float64) float64 {
	p := math.FMA(v, asinF6, asinF5)
	p = math.FMA(p, v, asinF4)
	p = math.FMA(p, v, asinF3)
	p = math.FMA(p, v, asinF2)
	return math.FMA(p, v, asinF1)
}

// asinRow is where |x|'s row of asncs starts for 0.125 <= |x| < 0.96875
// (k the high word of |x|), and the degree of its polynomial.
func asinRow(k int32) (n, deg int) {
	switch {
	case k < 0x3fd00000: // [0.125, 0.25)
		return 11 * int(k&0xfffff>>15), 4
	case k < 0x3fe00000: // [0.25, 0.5)
		return 11*int(k&0xfffff>>14) + 352, 4
	case k < 0x3fe80000: // [0.5, 0.75)
		return 1056 + int(k&0xfe000>>11)*3, 5
	case k < 0x3fed8000: // [0.75, 0.921875)
		return 992 + int(k&0xfe000>>13)*13, 6
	case k < 0x3fee8000: // [0.921875, 0.953125)
		return 884 + int(k&0xfe000>>13)*14, 7
	}
	return 768 + int(k&0xfe000>>13)*15, 8 // [0.953125, 0.96875)
}

// asinTable is asin|x| - asin x0 for asncs's row n, and asin x0 (the
// row's x0, its derivative there, the polynomial's coefficients from x^2
// up, the correction to asin x0 and asin x0 itself).
func asinTable(ax float64, n, deg int) (t, a0 float64) {
	c := asncs[n : n+deg+5]
	xx := ax - c[0]
	p := c[deg+2]
	for i := deg + 1; i >= 2; i-- {
		p = math.FMA(p, xx, c[i])
	}
	return math.FMA(c[1], xx, math.FMA(xx*xx, p, c[deg+3])), c[deg+4]
}

// asinSqrtHalf is y + cc = sqrt(z) for z = (1-|x|)/2 <= 1/64, y with its low
// 24 (asin) or 27 (acos) bits clear, and the terms both then need.
func asinSqrtHalf(z float64, forAcos bool) (y, cc float64) {
	k := int32(math.Float64bits(z) >> 32)
	t := asinInroot[k>>14&127] * float64(uint64(1)<<(511-k>>21))
	r := math.FMA(-(t * t), z, 1)
	t = float64(math.FMA(math.FMA(math.FMA(r, asinRt3, asinRt2), r, asinRt1), r, asinRt0) * t)
	c := float64(z * t)
	h := math.FMA(-(t * 0.5), c, 1.5) // c h is sqrt(z) to about 2^-60
	if forAcos {
		const t27 = 0x1p27
		y = math.FMA(-c, t27, math.FMA(c, t27, c))
	} else {
		const t24 = 0x1p24
		y = (c + t24) - t24
	}
	return y, math.FMA(-y, y, z) / math.FMA(h, c, y)
}

// Asin is asin x as glibc computes it; |x| > 1 gives a NaN.
func Asin(x float64) float64 {
	b := math.Float64bits(x)
	k := int32(b>>32) & 0x7fffffff
	ax := math.Abs(x)
	switch {
	case k < 0x3e500000: // |x| < 2^-26
		return x
	case k < 0x3fc00000: // |x| < 0.125
		x2 := x * x
		return math.FMA(asinSeries(x2), x*x2, x)
	case k < 0x3fef0000: // |x| < 0.96875
		n, deg := asinRow(k)
		t, a0 := asinTable(ax, n, deg)
		return math.Copysign(a0+t, x)
	case k < 0x3ff00000:
		z := 0.5 * (1 - ax)
		y, cc := asinSqrtHalf(z, false)
		p := float64(asinSeries(z) * z)
		cor := math.FMA(-float64((y+cc)*2), p, math.FMA(-cc, 2, asinHp1))
		return math.Copysign(cor+math.FMA(-y, 2, asinHp0), x)
	case ax == 1:
		return math.Copysign(asinHp0, x)
	case math.IsNaN(x):
		return x + x
	}
	return domainNaN()
}

// Acos is acos x as glibc computes it; |x| > 1 gives a NaN.
func Acos(x float64) float64 {
	b := math.Float64bits(x)
	k := int32(b>>32) & 0x7fffffff
	ax := math.Abs(x)
	switch {
	case k < 0x3c880000: // |x| < 2^-55
		return asinHp0
	case k < 0x3fc00000: // |x| < 0.125
		x2 := x * x
		r := asinHp0 - x
		cor := math.FMA(-asinSeries(x2), x*x2, ((asinHp0-r)-x)+asinHp1)
		return r + cor
	case k < 0x3fef0000: // |x| < 0.96875
		n, deg := asinRow(k)
		t, a0 := asinTable(ax, n, deg)
		if x > 0 {
			return (asinHp1 - t) + (asinHp0 - a0)
		}
		return (t + asinHp1) + (a0 + asinHp0)
	case k < 0x3ff00000:
		z := 0.5 * (1 - ax)
		y, cc := asinSqrtHalf(z, true)
		pc := float64(float64(asinSeries(z)*z) * (y + cc))
		if x < 0 {
			res := ((asinHp1 - cc) - pc) + (asinHp0 - y)
			return res + res
		}
		res := y + (cc + pc)
		return res + res
	case x == 1:
		return 0
	case x == -1:
		return 2 * asinHp0
	case math.IsNaN(x):
		return x + x
	}
	return domainNaN()
}
