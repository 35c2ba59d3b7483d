package verify

import (
	"fmt"
	"math"
	"reflect"
	"unsafe"

	lua "github.com/yuin/gopher-lua"

	"github.com/scriptctl/scriptctl/internal/lazy"
	"github.com/scriptctl/scriptctl/verify/lualib"
)

// The VM's +, -, *, / and unary minus, as Lua 5.1 computes them.
//
// Negative zero: Lua 5.1 keeps the sign of a zero that +, -, * or / gives
// (-0 * 3, 0 * -1, -0 / 5, 1 / -math.huge are -0), and everything that
// prints the number shows it: tostring, .., string.format, cjson.encode,
// and redis.call's arguments ("-0" stored by SET, HSET, ZADD). gopher-lua
// stores an arithmetic result in its register through its number
// allocator, which hands out one shared +0 for every zero of 0 to 127: the
// sign is lost. When both operands are numbers and the result is a
// negative zero, the result's register gets it back.
//
// String operands: Lua 5.1 converts a string operand with luaO_str2d
// (strtod, then strtoul for hex; surrounding spaces of isspace), the same
// conversion as tonumber: "010" is 10, "1e500" is inf, "7\r" is 7,
// "0xffffffffffffffff" is 2^64, "-0" is -0, and "0b11", "0o17", "1_000"
// are not numbers. gopher-lua parses them with Go's base-0 integer and
// float parsers (octal "010" is 8, "0b11" is 3, underscores accepted,
// "1e500" and "7\r" refused). A string operand is converted here with
// the engine's tonumber (lualib.ToNumber) and the result stored; one that
// does not convert raises the VM's own arithmetic error, which errwording
// puts in Lua 5.1's words.
//
// The handlers are reached through gopher-lua's jump table, the registers
// and the current frame through mirrors of its structures, each checked
// against the library's types (vmArithOK): with another layout nothing is
// wrapped.

// instFunc is gopher-lua's instFunc, its frame argument opaque.
type instFunc func(L *lua.LState, inst uint32, frame unsafe.Pointer) int

//go:linkname gopherJumpTable github.com/yuin/gopher-lua.jumpTable
var gopherJumpTable [lua.OP_NOP + 1]instFunc

// gopherRegistry mirrors the head of gopher-lua's registry: the register
// array and its top.
type gopherRegistry struct {
	array []lua.LValue
	top   int
}

// regOff (ccalls.go) is the offset of LState.reg, a pointer to the
// registry, valid when regOK: the registry starts as gopherRegistry does.
func regOK() bool {
	layoutOnce.Do(readLayout)
	return regOffOK
}

func regOffset() (uintptr, bool) {
	f, ok := reflect.TypeFor[lua.LState]().FieldByName("reg")
	if !ok || f.Type.Kind() != reflect.Pointer || f.Type.Elem().Kind() != reflect.Struct || f.Type.Elem().NumField() < 2 {
		return 0, false
	}
	mine := reflect.TypeFor[gopherRegistry]()
	for i := range 2 {
		a, b := f.Type.Elem().Field(i), mine.Field(i)
		if a.Name != b.Name || a.Offset != b.Offset || a.Type != b.Type {
			return 0, false
		}
	}
	return f.Offset, true
}

// vmArithOK reports whether the mirrors match this gopher-lua: the jump
// table's entries are set, the frame and registry mirrors hold.
func vmArithOK() bool {
	if !regOK() || !currentFrameOK() {
		return false
	}
	jt := reflect.ValueOf(&gopherJumpTable).Elem()
	for _, op := range []int{lua.OP_ADD, lua.OP_SUB, lua.OP_MUL, lua.OP_DIV, lua.OP_UNM} {
		if jt.Index(op).IsNil() {
			return false
		}
	}
	return true
}

func registryOf(L *lua.LState) *gopherRegistry {
	return *(**gopherRegistry)(unsafe.Add(unsafe.Pointer(L), regOff))
}

func registersOf(L *lua.LState) []lua.LValue { return registryOf(L).array }

// setRegister stores v in register i as the VM's Set does; false when the
// array has no room (the caller leaves the instruction to the VM).
func setRegister(L *lua.LState, i int, v lua.LValue) bool {
	rg := registryOf(L)
	if i < 0 || i >= len(rg.array) {
		return false
	}
	rg.array[i] = v
	if i >= rg.top {
		rg.top = i + 1
	}
	return true
}

// numOrString reports a number or a string: operands whose arithmetic has
// no metamethod to try (a string's metatable has no arithmetic events).
func numOrString(v lua.LValue) bool {
	switch v.(type) {
	case lua.LNumber, lua.LString:
		return true
	}
	return false
}

// convertedType is the operand's type after Lua 5.1's conversion, as the
// VM's arithmetic error names it.
func convertedType(v lua.LValue) string {
	if _, ok := lualib.ToNumber(v); ok {
		return "number"
	}
	return v.Type().String()
}

func arith51(op int, x, y float64) float64 {
	switch op {
	case lua.OP_ADD:
		return x + y
	case lua.OP_SUB:
		return x - y
	case lua.OP_MUL:
		return x * y
	}
	return x / y
}

var arithEvent = lazy.Value[map[int]string]{New: func() map[int]string {
	return map[int]string{lua.OP_ADD: "add", lua.OP_SUB: "sub", lua.OP_MUL: "mul", lua.OP_DIV: "div"}
}}

// rk is the VM's RK(x): a constant of the running function, else a
// register of the frame.
func rk(regs []lua.LValue, f *gopherFrame, x int) lua.LValue {
	const bitRK = 1 << 8
	if x&bitRK != 0 {
		return f.Fn.Proto.Constants[x&^bitRK]
	}
	return regs[f.LocalBase+x]
}

// wrapArith wraps the handlers, once, before the engine's first state
// runs (newState): the jump table is the library's, shared by every
// state of the process. It is not done at process start, which every
// scriptctl command pays.
var wrapArith = lazy.Once{F: func() {
	if !vmArithOK() {
		return
	}
	for _, op := range []int{lua.OP_ADD, lua.OP_SUB, lua.OP_MUL, lua.OP_DIV} {
		orig := gopherJumpTable[op]
		gopherJumpTable[op] = func(L *lua.LState, inst uint32, frame unsafe.Pointer) int {
			f := currentFrameOf(L)
			regs := registersOf(L)
			lhs, rhs := rk(regs, f, int(inst&0x1ff)), rk(regs, f, int(inst>>9)&0x1ff)
			x, ok1 := lhs.(lua.LNumber)
			y, ok2 := rhs.(lua.LNumber)
			if ok1 && ok2 {
				ret := orig(L, inst, frame)
				if x != 0 && y != 0 && op != lua.OP_DIV {
					return ret
				}
				if v := arith51(op, float64(x), float64(y)); v == 0 && math.Signbit(v) {
					registersOf(L)[f.LocalBase+int(inst>>18)&0xff] = lua.LNumber(v)
				}
				return ret
			}
			if numOrString(lhs) && numOrString(rhs) {
				a, aok := lualib.ToNumber(lhs)
				b, bok := lualib.ToNumber(rhs)
				if !aok || !bok {
					L.RaiseError("%s", fmt.Sprintf("cannot perform %s operation between %s and %s", arithEvent.Get()[op], convertedType(lhs), convertedType(rhs)))
				}
				if setRegister(L, f.LocalBase+int(inst>>18)&0xff, lua.LNumber(arith51(op, a, b))) {
					return 0
				}
			}
			return orig(L, inst, frame)
		}
	}
	unm := gopherJumpTable[lua.OP_UNM]
	gopherJumpTable[lua.OP_UNM] = func(L *lua.LState, inst uint32, frame unsafe.Pointer) int {
		f := currentFrameOf(L)
		if s, ok := rk(registersOf(L), f, int(inst&0x1ff)).(lua.LString); ok {
			v, ok := lualib.ToNumber(s)
			if !ok {
				L.RaiseError("__unm undefined")
			}
			if setRegister(L, f.LocalBase+int(inst>>18)&0xff, lua.LNumber(-v)) {
				return 0
			}
		}
		return unm(L, inst, frame)
	}
}}
