package verify

import (
	"bytes"

	lua "github.com/yuin/gopher-lua"
)

// RegistersOnly reports whether the top-level code of the Functions
// library code does nothing but register functions: straight-line code
// (no branch, no loop) that reads the global redis and its
// register_function, builds tables of constants and functions, and calls
// register_function with them; the function bodies are not run by a
// load. That is the code scriptctl generates from a manifest, unless a
// script's text ends its function early.
//
// Such a load touches nothing a target decides but register_function's
// checks (the function's name, callback and flags, a name given twice),
// which are the same on every target (Valkey checks the names after the
// code ran and words a refusal otherwise): when FUNCTION LOAD of code
// succeeds in a new engine of one target, it succeeds in a new engine of
// every target. A refusal may differ between targets in its wording, so
// a caller that needs each target's refusal loads code on each.
func RegistersOnly(code []byte) bool {
	if _, errText := libraryMeta(code); errText != "" {
		return false
	}
	end := bytes.IndexByte(code, '\n')
	c := compileCached(code[end:], "@user_function")
	if c.err != nil || c.proto == nil {
		return false
	}
	return registersOnly(c.proto)
}

// The kinds of value registersOnly follows in the main chunk's registers.
const (
	regUnknown  = iota
	regRedis    // the global redis
	regRegister // redis.register_function
	regTableNew // the engine's table constructor helper (tnewName)
	regTable    // a table built here: no metatable, only constants, functions and such tables in it
	regConst    // a constant (LOADK, LOADNIL)
	regFunc     // a closure of a function without upvalues
)

// registersOnly is RegistersOnly on a compiled main chunk: every
// instruction must be one of those below, with the operands said, and the
// chunk must end with its final RETURN and nothing else returned.
func registersOnly(p *lua.FunctionProto) bool {
	if p.NumUpvalues != 0 || len(p.Code) == 0 {
		return false
	}
	kinds := make([]int, int(p.NumUsedRegisters)+1)
	reg := func(r int) int {
		if r < 0 || r >= len(kinds) {
			return regUnknown
		}
		return kinds[r]
	}
	set := func(r, k int) bool {
		if r < 0 || r >= len(kinds) {
			return false
		}
		kinds[r] = k
		return true
	}
	// rk is an RK operand's kind: a constant, or a register's.
	rk := func(x int) int {
		if _, isConst := rkConst(x); isConst {
			return regConst
		}
		return reg(x)
	}
	constString := func(x int) (string, bool) {
		k, isConst := rkConst(x)
		if !isConst || k >= len(p.Constants) {
			return "", false
		}
		s, ok := p.Constants[k].(lua.LString)
		return string(s), ok
	}
	// stored says a value of kind k may go into a table built here.
	stored := func(k int) bool { return k == regConst || k == regFunc || k == regTable }
	last := len(p.Code) - 1
	for pc, inst := range p.Code {
		op, a := instOp(inst), instA(inst)
		switch op {
		case lua.OP_GETGLOBAL:
			bx := instBx(inst)
			if bx >= len(p.Constants) {
				return false
			}
			name, _ := p.Constants[bx].(lua.LString)
			switch string(name) {
			case "redis":
				if !set(a, regRedis) {
					return false
				}
			case tnewName:
				if !set(a, regTableNew) {
					return false
				}
			default:
				return false
			}
		case lua.OP_GETTABLEKS:
			key, ok := constString(instC(inst))
			if !ok || key != "register_function" || reg(instB(inst)) != regRedis || !set(a, regRegister) {
				return false
			}
		case lua.OP_NEWTABLE:
			if !set(a, regTable) {
				return false
			}
		case lua.OP_SETTABLE, lua.OP_SETTABLEKS:
			if _, ok := constString(instB(inst)); !ok || reg(a) != regTable || !stored(rk(instC(inst))) {
				return false
			}
		case lua.OP_LOADK:
			if !set(a, regConst) {
				return false
			}
		case lua.OP_LOADNIL:
			for r := a; r <= instB(inst); r++ {
				if !set(r, regConst) {
					return false
				}
			}
		case lua.OP_MOVE:
			if !set(a, reg(instB(inst))) {
				return false
			}
		case lua.OP_CLOSURE:
			bx := instBx(inst)
			if bx >= len(p.FunctionPrototypes) || p.FunctionPrototypes[bx].NumUpvalues != 0 || !set(a, regFunc) {
				return false
			}
		case lua.OP_SETLIST:
			// B values after A; C == 0 would take the next instruction as
			// C, B == 0 the values up to the top.
			n, c := instB(inst), instC(inst)
			if n == 0 || c == 0 || reg(a) != regTable {
				return false
			}
			for r := a + 1; r <= a+n; r++ {
				if !stored(reg(r)) {
					return false
				}
			}
		case lua.OP_CALL:
			nargs, nres := instB(inst)-1, instC(inst)-1
			switch reg(a) {
			case regTableNew:
				// tnew(table, shape) returns the table.
				if nargs != 2 || reg(a+1) != regTable || reg(a+2) != regConst || nres < 0 || nres > 1 {
					return false
				}
				for r := a + 1; r < len(kinds); r++ {
					kinds[r] = regUnknown
				}
				if nres == 0 {
					kinds[a] = regUnknown
				} else {
					kinds[a] = regTable
				}
			case regRegister:
				named := nargs == 1 && reg(a+1) == regTable
				positional := nargs == 2 && reg(a+1) == regConst && reg(a+2) == regFunc
				if !named && !positional || nres != 0 {
					return false
				}
				for r := a; r < len(kinds); r++ {
					kinds[r] = regUnknown
				}
			default:
				return false
			}
		case lua.OP_RETURN:
			// The final "return" the compiler adds, returning nothing.
			if pc != last || instB(inst) != 1 {
				return false
			}
		default:
			return false
		}
	}
	return instOp(p.Code[last]) == lua.OP_RETURN
}
