package verify

import (
	"bytes"
	"slices"
	"strings"

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
	_, only, _ := libraryRegistrations(code)
	return only
}

// libraryRegistrations is registrations of the library code's main chunk,
// with the chunk; nil and false for code without valid metadata or that
// does not compile.
func libraryRegistrations(code []byte) (p *lua.FunctionProto, only, loads bool) {
	if _, errText := libraryMeta(code); errText != "" {
		return nil, false, false
	}
	end := bytes.IndexByte(code, '\n')
	c := compileCached(code[end:], "@user_function")
	if c.err != nil || c.proto == nil {
		return nil, false, false
	}
	only, loads = registrations(c.proto)
	return c.proto, only, loads
}

// LoadsOnEveryTarget reports whether FUNCTION LOAD of the library code
// succeeds in a new engine of every target with the load budget loadSteps
// (Options.LoadStepLimit; 0 is the default), judged without running it:
// true only when RegistersOnly(code) and every registration passes
// register_function's checks (a string name of letters, digits and
// underscores, given once; a function; known flags; no other argument)
// and at least one is made, in code short enough for the budget many
// times over. False says nothing: load it in each target's engine to
// know, and to have each target's refusal in its words.
func LoadsOnEveryTarget(code []byte, loadSteps int64) bool {
	budget := min(loadStepLimit, DefaultStepLimit)
	if loadSteps > 0 {
		budget = min(loadSteps, DefaultStepLimit)
	}
	p, only, loads := libraryRegistrations(code)
	// Straight-line code runs each instruction once.
	return only && loads && budget >= 1<<20 && len(p.Code) <= 1<<16
}

// The kinds of value registrations follows in the main chunk's registers.
const (
	regUnknown  = iota
	regRedis    // the global redis
	regRegister // redis.register_function
	regTableNew // the engine's table constructor helper (tnewName)
	regTable    // a table built here: no metatable, only constants, functions and such tables in it
	regConst    // a constant (LOADK, LOADNIL)
	regFunc     // a closure of a function without upvalues
)

// regValue is what a register holds: its kind, and a constant's value or
// a table's contents.
type regValue struct {
	kind int
	k    lua.LValue // regConst
	t    *symTable  // regTable
}

// symTable is a table the main chunk builds: its string keys and its
// integer keys (SETLIST), each with the value stored.
type symTable struct {
	named map[string]regValue
	array map[int]regValue
}

// set stores v under a string key, or under the integer key i when key
// is nil; storing nil removes the key, as in Lua.
func (t *symTable) set(key *string, i int, v regValue) {
	isNil := v.kind == regConst && v.k == lua.LNil
	switch {
	case key != nil && isNil:
		delete(t.named, *key)
	case key != nil:
		t.named[*key] = v
	case isNil:
		delete(t.array, i)
	default:
		t.array[i] = v
	}
}

// registrations is RegistersOnly on a compiled main chunk (ok): every
// instruction must be one of those below, with the operands said, and the
// chunk must end with its final RETURN, returning nothing. loads says
// whether the load succeeds: every register_function call passes
// registerFunction's checks (and Valkey's after the load, the same
// predicates) and at least one is made.
func registrations(p *lua.FunctionProto) (ok, loads bool) {
	if p.NumUpvalues != 0 || len(p.Code) == 0 {
		return false, false
	}
	regs := make([]regValue, int(p.NumUsedRegisters)+1)
	reg := func(r int) regValue {
		if r < 0 || r >= len(regs) {
			return regValue{}
		}
		return regs[r]
	}
	set := func(r int, v regValue) bool {
		if r < 0 || r >= len(regs) {
			return false
		}
		regs[r] = v
		return true
	}
	// rk is an RK operand's value: a constant, or a register's.
	rk := func(x int) regValue {
		if k, isConst := rkConst(x); isConst {
			if k >= len(p.Constants) {
				return regValue{}
			}
			return regValue{kind: regConst, k: p.Constants[k]}
		}
		return reg(x)
	}
	constString := func(x int) (string, bool) {
		v := rk(x)
		s, ok := v.k.(lua.LString)
		return string(s), v.kind == regConst && ok
	}
	// stored says a value may go into a table built here.
	stored := func(v regValue) bool { return v.kind == regConst || v.kind == regFunc || v.kind == regTable }
	var pending []string // the names registered so far
	loads = true
	register := func(args []regValue) {
		name, fine := registration(args)
		if !fine || !validName(name) || slices.Contains(pending, name) {
			loads = false
			return
		}
		pending = append(pending, name)
	}
	last := len(p.Code) - 1
	for pc, inst := range p.Code {
		op, a := instOp(inst), instA(inst)
		switch op {
		case lua.OP_GETGLOBAL:
			bx := instBx(inst)
			if bx >= len(p.Constants) {
				return false, false
			}
			name, _ := p.Constants[bx].(lua.LString)
			switch string(name) {
			case "redis":
				if !set(a, regValue{kind: regRedis}) {
					return false, false
				}
			case tnewName:
				if !set(a, regValue{kind: regTableNew}) {
					return false, false
				}
			default:
				return false, false
			}
		case lua.OP_GETTABLEKS:
			key, ok := constString(instC(inst))
			if !ok || key != "register_function" || reg(instB(inst)).kind != regRedis || !set(a, regValue{kind: regRegister}) {
				return false, false
			}
		case lua.OP_NEWTABLE:
			if !set(a, regValue{kind: regTable, t: &symTable{named: map[string]regValue{}, array: map[int]regValue{}}}) {
				return false, false
			}
		case lua.OP_SETTABLE, lua.OP_SETTABLEKS:
			key, ok := constString(instB(inst))
			t, v := reg(a), rk(instC(inst))
			if !ok || t.kind != regTable || !stored(v) {
				return false, false
			}
			t.t.set(&key, 0, v)
		case lua.OP_LOADK:
			bx := instBx(inst)
			if bx >= len(p.Constants) || !set(a, regValue{kind: regConst, k: p.Constants[bx]}) {
				return false, false
			}
		case lua.OP_LOADNIL:
			for r := a; r <= instB(inst); r++ {
				if !set(r, regValue{kind: regConst, k: lua.LNil}) {
					return false, false
				}
			}
		case lua.OP_MOVE:
			if !set(a, reg(instB(inst))) {
				return false, false
			}
		case lua.OP_CLOSURE:
			bx := instBx(inst)
			if bx >= len(p.FunctionPrototypes) || p.FunctionPrototypes[bx].NumUpvalues != 0 || !set(a, regValue{kind: regFunc}) {
				return false, false
			}
		case lua.OP_SETLIST:
			// B values after A; C == 0 would take the next instruction as
			// C, B == 0 the values up to the top.
			n, c := instB(inst), instC(inst)
			t := reg(a)
			if n == 0 || c == 0 || t.kind != regTable {
				return false, false
			}
			for i := 1; i <= n; i++ {
				v := reg(a + i)
				if !stored(v) {
					return false, false
				}
				t.t.set(nil, (c-1)*lua.FieldsPerFlush+i, v)
			}
		case lua.OP_CALL:
			nargs, nres := instB(inst)-1, instC(inst)-1
			switch reg(a).kind {
			case regTableNew:
				// tnew(table, shape) returns the table.
				t := reg(a + 1)
				if nargs != 2 || t.kind != regTable || reg(a+2).kind != regConst || nres < 0 || nres > 1 {
					return false, false
				}
				for r := a; r < len(regs); r++ {
					regs[r] = regValue{}
				}
				if nres == 1 {
					regs[a] = t
				}
			case regRegister:
				if nargs < 1 || nargs > 2 || nres != 0 {
					return false, false
				}
				args := []regValue{reg(a + 1)}
				if nargs == 2 {
					args = append(args, reg(a+2))
				}
				named := nargs == 1 && args[0].kind == regTable
				positional := nargs == 2 && args[0].kind == regConst && args[1].kind == regFunc
				if !named && !positional {
					return false, false
				}
				register(args)
				for r := a; r < len(regs); r++ {
					regs[r] = regValue{}
				}
			default:
				return false, false
			}
		case lua.OP_RETURN:
			// The final "return" the compiler adds, returning nothing.
			if pc != last || instB(inst) != 1 {
				return false, false
			}
		default:
			return false, false
		}
	}
	if instOp(p.Code[last]) != lua.OP_RETURN {
		return false, false
	}
	return true, loads && len(pending) > 0
}

// registration is registerFunction's checks of one call's arguments, the
// named form (one table) or the positional one (a name, a function): the
// function's name, and whether they pass.
func registration(args []regValue) (string, bool) {
	if len(args) == 2 {
		return regString(args[0])
	}
	t := args[0].t
	if len(t.array) > 0 {
		return "", false // a key that is not a string
	}
	name, callback := "", false
	seen := map[string]bool{}
	for key, v := range t.named {
		// registerFunction compares the names without case: one given
		// in two spellings is decided by Lua's order, left to the engines
		key = strings.ToLower(key)
		if seen[key] {
			return "", false
		}
		seen[key] = true
		switch key {
		case "function_name":
			s, ok := regString(v)
			if !ok {
				return "", false
			}
			name = s
		case "description":
			if _, ok := regString(v); !ok {
				return "", false
			}
		case "callback":
			if v.kind != regFunc {
				return "", false
			}
			callback = true
		case "flags":
			if v.kind != regTable {
				return "", false
			}
			// Read as registerFunction reads them: 1, 2, ... up to the
			// first missing.
			for i := 1; ; i++ {
				x, ok := v.t.array[i]
				if !ok {
					break
				}
				s, isString := x.k.(lua.LString)
				_, known := functionFlag(string(s))
				if x.kind != regConst || !isString || !known {
					return "", false
				}
			}
		default:
			return "", false
		}
	}
	return name, name != "" && callback
}

// regString is luaStringArg of a constant: a string, or a number's text.
func regString(v regValue) (string, bool) {
	if v.kind != regConst {
		return "", false
	}
	return luaStringArg(v.k)
}
