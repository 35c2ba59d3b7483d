package luac51

import (
	"math"
	"math/big"
)

// cPow is pow for constant folding (2^53, 10^256): y == 0 or x == 1 is 1,
// and otherwise the result correctly rounded. glibc's pow, which the
// servers fold with, is correctly rounded except within about 0.02 ulp of
// a tie between two doubles (an exact tie such as 10^23 or 1.5^34 may go
// either way there); tie reports such a result, whose last bit may differ
// from the server's. (Go's math.Pow can be an ulp or more away anywhere:
// 10^256.) NaN results are not folded, so their sign does not matter.
func cPow(x, y float64) (r float64, tie bool) {
	switch {
	case y == 0 || x == 1:
		return 1, false
	case math.IsNaN(x) || math.IsNaN(y) || math.IsInf(x, 0) || math.IsInf(y, 0) || x == 0:
		return math.Pow(x, y), false
	case x < 0 && y != math.Trunc(y):
		return math.NaN(), false
	}
	neg := x < 0 && math.Abs(y) < 1<<53 && int64(y)%2 != 0
	r, tie = exactPow(math.Abs(x), y)
	if neg {
		return -r, tie
	}
	return r, tie
}

const powPrec = 192

// exactPow is x^y for x > 0, rounded once from exp(y*ln x) computed with
// 192 bits, and whether it lies within 0.03 ulp of a tie.
func exactPow(x, y float64) (float64, bool) {
	e := new(big.Float).SetPrec(powPrec).Mul(bigLog(x), new(big.Float).SetPrec(powPrec).SetFloat64(y))
	if ef, _ := e.Float64(); math.Abs(ef) > 800 {
		return math.Pow(x, y), false // 0 or +Inf
	}
	z := bigExp(e)
	r, _ := z.Float64()
	if r == 0 || math.IsInf(r, 0) {
		return r, false
	}
	ulp := math.Nextafter(r, math.Inf(1)) - r
	d := new(big.Float).SetPrec(powPrec).Sub(z, new(big.Float).SetFloat64(r))
	df, _ := d.Float64()
	frac := math.Abs(df) / ulp
	return r, math.Abs(frac-0.5) < 0.03
}

var ln2Big = func() *big.Float {
	// ln 2 = 2 atanh(1/3)
	s := new(big.Float).SetPrec(powPrec).Quo(big.NewFloat(1).SetPrec(powPrec), big.NewFloat(3).SetPrec(powPrec))
	return new(big.Float).SetPrec(powPrec).Mul(atanhSeries(s), big.NewFloat(2))
}()

// atanhSeries is atanh(s) = s + s^3/3 + s^5/5 + ... for |s| <= 1/3.
func atanhSeries(s *big.Float) *big.Float {
	sum := new(big.Float).SetPrec(powPrec).Set(s)
	s2 := new(big.Float).SetPrec(powPrec).Mul(s, s)
	term := new(big.Float).SetPrec(powPrec).Set(s)
	eps := new(big.Float).SetMantExp(big.NewFloat(1), -powPrec-8)
	for k := 3; k < 1000; k += 2 {
		term.Mul(term, s2)
		t := new(big.Float).SetPrec(powPrec).Quo(term, new(big.Float).SetInt64(int64(k)))
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
	bm := new(big.Float).SetPrec(powPrec).SetFloat64(m)
	one := big.NewFloat(1).SetPrec(powPrec)
	num := new(big.Float).SetPrec(powPrec).Sub(bm, one)
	den := new(big.Float).SetPrec(powPrec).Add(bm, one)
	s := new(big.Float).SetPrec(powPrec).Quo(num, den)
	l := new(big.Float).SetPrec(powPrec).Mul(atanhSeries(s), big.NewFloat(2))
	el := new(big.Float).SetPrec(powPrec).Mul(ln2Big, new(big.Float).SetInt64(int64(e)))
	return l.Add(l, el)
}

// bigExp is e^z for |z| below about 710: z = k ln 2 + r, e^r by its
// Taylor series.
func bigExp(z *big.Float) *big.Float {
	zf, _ := z.Float64()
	k := math.Round(zf / math.Ln2)
	r := new(big.Float).SetPrec(powPrec).Sub(z, new(big.Float).SetPrec(powPrec).Mul(ln2Big, new(big.Float).SetFloat64(k)))
	sum := big.NewFloat(1).SetPrec(powPrec)
	term := big.NewFloat(1).SetPrec(powPrec)
	eps := new(big.Float).SetMantExp(big.NewFloat(1), -powPrec-8)
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
