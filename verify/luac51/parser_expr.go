package luac51

import (
	"math"
)

// Expressions: lparser.c's subexpr, simpleexp and primaryexp, table
// constructors, function bodies and call arguments.

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
