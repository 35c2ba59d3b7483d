package luac51

import (
	"fmt"
	"math"
	"strings"
)

// The parser is lparser.c: recursive descent that drives the code
// generator as it reads, so the instructions, registers, constants and
// debug information come out in Lua 5.1's order.

// Limits of Lua 5.1 (luaconf.h, llimits.h).
const (
	maxVars     = 200 // LUAI_MAXVARS
	maxUpvalues = 60  // LUAI_MAXUPVALUES
	maxCCalls   = 200 // LUAI_MAXCCALLS
)

// Vararg flags of a prototype.
const (
	varargHasArg   = 1
	varargIsVararg = 2
	varargNeedsArg = 4
)

type blockCnt struct {
	previous    *blockCnt
	breaklist   int
	nactvar     int
	upval       bool
	isbreakable bool
}

type upvalDesc struct {
	k    expKind
	info int
}

type funcState struct {
	f          *Proto
	h          map[constKey]int
	prev       *funcState
	ls         *parser
	bl         *blockCnt
	pc         int
	lasttarget int
	jpc        int
	freereg    int
	nk         int
	np         int
	nlocvars   int
	nactvar    int
	upvalues   [maxUpvalues]upvalDesc
	actvar     [maxVars]int
}

type parser struct {
	lx      Lexer
	fs      *funcState
	source  string
	nCcalls int
}

// Compile compiles src as Lua 5.1's luaY_parser does under the chunk name
// source ("@user_script", "=name", or the text of a loadstring chunk): the
// main function's prototype, or Lua 5.1's compile error.
func Compile(src []byte, source string) (p *Proto, err error) {
	return CompileCalls(src, source, 0)
}

// CompileCalls is Compile with Lua's C-call count when the parser starts
// (L->nCcalls), which lowers the syntax-level limit (200) that nested
// expressions and blocks count against: 0 for a script or library the
// server compiles, 1 for loadstring called at a script's top level, more
// inside pcall or a coroutine.
func CompileCalls(src []byte, source string, cCalls int) (p *Proto, err error) {
	if i := strings.IndexByte(source, 0); i >= 0 {
		source = source[:i] // the chunk name is a C string
	}
	ls := &parser{lx: *NewLexer(src, ChunkID(source)), source: source, nCcalls: cCalls}
	defer func() {
		if r := recover(); r != nil {
			if e, ok := r.(*Error); ok {
				p, err = nil, e
				return
			}
			p, err = nil, &InternalError{fmt.Sprint(r)}
		}
	}()
	fs := &funcState{}
	ls.openFunc(fs)
	fs.f.IsVararg = varargIsVararg
	ls.lx.Next()
	ls.chunk()
	ls.check(TkEOS)
	ls.closeFunc()
	return fs.f, nil
}

// InternalError is a failure of the compiler itself (a bug), never of the
// source.
type InternalError struct{ Msg string }

func (e *InternalError) Error() string { return "luac51: internal error: " + e.Msg }

func (ls *parser) syntaxError(msg string) {
	ls.lx.Errorf(msg, ls.lx.T.Tok, ls.lx.T.Raw)
}

func (ls *parser) errorExpected(t int) {
	ls.syntaxError(fmt.Sprintf("'%s' expected", TokenString(t)))
}

func (fs *funcState) errorLimit(limit int, what string) {
	msg := fmt.Sprintf("main function has more than %d %s", limit, what)
	if fs.f.LineDefined != 0 {
		msg = fmt.Sprintf("function at line %d has more than %d %s", fs.f.LineDefined, limit, what)
	}
	fs.ls.lx.Errorf(msg, 0, "")
}

func (fs *funcState) checkLimit(v, l int, what string) {
	if v > l {
		fs.errorLimit(l, what)
	}
}

func (ls *parser) testNext(c int) bool {
	if ls.lx.T.Tok == c {
		ls.lx.Next()
		return true
	}
	return false
}

func (ls *parser) check(c int) {
	if ls.lx.T.Tok != c {
		ls.errorExpected(c)
	}
}

func (ls *parser) checkNext(c int) {
	ls.check(c)
	ls.lx.Next()
}

func (ls *parser) checkCondition(c bool, msg string) {
	if !c {
		ls.syntaxError(msg)
	}
}

func (ls *parser) checkMatch(what, who, where int) {
	if !ls.testNext(what) {
		if where == ls.lx.Line {
			ls.errorExpected(what)
		}
		ls.syntaxError(fmt.Sprintf("'%s' expected (to close '%s' at line %d)", TokenString(what), TokenString(who), where))
	}
}

func (ls *parser) strCheckName() string {
	ls.check(TkName)
	s := ls.lx.T.S
	ls.lx.Next()
	return s
}

func (ls *parser) codeString(e *expdesc, s string) {
	initExp(e, vK, ls.fs.stringK(s))
}

func (ls *parser) checkName(e *expdesc) {
	ls.codeString(e, ls.strCheckName())
}

func (ls *parser) registerLocalVar(name string) int {
	fs := ls.fs
	if fs.nlocvars >= math.MaxInt16 {
		ls.syntaxError("too many local variables")
	}
	fs.f.LocVars = append(fs.f.LocVars, LocVar{Name: name})
	fs.nlocvars++
	return fs.nlocvars - 1
}

func (ls *parser) newLocalVar(name string, n int) {
	fs := ls.fs
	fs.checkLimit(fs.nactvar+n+1, maxVars, "local variables")
	fs.actvar[fs.nactvar+n] = ls.registerLocalVar(name)
}

func (fs *funcState) getLocVar(i int) *LocVar { return &fs.f.LocVars[fs.actvar[i]] }

func (ls *parser) adjustLocalVars(nvars int) {
	fs := ls.fs
	fs.nactvar += nvars
	for ; nvars > 0; nvars-- {
		fs.getLocVar(fs.nactvar - nvars).StartPC = fs.pc
	}
}

func (ls *parser) removeVars(tolevel int) {
	fs := ls.fs
	for fs.nactvar > tolevel {
		fs.nactvar--
		fs.getLocVar(fs.nactvar).EndPC = fs.pc
	}
}

func (fs *funcState) indexUpvalue(name string, v *expdesc) int {
	f := fs.f
	for i := 0; i < int(f.Nups); i++ {
		if fs.upvalues[i].k == v.k && fs.upvalues[i].info == v.info {
			return i
		}
	}
	fs.checkLimit(int(f.Nups)+1, maxUpvalues, "upvalues")
	f.Upvalues = append(f.Upvalues, name)
	fs.upvalues[f.Nups] = upvalDesc{k: v.k, info: v.info}
	f.Nups++
	return int(f.Nups) - 1
}

func (fs *funcState) searchVar(n string) int {
	for i := fs.nactvar - 1; i >= 0; i-- {
		if n == fs.getLocVar(i).Name {
			return i
		}
	}
	return -1
}

func (fs *funcState) markUpval(level int) {
	bl := fs.bl
	for bl != nil && bl.nactvar > level {
		bl = bl.previous
	}
	if bl != nil {
		bl.upval = true
	}
}

func singleVarAux(fs *funcState, n string, v *expdesc, base bool) expKind {
	if fs == nil {
		initExp(v, vGlobal, noReg)
		return vGlobal
	}
	if i := fs.searchVar(n); i >= 0 {
		initExp(v, vLocal, i)
		if !base {
			fs.markUpval(i)
		}
		return vLocal
	}
	if singleVarAux(fs.prev, n, v, false) == vGlobal {
		return vGlobal
	}
	v.info = fs.indexUpvalue(n, v)
	v.k = vUpval
	return vUpval
}

func (ls *parser) singleVar(v *expdesc) {
	name := ls.strCheckName()
	fs := ls.fs
	if singleVarAux(fs, name, v, true) == vGlobal {
		v.info = fs.stringK(name)
	}
}

func (ls *parser) adjustAssign(nvars, nexps int, e *expdesc) {
	fs := ls.fs
	extra := nvars - nexps
	if hasMultRet(e.k) {
		extra++
		if extra < 0 {
			extra = 0
		}
		fs.setReturns(e, extra)
		if extra > 1 {
			fs.reserveRegs(extra - 1)
		}
	} else {
		if e.k != vVoid {
			fs.exp2nextreg(e)
		}
		if extra > 0 {
			reg := fs.freereg
			fs.reserveRegs(extra)
			fs.nil_(reg, extra)
		}
	}
}

func (ls *parser) enterLevel() {
	ls.nCcalls++
	if ls.nCcalls > maxCCalls {
		ls.lx.Errorf("chunk has too many syntax levels", 0, "")
	}
}

func (ls *parser) leaveLevel() { ls.nCcalls-- }

func (fs *funcState) enterBlock(bl *blockCnt, isbreakable bool) {
	bl.breaklist = noJump
	bl.isbreakable = isbreakable
	bl.nactvar = fs.nactvar
	bl.upval = false
	bl.previous = fs.bl
	fs.bl = bl
}

func (fs *funcState) leaveBlock() {
	bl := fs.bl
	fs.bl = bl.previous
	fs.ls.removeVars(bl.nactvar)
	if bl.upval {
		fs.codeABC(opClose, bl.nactvar, 0, 0)
	}
	fs.freereg = fs.nactvar
	fs.patchToHere(bl.breaklist)
}

func (ls *parser) pushClosure(fn *funcState, v *expdesc) {
	fs := ls.fs
	f := fs.f
	if fs.np >= maxArgBx {
		ls.syntaxError("constant table overflow")
	}
	f.Protos = append(f.Protos, fn.f)
	fs.np++
	initExp(v, vRelocable, fs.codeABx(opClosure, 0, fs.np-1))
	for i := 0; i < int(fn.f.Nups); i++ {
		o := opGetUpval
		if fn.upvalues[i].k == vLocal {
			o = opMove
		}
		fs.codeABC(o, 0, fn.upvalues[i].info, 0)
	}
}

func (ls *parser) openFunc(fs *funcState) {
	fs.f = &Proto{Source: ls.source, MaxStackSize: 2}
	fs.prev = ls.fs
	fs.ls = ls
	ls.fs = fs
	fs.pc = 0
	fs.lasttarget = -1
	fs.jpc = noJump
	fs.h = map[constKey]int{}
}

func (ls *parser) closeFunc() {
	fs := ls.fs
	ls.removeVars(0)
	fs.ret(0, 0)
	ls.fs = fs.prev
}
