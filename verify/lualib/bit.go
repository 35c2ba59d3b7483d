package lualib

import (
	"math"
	"math/bits"

	lua "github.com/yuin/gopher-lua"
)

// bit is LuaBitOp 1.0.2 as Redis bundles it: 32-bit operations on Lua
// numbers, results as signed 32-bit numbers.

func newBit(L *lua.LState) *lua.LTable {
	t := L.NewTable()
	fns := map[string]lua.LGFunction{
		"tobit":   bitTobit,
		"bnot":    bitBnot,
		"band":    bitFold("band", func(a, b uint32) uint32 { return a & b }),
		"bor":     bitFold("bor", func(a, b uint32) uint32 { return a | b }),
		"bxor":    bitFold("bxor", func(a, b uint32) uint32 { return a ^ b }),
		"lshift":  bitShift("lshift", func(b uint32, n uint) uint32 { return b << n }),
		"rshift":  bitShift("rshift", func(b uint32, n uint) uint32 { return b >> n }),
		"arshift": bitShift("arshift", func(b uint32, n uint) uint32 { return uint32(int32(b) >> n) }),
		"rol":     bitShift("rol", func(b uint32, n uint) uint32 { return bits.RotateLeft32(b, int(n)) }),
		"ror":     bitShift("ror", func(b uint32, n uint) uint32 { return bits.RotateLeft32(b, -int(n)) }),
		"bswap":   bitBswap,
		"tohex":   bitTohex,
	}
	for name, fn := range fns {
		t.RawSetString(name, L.NewFunction(fn))
	}
	return t
}

// toBit converts a number to LuaBitOp's 32-bit value: the number plus
// 2^52+2^51, whose low 32 mantissa bits are the number rounded to nearest
// (ties to even) modulo 2^32.
func toBit(f float64) uint32 {
	return uint32(math.Float64bits(f + 6755399441055744.0))
}

func barg(L *lua.LState, n int, fname string) uint32 {
	return toBit(checkNumber(L, n, fname))
}

func bret(L *lua.LState, b uint32) int {
	L.Push(lua.LNumber(int32(b)))
	return 1
}

func bitTobit(L *lua.LState) int { return bret(L, barg(L, 1, "tobit")) }
func bitBnot(L *lua.LState) int  { return bret(L, ^barg(L, 1, "bnot")) }
func bitBswap(L *lua.LState) int { return bret(L, bits.ReverseBytes32(barg(L, 1, "bswap"))) }

func bitFold(name string, op func(a, b uint32) uint32) lua.LGFunction {
	return func(L *lua.LState) int {
		b := barg(L, 1, name)
		for i := L.GetTop(); i > 1; i-- {
			b = op(b, barg(L, i, name))
		}
		return bret(L, b)
	}
}

func bitShift(name string, op func(b uint32, n uint) uint32) lua.LGFunction {
	return func(L *lua.LState) int {
		b := barg(L, 1, name)
		n := barg(L, 2, name) & 31
		return bret(L, op(b, uint(n)))
	}
}

func bitTohex(L *lua.LState) int {
	b := barg(L, 1, "tohex")
	n := int64(8)
	if L.GetTop() >= 2 {
		n = int64(int32(barg(L, 2, "tohex")))
	}
	digits := "0123456789abcdef"
	if n < 0 {
		n = -n // as compiled, -INT_MIN is 2^31: eight digits
		digits = "0123456789ABCDEF"
	}
	if n > 8 {
		n = 8
	}
	buf := make([]byte, n)
	for i := int(n) - 1; i >= 0; i-- {
		buf[i] = digits[b&15]
		b >>= 4
	}
	L.Push(lua.LString(buf))
	return 1
}
