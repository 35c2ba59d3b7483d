package crmath

import "math"

// Constants of s_tan.c (utan.h); its mp1, mp2, pp3, pp4, hpinv and toint
// are s_sin.c's.
const (
	tanD3  = 0x1.5555555555555p-2
	tanD5  = 0x1.11111111107c6p-3
	tanD7  = 0x1.ba1ba1cdb8745p-5
	tanD9  = 0x1.664ed49cfc666p-6
	tanD11 = 0x1.2385a3cf2e4eap-7
	tanE0  = 0x1.5555555554dbdp-2
	tanE1  = 0x1.11112e0a6b45fp-3
	tanMp3 = -0x1.cb3b399d747f2p-55

	tanG1 = 0x1.b096cp-27 // 1.259e-8
	tanG2 = 0x1.f212dp-5  // 0.0608
	tanG3 = 0x1.92f1ap-1  // 0.787
)

// tanPoly is t tan-series terms past the first: da + a^3 (d3 + a^2 (d5 +
// ...)) for |a| <= 0.0608.
func tanPoly(a, da float64) float64 {
	a2 := float64(a * a)
	t := math.FMA(a2, tanD11, tanD9)
	t = math.FMA(a2, t, tanD7)
	t = math.FMA(a2, t, tanD5)
	t = math.FMA(a2, t, tanD3)
	return math.FMA(float64(a*a2), t, da)
}

// eadd is dla.h's EADD: z + zz = x + y exactly.
func eadd(x, y float64) (z, zz float64) {
	z = x + y
	if math.Abs(x) > math.Abs(y) {
		return z, (x - z) + y
	}
	return z, (y - z) + x
}

// tanReduced is tan(a + da + n pi/2) for |a + da| <= pi/4 (the cases VI
// to XI of s_tan.c).
func tanReduced(a, da float64, n int) float64 {
	ya, yya, sy := a, da, 1.0
	if a < 0 {
		ya, yya, sy = -a, -da, -1
	}
	if ya <= tanG2 {
		t2 := tanPoly(a, da)
		b := a + t2
		if n == 0 {
			return b
		}
		// -cot: DIV2(1, 0, b, db) with MUL12 as one fused product.
		_, db := eadd(a, t2)
		c := 1 / b
		u := float64(c * b)
		uu := math.FMA(c, b, -u)
		cc := math.FMA(-db, c, ((1-u)-uu)+0) / b
		z := c + cc
		zz := (c - z) + cc
		return -(z + zz)
	}
	i := int(math.FMA(ya, 256, -15.5))
	z := yya + (ya - tanTab[i][0])
	z2 := float64(z * z)
	pz := math.FMA(float64(z*z2), math.FMA(z2, tanE1, tanE0), z)
	fi, gi := tanTab[i][1], tanTab[i][2]
	p := float64(pz * (fi + gi))
	if n != 0 {
		return -sy * (gi - p/(pz+fi))
	}
	return sy * (fi + p/(gi-pz))
}

// Tan is tan x as glibc's libm computes it.
func Tan(x float64) float64 {
	w := math.Abs(x)
	switch {
	case math.IsNaN(x) || math.IsInf(x, 0):
		return math.NaN()
	case w <= tanG1:
		return x
	case w <= tanG2:
		return tanPoly(x, x)
	case w <= tanG3:
		i := int(math.FMA(w, 256, -15.5))
		z := w - tanTab[i][0]
		z2 := float64(z * z)
		pz := math.FMA(float64(z*z2), math.FMA(z2, tanE1, tanE0), z)
		fi, gi := tanTab[i][1], tanTab[i][2]
		return math.Copysign(1, x) * (fi + float64((fi+gi)*pz)/(gi-pz))
	case w <= 25:
		t := math.FMA(x, sinHpiv, sinToin)
		xn := t - sinToin
		t1 := math.FMA(-xn, sinMp2, math.FMA(-xn, sinMp1, x))
		n := int(math.Float64bits(t) & 1)
		a := math.FMA(-xn, tanMp3, t1)
		da := math.FMA(-xn, tanMp3, t1-a)
		return tanReduced(a, da, n)
	case w <= 1e8:
		t := math.FMA(x, sinHpiv, sinToin)
		xn := t - sinToin
		t1 := math.FMA(-xn, sinMp2, math.FMA(-xn, sinMp1, x))
		n := int(math.Float64bits(t) & 1)
		t = math.FMA(-xn, sinPp3, t1)
		da := math.FMA(-xn, sinPp3, t1-t)
		a := math.FMA(-xn, sinPp4, t)
		da += math.FMA(-xn, sinPp4, t-a)
		a, da = eadd(a, da)
		return tanReduced(a, da, n)
	}
	a, da, n := branred(x)
	a, da = eadd(a, da)
	return tanReduced(a, da, n&1)
}
