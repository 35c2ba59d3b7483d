package verify

import (
	"math"

	lua "github.com/yuin/gopher-lua"

	"github.com/scriptctl/scriptctl/verify/luac51"
)

// Which zero a function's zero constant is. Lua 5.1 keeps one zero constant
// per function: its constant table is a Lua table, where -0 and 0 are one
// key, so every zero numeral of the function (and every numeral folded to
// a zero) reads the constant of the first zero the code generator added,
// with that zero's sign. gopher-lua dedups the two as well (Go's == on
// LNumber), but adds constants in its own order: Lua 5.1 adds a numeral
// left operand of an arithmetic operation it does not fold after the right
// operand's constants (codearith), adds none for `not 0`, `0 and x` or
// `if 0 then`, and the engine's rewriter adds numerals of its own (the long
// chain's trailing 0). In `-0 + y * 0` the constant is 0 on the
// servers and was -0 offline, so a later tostring(-0) differed.
//
// Only a chunk in which some numeral folds to -0 can tell (with
// non-negative numerals only, every zero Lua 5.1 folds is +0): the
// rewriter notes one (rewriter.negZero) and only then is the chunk
// compiled a second time, by Lua 5.1's own compiler (luac51), and each
// gopher-lua prototype's zero constant given the sign of the zero constant
// of the Lua 5.1 prototype at the same place. A function for which Lua 5.1
// adds no zero constant keeps gopher-lua's: no zero numeral of it gives a
// value there (only a condition, an `and`, a `not`, the operands of a fold
// through and/or whose value the engine drops (foldedAfter), or the
// rewriter's trailing 0, which the chain helper never reads).

// noteZero records that a numeral of the chunk folds to -0 (v, when ok).
func (rw *rewriter) noteZero(v float64, ok bool) {
	if ok && v == 0 && math.Signbit(v) {
		rw.negZero = true
	}
}

// matchZeros gives every zero constant of g's functions the sign of the
// zero constant of the same function in l, Lua 5.1's compile of the same
// chunk. Nothing changes unless both trees have the same nested functions
// at every level (they do for every chunk both compile: dump51.go walks
// them the same way); it reports whether they had.
func matchZeros(g *lua.FunctionProto, l *luac51.Proto) bool {
	if !sameShape(g, l) {
		return false
	}
	setZeros(g, l)
	return true
}

func sameShape(g *lua.FunctionProto, l *luac51.Proto) bool {
	if len(g.FunctionPrototypes) != len(l.Protos) {
		return false
	}
	for i, c := range g.FunctionPrototypes {
		if !sameShape(c, l.Protos[i]) {
			return false
		}
	}
	return true
}

func setZeros(g *lua.FunctionProto, l *luac51.Proto) {
	if z, ok := zeroConstant(l); ok {
		for i, k := range g.Constants {
			if n, isNum := k.(lua.LNumber); isNum && n == 0 {
				g.Constants[i] = lua.LNumber(z)
			}
		}
	}
	for i, c := range g.FunctionPrototypes {
		setZeros(c, l.Protos[i])
	}
}

// zeroConstant is the zero of l's constant table, if it has one.
func zeroConstant(l *luac51.Proto) (float64, bool) {
	for _, k := range l.Constants {
		if k.Kind == luac51.KNumber && k.N == 0 {
			return k.N, true
		}
	}
	return 0, false
}
