package crmath

import (
	"math"
	"math/rand"
	"testing"
)

// benchArgs are 1024 operand pairs: x in [0.5, 1000), y an integer in
// [-20, 20] (integral) or any in [-20, 20) (general).
func benchArgs(integral bool) (xs, ys []float64) {
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 1024; i++ {
		xs = append(xs, 0.5+r.Float64()*1000)
		y := (r.Float64() - 0.5) * 40
		if integral {
			y = math.Round(y)
		}
		ys = append(ys, y)
	}
	return xs, ys
}

var sink float64

// BenchmarkPow compares Pow with math.Pow on the same operands, in one run.
func BenchmarkPow(b *testing.B) {
	for _, c := range []struct {
		name     string
		integral bool
		f        func(x, y float64) float64
	}{
		{"crmath/general", false, Pow},
		{"math.Pow/general", false, math.Pow},
		{"crmath/integer", true, Pow},
		{"math.Pow/integer", true, math.Pow},
	} {
		xs, ys := benchArgs(c.integral)
		Pow(2, 0.5) // tables
		b.Run(c.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				sink = c.f(xs[i&1023], ys[i&1023])
			}
		})
	}
}

// BenchmarkUnary compares Exp, Log and Sin with Go's.
func BenchmarkUnary(b *testing.B) {
	xs, _ := benchArgs(false)
	for _, c := range []struct {
		name string
		f    func(float64) float64
	}{
		{"crmath.Exp", func(x float64) float64 { return Exp(x / 2) }},
		{"math.Exp", func(x float64) float64 { return math.Exp(x / 2) }},
		{"crmath.Log", Log},
		{"math.Log", math.Log},
		{"crmath.Sin", Sin},
		{"math.Sin", math.Sin},
	} {
		Exp(1)
		Sin(1)
		b.Run(c.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				sink = c.f(xs[i&1023])
			}
		})
	}
}
