package difftest

import (
	"context"
	"flag"
	"fmt"
	"math"
	"math/rand"
	"strconv"
	"strings"
	"testing"

	"github.com/scriptctl/scriptctl/verify"
)

var mathBatch = flag.Int("difftest.mathn", 300, "inputs per function and seed in TestRandomMath")

// mathSeeds are TestRandomMath's seeds: a fixed list, so that make test
// runs the same inputs every time (-difftest.seed adds one).
var mathSeeds = []int64{1, 2, 3}

// mathFuncs are the math library calls TestRandomMath compares, as Lua
// expressions of x and y, each printed with %.17g.
var mathFuncs = []struct {
	name, expr string
	two        bool // takes y too
}{
	{"pow", "x ^ y", true},
	{"math.pow", "math.pow(x, y)", true},
	{"mod", "x % y", true},
	{"fmod", "math.fmod(x, y)", true},
	{"atan2", "math.atan2(x, y)", true},
	{"exp", "math.exp(x)", false},
	{"log", "math.log(x)", false},
	{"log10", "math.log10(x)", false},
	{"sin", "math.sin(x)", false},
	{"cos", "math.cos(x)", false},
	{"tan", "math.tan(x)", false},
	{"asin", "math.asin(x)", false},
	{"acos", "math.acos(x)", false},
	{"atan", "math.atan(x)", false},
	{"sinh", "math.sinh(x)", false},
	{"cosh", "math.cosh(x)", false},
	{"tanh", "math.tanh(x)", false},
	{"sqrt", "math.sqrt(x)", false},
	{"deg", "math.deg(x)", false},
	{"rad", "math.rad(x)", false},
	{"floor", "math.floor(x)", false},
	{"ceil", "math.ceil(x)", false},
	{"modf", "math.modf(x)", false},
	{"modf2", "select(2, math.modf(x))", false},
	{"frexp", "math.frexp(x)", false},
	{"frexp2", "select(2, math.frexp(x))", false},
	{"ldexp", "math.ldexp(x, y)", true},
	{"tostring", "tonumber(tostring(x))", false},
}

// mathNumber is a random double for fn's argument: small and large
// magnitudes, integers, halves, values near the functions' interesting
// points and now and then an infinity, NaN or zero.
func mathNumber(r *rand.Rand, fn string, second bool) float64 {
	if fn == "ldexp" && second {
		return float64(r.Intn(2200) - 1100)
	}
	switch r.Intn(12) {
	case 0:
		return []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(), 1, -1, 0.5, 2, 10, math.MaxFloat64, 5e-324, 2.2250738585072014e-308}[r.Intn(13)]
	case 1:
		return float64(r.Intn(2001) - 1000)
	case 2:
		return float64(r.Intn(400)-200) / 8
	case 3: // any finite double
		for {
			if f := math.Float64frombits(r.Uint64()); !math.IsNaN(f) && !math.IsInf(f, 0) {
				return f
			}
		}
	case 4:
		return math.Ldexp(r.Float64()-0.5, r.Intn(80)-40)
	case 5:
		return float64(r.Intn(100)) * math.Pi / float64(1+r.Intn(8))
	case 6:
		return (r.Float64() - 0.5) * 1420
	case 7:
		return 1 + (r.Float64()-0.5)*math.Ldexp(1, -r.Intn(50))
	}
	return (r.Float64() - 0.3) * 40
}

// mathLiteral is f as a Lua string that tonumber (strtod) reads as
// exactly f. (A numeral would not do: Lua 5.1 keeps 0 and -0 as one
// constant of a function.)
func mathLiteral(f float64) string {
	switch {
	case math.IsNaN(f):
		return "'-nan'"
	case math.IsInf(f, 1):
		return "'inf'"
	case math.IsInf(f, -1):
		return "'-inf'"
	}
	return "'" + strconv.FormatFloat(f, 'g', 17, 64) + "'"
}

// mathScript is one EVAL computing expr for every pair of inputs and
// returning the %.17g results, one a line.
func mathScript(expr string, xs, ys []float64) string {
	var b strings.Builder
	b.WriteString("local X, Y = {")
	for i, x := range xs {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(mathLiteral(x))
	}
	b.WriteString("}, {")
	for i, y := range ys {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(mathLiteral(y))
	}
	fmt.Fprintf(&b, "}\nlocal out = {}\nfor i = 1, #X do local x, y = tonumber(X[i]), tonumber(Y[i]); out[i] = string.format('%%.17g', %s) end\nreturn table.concat(out, '\\n')", expr)
	return b.String()
}

// TestRandomMath compares the math library and the ^ and % operators with
// the live server's (glibc's libm) on random inputs: one EVAL per function
// and seed, every result printed with %.17g.
func TestRandomMath(t *testing.T) {
	l := startLive(t)
	target := l.srv.Kind.Target()
	seeds := mathSeeds
	if *randomSeed != 1 {
		seeds = append(seeds, *randomSeed)
	}
	ctx := context.Background()
	for _, f := range mathFuncs {
		t.Run(f.name, func(t *testing.T) {
			bad := 0
			for _, seed := range seeds {
				r := rand.New(rand.NewSource(seed))
				xs, ys := make([]float64, *mathBatch), make([]float64, *mathBatch)
				for i := range xs {
					xs[i] = mathNumber(r, f.name, false)
					ys[i] = mathNumber(r, f.name, true)
				}
				script := mathScript(f.expr, xs, ys)
				live, err := l.srv.Do(ctx, "EVAL", script, "0").ToString()
				if err != nil {
					t.Fatalf("live: %v", err)
				}
				e := verify.New(verify.Options{Target: target})
				rep, err := e.Eval(ctx, []byte(script), nil, nil)
				if err != nil {
					t.Fatalf("offline: %v", err)
				}
				lv, ov := strings.Split(live, "\n"), strings.Split(rep.Str, "\n")
				if len(lv) != len(ov) {
					t.Fatalf("seed %d: %d live results, %d offline (%v)", seed, len(lv), len(ov), rep)
				}
				for i := range lv {
					if lv[i] != ov[i] {
						bad++
						if bad <= 10 {
							t.Errorf("seed %d: x=%s y=%s: %s live %s, offline %s", seed, mathLiteral(xs[i]), mathLiteral(ys[i]), f.expr, lv[i], ov[i])
						}
					}
				}
			}
			n := len(seeds) * *mathBatch
			if bad > 0 {
				t.Errorf("%s: %d of %d results differ", f.name, bad, n)
			}
		})
	}
}
