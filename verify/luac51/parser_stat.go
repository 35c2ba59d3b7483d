package luac51

// Statements and blocks: lparser.c's statement and chunk.

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
