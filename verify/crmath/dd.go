// Package crmath computes C's math functions as glibc's libm returns them
// on x86-64, where Go's math package can be an ulp away
// (math.Pow(10, 256), math.Exp(1.0000000028613893)). pow, exp, log,
// log10, expm1, sinh, cosh and tanh are glibc's own algorithms and tables,
// bit for bit (explog.go, expm1.go, hyper.go). sin, cos, tan, atan, asin,
// acos and atan2 are correctly rounded, as glibc's are except within a
// tiny fraction of an ulp of a tie between two doubles: each evaluates in
// double-double arithmetic (about 2^-70 relative error) and rounds; only
// when the result lies too close to a tie for that precision to decide
// does it recompute with math/big.
package crmath

import "math"

// dd is an unevaluated sum hi + lo with |lo| <= ulp(hi)/2.
type dd struct{ hi, lo float64 }

func twoSum(a, b float64) dd {
	s := a + b
	bb := s - a
	return dd{s, (a - (s - bb)) + (b - bb)}
}

func fastTwoSum(a, b float64) dd {
	s := a + b
	return dd{s, b - (s - a)}
}

func twoProd(a, b float64) dd {
	p := a * b
	return dd{p, math.FMA(a, b, -p)}
}

func add(a, b dd) dd {
	s := twoSum(a.hi, b.hi)
	t := twoSum(a.lo, b.lo)
	s.lo += t.hi
	s = fastTwoSum(s.hi, s.lo)
	s.lo += t.lo
	return fastTwoSum(s.hi, s.lo)
}

func addD(a dd, b float64) dd {
	s := twoSum(a.hi, b)
	s.lo += a.lo
	return fastTwoSum(s.hi, s.lo)
}

func mul(a, b dd) dd {
	p := twoProd(a.hi, b.hi)
	p.lo += a.hi*b.lo + a.lo*b.hi
	return fastTwoSum(p.hi, p.lo)
}

func mulD(a dd, b float64) dd {
	p := twoProd(a.hi, b)
	p.lo += a.lo * b
	return fastTwoSum(p.hi, p.lo)
}

func div(a, b dd) dd {
	q1 := a.hi / b.hi
	r := add(a, mulD(b, -q1))
	q2 := r.hi / b.hi
	r = add(r, mulD(b, -q2))
	q3 := r.hi / b.hi
	q := fastTwoSum(q1, q2)
	return addD(q, q3)
}

// rounded returns v rounded to a double and true when v's relative error
// bound relErr cannot move it across a rounding boundary. v must be
// normalised (v.hi is v rounded) and v.hi a normal double.
func rounded(v dd, relErr float64) (float64, bool) {
	if v.hi == 0 || math.IsInf(v.hi, 0) || math.IsNaN(v.hi) {
		return v.hi, false
	}
	a := math.Abs(v.hi)
	if a < 0x1p-1022 {
		return v.hi, false
	}
	var half float64
	if (v.lo > 0) == (v.hi > 0) {
		half = (math.Nextafter(a, math.Inf(1)) - a) / 2
	} else {
		half = (a - math.Nextafter(a, 0)) / 2
	}
	return v.hi, math.Abs(math.Abs(v.lo)-half) > relErr*a
}
