package verify

import (
	"math"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/scriptctl/scriptctl/verify/lualib"
)

// The run-time side of the rewriter's helpers (.., % and ^, the numeric
// for) and what they share with the base library.

// concat is the .. operator (see compile): numbers as %.14g, then __concat,
// then Lua 5.1's error naming the operand.
func (r *scriptRun) concat(L *lua.LState) int {
	L.Push(r.concatPair(L, L.Get(1), L.Get(2), L.Get(3), L.Get(4)))
	return 1
}

// concatChain is the helper of a long chain x1 .. x2 .. ... .. xn
// (rewriter.longConcat): its operands, evaluated left to right, in a
// table's positions 1 to n, and the chain's operand names, each ended by a
// NUL byte. It concatenates right to left as the nested helpers of a short
// chain do, cat(x1, cat(x2, ... cat(xn-1, xn))), naming an operand only
// where they would: every operand on its left, only the last on its right.
func (r *scriptRun) concatChain(L *lua.LState) int {
	t := L.CheckTable(1)
	names := strings.Split(L.CheckString(2), "\x00")
	n := len(names) - 1
	acc, accName := lualib.RawGetInt(t, n), lua.LValue(lua.LString(names[n-1]))
	for i := n - 1; i >= 1; i-- {
		acc = r.concatPair(L, lualib.RawGetInt(t, i), acc, lua.LString(names[i-1]), accName)
		accName = lua.LString("")
	}
	L.Push(acc)
	return 1
}

// concatPair is Lua 5.1's a .. b: strings and numbers (%.14g) joined, else
// the __concat metamethod, else the error naming the operand (an, bn: how
// Lua names a and b, or "").
func (r *scriptRun) concatPair(L *lua.LState, a, b, an, bn lua.LValue) lua.LValue {
	as, aok := concatString(a)
	bs, bok := concatString(b)
	if aok && bok {
		r.grow(L, len(as)+len(bs))
		return lua.LString(as + bs)
	}
	if callMeta(L, a, b, "__concat") {
		v := L.Get(-1)
		L.Pop(1)
		return v
	}
	bad, info := a, an
	if aok {
		bad, info = b, bn
	}
	if s, _ := info.(lua.LString); s != "" {
		L.RaiseError("attempt to concatenate %s (a %s value)", s, bad.Type().String())
	}
	L.RaiseError("attempt to concatenate a %s value", bad.Type().String())
	return lua.LNil
}

func concatString(v lua.LValue) (string, bool) {
	switch x := v.(type) {
	case lua.LString:
		return string(x), true
	case lua.LNumber:
		return luaNumber(float64(x)), true
	}
	return "", false
}

// noteHashOrder warns when a script starts iterating a table with two or
// more keys outside its array part: gopher-lua visits them in insertion
// order, Lua 5.1 in its hash-node order, so the order may differ.
func (r *scriptRun) noteHashOrder(t *lua.LTable) {
	n := t.Len()
	hashKeys := 0
	t.ForEach(func(k, _ lua.LValue) {
		if f, ok := k.(lua.LNumber); ok && float64(f) == float64(int(f)) && int(f) >= 1 && int(f) <= n {
			return
		}
		hashKeys++
	})
	if hashKeys >= 2 {
		r.warn("pairs/next over a table with %d hash keys: the iteration order follows insertion, Redis's Lua 5.1 order may differ", hashKeys)
	}
}

// callable reports whether v can be called: a function, or a value whose
// metatable has __call.
func callable(L *lua.LState, v lua.LValue) bool {
	if _, ok := v.(*lua.LFunction); ok {
		return true
	}
	return L.GetMetaField(v, "__call") != lua.LNil
}

// isHidden reports a key of the engine's hidden globals (a NUL first byte).
func isHidden(k lua.LValue) bool {
	s, ok := k.(lua.LString)
	return ok && len(s) > 0 && s[0] == 0
}

// numericFor is the hidden helper of a numeric for's header (see
// rewriter.numericFor). Called with the initial value, limit and step, it
// converts them like Lua 5.1's OP_FORPREP, raising its errors in its order,
// keeps the limit and step, and returns the initial value; called with no
// arguments, it returns the kept limit, then the step.
func (r *scriptRun) numericFor(L *lua.LState) int {
	if L.GetTop() == 0 {
		L.Push(r.forVals[r.forNext&1])
		r.forNext++
		return 1
	}
	var v [3]float64
	for i, what := range [...]string{"initial value", "limit", "step"} {
		f, ok := lualib.ToNumber(L.Get(i + 1))
		if !ok {
			L.RaiseError("'for' %s must be a number", what)
		}
		v[i] = f
	}
	r.forVals, r.forNext = [2]lua.LNumber{lua.LNumber(v[1]), lua.LNumber(v[2])}, 0
	L.Push(lua.LNumber(v[0]))
	return 1
}

// arithOp is % and ^ as Lua 5.1 computes them: a - floor(a/b)*b and C's
// pow, strings converted like Lua, then __mod/__pow, then Lua's error.
func (r *scriptRun) arithOp(L *lua.LState) int {
	op := L.CheckString(1)
	a, b := L.Get(2), L.Get(3)
	x, aok := lualib.ToNumber(a)
	y, bok := lualib.ToNumber(b)
	if aok && bok {
		var v float64
		switch op {
		case "%":
			v = x - math.Floor(x/y)*y
		case "^":
			v = cPow(x, y)
		case "+": // numerals Lua 5.1 does not fold (rewrite_ops.go's fold)
			v = x + y
		case "-":
			v = x - y
		case "*":
			v = x * y
		default:
			v = x / y
		}
		L.Push(lua.LNumber(v))
		return 1
	}
	event := "__mod"
	if op == "^" {
		event = "__pow"
	}
	if callMeta(L, a, b, event) {
		return 1
	}
	bad, info := b, L.Get(5)
	if !aok {
		bad, info = a, L.Get(4)
	}
	if s, _ := info.(lua.LString); s != "" {
		L.RaiseError("attempt to perform arithmetic on %s (a %s value)", s, luaTypeName(bad))
	}
	L.RaiseError("attempt to perform arithmetic on a %s value", luaTypeName(bad))
	return 0
}

// callMeta calls the binary metamethod event of a, else of b, as Lua 5.1
// does, and leaves its one result on the stack; false when neither has it.
func callMeta(L *lua.LState, a, b lua.LValue, event string) bool {
	mm := L.GetMetaField(a, event)
	if mm == lua.LNil {
		mm = L.GetMetaField(b, event)
	}
	if mm == lua.LNil {
		return false
	}
	if !callable(L, mm) {
		// Lua 5.1 calls any metamethod that is not nil (callTMres)
		L.RaiseError("attempt to call a %s value", luaTypeName(mm))
	}
	L.Push(mm)
	L.Push(a)
	L.Push(b)
	L.Call(2, 1)
	return true
}

// manyHelper is the helper of a long list of values (rewriter.manyValues):
// many(n, t, ...) returns t[1] to t[n], nils included, then its own
// arguments after t.
func manyHelper(L *lua.LState) int {
	n := int(L.CheckNumber(1))
	t := L.CheckTable(2)
	extra := L.GetTop() - 2
	for i := 1; i <= n; i++ {
		L.Push(t.RawGetInt(i))
	}
	for i := 3; i <= 2+extra; i++ {
		L.Push(L.Get(i))
	}
	return n + extra
}
