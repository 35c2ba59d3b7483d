package crmath

import "math"

// Atan and Atan2 are glibc's atan and atan2 (sysdeps/ieee754/dbl-64/s_atan.c
// and e_atan2.c, the IBM Accurate Mathematical Library without its slow
// paths, which glibc 2.35 dropped) as x86-64's libm runs them on a CPU with
// FMA: its ifunc picks the copies built with -mfma -mavx2, where gcc fuses
// a product into the addition after it. Each math.FMA below stands where
// gcc 12 put one; float64(a*b) is a product it left unfused. The results
// are within an ulp of atan's, but not always the nearer double.

// The constants of atnat.h and atnat2.h.
const (
	atanD3      = -0x1.5555555555555p-2 // the odd polynomial of atan near 0
	atanD5      = 0x1.99999999997fdp-3
	atanD7      = -0x1.24924923f7603p-3
	atanD9      = 0x1.c71c6e5129a3bp-4
	atanD11     = -0x1.7458022b13c25p-4
	atanD13     = 0x1.375f08b31cbcep-4
	atanA       = 0x1.bb67ap-27        // below it, atan x is x
	atanE       = 0x1.49ff2p+52        // from it on, atan x is pi/2
	atanHpi     = 0x1.921fb54442d18p+0 // pi/2 and the rest of it
	atanHpi1    = 0x1.1a62633145c07p-54
	atanOpi     = 0x1.921fb54442d18p+1 // pi and the rest of it
	atanOpi1    = 0x1.1a62633145c07p-53
	atanQpi     = 0x1.921fb54442d18p-1 // pi/4
	atanTqpi    = 0x1.2d97c7f3321d2p+1 // 3pi/4
	atanTwo52   = 0x1p52
	atanTwo500  = 0x1p500
	atanTwom500 = 0x1p-500
)

// atanPoly is the polynomial in v = x^2 of atan x = x + x v atanPoly(v).
func atanPoly(v float64) float64 {
	p := math.FMA(v, atanD13, atanD11)
	p = math.FMA(v, p, atanD9)
	p = math.FMA(v, p, atanD7)
	p = math.FMA(v, p, atanD5)
	return math.FMA(v, p, atanD3)
}

// atanRow is the row of atanCij for u in [1/16, 1]: nearest 256u, less 16.
func atanRow(u float64) *[7]float64 {
	return &atanCij[int(math.FMA(u, 256, atanTwo52)-atanTwo52)-16]
}

// atanTaylor is the Taylor polynomial of row c at z, from its z^1 term up,
// over z: atan(x0 + z) = atan(x0) + z atanTaylor(c, z).
func atanTaylor(c *[7]float64, z float64) float64 {
	p := math.FMA(c[6], z, c[5])
	p = math.FMA(z, p, c[4])
	p = math.FMA(z, p, c[3])
	return math.FMA(z, p, c[2])
}

// Atan is atan x as glibc 2.36's x86-64 FMA build computes it (Debian 12,
// built with GCC 12).
func Atan(x float64) float64 { return atan(x, false) }

// AtanFused is atan x as glibc 2.41 and later compute it when built with
// GCC 14 or later (Debian 13 and unstable): the same C, but the compiler
// fuses two more products for 16 <= |x| < 2^52.4, so about one result in
// a million between 16 and 64 is an ulp from Atan's.
func AtanFused(x float64) float64 { return atan(x, true) }

func atan(x float64, fused bool) float64 {
	if math.IsNaN(x) {
		return x + x
	}
	u := math.Abs(x)
	switch {
	case u < 0x1p-4:
		if u < atanA {
			return x
		}
		v := x * x
		return math.FMA(x*v, atanPoly(v), x)
	case u < 1:
		c := atanRow(u)
		z := u - c[0]
		return math.Copysign(math.FMA(z, atanTaylor(c, z), c[1]), x)
	case u < 16:
		// w = 1/u plus its rounding error ww = w(1 - uw); atan u is
		// pi/2 - atan(w + ww).
		w := 1 / u
		t1 := float64(u * w)
		t2 := math.FMA(u, w, -t1)
		c := atanRow(w)
		z := math.FMA((1-t1)-t2, w, w-c[0])
		yy := math.FMA(-z, atanTaylor(c, z), atanHpi1)
		return math.Copysign(yy+(atanHpi-c[1]), x)
	case u < atanE:
		w := 1 / u
		v := w * w
		t1 := float64(u * w)
		t2 := math.FMA(u, w, -t1)
		t3 := atanHpi - w
		cor := (atanHpi - t3) - w // hpi - w as t3 + cor exactly
		var yy float64
		if fused {
			yy = math.FMA(-float64(w*v), atanPoly(v), math.FMA(-((1-t1)-t2), w, cor+atanHpi1))
		} else {
			yy = float64(w * v * atanPoly(v))
			ww := float64(((1 - t1) - t2) * w)
			yy = ((cor + atanHpi1) - ww) - yy
		}
		return math.Copysign(t3+yy, x)
	}
	return math.Copysign(atanHpi, x)
}

// Atan2 is atan2(y, x) as glibc computes it, C99's special cases included.
func Atan2(y, x float64) float64 {
	switch {
	case math.IsNaN(x): // glibc's x + y is x's NaN, quiet
		return x + x
	case math.IsNaN(y):
		return y + y
	case y == 0:
		if math.Signbit(x) {
			return math.Copysign(atanOpi, y)
		}
		return y
	case x == 0:
		return math.Copysign(atanHpi, y)
	case math.IsInf(x, 0):
		switch {
		case math.IsInf(y, 0) && x > 0:
			return math.Copysign(atanQpi, y)
		case math.IsInf(y, 0):
			return math.Copysign(atanTqpi, y)
		case x > 0:
			return math.Copysign(0, y)
		}
		return math.Copysign(atanOpi, y)
	case math.IsInf(y, 0):
		return math.Copysign(atanHpi, y)
	}
	// The exponents' difference, 57 binades or more either way.
	de := int32(math.Float64bits(y)>>32)&0x7ff00000 - int32(math.Float64bits(x)>>32)&0x7ff00000
	if de >= 57<<20 {
		return math.Copysign(atanHpi, y)
	}
	ax, ay := math.Abs(x), math.Abs(y)
	if de <= -57<<20 {
		if x > 0 {
			return math.Copysign(ay/ax, y)
		}
		return math.Copysign(atanOpi, y)
	}
	if ax < atanTwom500 || ay < atanTwom500 {
		ax *= atanTwo500
		ay *= atanTwo500
	}
	if ax > atanTwo500 || ay > atanTwo500 {
		ax *= atanTwom500
		ay *= atanTwom500
	}
	// u + du is the smaller over the larger to about twice the precision.
	var u, du float64
	if ay < ax {
		u = ay / ax
		v := float64(ax * u)
		du = ((ay - v) - math.FMA(ax, u, -v)) / ax
	} else {
		u = ax / ay
		v := float64(ay * u)
		du = ((ax - v) - math.FMA(ay, u, -v)) / ay
	}
	var z float64
	switch {
	case x > 0 && ay < ax: // atan u
		z = atan2Small(u, du)
	case x > 0: // pi/2 - atan u
		z = atan2Sub(atanHpi, atanHpi1, u, du)
	case ax < ay: // pi/2 + atan u
		if u < 0x1p-4 {
			v := u * u
			zz := float64(v * u * atanPoly(v))
			t2 := atanHpi + u
			cor := (atanHpi - t2) + u // hpi > u: t2 + cor is hpi + u exactly
			z = t2 + (((cor + atanHpi1) + du) + zz)
		} else {
			c := atanRow(u)
			v := (u - c[0]) + du
			z = math.FMA(atanTaylor(c, v), v, atanHpi1) + (c[1] + atanHpi)
		}
	default: // pi - atan u
		z = atan2Sub(atanOpi, atanOpi1, u, du)
	}
	return math.Copysign(z, y)
}

// atan2Small is atan(u + du) for u < 1.
func atan2Small(u, du float64) float64 {
	if u < 0x1p-4 {
		v := u * u
		return u + math.FMA(u*v, atanPoly(v), du)
	}
	c := atanRow(u)
	t3 := u - c[0]
	v := du + t3 // t3 + du as v + dv
	var dv float64
	if math.Abs(t3) > math.Abs(du) {
		dv = (t3 - v) + du
	} else {
		dv = (du - v) + t3
	}
	p := math.FMA(math.FMA(math.FMA(c[6], v, c[5]), v, c[4]), v, c[3])
	zz := math.FMA(v, c[2], math.FMA(dv, c[2], v*v*p))
	return c[1] + zz
}

// atan2Sub is (hi + lo) - atan(u + du) for u <= 1, hi + lo pi/2 or pi.
func atan2Sub(hi, lo, u, du float64) float64 {
	if u < 0x1p-4 {
		v := u * u
		zz := float64(u * v * atanPoly(v))
		t2 := hi - u
		cor := (hi - t2) - u // hi > u: t2 + cor is hi - u exactly
		return t2 + (((cor + lo) - du) - zz)
	}
	c := atanRow(u)
	v := (u - c[0]) + du
	return math.FMA(-atanTaylor(c, v), v, lo) + (hi - c[1])
}
