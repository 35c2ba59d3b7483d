package verify

import (
	"fmt"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/ast"

	"github.com/scriptctl/scriptctl/internal/lazy"
	"github.com/scriptctl/scriptctl/verify/lualib"
)

// Operand names in runtime errors, as Lua 5.1's ldebug.c finds them. Lua
// names the operand of a type error ("attempt to index local 'x' (a nil
// value)") from the failing instruction: the register it reads is a local
// active at that instruction (getobjname's findlocal), or the engine
// replays the function's code up to the instruction to find which one last
// wrote the register (symbexec): GETGLOBAL names a global, GETTABLE a field
// (its key when the key is a string constant, else '?'), GETUPVAL an
// upvalue, SELF a method, MOVE the register it copies; anything else (a
// call's result, a constant, a test) leaves it unnamed ("attempt to index a
// nil value"). gopher-lua compiles Lua 5.1's instruction set (plus MOVEN,
// GETTABLEKS and SETTABLEKS, which this file reads as MOVE, GETTABLE and
// SETTABLE), so the same replay runs on its code. The failing instruction
// comes from the frame (framepc.go).
//
// gopher-lua's record of where locals end is not usable (it stores a
// block's end in the entries indexed by register, not by local), so the
// locals' ranges are rebuilt once per chunk, on its first runtime error
// (localScopes): the chunk is compiled again with a marker local at the end
// of every block, whose start position is where the block's statements end.

// localVar is a local variable of a function as Lua 5.1 records it: active
// for the instructions start <= pc < end.
type localVar struct {
	name       string
	start, end int
}

// Instruction fields (gopher-lua 1.1.2's layout: opcode in the top six
// bits, then A, C and B).
func instOp(i uint32) int  { return int(i >> 26) }
func instA(i uint32) int   { return int(i>>18) & 0xff }
func instB(i uint32) int   { return int(i & 0x1ff) }
func instC(i uint32) int   { return int(i>>9) & 0x1ff }
func instBx(i uint32) int  { return int(i & 0x3ffff) }
func instSBx(i uint32) int { return instBx(i) - 0x3ffff>>1 }

// rkConst reports whether an RK operand is a constant, and its index.
func rkConst(rk int) (int, bool) { return rk &^ 0x100, rk&0x100 != 0 }

// writesA lists the opcodes that set register A (Lua 5.1's testAMode).
var writesA = func() [lua.OP_NOP + 1]bool {
	var w [lua.OP_NOP + 1]bool
	for _, op := range []int{lua.OP_MOVE, lua.OP_MOVEN, lua.OP_LOADK, lua.OP_LOADBOOL, lua.OP_LOADNIL,
		lua.OP_GETUPVAL, lua.OP_GETGLOBAL, lua.OP_GETTABLE, lua.OP_GETTABLEKS, lua.OP_NEWTABLE, lua.OP_SELF,
		lua.OP_ADD, lua.OP_SUB, lua.OP_MUL, lua.OP_DIV, lua.OP_MOD, lua.OP_POW, lua.OP_UNM, lua.OP_NOT,
		lua.OP_LEN, lua.OP_CONCAT, lua.OP_TEST, lua.OP_TESTSET, lua.OP_CALL, lua.OP_TAILCALL,
		lua.OP_FORLOOP, lua.OP_FORPREP, lua.OP_CLOSURE, lua.OP_VARARG} {
		w[op] = true
	}
	return w
}()

// lastWriter is Lua 5.1's symbexec: the instruction that last set register
// reg before lastpc, following forward jumps that do not pass lastpc; -1
// when none did (Lua then reads the final RETURN, which names nothing).
func lastWriter(p *lua.FunctionProto, lastpc, reg int) int {
	last := -1
	code := p.Code
	for pc := 0; pc < lastpc && pc < len(code); pc++ {
		i := code[pc]
		op, a := instOp(i), instA(i)
		if op > lua.OP_NOP {
			return -1
		}
		if writesA[op] && a == reg {
			last = pc
		}
		switch op {
		case lua.OP_LOADNIL:
			if a <= reg && reg <= instB(i) {
				last = pc
			}
		case lua.OP_SELF:
			if reg == a+1 {
				last = pc
			}
		case lua.OP_TFORLOOP:
			if reg >= a+2 {
				last = pc
			}
		case lua.OP_FORLOOP, lua.OP_FORPREP, lua.OP_JMP:
			b := instSBx(i)
			if dest := pc + 1 + b; pc < dest && dest <= lastpc {
				pc += b
			}
		case lua.OP_CALL, lua.OP_TAILCALL:
			if reg >= a {
				last = pc
			}
		case lua.OP_SETLIST:
			if instC(i) == 0 {
				pc++
			}
		case lua.OP_CLOSURE:
			// the upvalue pseudo-instructions that follow are not run
			if bx := instBx(i); bx < len(p.FunctionPrototypes) {
				pc += int(p.FunctionPrototypes[bx].NumUpvalues)
			}
		}
	}
	return last
}

// kname is the name of a table key operand: a string constant, else "?".
func kname(p *lua.FunctionProto, rk int) string {
	if k, isK := rkConst(rk); isK && k < len(p.Constants) {
		if s, ok := p.Constants[k].(lua.LString); ok {
			return string(s)
		}
	}
	return "?"
}

// localName is luaF_getlocalname: the n-th (1-based) local active at pc.
func localName(locals []localVar, n, pc int) string {
	for i := 0; i < len(locals) && locals[i].start <= pc; i++ {
		if pc < locals[i].end {
			n--
			if n == 0 {
				return locals[i].name
			}
		}
	}
	return ""
}

// objName is Lua 5.1's getobjname: how the error names register reg of
// the function running p at pc ("local 'x'", "global 'x'", "field 'x'",
// "upvalue 'x'", "method 'x'"), or "" when it names nothing.
func objName(p *lua.FunctionProto, locals []localVar, pc, reg int) string {
	for depth := 0; depth < 256; depth++ {
		if name := localName(locals, reg+1, pc); name != "" {
			return fmt.Sprintf("local '%s'", name)
		}
		last := lastWriter(p, pc, reg)
		if last < 0 {
			return ""
		}
		i := p.Code[last]
		switch instOp(i) {
		case lua.OP_GETGLOBAL:
			if k := instBx(i); k < len(p.Constants) {
				if s, ok := p.Constants[k].(lua.LString); ok {
					return fmt.Sprintf("global '%s'", string(s))
				}
			}
			return ""
		case lua.OP_MOVE, lua.OP_MOVEN:
			if b := instB(i); b < instA(i) {
				reg = b
				continue
			}
			return ""
		case lua.OP_GETTABLE, lua.OP_GETTABLEKS:
			return fmt.Sprintf("field '%s'", kname(p, instC(i)))
		case lua.OP_GETUPVAL:
			name := "?"
			if b := instB(i); b < len(p.DbgUpvalues) {
				name = p.DbgUpvalues[b]
			}
			return fmt.Sprintf("upvalue '%s'", name)
		case lua.OP_SELF:
			return fmt.Sprintf("method '%s'", kname(p, instC(i)))
		}
		return ""
	}
	return ""
}

// Marker locals (localScopes). The name holds a NUL byte, so no script can
// declare it; the count after the prefix is the number of locals its block
// declares itself.
const (
	markerPrefix       = "\x00end"
	repeatMarkerPrefix = "\x00until"
	markerLine         = -7919 // LineDefined of a marker's function
)

// scopeChunk is one chunk's rebuilt local ranges, by prototype.
type scopeChunk map[*lua.FunctionProto][]localVar

// localScopes rebuilds the local ranges of a compiled chunk; nil when the
// marked compile does not line up with the chunk's (never expected).
func localScopes(c *compiled) scopeChunk {
	if c == nil || c.proto == nil {
		return nil
	}
	chunk, _, err := rewriteChunk(c.src, c.name)
	if err != nil {
		return nil
	}
	markBlocks(chunk)
	marked, err := lua.Compile(chunk, chunkID(c.name))
	if err != nil {
		return nil
	}
	out := scopeChunk{}
	if !matchScopes(c.proto, marked, out) {
		return nil
	}
	return out
}

// matchScopes fills out with p's locals from its marked compile m, and
// recurses into the nested functions.
func matchScopes(p, m *lua.FunctionProto, out scopeChunk) bool {
	var nested []*lua.FunctionProto
	for _, f := range m.FunctionPrototypes {
		if f.LineDefined != markerLine {
			nested = append(nested, f)
		}
	}
	markers := len(m.FunctionPrototypes) - len(nested)
	if len(nested) != len(p.FunctionPrototypes) || len(m.Code)-markers != len(p.Code) {
		return false
	}
	var vars []localVar
	var open []int
	seen := 0 // markers met so far: each added one instruction
	j := 0
	for _, e := range m.DbgLocals {
		prefix, isMarker := "", false
		for _, pre := range []string{markerPrefix, repeatMarkerPrefix} {
			if strings.HasPrefix(e.Name, pre) {
				prefix, isMarker = pre, true
			}
		}
		if !isMarker {
			if j >= len(p.DbgLocals) || p.DbgLocals[j].Name != e.Name {
				return false
			}
			vars = append(vars, localVar{name: e.Name, start: p.DbgLocals[j].StartPc, end: len(p.Code)})
			open = append(open, len(vars)-1)
			j++
			continue
		}
		n, err := strconv.Atoi(e.Name[len(prefix):])
		if err != nil || n > len(open) {
			return false
		}
		end := e.StartPc - seen
		seen++
		if prefix == repeatMarkerPrefix {
			end = repeatEnd(p, end)
		}
		for k := 0; k < n; k++ {
			vars[open[len(open)-1]].end = end
			open = open[:len(open)-1]
		}
	}
	if j != len(p.DbgLocals) {
		return false
	}
	// Lua 5.1 activates a for loop's hidden locals after the loop's header
	// (at FORPREP, or at the generic for's jump), the loop variables one
	// instruction later; gopher-lua registers the hidden ones first.
	for i := 0; i+3 < len(vars); i++ {
		switch vars[i].name {
		case "(for index)", "(for generator)":
			for k := 0; k < 3; k++ {
				vars[i+k].start = vars[i+3].start - 1
			}
		}
	}
	out[p] = vars
	for k := range nested {
		if !matchScopes(p.FunctionPrototypes[k], nested[k], out) {
			return false
		}
	}
	return true
}

// repeatEnd is where the locals of a repeat block end: after its until
// condition, which starts at pc and ends with the jump back to the loop.
func repeatEnd(p *lua.FunctionProto, pc int) int {
	for ; pc < len(p.Code); pc++ {
		if i := p.Code[pc]; instOp(i) == lua.OP_JMP && instSBx(i) < 0 {
			return pc + 1
		}
	}
	return len(p.Code)
}

// markBlocks appends a marker local to every block that declares locals
// (not to function bodies, whose locals last to the function's end).
func markBlocks(stmts []ast.Stmt) {
	for _, s := range stmts {
		markStmt(s)
	}
}

func markerStmt(prefix string, n int) ast.Stmt {
	f := &ast.FunctionExpr{ParList: &ast.ParList{}}
	f.SetLine(markerLine)
	f.SetLastLine(markerLine)
	return &ast.LocalAssignStmt{Names: []string{prefix + strconv.Itoa(n)}, Exprs: []ast.Expr{f}}
}

// declared counts the locals a statement list declares in its own block.
func declared(stmts []ast.Stmt) int {
	n := 0
	for _, s := range stmts {
		if l, ok := s.(*ast.LocalAssignStmt); ok {
			n += len(l.Names)
		}
	}
	return n
}

func markList(list *[]ast.Stmt, extra int, prefix string) {
	markBlocks(*list)
	if n := declared(*list) + extra; n > 0 {
		*list = append(*list, markerStmt(prefix, n))
	}
}

func markStmt(s ast.Stmt) {
	switch s := s.(type) {
	case *ast.AssignStmt:
		markExprs(s.Lhs)
		markExprs(s.Rhs)
	case *ast.LocalAssignStmt:
		markExprs(s.Exprs)
	case *ast.FuncCallStmt:
		markExpr(s.Expr)
	case *ast.DoBlockStmt:
		markList(&s.Stmts, 0, markerPrefix)
	case *ast.WhileStmt:
		markExpr(s.Condition)
		markList(&s.Stmts, 0, markerPrefix)
	case *ast.RepeatStmt:
		markExpr(s.Condition)
		markList(&s.Stmts, 0, repeatMarkerPrefix)
	case *ast.IfStmt:
		markExpr(s.Condition)
		markList(&s.Then, 0, markerPrefix)
		markList(&s.Else, 0, markerPrefix)
	case *ast.NumberForStmt:
		markExpr(s.Init)
		markExpr(s.Limit)
		markExpr(s.Step)
		markList(&s.Stmts, 4, markerPrefix)
	case *ast.GenericForStmt:
		markExprs(s.Exprs)
		markList(&s.Stmts, 3+len(s.Names), markerPrefix)
	case *ast.FuncDefStmt:
		if s.Name != nil {
			markExpr(s.Name.Func)
			markExpr(s.Name.Receiver)
		}
		markExpr(s.Func)
	case *ast.ReturnStmt:
		markExprs(s.Exprs)
	}
}

func markExprs(list []ast.Expr) {
	for _, e := range list {
		markExpr(e)
	}
}

func markExpr(e ast.Expr) {
	switch x := e.(type) {
	case *ast.AttrGetExpr:
		markExpr(x.Object)
		markExpr(x.Key)
	case *ast.TableExpr:
		for _, f := range x.Fields {
			markExpr(f.Key)
			markExpr(f.Value)
		}
	case *ast.FuncCallExpr:
		markExpr(x.Func)
		markExpr(x.Receiver)
		markExprs(x.Args)
	case *ast.LogicalOpExpr:
		markExpr(x.Lhs)
		markExpr(x.Rhs)
	case *ast.RelationalOpExpr:
		markExpr(x.Lhs)
		markExpr(x.Rhs)
	case *ast.StringConcatOpExpr:
		markExpr(x.Lhs)
		markExpr(x.Rhs)
	case *ast.ArithmeticOpExpr:
		markExpr(x.Lhs)
		markExpr(x.Rhs)
	case *ast.UnaryMinusOpExpr:
		markExpr(x.Expr)
	case *ast.UnaryNotOpExpr:
		markExpr(x.Expr)
	case *ast.UnaryLenOpExpr:
		markExpr(x.Expr)
	case *ast.FunctionExpr:
		markBlocks(x.Stmts)
	}
}

// localsOf returns the locals of prototype p as Lua 5.1 records them, and
// whether they are exact (p belongs to a chunk of this run whose ranges
// could be rebuilt).
func (r *scriptRun) localsOf(p *lua.FunctionProto) ([]localVar, bool) {
	for _, c := range r.chunks {
		if s := c.localScopes(); s != nil {
			if vars, ok := s[p]; ok {
				return vars, true
			}
		}
	}
	return nil, false
}

// frameRegister reads register reg of the Lua function at dbg; ok is false when
// the register is past the frame's top.
func frameRegister(L *lua.LState, dbg *lua.Debug, reg int) (lua.LValue, bool) {
	name, v := L.GetLocal(dbg, reg+1)
	if name == "" || v == nil {
		return nil, false
	}
	return v, true
}

// instructionError words a gopher-lua type error raised by the instruction
// the Lua function at level executes, as Lua 5.1 words it from that
// instruction (luaG_typeerror, luaG_aritherror). ok is false when the
// level is not a Lua function whose instruction raises this error.
func (r *scriptRun) instructionError(L *lua.LState, level int, body string, im, cm, am []string) (string, bool) {
	dbg, found := L.GetStack(level)
	if !found {
		return "", false
	}
	fn, pc, ok := framePC(dbg)
	if !ok {
		return "", false
	}
	p := fn.Proto
	locals, ok := r.localsOf(p)
	if !ok {
		return "", false
	}
	name := func(reg int) string { return objName(p, locals, pc, reg) }
	i := p.Code[pc]
	op, a, b, c := instOp(i), instA(i), instB(i), instC(i)
	// rk reads an RK operand: a constant (never named) or a register.
	rk := func(x int) (lua.LValue, int, bool) {
		if k, isK := rkConst(x); isK {
			if k < len(p.Constants) {
				return p.Constants[k], -1, true
			}
			return nil, -1, false
		}
		v, ok := frameRegister(L, dbg, x)
		return v, x, ok
	}
	switch {
	case im != nil:
		reg, event := -1, "__index"
		switch op {
		case lua.OP_GETTABLE, lua.OP_GETTABLEKS, lua.OP_SELF:
			reg = b
		case lua.OP_SETTABLE, lua.OP_SETTABLEKS:
			reg, event = a, "__newindex"
		default:
			return "", false
		}
		typ := im[1]
		// The failing value is the register's own unless the register
		// holds a value with the event's metamethod (a table, a string's
		// __index): then the error is about a value further down the
		// chain, which Lua names not. A store into a string names it.
		if v, ok := frameRegister(L, dbg, reg); ok && (luaTypeName(v) != typ || L.GetMetaField(v, event) != lua.LNil) {
			return typeError("index", "", typ), true
		}
		return typeError("index", name(reg), typ), true
	case cm != nil:
		var v lua.LValue
		var info string
		switch op {
		case lua.OP_CALL, lua.OP_TAILCALL:
			v, ok = frameRegister(L, dbg, a)
			info = name(a)
		case lua.OP_TFORLOOP:
			// Lua calls a copy of the generator, three registers up.
			v, ok = frameRegister(L, dbg, a)
			info = name(a + 3)
		default:
			return "", false
		}
		if !ok {
			return "", false
		}
		return typeError("call", info, luaTypeName(v)), true
	case am != nil:
		var v lua.LValue
		reg := -1
		switch op {
		case lua.OP_ADD, lua.OP_SUB, lua.OP_MUL, lua.OP_DIV, lua.OP_MOD, lua.OP_POW:
			if arithOps.Get()[am[1]] == "" {
				return "", false
			}
			v1, r1, ok1 := rk(b)
			v2, r2, ok2 := rk(c)
			if !ok1 || !ok2 {
				return "", false
			}
			// luaG_aritherror: the first operand unless it converts to a
			// number.
			v, reg = v1, r1
			if _, conv := toNumber51(v1); conv {
				v, reg = v2, r2
			}
		case lua.OP_UNM:
			if v, reg, ok = rk(b); !ok {
				return "", false
			}
		default:
			return "", false
		}
		// Lua 5.1 calls the metamethod of either operand whatever it is
		// (call_binTM); gopher-lua calls only functions.
		if tm := arithMeta(L, p.Code[pc], rk); tm != lua.LNil {
			return typeError("call", "", luaTypeName(tm)), true
		}
		info := ""
		if reg >= 0 {
			info = name(reg)
		}
		return typeError("perform arithmetic on", info, luaTypeName(v)), true
	}
	return "", false
}

// toNumber51 is Lua 5.1's tonumber on an arithmetic operand.
func toNumber51(v lua.LValue) (float64, bool) { return lualib.ToNumber(v) }

// hookCoroutine makes an error raised inside coroutine th go through
// coroutinePanic. gopher-lua unwinds a coroutine's stack before resume
// returns its error, so the error is worded inside the coroutine, while its
// failing frame still stands (stepContext calls this whenever a coroutine
// starts or resumes running; resume sets the thread's Panic before that).
func (r *scriptRun) hookCoroutine(th *lua.LState) {
	if r.coPanic == nil {
		r.coPanic = r.coroutinePanic
	}
	th.Panic = r.coPanic
}

// coroutinePanic is a coroutine's Panic (gopher-lua's, which raises the
// error value on top of the stack), wording the message like Lua 5.1 first.
func (r *scriptRun) coroutinePanic(L *lua.LState) {
	v := L.Get(-1)
	if s, ok := v.(lua.LString); ok {
		msg, exact := r.reword(L, string(s), 0)
		if !exact {
			r.warn("error text approximated (gopher-lua wording): %s", msg)
		}
		v = lua.LString(msg)
		r.coWorded = msg
	}
	panic(&lua.ApiError{Type: lua.ApiErrorRun, Object: v})
}

// arithEvents are the metamethods of the arithmetic opcodes.
var arithEvents = lazy.Value[map[int]string]{New: func() map[int]string {
	return map[int]string{lua.OP_ADD: "__add", lua.OP_SUB: "__sub", lua.OP_MUL: "__mul",
		lua.OP_DIV: "__div", lua.OP_MOD: "__mod", lua.OP_POW: "__pow", lua.OP_UNM: "__unm"}
}}

// arithMeta is the metamethod Lua 5.1 would call for arithmetic
// instruction i (the first operand's, else the second's), or nil.
func arithMeta(L *lua.LState, i uint32, rk func(int) (lua.LValue, int, bool)) lua.LValue {
	event := arithEvents.Get()[instOp(i)]
	b, c := instB(i), instC(i)
	if instOp(i) == lua.OP_UNM {
		c = b
	}
	for _, x := range []int{b, c} {
		if v, _, ok := rk(x); ok {
			if tm := L.GetMetaField(v, event); tm != lua.LNil {
				return tm
			}
		}
	}
	return lua.LNil
}
