package crmath

import "math"

// Sin, Cos and Tan are glibc's (the IBM Accurate Mathematical Library's
// sysdeps/ieee754/dbl-64/s_sin.c, s_tan.c and branred.c, as they are
// since glibc 2.35 dropped their slow multi-precision paths), bit for bit
// as x86-64 servers run them: the variant compiled with -mfma -mavx2,
// where gcc fuses a*b+c into one rounding. The fused operations below are
// math.FMA exactly where gcc puts them; every other product is rounded on
// its own (float64(a*b)) so that no compiler may fuse it. glibc's results
// are within about 0.55 ulp (tan 0.62), not correctly rounded.

// Constants of s_sin.c (usncs.h) and s_tan.c (utan.h).
const (
	sinS1   = -0x1.5555555555555p-3
	sinS2   = 0x1.1111111110ECEp-7
	sinS3   = -0x1.A01A019DB08B8p-13
	sinS4   = 0x1.71DE27B9A7ED9p-19
	sinS5   = -0x1.ADDFFC2FCDF59p-26
	sinBig  = 0x1.8p45
	sinHp0  = 0x1.921FB54442D18p0
	sinHp1  = 0x1.1A62633145C07p-54
	sinMp1  = 0x1.921FB58p0
	sinMp2  = -0x1.DDE973Cp-27
	sinMp3  = -0x1.CB3B399D747F2p-55
	sinPp3  = -0x1.CB3B398p-55
	sinPp4  = -0x1.d747f23e32ed7p-83
	sinHpiv = 0x1.45F306DC9C883p-1
	sinToin = 0x1.8p52

	sinSn3 = -1.66666666666664880952546298448555e-01
	sinSn5 = 8.33333214285722277379541354343671e-03
	sinCs2 = 4.99999999999999999999950396842453e-01
	sinCs4 = -4.16666666666664434524222570944589e-02
	sinCs6 = 1.38888874007937613028114285595617e-03
)

// sincosLookup is the table row for |x| rounded to a multiple of 1/128:
// u is |x| + 1.5*2^45, whose low bits hold that multiple.
func sincosLookup(u float64) (sn, ssn, cs, ccs float64) {
	k := int(uint32(math.Float64bits(u))) << 2
	t := sincosTab[k : k+4 : k+4]
	return t[0], t[1], t[2], t[3]
}

// doCos is cos(x + dx) for |x| below about 0.86 (s_sin.c's do_cos).
func doCos(x, dx float64) float64 {
	if x < 0 {
		dx = -dx
	}
	ax := math.Abs(x)
	u := ax + sinBig
	x = (ax - (u - sinBig)) + dx
	xx := float64(x * x)
	s := math.FMA(float64(x*xx), math.FMA(xx, sinSn5, sinSn3), x)
	c := float64(xx * math.FMA(xx, math.FMA(xx, sinCs6, sinCs4), sinCs2))
	sn, ssn, cs, ccs := sincosLookup(u)
	cor := math.FMA(-s, ssn, ccs)
	cor = math.FMA(-c, cs, cor)
	cor = math.FMA(-s, sn, cor)
	return cs + cor
}

// doSin is sin(x + dx) for |x| below about 0.86 (s_sin.c's do_sin).
func doSin(x, dx float64) float64 {
	xold := x
	if math.Abs(x) < 0.126 {
		// TAYLOR_SIN
		xx := float64(x * x)
		p := math.FMA(xx, sinS5, sinS4)
		p = math.FMA(xx, p, sinS3)
		p = math.FMA(xx, p, sinS2)
		p = math.FMA(xx, p, sinS1)
		t := math.FMA(xx, math.FMA(p, x, -float64(dx*0.5)), dx)
		return x + t
	}
	if x <= 0 {
		dx = -dx
	}
	ax := math.Abs(x)
	u := ax + sinBig
	x = ax - (u - sinBig)
	xx := float64(x * x)
	s := x + math.FMA(float64(x*xx), math.FMA(xx, sinSn5, sinSn3), dx)
	c := math.FMA(x, dx, float64(xx*math.FMA(xx, math.FMA(xx, sinCs6, sinCs4), sinCs2)))
	sn, ssn, cs, ccs := sincosLookup(u)
	cor := math.FMA(s, ccs, ssn)
	cor = math.FMA(-c, sn, cor)
	cor = math.FMA(s, cs, cor)
	return math.Copysign(sn+cor, xold)
}

// reduceSinCos is x = n pi/2 + (a + da) for |x| below 105414350, n mod 4
// (s_sin.c's reduce_sincos).
func reduceSinCos(x float64) (a, da float64, n int) {
	t := math.FMA(x, sinHpiv, sinToin)
	xn := t - sinToin
	y := math.FMA(-xn, sinMp2, math.FMA(-xn, sinMp1, x))
	n = int(math.Float64bits(t) & 3)
	t2 := math.FMA(-xn, sinPp3, y)
	db := math.FMA(-xn, sinPp3, y-t2)
	b := math.FMA(-xn, sinPp4, t2)
	db += math.FMA(-xn, sinPp4, t2-b)
	return b, db, n
}

// doSinCos is sin(a + da + n pi/2).
func doSinCos(a, da float64, n int) float64 {
	var r float64
	if n&1 != 0 {
		r = doCos(a, da)
	} else {
		r = doSin(a, da)
	}
	if n&2 != 0 {
		return -r
	}
	return r
}

// Sin is sin x as glibc's libm computes it.
func Sin(x float64) float64 {
	k := uint32(math.Float64bits(x)>>32) & 0x7fffffff
	switch {
	case k < 0x3e500000: // |x| < 2^-26
		return x
	case k < 0x3feb6000: // |x| < 0.855469
		return doSin(x, 0)
	case k < 0x400368fd: // |x| < 2.426265
		return math.Copysign(doCos(sinHp0-math.Abs(x), sinHp1), x)
	case k < 0x419921FB: // |x| < 105414350
		a, da, n := reduceSinCos(x)
		return doSinCos(a, da, n)
	case k < 0x7ff00000:
		a, da, n := branred(x)
		return doSinCos(a, da, n)
	}
	return math.NaN()
}

// Cos is cos x as glibc's libm computes it.
func Cos(x float64) float64 {
	k := uint32(math.Float64bits(x)>>32) & 0x7fffffff
	switch {
	case k < 0x3e400000: // |x| < 2^-27
		return 1
	case k < 0x3feb6000:
		return doCos(x, 0)
	case k < 0x400368fd:
		y := sinHp0 - math.Abs(x)
		a := y + sinHp1
		da := (y - a) + sinHp1
		return doSin(a, da)
	case k < 0x419921FB:
		a, da, n := reduceSinCos(x)
		return doSinCos(a, da, n+1)
	case k < 0x7ff00000:
		a, da, n := branred(x)
		return doSinCos(a, da, n+1)
	}
	return math.NaN()
}
