package crmath

import (
	"math"
	"math/big"
	"math/rand"
	"testing"
)

// The double-double paths agree with a 192-bit evaluation rounded once.
func TestAgainstBig(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 3000; i++ {
		x := (r.Float64() - 0.5) * 1400
		if got, want := Exp(x), mustRound(bigExp(bigF(x))); got != want {
			t.Errorf("Exp(%v) = %v, want %v", x, got, want)
		}
		lx := math.Ldexp(r.Float64()+0.5, r.Intn(2000)-1000)
		if got, want := Log(lx), mustRound(bigLog(lx)); got != want {
			t.Errorf("Log(%v) = %v, want %v", lx, got, want)
		}
		px, py := math.Ldexp(r.Float64()+0.5, r.Intn(20)-10), (r.Float64()-0.5)*60
		if r.Intn(3) == 0 {
			py = math.Round(py * 3)
		}
		if got, want := Pow(px, py), mustPow(px, py); got != want {
			t.Errorf("Pow(%v, %v) = %v, want %v", px, py, got, want)
		}
	}
}

func mustPow(x, y float64) float64 { r, _ := bigPow(x, y); return r }

func mustRound(z *big.Float) float64 { r, _ := roundBig(z); return r }

func TestTrigAgainstBig(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	for i := 0; i < 3000; i++ {
		x := (r.Float64() - 0.5) * 100
		if i%3 == 0 {
			x = math.Ldexp(r.Float64()-0.5, r.Intn(60)-20)
		}
		for f, fn := range []func(float64) float64{Sin, Cos, Tan} {
			if got, want := fn(x), bigTrig(x, f); got != want {
				t.Errorf("trig %d (%v) = %v, want %v", f, x, got, want)
			}
		}
	}
}

func TestAtanAgainstBig(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	for i := 0; i < 3000; i++ {
		x := math.Ldexp(r.Float64()-0.5, r.Intn(80)-40)
		if got, want := Atan(x), mustRound(bigAtan(bigF(x))); got != want {
			t.Errorf("Atan(%v) = %v, want %v", x, got, want)
		}
		u := r.Float64()*2 - 1
		if i%2 == 0 {
			u = math.Copysign(1-math.Ldexp(r.Float64(), -r.Intn(50)), u)
		}
		bu := bigF(u)
		w := newBig().Sub(bigF(1), newBig().Mul(bu, bu))
		w.Sqrt(w)
		if got, want := Asin(u), mustRound(bigAtan(newBig().Quo(bu, w))); got != want {
			t.Errorf("Asin(%v) = %v, want %v", u, got, want)
		}
		ac := bigAtan(newBig().Quo(w, bu))
		if u < 0 {
			ac.Add(ac, bigPi(bigPrec))
		}
		if got, want := Acos(u), mustRound(ac); got != want {
			t.Errorf("Acos(%v) = %v, want %v", u, got, want)
		}
		y := math.Ldexp(r.Float64()-0.5, r.Intn(80)-40)
		a := bigAtan(newBig().Quo(bigF(math.Abs(y)), bigF(math.Abs(x))))
		if x < 0 {
			a.Sub(bigPi(bigPrec), a)
		}
		if got, want := Atan2(y, x), math.Copysign(mustRound(a), y); got != want {
			t.Errorf("Atan2(%v, %v) = %v, want %v", y, x, got, want)
		}
	}
}
