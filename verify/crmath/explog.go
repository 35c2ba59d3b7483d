package crmath

import "math"

// Exp, Log and Pow are glibc's exp, log and pow (sysdeps/ieee754/dbl-64
// e_exp.c, e_log.c, e_pow.c: Arm's optimized-routines algorithms, glibc's
// since 2.28, with the tables of glibc_tables.go) as the x86-64 libm runs
// them on a CPU with FMA: its ifunc picks the build compiled with -mfma
// -mavx2 (sysdeps/x86_64/fpu/multiarch e_exp-fma.c and so on), where
// __FP_FAST_FMA holds and gcc contracts each a*b+c whose product has no
// other use into one fused multiply-add. The fused operations below are
// exactly those of that build (read from its machine code); a product
// that must be rounded before it is added is written float64(a*b), which
// keeps Go from fusing it on GOAMD64=v3. The source and the tables are the
// same in glibc 2.36, 2.41 and 2.42, and so are the results, bit for bit:
// correctly rounded except within about 0.01 ulp of a tie between two
// doubles, where each rounds its own way. NaN results are Go's NaN.

func top12(x float64) uint32 { return uint32(math.Float64bits(x) >> 52) }

// Exp is glibc's exp.
func Exp(x float64) float64 {
	abstop := top12(x) & 0x7ff
	if abstop-0x3c9 >= 0x408-0x3c9 { // |x| < 2^-54 or |x| >= 512, or not finite
		if abstop < 0x3c9 {
			return 1 + x
		}
		if abstop >= 0x409 { // |x| >= 1024
			switch {
			case math.IsInf(x, -1):
				return 0
			case abstop >= 0x7ff:
				return 1 + x
			case x < 0:
				return 0
			}
			return math.Inf(1)
		}
		abstop = 0 // may overflow or underflow: expSpecial
	}
	kd := math.FMA(x, expInvLn2N, expShift)
	ki := math.Float64bits(kd)
	kd -= expShift
	r := math.FMA(kd, expNegLn2hiN, x)
	r = math.FMA(kd, expNegLn2loN, r)
	return expTail(r, ki, 0, abstop == 0)
}

// expTail is 2^(ki/128) e^r, negated when signBias is set, from the
// table and the polynomial: the end of e_exp.c's __exp and e_pow.c's
// exp_inline.
func expTail(r float64, ki uint64, signBias uint64, special bool) float64 {
	idx := 2 * (ki % 128)
	top := (ki + signBias) << 45
	tail := math.Float64frombits(expTab[idx])
	sbits := expTab[idx+1] + top
	r2 := r * r
	tmp := math.FMA(r2*r2, math.FMA(r, expPoly[3], expPoly[2]),
		math.FMA(math.FMA(r, expPoly[1], expPoly[0]), r2, tail+r))
	if special {
		return expSpecial(tmp, sbits, ki)
	}
	scale := math.Float64frombits(sbits)
	return math.FMA(scale, tmp, scale)
}

// expSpecial is scale (1 + tmp) where it may overflow or underflow
// (e_pow.c's specialcase; e_exp.c's is the same for a positive result).
func expSpecial(tmp float64, sbits, ki uint64) float64 {
	if ki&0x80000000 == 0 { // k > 0: scale's exponent may have overflowed
		sbits -= 1009 << 52
		scale := math.Float64frombits(sbits)
		return 0x1p1009 * math.FMA(scale, tmp, scale)
	}
	sbits += 1022 << 52
	scale := math.Float64frombits(sbits)
	st := float64(scale * tmp) // computed once, not fused
	y := scale + st
	if math.Abs(y) < 1 {
		// Round to the precision of the subnormal result before scaling.
		one := 1.0
		if y < 0 {
			one = -1
		}
		lo := scale - y + st
		hi := one + y
		lo = one - hi + y + lo
		y = (hi + lo) - one
		if y == 0 {
			y = math.Float64frombits(sbits & (1 << 63))
		}
	}
	return 0x1p-1022 * y
}

// Log is glibc's log; a negative x gives a NaN.
func Log(x float64) float64 {
	ix := math.Float64bits(x)
	top := uint32(ix >> 48)
	const lo, hi = 0x3fee000000000000, 0x3ff1090000000000 // 1 - 2^-4, 1 + 0x1.09p-4
	if ix-lo < hi-lo {
		if x == 1 {
			return 0
		}
		b := &logPoly1
		r := x - 1
		r2 := r * r
		r3 := r * r2
		p := math.FMA(r3, math.FMA(r3, math.FMA(r3, b[10], math.FMA(r2, b[9], math.FMA(r, b[8], b[7]))),
			math.FMA(r2, b[6], math.FMA(r, b[5], b[4]))), math.FMA(r2, b[3], math.FMA(r, b[2], b[1])))
		// r = rhi + rlo, rhi with 26 bits: rhi^2 and the products by
		// b[0] = -0.5 are exact.
		w := r * 0x1p27
		rhi := r + w - w
		rlo := r - rhi
		w = rhi * rhi * b[0]
		h := r + w
		l := r - h + w
		l = math.FMA(b[0]*rlo, rhi+r, l)
		return math.FMA(r3, p, l) + h
	}
	if top-0x0010 >= 0x7ff0-0x0010 { // below 2^-1022, negative, or not finite
		switch {
		case ix<<1 == 0:
			return math.Inf(-1)
		case math.IsInf(x, 1) || math.IsNaN(x):
			return x
		case top&0x8000 != 0:
			return math.NaN()
		}
		ix = math.Float64bits(x*0x1p52) - 52<<52 // subnormal
	}
	// x = 2^k z, z in [0x1.6p-1, 0x1.6p0) near the ith table entry's c.
	tmp := ix - 0x3fe6000000000000
	i := (tmp >> 45) % 128
	k := int64(tmp) >> 52
	z := math.Float64frombits(ix - tmp&(0xfff<<52))
	invc, logc := logTab[i][0], logTab[i][1]
	r := math.FMA(z, invc, -1)
	kd := float64(k)
	w := math.FMA(kd, logLn2hi, logc)
	h := w + r
	l := math.FMA(kd, logLn2lo, w-h+r)
	r2 := r * r
	a := &logPoly
	p := math.FMA(r2, math.FMA(r, a[4], a[3]), math.FMA(r, a[2], a[1]))
	return math.FMA(r*r2, p, math.FMA(r2, a[0], l)) + h
}

// Pow is x^y as glibc's pow computes it, with C99's special cases.
func Pow(x, y float64) float64 {
	switch {
	case y == 0 || x == 1:
		return 1
	case math.IsNaN(x) || math.IsNaN(y) || math.IsInf(x, 0) || math.IsInf(y, 0) || x == 0:
		return math.Pow(x, y) // exact: 0, 1, Inf, or a NaN
	}
	ix, iy := math.Float64bits(x), math.Float64bits(y)
	topx, topy := top12(x), top12(y)
	var signBias uint64
	if ix>>63 != 0 {
		switch checkInt(iy) {
		case 0:
			return math.NaN()
		case 1:
			signBias = 0x800 << 7
		}
		ix &= 1<<63 - 1
		topx &= 0x7ff
	}
	if (topy&0x7ff)-0x3be >= 0x43e-0x3be { // |y| < 2^-65 or |y| >= 2^63
		if ix == 0x3ff0000000000000 {
			return 1
		}
		if topy&0x7ff < 0x3be {
			if ix > 0x3ff0000000000000 {
				return 1 + y
			}
			return 1 - y
		}
		if (ix > 0x3ff0000000000000) == (topy < 0x800) {
			return math.Inf(1)
		}
		return 0
	}
	if topx == 0 { // subnormal x: normalize, the exponent goes negative
		ix = math.Float64bits(math.Abs(x)*0x1p52) - 52<<52
	}
	hi, lo := powLog(ix)
	ehi := y * hi
	elo := math.FMA(y, lo, math.FMA(y, hi, -ehi))
	return powExp(ehi, elo, signBias)
}

// checkInt is 0 for a non-integral y, 1 for an odd and 2 for an even one,
// from y's bits (y finite and not zero).
func checkInt(iy uint64) int {
	e := int(iy >> 52 & 0x7ff)
	switch {
	case e < 0x3ff:
		return 0
	case e > 0x3ff+52:
		return 2
	case iy&(1<<(0x3ff+52-e)-1) != 0:
		return 0
	case iy&(1<<(0x3ff+52-e)) != 0:
		return 1
	}
	return 2
}

// powLog is ln x as hi + lo, lo carrying about 15 bits more, from x's bits
// (a subnormal's normalized with a negative exponent): e_pow.c's
// log_inline.
func powLog(ix uint64) (hi, lo float64) {
	tmp := ix - 0x3fe6955500000000
	i := (tmp >> 45) % 128
	k := int64(tmp) >> 52
	z := math.Float64frombits(ix - tmp&(0xfff<<52))
	kd := float64(k)
	t := &powTab[i]
	invc, logc, logctail := t[0], t[1], t[2]
	r := math.FMA(z, invc, -1) // exact
	t1 := math.FMA(kd, powLn2hi, logc)
	t2 := t1 + r
	lo1 := math.FMA(kd, powLn2lo, logctail)
	lo2 := t1 - t2 + r
	a := &powPoly
	ar := a[0] * r         // a[0] = -0.5
	ar2 := float64(r * ar) // not fused into hi or lo4
	ar3 := r * ar2
	hi = t2 + ar2
	lo3 := math.FMA(ar, r, -ar2)
	lo4 := t2 - hi + ar2
	q := math.FMA(ar2, math.FMA(ar2, math.FMA(r, a[6], a[5]), math.FMA(r, a[4], a[3])), math.FMA(r, a[2], a[1]))
	l := math.FMA(ar3, q, lo1+lo2+lo3+lo4)
	y := hi + l
	return y, hi - y + l
}

// powExp is e^(x + xtail), negated when signBias is set: e_pow.c's
// exp_inline.
func powExp(x, xtail float64, signBias uint64) float64 {
	abstop := top12(x) & 0x7ff
	if abstop-0x3c9 >= 0x408-0x3c9 {
		if abstop < 0x3c9 {
			one := 1 + x
			if signBias != 0 {
				return -one
			}
			return one
		}
		if abstop >= 0x409 {
			r := math.Inf(1)
			if x < 0 {
				r = 0
			}
			if signBias != 0 {
				return -r
			}
			return r
		}
		abstop = 0
	}
	kd := math.FMA(x, expInvLn2N, expShift)
	ki := math.Float64bits(kd)
	kd -= expShift
	r := math.FMA(kd, expNegLn2hiN, x)
	r = math.FMA(kd, expNegLn2loN, r)
	r += xtail
	return expTail(r, ki, signBias, abstop == 0)
}

// Log10 is glibc's __ieee754_log10 (sysdeps/ieee754/dbl-64/e_log10.c, the
// same in 2.36 to 2.42 and built without FMA): k log10(2) + log(m)/ln(10)
// in double arithmetic over its log, exact for powers of ten. A negative x
// gives a NaN.
func Log10(x float64) float64 {
	const (
		ivln10    = 4.34294481903251816668e-01
		log10_2hi = 3.01029995663611771306e-01
		log10_2lo = 3.69423907715893078616e-13
	)
	switch {
	case x == 0:
		return math.Inf(-1)
	case x < 0:
		return math.NaN()
	case math.IsNaN(x) || math.IsInf(x, 1):
		return x
	}
	k := 0
	if x < 0x1p-1022 {
		k -= 54
		x *= 0x1p54
	}
	b := math.Float64bits(x)
	hx := int32(b >> 32)
	k += int(hx>>20) - 1023
	i := int32(uint32(k) >> 31)
	hx = (hx & 0x000fffff) | ((0x3ff - i) << 20)
	y := float64(int32(k) + i)
	x = math.Float64frombits(uint64(uint32(hx))<<32 | b&0xffffffff)
	z := float64(y*log10_2lo) + float64(ivln10*Log(x))
	return z + float64(y*log10_2hi)
}
