package crmath

import (
	"math"
	"math/big"
	"sync"
)

var (
	trigOnce sync.Once
	// pio2 is pi/2 in four parts.
	pio2 [4]float64
	// sinC[i] is (-1)^(i+1)/(2i+1)!, cosC[i] (-1)^(i+1)/(2i+2)!, as
	// double-doubles, i = 0..3.
	sinC, cosC [4]dd
)

func initTrig() {
	trigOnce.Do(func() {
		p := newBig().Quo(bigPi(bigPrec+64), bigF(2))
		a, b, c := splitBig(p)
		r := newBig().Sub(p, bigF(a))
		r.Sub(r, bigF(b))
		r.Sub(r, bigF(c))
		d, _ := r.Float64()
		pio2 = [4]float64{a, b, c, d}
		fact := big.NewInt(1)
		for n := int64(1); n <= 9; n++ {
			fact.Mul(fact, big.NewInt(n))
			if n < 2 {
				continue
			}
			v := newBig().Quo(bigF(1), newBig().SetInt(fact))
			if (n/2)%2 == 1 {
				v.Neg(v)
			}
			hi, lo, _ := splitBig(v)
			if n%2 == 1 {
				sinC[n/2-1] = dd{hi, lo}
			} else {
				cosC[n/2-1] = dd{hi, lo}
			}
		}
	})
}

// bigPi is pi with prec bits: 16 atan(1/5) - 4 atan(1/239).
func bigPi(prec uint) *big.Float {
	at := func(n int64) *big.Float {
		s := new(big.Float).SetPrec(prec).Quo(new(big.Float).SetPrec(prec).SetInt64(1), new(big.Float).SetPrec(prec).SetInt64(n))
		s2 := new(big.Float).SetPrec(prec).Mul(s, s)
		sum := new(big.Float).SetPrec(prec).Set(s)
		term := new(big.Float).SetPrec(prec).Set(s)
		eps := new(big.Float).SetMantExp(big.NewFloat(1), -int(prec)-8)
		for k := int64(3); ; k += 2 {
			term.Mul(term, s2)
			term.Neg(term)
			t := new(big.Float).SetPrec(prec).Quo(term, new(big.Float).SetInt64(k))
			sum.Add(sum, t)
			if new(big.Float).Abs(t).Cmp(eps) < 0 {
				return sum
			}
		}
	}
	p := new(big.Float).SetPrec(prec).Mul(at(5), big.NewFloat(16))
	return p.Sub(p, new(big.Float).SetPrec(prec).Mul(at(239), big.NewFloat(4)))
}

// reduce is x = k pi/2 + r, |r| <= pi/4 about, for |x| < 2^20.
func reduce(x float64) (dd, int) {
	k := math.Round(x * (2 / math.Pi))
	p1 := twoProd(k, pio2[0])
	p2 := twoProd(k, pio2[1])
	p3 := twoProd(k, pio2[2])
	r := add(dd{x, 0}, dd{-p1.hi, -p1.lo})
	r = add(r, dd{-p2.hi, -p2.lo})
	r = add(r, dd{-p3.hi, -p3.lo})
	r = addD(r, -k*pio2[3])
	return r, int(int64(k) & 3)
}

// sinDD and cosDD are sin r and cos r for |r| <= pi/4 with about 2^-75
// relative error (atanDD's correction step).
func sinDD(r dd) dd {
	h := r.hi
	h2 := h * h
	tail := h2 * (-1.0/39916800 + h2*(1.0/6227020800+h2*(-1.0/1307674368000+h2*(1.0/355687428096000+h2*(-1.0/121645100408832000+h2*(1.0/51090942171709440000))))))
	r2 := mul(r, r)
	s := addD(sinC[3], tail)
	for i := 2; i >= 0; i-- {
		s = add(sinC[i], mul(r2, s))
	}
	return add(r, mul(r, mul(r2, s)))
}

func cosDD(r dd) dd {
	h := r.hi
	h2 := h * h
	tail := h2 * (-1.0/3628800 + h2*(1.0/479001600+h2*(-1.0/87178291200+h2*(1.0/20922789888000+h2*(-1.0/6402373705728000+h2*(1.0/2432902008176640000+h2*(-1.0/1124000727777607680000)))))))
	r2 := mul(r, r)
	s := addD(cosC[3], tail)
	for i := 2; i >= 0; i-- {
		s = add(cosC[i], mul(r2, s))
	}
	return addD(mul(r2, s), 1)
}

func neg(a dd) dd { return dd{-a.hi, -a.lo} }
