package crmath

import (
	"math"
	"sync"
)

var (
	tabOnce sync.Once
	// exp2Tab[j] is 2^(j/64).
	exp2Tab [64]dd
	// logTab[j] is ln(0.75 + j/128).
	logTab [97]dd
	// ln2by64 is ln(2)/64 and ln2 is ln(2), each in three parts.
	ln2by64 [3]float64
	ln2     [3]float64
)

func initTables() {
	tabOnce.Do(func() {
		for j := range exp2Tab {
			z := newBig().Mul(ln2Big(), newBig().Quo(bigF(float64(j)), bigF(64)))
			a, b, _ := splitBig(bigExp(z))
			exp2Tab[j] = dd{a, b}
		}
		for j := range logTab {
			a, b, _ := splitBig(bigLog(0.75 + float64(j)/128))
			logTab[j] = dd{a, b}
		}
		ln2by64[0], ln2by64[1], ln2by64[2] = splitBig(newBig().Quo(ln2Big(), bigF(64)))
		ln2[0], ln2[1], ln2[2] = splitBig(ln2Big())
	})
}

// expDD is e^x as v 2^m, v within [0.7, 1.5) and about 2^-75 relative
// error, for |x.hi| below 750.
func expDD(x dd) (dd, int) {
	k := math.Round(x.hi * (64 / math.Ln2))
	p1 := twoProd(k, ln2by64[0])
	p2 := twoProd(k, ln2by64[1])
	r := add(x, dd{-p1.hi, -p1.lo})
	r = add(r, dd{-p2.hi, -p2.lo})
	r = addD(r, -k*ln2by64[2])
	// e^r = 1 + r + r^2/2 + r^3/6 + ..., |r| <= ln(2)/128.
	h := r.hi
	tail := h * h * h * (1.0/6 + h*(1.0/24+h*(1.0/120+h*(1.0/720+h*(1.0/5040+h*(1.0/40320))))))
	s := mulD(mul(r, r), 0.5)
	s = addD(s, tail)
	s = add(r, s)
	s = addD(s, 1)
	ki := int(k)
	j := ki & 63
	return mul(exp2Tab[j], s), (ki - j) / 64
}

// logDD is ln x for a normal x > 0 with about 2^-77 relative error.
func logDD(x float64) dd {
	f, e := math.Frexp(x)
	if f < 0.75 {
		f *= 2
		e--
	}
	j := int(math.Round((f - 0.75) * 128))
	c := 0.75 + float64(j)/128
	d := f - c // exact
	// u = d / c in double-double.
	q := d / c
	u := dd{q, math.FMA(-q, c, d) / c}
	u = fastTwoSum(u.hi, u.lo)
	// ln(1+u) = u - u^2/2 + u^3/3 - u^4/4 + ..., |u| <= 1/192.
	h := u.hi
	u2 := mul(u, u)
	u3 := mul(u2, u)
	tail := h * h * h * h * (-1.0/4 + h*(1.0/5+h*(-1.0/6+h*(1.0/7+h*(-1.0/8+h*(1.0/9+h*(-1.0/10+h*(1.0/11))))))))
	s := mul(u3, dd{1.0 / 3, -1.850371707708594e-17})
	s = addD(s, tail)
	s = add(s, mulD(u2, -0.5))
	s = add(u, s)
	s = add(logTab[j], s)
	if e != 0 {
		fe := float64(e)
		a := twoProd(fe, ln2[0])
		b := twoProd(fe, ln2[1])
		t := add(a, b)
		t = addD(t, fe*ln2[2])
		s = add(t, s)
	}
	return s
}

// Exp is e^x correctly rounded.
func Exp(x float64) float64 {
	switch {
	case math.IsNaN(x):
		return x
	case x > 709.8:
		return math.Inf(1)
	case x < -745.2:
		return 0
	case math.Abs(x) < 0x1p-54:
		return 1 + x
	}
	initTables()
	if x > -708 && x < 709.7 {
		v, m := expDD(dd{x, 0})
		if r, ok := rounded(v, 0x1p-68); ok {
			return math.Ldexp(r, m)
		}
	}
	r, _ := roundBig(bigExp(bigF(x)))
	return r
}

// Log is ln x correctly rounded; a negative x gives a NaN.
func Log(x float64) float64 {
	switch {
	case math.IsNaN(x) || math.IsInf(x, 1):
		return x
	case x < 0:
		return math.NaN()
	case x == 0:
		return math.Inf(-1)
	case x == 1:
		return 0
	}
	initTables()
	if x >= 0x1p-1022 {
		if r, ok := rounded(logDD(x), 0x1p-66); ok {
			return r
		}
	}
	r, _ := roundBig(bigLog(x))
	return r
}

// Pow is x^y with C99's special cases, correctly rounded (as glibc's pow
// except within about 0.02 ulp of a tie); NaN results are Go's NaN.
func Pow(x, y float64) float64 {
	switch {
	case y == 0 || x == 1:
		return 1
	case math.IsNaN(x) || math.IsNaN(y) || math.IsInf(x, 0) || math.IsInf(y, 0) || x == 0:
		return math.Pow(x, y)
	case y == 1:
		return x
	case y == 2:
		return x * x
	case y == -1:
		return 1 / x
	}
	yInt := y == math.Trunc(y)
	if x < 0 && !yInt {
		return math.NaN()
	}
	neg := x < 0 && yInt && math.Abs(y) < 1<<53 && int64(y)%2 != 0
	r := powPos(math.Abs(x), y, yInt)
	if neg {
		return -r
	}
	return r
}

// Tie reports whether x^y (x > 0) lies within about 0.03 ulp of a tie
// between two doubles, where glibc's pow may round either way.
func Tie(x, y float64) bool {
	if x <= 0 || math.IsInf(x, 0) || math.IsNaN(x) || math.IsNaN(y) || math.IsInf(y, 0) || y == 0 || x == 1 {
		return false
	}
	_, tie := bigPow(x, y)
	return tie
}

func powPos(x, y float64, yInt bool) float64 {
	if y == 0.5 {
		return math.Sqrt(x)
	}
	f, e := math.Frexp(x)
	if f == 0.5 && yInt && math.Abs(y) < 1<<20 { // a power of two
		n := float64(e-1) * y
		if n >= -1022 && n <= 1023 {
			return math.Ldexp(1, int(n))
		}
	}
	initTables()
	if yInt && math.Abs(y) <= 1<<16 {
		if r, ok := powInt(f, e, int(y)); ok {
			return r
		}
	} else if x >= 0x1p-1022 {
		z := mulD(logDD(x), y)
		switch {
		case z.hi > 710:
			return math.Inf(1)
		case z.hi < -746:
			return 0
		case z.hi > -708 && z.hi < 709.7:
			v, m := expDD(z)
			if r, ok := rounded(v, 0x1p-62); ok {
				return math.Ldexp(r, m)
			}
		}
	}
	r, _ := bigPow(x, y)
	return r
}

// powInt is (f 2^e)^n by repeated squaring in double-double, f in [0.5, 1);
// ok is false when it cannot decide the rounding or the result is not a
// normal double.
func powInt(f float64, e, n int) (float64, bool) {
	neg := n < 0
	if neg {
		n = -n
	}
	base, be := dd{f, 0}, e
	acc, ae := dd{1, 0}, 0
	for {
		if n&1 != 0 {
			acc = mul(acc, base)
			ae += be
			var k int
			acc.hi, k = math.Frexp(acc.hi)
			acc.lo = math.Ldexp(acc.lo, -k)
			ae += k
		}
		n >>= 1
		if n == 0 {
			break
		}
		base = mul(base, base)
		be *= 2
		var k int
		base.hi, k = math.Frexp(base.hi)
		base.lo = math.Ldexp(base.lo, -k)
		be += k
	}
	if neg {
		acc = div(dd{1, 0}, acc)
		ae = -ae
	}
	r, ok := rounded(acc, 0x1p-90)
	if !ok {
		return 0, false
	}
	_, re := math.Frexp(r)
	if re+ae < -1021 || re+ae > 1024 {
		return 0, false
	}
	return math.Ldexp(r, ae), true
}

// bigPow is x^y for x > 0 rounded once from e^(y ln x) computed with 192
// bits, and whether it lies within 0.03 ulp of a tie.
func bigPow(x, y float64) (float64, bool) {
	e := newBig().Mul(bigLog(x), bigF(y))
	if ef, _ := e.Float64(); math.Abs(ef) > 800 {
		return math.Pow(x, y), false // 0 or +Inf
	}
	return roundBig(bigExp(e))
}
