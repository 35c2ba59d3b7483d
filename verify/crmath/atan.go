package crmath

import (
	"math"
	"math/big"
)

// atanDD is atan x for a double-double x with about 2^-72 relative error:
// y0 = math.Atan(x) corrected by atan((x cos y0 - sin y0)/(cos y0 + x sin y0)),
// which is that tiny quotient to double-double precision.
func atanDD(x dd) dd {
	y0 := math.Atan(x.hi)
	r, q := reduce(y0)
	s, c := sinDD(r), cosDD(r)
	switch q { // y0 is within pi/2, so q is 0, 1 or 3
	case 1:
		s, c = c, neg(s)
	case 3:
		s, c = neg(c), s
	}
	num := add(mul(x, c), neg(s))
	den := add(c, mul(x, s))
	return add(dd{y0, 0}, div(num, den))
}

// Atan is atan x correctly rounded.
func Atan(x float64) float64 {
	switch {
	case math.IsNaN(x):
		return x
	case math.Abs(x) < 0x1p-27:
		return x
	case math.Abs(x) >= 0x1p54:
		return math.Copysign(math.Pi/2, x)
	}
	initTrig()
	if r, ok := rounded(atanDD(dd{x, 0}), 0x1p-66); ok {
		return r
	}
	r, _ := roundBig(bigAtan(bigF(x)))
	return r
}

// sqrt1m is sqrt(1 - x^2) for |x| < 1 in double-double.
func sqrt1m(x float64) dd {
	p := twoProd(x, x)
	w := add(dd{1, 0}, neg(p))
	s0 := math.Sqrt(w.hi)
	e := add(w, neg(twoProd(s0, s0)))
	return fastTwoSum(s0, e.hi/(2*s0))
}

// Asin is asin x correctly rounded; |x| > 1 gives a NaN.
func Asin(x float64) float64 {
	switch {
	case math.IsNaN(x):
		return x
	case math.Abs(x) > 1:
		return math.NaN()
	case math.Abs(x) == 1:
		return math.Copysign(math.Pi/2, x)
	case math.Abs(x) < 0x1p-26:
		return x
	}
	initTrig()
	if r, ok := rounded(atanDD(div(dd{x, 0}, sqrt1m(x))), 0x1p-64); ok {
		return r
	}
	bx := bigF(x)
	t := newBig().Sub(bigF(1), newBig().Mul(bx, bx))
	r, _ := roundBig(bigAtan(newBig().Quo(bx, t.Sqrt(t))))
	return r
}

// Acos is acos x correctly rounded; |x| > 1 gives a NaN.
func Acos(x float64) float64 {
	switch {
	case math.IsNaN(x):
		return x
	case math.Abs(x) > 1:
		return math.NaN()
	case x == 1:
		return 0
	case x == -1:
		return math.Pi
	case math.Abs(x) < 0x1p-57:
		return math.Pi / 2
	}
	initTrig()
	// acos x = atan(sqrt(1-x^2)/x), plus pi for a negative x.
	v := atanDD(div(sqrt1m(x), dd{x, 0}))
	if x < 0 {
		v = add(v, dd{2 * pio2[0], 2 * pio2[1]})
	}
	if r, ok := rounded(v, 0x1p-64); ok {
		return r
	}
	bx := bigF(x)
	t := newBig().Sub(bigF(1), newBig().Mul(bx, bx))
	a := bigAtan(newBig().Quo(t.Sqrt(t), bx))
	if x < 0 {
		a.Add(a, bigPi(bigPrec))
	}
	r, _ := roundBig(a)
	return r
}

// Atan2 is atan2(y, x) correctly rounded for finite non-zero operands;
// the others are C99's special cases (NaN operands are the caller's).
func Atan2(y, x float64) float64 {
	if x == 0 || y == 0 || math.IsInf(x, 0) || math.IsInf(y, 0) || math.IsNaN(x) || math.IsNaN(y) {
		return math.Atan2(y, x)
	}
	initTrig()
	q := div(dd{y, 0}, dd{x, 0})
	if a := math.Abs(q.hi); a > 0x1p-900 && a < 0x1p900 {
		if q.hi < 0 {
			q = neg(q)
		}
		v := atanDD(q)
		if x < 0 {
			v = add(dd{2 * pio2[0], 2 * pio2[1]}, neg(v))
		}
		if r, ok := rounded(v, 0x1p-64); ok {
			return math.Copysign(r, y)
		}
	}
	a := bigAtan(newBig().Quo(bigF(math.Abs(y)), bigF(math.Abs(x))))
	if x < 0 {
		a.Sub(bigPi(bigPrec), a)
	}
	r, _ := roundBig(a)
	return math.Copysign(r, y)
}

// bigAtan is atan z: atan z = pi/2 - atan(1/z) for |z| > 1, three
// halvings atan t = 2 atan(t/(1+sqrt(1+t^2))), then its series.
func bigAtan(z *big.Float) *big.Float {
	neg := z.Sign() < 0
	a := newBig().Abs(z)
	flip := a.Cmp(bigF(1)) > 0
	if flip {
		a.Quo(bigF(1), a)
	}
	for i := 0; i < 3; i++ {
		s := newBig().Add(bigF(1), newBig().Mul(a, a))
		s.Sqrt(s)
		a.Quo(a, s.Add(s, bigF(1)))
	}
	a2 := newBig().Mul(a, a)
	term := newBig().Set(a)
	sum := newBig().Set(a)
	eps := new(big.Float).SetMantExp(big.NewFloat(1), -bigPrec-8)
	for k := int64(3); k < 2000; k += 2 {
		term.Mul(term, a2)
		term.Neg(term)
		t := newBig().Quo(term, new(big.Float).SetInt64(k))
		sum.Add(sum, t)
		if new(big.Float).Abs(t).Cmp(eps) < 0 {
			break
		}
	}
	sum.Mul(sum, bigF(8))
	if flip {
		sum.Sub(newBig().Quo(bigPi(bigPrec), bigF(2)), sum)
	}
	if neg {
		sum.Neg(sum)
	}
	return sum
}
