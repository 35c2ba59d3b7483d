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

func (ls *parser) field(v *expdesc) {
	fs := ls.fs
	var key expdesc
	fs.exp2anyreg(v)
	ls.lx.Next()
	ls.checkName(&key)
	fs.indexed(v, &key)
}

func (ls *parser) yindex(v *expdesc) {
	ls.lx.Next()
	ls.expr(v)
	ls.fs.exp2val(v)
	ls.checkNext(']')
}

type consControl struct {
	v       expdesc
	t       *expdesc
	nh      int
	na      int
	tostore int
}

func (ls *parser) recField(cc *consControl) {
	fs := ls.fs
	reg := fs.freereg
	var key, val expdesc
	if ls.lx.T.Tok == TkName {
		fs.checkLimit(cc.nh, math.MaxInt32, "items in a constructor")
		ls.checkName(&key)
	} else {
		ls.yindex(&key)
	}
	cc.nh++
	ls.checkNext('=')
	rkkey := fs.exp2RK(&key)
	ls.expr(&val)
	fs.codeABC(opSetTable, cc.t.info, rkkey, fs.exp2RK(&val))
	fs.freereg = reg
}

func (fs *funcState) closeListField(cc *consControl) {
	if cc.v.k == vVoid {
		return
	}
	fs.exp2nextreg(&cc.v)
	cc.v.k = vVoid
	if cc.tostore == fieldsPerFlush {
		fs.setList(cc.t.info, cc.na, cc.tostore)
		cc.tostore = 0
	}
}

func (fs *funcState) lastListField(cc *consControl) {
	if cc.tostore == 0 {
		return
	}
	if hasMultRet(cc.v.k) {
		fs.setMultRet(&cc.v)
		fs.setList(cc.t.info, cc.na, multRet)
		cc.na--
	} else {
		if cc.v.k != vVoid {
			fs.exp2nextreg(&cc.v)
		}
		fs.setList(cc.t.info, cc.na, cc.tostore)
	}
}

func (ls *parser) listField(cc *consControl) {
	ls.expr(&cc.v)
	ls.fs.checkLimit(cc.na, math.MaxInt32, "items in a constructor")
	cc.na++
	cc.tostore++
}

// int2fb is luaO_int2fb: x as a "floating point byte" (eeeeexxx).
func int2fb(x int) int {
	e := 0
	for x >= 16 {
		x = (x + 1) >> 1
		e++
	}
	if x < 8 {
		return x
	}
	return ((e + 1) << 3) | (x - 8)
}

func (ls *parser) constructor(t *expdesc) {
	fs := ls.fs
	line := ls.lx.Line
	pc := fs.codeABC(opNewTable, 0, 0, 0)
	var cc consControl
	cc.t = t
	initExp(t, vRelocable, pc)
	initExp(&cc.v, vVoid, 0)
	fs.exp2nextreg(t)
	ls.checkNext('{')
	for {
		if ls.lx.T.Tok == '}' {
			break
		}
		fs.closeListField(&cc)
		switch ls.lx.T.Tok {
		case TkName:
			if ls.lx.Lookahead() != '=' {
				ls.listField(&cc)
			} else {
				ls.recField(&cc)
			}
		case '[':
			ls.recField(&cc)
		default:
			ls.listField(&cc)
		}
		if !ls.testNext(',') && !ls.testNext(';') {
			break
		}
	}
	ls.checkMatch('}', '{', line)
	fs.lastListField(&cc)
	setB(&fs.f.Code[pc], int2fb(cc.na))
	setC(&fs.f.Code[pc], int2fb(cc.nh))
}

func (ls *parser) parList() {
	fs := ls.fs
	f := fs.f
	nparams := 0
	f.IsVararg = 0
	if ls.lx.T.Tok != ')' {
		for {
			switch ls.lx.T.Tok {
			case TkName:
				ls.newLocalVar(ls.strCheckName(), nparams)
				nparams++
			case TkDots:
				ls.lx.Next()
				// LUA_COMPAT_VARARG: the implicit 'arg' local.
				ls.newLocalVar("arg", nparams)
				nparams++
				f.IsVararg = varargHasArg | varargNeedsArg
				f.IsVararg |= varargIsVararg
			default:
				ls.syntaxError("<name> or '...' expected")
			}
			if f.IsVararg != 0 || !ls.testNext(',') {
				break
			}
		}
	}
	ls.adjustLocalVars(nparams)
	f.NumParams = byte(fs.nactvar - int(f.IsVararg&varargHasArg))
	fs.reserveRegs(fs.nactvar)
}

func (ls *parser) body(e *expdesc, needself bool, line int) {
	nfs := &funcState{}
	ls.openFunc(nfs)
	nfs.f.LineDefined = line
	ls.checkNext('(')
	if needself {
		ls.newLocalVar("self", 0)
		ls.adjustLocalVars(1)
	}
	ls.parList()
	ls.checkNext(')')
	ls.chunk()
	nfs.f.LastLineDefined = ls.lx.Line
	ls.checkMatch(TkEnd, TkFunction, line)
	ls.closeFunc()
	ls.pushClosure(nfs, e)
}

func (ls *parser) explist1(v *expdesc) int {
	n := 1
	ls.expr(v)
	for ls.testNext(',') {
		ls.fs.exp2nextreg(v)
		ls.expr(v)
		n++
	}
	return n
}

func (ls *parser) funcArgs(f *expdesc) {
	fs := ls.fs
	var args expdesc
	line := ls.lx.Line
	switch ls.lx.T.Tok {
	case '(':
		if line != ls.lx.LastLine {
			ls.syntaxError("ambiguous syntax (function call x new statement)")
		}
		ls.lx.Next()
		if ls.lx.T.Tok == ')' {
			args.k = vVoid
		} else {
			ls.explist1(&args)
			fs.setMultRet(&args)
		}
		ls.checkMatch(')', '(', line)
	case '{':
		ls.constructor(&args)
	case TkString:
		ls.codeString(&args, ls.lx.T.S)
		ls.lx.Next()
	default:
		ls.syntaxError("function arguments expected")
		return
	}
	base := f.info
	var nparams int
	if hasMultRet(args.k) {
		nparams = multRet
	} else {
		if args.k != vVoid {
			fs.exp2nextreg(&args)
		}
		nparams = fs.freereg - (base + 1)
	}
	initExp(f, vCall, fs.codeABC(opCall, base, nparams+1, 2))
	fs.fixLine(line)
	fs.freereg = base + 1
}

func (ls *parser) prefixExp(v *expdesc) {
	switch ls.lx.T.Tok {
	case '(':
		line := ls.lx.Line
		ls.lx.Next()
		ls.expr(v)
		ls.checkMatch(')', '(', line)
		ls.fs.dischargeVars(v)
	case TkName:
		ls.singleVar(v)
	default:
		ls.syntaxError("unexpected symbol")
	}
}

func (ls *parser) primaryExp(v *expdesc) {
	fs := ls.fs
	ls.prefixExp(v)
	for {
		switch ls.lx.T.Tok {
		case '.':
			ls.field(v)
		case '[':
			var key expdesc
			fs.exp2anyreg(v)
			ls.yindex(&key)
			fs.indexed(v, &key)
		case ':':
			var key expdesc
			ls.lx.Next()
			ls.checkName(&key)
			fs.self(v, &key)
			ls.funcArgs(v)
		case '(', TkString, '{':
			fs.exp2nextreg(v)
			ls.funcArgs(v)
		default:
			return
		}
	}
}

func (ls *parser) simpleExp(v *expdesc) {
	switch ls.lx.T.Tok {
	case TkNumber:
		initExp(v, vKNum, 0)
		v.nval = ls.lx.T.N
	case TkString:
		ls.codeString(v, ls.lx.T.S)
	case TkNil:
		initExp(v, vNil, 0)
	case TkTrue:
		initExp(v, vTrue, 0)
	case TkFalse:
		initExp(v, vFalse, 0)
	case TkDots:
		fs := ls.fs
		ls.checkCondition(fs.f.IsVararg != 0, "cannot use '...' outside a vararg function")
		fs.f.IsVararg &^= varargNeedsArg
		initExp(v, vVararg, fs.codeABC(opVararg, 0, 1, 0))
	case '{':
		ls.constructor(v)
		return
	case TkFunction:
		ls.lx.Next()
		ls.body(v, false, ls.lx.Line)
		return
	default:
		ls.primaryExp(v)
		return
	}
	ls.lx.Next()
}

func getUnOpr(op int) int {
	switch op {
	case TkNot:
		return oprNot
	case '-':
		return oprMinus
	case '#':
		return oprLen
	}
	return oprNoUnOpr
}

func getBinOpr(op int) int {
	switch op {
	case '+':
		return oprAdd
	case '-':
		return oprSub
	case '*':
		return oprMul
	case '/':
		return oprDiv
	case '%':
		return oprMod
	case '^':
		return oprPow
	case TkConcat:
		return oprConcat
	case TkNe:
		return oprNe
	case TkEq:
		return oprEq
	case '<':
		return oprLt
	case TkLe:
		return oprLe
	case '>':
		return oprGt
	case TkGe:
		return oprGe
	case TkAnd:
		return oprAnd
	case TkOr:
		return oprOr
	}
	return oprNoBinOpr
}

var priority = [...]struct{ left, right int }{
	{6, 6}, {6, 6}, {7, 7}, {7, 7}, {7, 7},
	{10, 9}, {5, 4},
	{3, 3}, {3, 3},
	{3, 3}, {3, 3}, {3, 3}, {3, 3},
	{2, 2}, {1, 1},
}

const unaryPriority = 8

func (ls *parser) subExpr(v *expdesc, limit int) int {
	ls.enterLevel()
	uop := getUnOpr(ls.lx.T.Tok)
	if uop != oprNoUnOpr {
		ls.lx.Next()
		ls.subExpr(v, unaryPriority)
		ls.fs.prefix(uop, v)
	} else {
		ls.simpleExp(v)
	}
	op := getBinOpr(ls.lx.T.Tok)
	for op != oprNoBinOpr && priority[op].left > limit {
		var v2 expdesc
		ls.lx.Next()
		ls.fs.infix(op, v)
		nextop := ls.subExpr(&v2, priority[op].right)
		ls.fs.posfix(op, v, &v2)
		op = nextop
	}
	ls.leaveLevel()
	return op
}

func (ls *parser) expr(v *expdesc) { ls.subExpr(v, 0) }

func blockFollow(t int) bool {
	switch t {
	case TkElse, TkElseif, TkEnd, TkUntil, TkEOS:
		return true
	}
	return false
}

func (ls *parser) block() {
	fs := ls.fs
	var bl blockCnt
	fs.enterBlock(&bl, false)
	ls.chunk()
	fs.leaveBlock()
}

type lhsAssign struct {
	prev *lhsAssign
	v    expdesc
}

func (ls *parser) checkConflict(lh *lhsAssign, v *expdesc) {
	fs := ls.fs
	extra := fs.freereg
	conflict := false
	for ; lh != nil; lh = lh.prev {
		if lh.v.k == vIndexed {
			if lh.v.info == v.info {
				conflict = true
				lh.v.info = extra
			}
			if lh.v.aux == v.info {
				conflict = true
				lh.v.aux = extra
			}
		}
	}
	if conflict {
		fs.codeABC(opMove, fs.freereg, v.info, 0)
		fs.reserveRegs(1)
	}
}

func (ls *parser) assignment(lh *lhsAssign, nvars int) {
	var e expdesc
	ls.checkCondition(vLocal <= lh.v.k && lh.v.k <= vIndexed, "syntax error")
	if ls.testNext(',') {
		nv := &lhsAssign{prev: lh}
		ls.primaryExp(&nv.v)
		if nv.v.k == vLocal {
			ls.checkConflict(lh, &nv.v)
		}
		ls.fs.checkLimit(nvars, maxCCalls-ls.nCcalls, "variables in assignment")
		ls.assignment(nv, nvars+1)
	} else {
		ls.checkNext('=')
		nexps := ls.explist1(&e)
		if nexps != nvars {
			ls.adjustAssign(nvars, nexps, &e)
			if nexps > nvars {
				ls.fs.freereg -= nexps - nvars
			}
		} else {
			ls.fs.setOneRet(&e)
			ls.fs.storeVar(&lh.v, &e)
			return
		}
	}
	initExp(&e, vNonReloc, ls.fs.freereg-1)
	ls.fs.storeVar(&lh.v, &e)
}

func (ls *parser) cond() int {
	var v expdesc
	ls.expr(&v)
	if v.k == vNil {
		v.k = vFalse
	}
	ls.fs.goIfTrue(&v)
	return v.f
}

func (ls *parser) breakStat() {
	fs := ls.fs
	bl := fs.bl
	upval := false
	for bl != nil && !bl.isbreakable {
		upval = upval || bl.upval
		bl = bl.previous
	}
	if bl == nil {
		ls.syntaxError("no loop to break")
	}
	if upval {
		fs.codeABC(opClose, bl.nactvar, 0, 0)
	}
	fs.concat(&bl.breaklist, fs.jump())
}

func (ls *parser) whileStat(line int) {
	fs := ls.fs
	var bl blockCnt
	ls.lx.Next()
	whileinit := fs.getLabel()
	condexit := ls.cond()
	fs.enterBlock(&bl, true)
	ls.checkNext(TkDo)
	ls.block()
	fs.patchList(fs.jump(), whileinit)
	ls.checkMatch(TkEnd, TkWhile, line)
	fs.leaveBlock()
	fs.patchToHere(condexit)
}

func (ls *parser) repeatStat(line int) {
	fs := ls.fs
	repeatInit := fs.getLabel()
	var bl1, bl2 blockCnt
	fs.enterBlock(&bl1, true)
	fs.enterBlock(&bl2, false)
	ls.lx.Next()
	ls.chunk()
	ls.checkMatch(TkUntil, TkRepeat, line)
	condexit := ls.cond()
	if !bl2.upval {
		fs.leaveBlock()
		fs.patchList(condexit, repeatInit)
	} else {
		ls.breakStat()
		fs.patchToHere(condexit)
		fs.leaveBlock()
		fs.patchList(fs.jump(), repeatInit)
	}
	fs.leaveBlock()
}

func (ls *parser) exp1() expKind {
	var e expdesc
	ls.expr(&e)
	k := e.k
	ls.fs.exp2nextreg(&e)
	return k
}

func (ls *parser) forBody(base, line, nvars int, isnum bool) {
	var bl blockCnt
	fs := ls.fs
	ls.adjustLocalVars(3)
	ls.checkNext(TkDo)
	var prep int
	if isnum {
		prep = fs.codeAsBx(opForPrep, base, noJump)
	} else {
		prep = fs.jump()
	}
	fs.enterBlock(&bl, false)
	ls.adjustLocalVars(nvars)
	fs.reserveRegs(nvars)
	ls.block()
	fs.leaveBlock()
	fs.patchToHere(prep)
	var endfor int
	if isnum {
		endfor = fs.codeAsBx(opForLoop, base, noJump)
	} else {
		endfor = fs.codeABC(opTForLoop, base, 0, nvars)
	}
	fs.fixLine(line)
	if isnum {
		fs.patchList(endfor, prep+1)
	} else {
		fs.patchList(fs.jump(), prep+1)
	}
}

func (ls *parser) forNum(varname string, line int) {
	fs := ls.fs
	base := fs.freereg
	ls.newLocalVar("(for index)", 0)
	ls.newLocalVar("(for limit)", 1)
	ls.newLocalVar("(for step)", 2)
	ls.newLocalVar(varname, 3)
	ls.checkNext('=')
	ls.exp1()
	ls.checkNext(',')
	ls.exp1()
	if ls.testNext(',') {
		ls.exp1()
	} else {
		fs.codeABx(opLoadK, fs.freereg, fs.numberK(1))
		fs.reserveRegs(1)
	}
	ls.forBody(base, line, 1, true)
}

func (ls *parser) forList(indexname string) {
	fs := ls.fs
	var e expdesc
	nvars := 0
	base := fs.freereg
	ls.newLocalVar("(for generator)", nvars)
	nvars++
	ls.newLocalVar("(for state)", nvars)
	nvars++
	ls.newLocalVar("(for control)", nvars)
	nvars++
	ls.newLocalVar(indexname, nvars)
	nvars++
	for ls.testNext(',') {
		ls.newLocalVar(ls.strCheckName(), nvars)
		nvars++
	}
	ls.checkNext(TkIn)
	line := ls.lx.Line
	ls.adjustAssign(3, ls.explist1(&e), &e)
	fs.checkStack(3)
	ls.forBody(base, line, nvars-3, false)
}

func (ls *parser) forStat(line int) {
	fs := ls.fs
	var bl blockCnt
	fs.enterBlock(&bl, true)
	ls.lx.Next()
	varname := ls.strCheckName()
	switch ls.lx.T.Tok {
	case '=':
		ls.forNum(varname, line)
	case ',', TkIn:
		ls.forList(varname)
	default:
		ls.syntaxError("'=' or 'in' expected")
	}
	ls.checkMatch(TkEnd, TkFor, line)
	fs.leaveBlock()
}

func (ls *parser) testThenBlock() int {
	ls.lx.Next()
	condexit := ls.cond()
	ls.checkNext(TkThen)
	ls.block()
	return condexit
}

func (ls *parser) ifStat(line int) {
	fs := ls.fs
	escapelist := noJump
	flist := ls.testThenBlock()
	for ls.lx.T.Tok == TkElseif {
		fs.concat(&escapelist, fs.jump())
		fs.patchToHere(flist)
		flist = ls.testThenBlock()
	}
	if ls.lx.T.Tok == TkElse {
		fs.concat(&escapelist, fs.jump())
		fs.patchToHere(flist)
		ls.lx.Next()
		ls.block()
	} else {
		fs.concat(&escapelist, flist)
	}
	fs.patchToHere(escapelist)
	ls.checkMatch(TkEnd, TkIf, line)
}

func (ls *parser) localFunc() {
	var v, b expdesc
	fs := ls.fs
	ls.newLocalVar(ls.strCheckName(), 0)
	initExp(&v, vLocal, fs.freereg)
	fs.reserveRegs(1)
	ls.adjustLocalVars(1)
	ls.body(&b, false, ls.lx.Line)
	fs.storeVar(&v, &b)
	fs.getLocVar(fs.nactvar - 1).StartPC = fs.pc
}

func (ls *parser) localStat() {
	nvars := 0
	var nexps int
	var e expdesc
	for {
		ls.newLocalVar(ls.strCheckName(), nvars)
		nvars++
		if !ls.testNext(',') {
			break
		}
	}
	if ls.testNext('=') {
		nexps = ls.explist1(&e)
	} else {
		e.k = vVoid
		nexps = 0
	}
	ls.adjustAssign(nvars, nexps, &e)
	ls.adjustLocalVars(nvars)
}

func (ls *parser) funcName(v *expdesc) bool {
	needself := false
	ls.singleVar(v)
	for ls.lx.T.Tok == '.' {
		ls.field(v)
	}
	if ls.lx.T.Tok == ':' {
		needself = true
		ls.field(v)
	}
	return needself
}

func (ls *parser) funcStat(line int) {
	var v, b expdesc
	ls.lx.Next()
	needself := ls.funcName(&v)
	ls.body(&b, needself, line)
	ls.fs.storeVar(&v, &b)
	ls.fs.fixLine(line)
}

func (ls *parser) exprStat() {
	fs := ls.fs
	v := &lhsAssign{}
	ls.primaryExp(&v.v)
	if v.v.k == vCall {
		setC(fs.getcode(&v.v), 1)
	} else {
		ls.assignment(v, 1)
	}
}

func (ls *parser) retStat() {
	fs := ls.fs
	var e expdesc
	var first, nret int
	ls.lx.Next()
	if blockFollow(ls.lx.T.Tok) || ls.lx.T.Tok == ';' {
		first, nret = 0, 0
	} else {
		nret = ls.explist1(&e)
		if hasMultRet(e.k) {
			fs.setMultRet(&e)
			if e.k == vCall && nret == 1 {
				setOp(fs.getcode(&e), opTailCall)
			}
			first = fs.nactvar
			nret = multRet
		} else if nret == 1 {
			first = fs.exp2anyreg(&e)
		} else {
			fs.exp2nextreg(&e)
			first = fs.nactvar
		}
	}
	fs.ret(first, nret)
}

func (ls *parser) statement() bool {
	line := ls.lx.Line
	switch ls.lx.T.Tok {
	case TkIf:
		ls.ifStat(line)
	case TkWhile:
		ls.whileStat(line)
	case TkDo:
		ls.lx.Next()
		ls.block()
		ls.checkMatch(TkEnd, TkDo, line)
	case TkFor:
		ls.forStat(line)
	case TkRepeat:
		ls.repeatStat(line)
	case TkFunction:
		ls.funcStat(line)
	case TkLocal:
		ls.lx.Next()
		if ls.testNext(TkFunction) {
			ls.localFunc()
		} else {
			ls.localStat()
		}
	case TkReturn:
		ls.retStat()
		return true
	case TkBreak:
		ls.lx.Next()
		ls.breakStat()
		return true
	default:
		ls.exprStat()
	}
	return false
}

func (ls *parser) chunk() {
	islast := false
	ls.enterLevel()
	for !islast && !blockFollow(ls.lx.T.Tok) {
		islast = ls.statement()
		ls.testNext(';')
		ls.fs.freereg = ls.fs.nactvar
	}
	ls.leaveLevel()
}
