package crmath

import "math"

// expm1 is e^x - 1 as glibc computes it (its dbl-64 s_expm1.c): fdlibm's
// algorithm, but the polynomial of the reduced argument in Estrin's form
// (three pairs of terms) rather than fdlibm's Horner form, which Go's
// math.Expm1 keeps. The two round differently now and then, and sinh,
// cosh and tanh of small arguments go through it. The fused multiply-adds
// are those of its x86-64 -mfma build (multiarch s_expm1-fma.c, glibc 2.39
// on, backported to Debian 12's 2.36 in 2.36-9+deb12u10), which the libm
// picks on a CPU with FMA: an older build without it rounds differently
// about once in a thousand.
func expm1(x float64) float64 {
	const (
		oThreshold = 7.09782712893383973096e+02
		ln2Hi      = 6.93147180369123816490e-01
		ln2Lo      = 1.90821492927058770002e-10
		invLn2     = 1.44269504088896338700e+00
		q1         = -3.33333333333331316428e-02
		q2         = 1.58730158725481460165e-03
		q3         = -7.93650757867487942473e-05
		q4         = 4.00821782732936239552e-06
		q5         = -2.01099218183624371326e-07
	)
	hx := uint32(math.Float64bits(x) >> 32)
	neg := hx&0x80000000 != 0
	hx &= 0x7fffffff
	if hx >= 0x4043687a { // |x| >= 56 ln2
		if hx >= 0x40862e42 {
			if hx >= 0x7ff00000 {
				if math.IsNaN(x) {
					return x + x
				}
				if neg {
					return -1
				}
				return x
			}
			if x > oThreshold {
				return math.Inf(1)
			}
		}
		if neg {
			return -1
		}
	}
	var hi, lo, c float64
	var k int
	switch {
	case hx > 0x3fd62e42: // |x| > ln2/2
		if hx < 0x3ff0a2b2 { // and |x| < 3 ln2/2
			if !neg {
				hi, lo, k = x-ln2Hi, ln2Lo, 1
			} else {
				hi, lo, k = x+ln2Hi, -ln2Lo, -1
			}
		} else {
			h := 0.5
			if neg {
				h = -0.5
			}
			k = int(invLn2*x + h)
			t := float64(k)
			hi = math.FMA(-t, ln2Hi, x) // t*ln2Hi is exact: x - t*ln2Hi
			lo = t * ln2Lo
		}
		x = hi - lo
		c = (hi - x) - lo
	case hx < 0x3c900000: // |x| < 2^-54
		return x
	}
	hfx := 0.5 * x
	hxs := x * hfx
	h2 := hxs * hxs
	h4 := h2 * h2
	r1 := math.FMA(h4, math.FMA(hxs, q5, q4), math.FMA(h2, math.FMA(hxs, q3, q2), math.FMA(hxs, q1, 1)))
	t := math.FMA(-r1, hfx, 3)
	e := hxs * ((r1 - t) / math.FMA(-x, t, 6))
	if k == 0 {
		return x - math.FMA(x, e, -hxs)
	}
	e = math.FMA(x, e-c, -c)
	e -= hxs
	switch {
	case k == -1:
		return math.FMA(0.5, x-e, -0.5)
	case k == 1:
		if x < -0.25 {
			return -2 * (e - (x + 0.5))
		}
		return math.FMA(2, x-e, 1)
	case k <= -2 || k > 56:
		y := 1 - (e - x)
		return addExp(y, k) - 1
	case k < 20:
		t := math.Float64frombits(uint64(0x3ff00000-(0x200000>>k)) << 32) // 1 - 2^-k
		return addExp(t-(e-x), k)
	}
	t = math.Float64frombits(uint64(0x3ff-k) << 52) // 2^-k
	y := x - (e + t)
	y += 1
	return addExp(y, k)
}

// addExp adds k to the exponent field of y (y 2^k for a normal result).
func addExp(y float64, k int) float64 {
	return math.Float64frombits(math.Float64bits(y) + uint64(int64(k))<<52)
}
