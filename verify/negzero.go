package verify

import (
	"math"
	"reflect"
	"unsafe"

	lua "github.com/yuin/gopher-lua"
)

// Negative zero from arithmetic. Lua 5.1 keeps the sign of a zero that +,
// -, * or / gives (-0 * 3, 0 * -1, -0 / 5, 1 / -math.huge are -0), and
// everything that prints the number shows it: tostring, .., string.format,
// cjson.encode, and redis.call's arguments ("-0" stored by SET, HSET,
// ZADD). gopher-lua stores an arithmetic result in its register through
// its number allocator, which hands out one shared +0 for every zero of
// 0 to 127: the sign is lost. The engine wraps the VM's OP_ADD, OP_SUB,
// OP_MUL and OP_DIV handlers: when both operands are numbers and the
// result is a negative zero, the result's register gets it back. The
// handlers are reached through gopher-lua's jump table, the registers and
// the current frame through mirrors of its structures, each checked
// against the library's types (negZeroOK): with another layout nothing is
// wrapped.

// instFunc is gopher-lua's instFunc, its frame argument opaque.
type instFunc func(L *lua.LState, inst uint32, frame unsafe.Pointer) int

//go:linkname gopherJumpTable github.com/yuin/gopher-lua.jumpTable
var gopherJumpTable [lua.OP_NOP + 1]instFunc

// regOff is the offset of LState.reg, a pointer to the registry whose
// first field is the register array.
var regOff, regOK = func() (uintptr, bool) {
	f, ok := reflect.TypeFor[lua.LState]().FieldByName("reg")
	if !ok || f.Type.Kind() != reflect.Pointer || f.Type.Elem().Kind() != reflect.Struct || f.Type.Elem().NumField() == 0 {
		return 0, false
	}
	a := f.Type.Elem().Field(0)
	if a.Name != "array" || a.Offset != 0 || a.Type != reflect.TypeFor[[]lua.LValue]() {
		return 0, false
	}
	return f.Offset, true
}()

// negZeroOK reports whether the mirrors match this gopher-lua: the jump
// table's entries are functions of the expected type (checked through the
// library's own instFunc), the frame and registry mirrors hold.
func negZeroOK() bool {
	if !regOK || !currentFrameOK {
		return false
	}
	jt := reflect.ValueOf(&gopherJumpTable).Elem()
	for op := lua.OP_ADD; op <= lua.OP_DIV; op++ {
		if jt.Index(op).IsNil() {
			return false
		}
	}
	return true
}

func registersOf(L *lua.LState) []lua.LValue {
	reg := *(*unsafe.Pointer)(unsafe.Add(unsafe.Pointer(L), regOff))
	return *(*[]lua.LValue)(reg)
}

// rk is the VM's RK(x): a constant of the running function, else a
// register of the frame.
func rk(regs []lua.LValue, f *gopherFrame, x int) lua.LValue {
	const bitRK = 1 << 8
	if x&bitRK != 0 {
		return f.Fn.Proto.Constants[x&^bitRK]
	}
	return regs[f.LocalBase+x]
}

// init wraps the handlers once, before any state runs: the jump table is
// the library's, shared by every state of the process.
func init() {
	if !negZeroOK() {
		return
	}
	for op := lua.OP_ADD; op <= lua.OP_DIV; op++ {
		orig := gopherJumpTable[op]
		gopherJumpTable[op] = func(L *lua.LState, inst uint32, frame unsafe.Pointer) int {
			f := currentFrameOf(L)
			regs := registersOf(L)
			x, ok1 := rk(regs, f, int(inst&0x1ff)).(lua.LNumber)
			y, ok2 := rk(regs, f, int(inst>>9)&0x1ff).(lua.LNumber)
			ret := orig(L, inst, frame)
			if !ok1 || !ok2 || (x != 0 && y != 0 && op != lua.OP_DIV) {
				return ret
			}
			var v float64
			switch op {
			case lua.OP_ADD:
				v = float64(x) + float64(y)
			case lua.OP_SUB:
				v = float64(x) - float64(y)
			case lua.OP_MUL:
				v = float64(x) * float64(y)
			default:
				v = float64(x) / float64(y)
			}
			if v == 0 && math.Signbit(v) {
				registersOf(L)[f.LocalBase+int(inst>>18)&0xff] = lua.LNumber(v)
			}
			return ret
		}
	}
}
