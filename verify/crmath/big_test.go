package crmath

import (
	"math"
	"math/big"
	"sync"
)

// bigPrec is the precision of the math/big fallback: far more than any
// double-double evaluation needs to decide a rounding.
const bigPrec = 192

func newBig() *big.Float { return new(big.Float).SetPrec(bigPrec) }

func bigF(f float64) *big.Float { return newBig().SetFloat64(f) }

// ln2Big is ln 2 at bigPrec, computed on first use: a program that never
// needs a correctly rounded logarithm does not pay the series at start.
var ln2Big = sync.OnceValue(func() *big.Float {
	// ln 2 = 2 atanh(1/3)
	s := newBig().Quo(bigF(1), bigF(3))
	return newBig().Mul(atanhSeries(s), bigF(2))
})

// atanhSeries is atanh(s) = s + s^3/3 + s^5/5 + ... for |s| <= 1/3.
func atanhSeries(s *big.Float) *big.Float {
	sum := newBig().Set(s)
	s2 := newBig().Mul(s, s)
	term := newBig().Set(s)
	eps := new(big.Float).SetMantExp(big.NewFloat(1), -bigPrec-8)
	for k := 3; k < 1000; k += 2 {
		term.Mul(term, s2)
		t := newBig().Quo(term, new(big.Float).SetInt64(int64(k)))
		sum.Add(sum, t)
		if new(big.Float).Abs(t).Cmp(eps) < 0 {
			break
		}
	}
	return sum
}

// bigLog is ln x for a finite x > 0: x = m 2^e, ln x = e ln 2 + 2 atanh((m-1)/(m+1)).
func bigLog(x float64) *big.Float {
	m, e := math.Frexp(x) // m in [0.5, 1)
	if m < math.Sqrt2/2 {
		m *= 2
		e--
	}
	bm := bigF(m)
	num := newBig().Sub(bm, bigF(1))
	den := newBig().Add(bm, bigF(1))
	l := newBig().Mul(atanhSeries(newBig().Quo(num, den)), bigF(2))
	el := newBig().Mul(ln2Big(), new(big.Float).SetInt64(int64(e)))
	return l.Add(l, el)
}

// bigExp is e^z for |z| below about 750: z = k ln 2 + r, e^r by its
// Taylor series.
func bigExp(z *big.Float) *big.Float {
	zf, _ := z.Float64()
	k := math.Round(zf / math.Ln2)
	r := newBig().Sub(z, newBig().Mul(ln2Big(), bigF(k)))
	sum := bigF(1)
	term := bigF(1)
	eps := new(big.Float).SetMantExp(big.NewFloat(1), -bigPrec-8)
	for n := 1; n < 1000; n++ {
		term.Mul(term, r)
		term.Quo(term, new(big.Float).SetInt64(int64(n)))
		sum.Add(sum, term)
		if new(big.Float).Abs(term).Cmp(eps) < 0 {
			break
		}
	}
	return sum.SetMantExp(sum, int(k))
}

// roundBig is z rounded to a double (subnormals included, as
// big.Float.Float64 rounds them) and whether z lies within 0.03 ulp of a
// tie, where glibc may round either way.
func roundBig(z *big.Float) (float64, bool) {
	r, _ := z.Float64()
	if r == 0 || math.IsInf(r, 0) {
		return r, false
	}
	ulp := math.Nextafter(math.Abs(r), math.Inf(1)) - math.Abs(r)
	d, _ := newBig().Sub(z, bigF(r)).Float64()
	return r, math.Abs(math.Abs(d)/ulp-0.5) < 0.03
}
