package luac51

import "math"

// Expressions in lcode.c: values discharged to registers, conditions to
// jumps, operators coded or folded.

func (fs *funcState) setReturns(e *expdesc, nresults int) {
	if e.k == vCall {
		setC(fs.getcode(e), nresults+1)
	} else if e.k == vVararg {
		setB(fs.getcode(e), nresults+1)
		setA(fs.getcode(e), fs.freereg)
		fs.reserveRegs(1)
	}
}

func (fs *funcState) setMultRet(e *expdesc) { fs.setReturns(e, multRet) }

func (fs *funcState) setOneRet(e *expdesc) {
	if e.k == vCall {
		e.k = vNonReloc
		e.info = getA(*fs.getcode(e))
	} else if e.k == vVararg {
		setB(fs.getcode(e), 2)
		e.k = vRelocable
	}
}

func (fs *funcState) dischargeVars(e *expdesc) {
	switch e.k {
	case vLocal:
		e.k = vNonReloc
	case vUpval:
		e.info = fs.codeABC(opGetUpval, 0, e.info, 0)
		e.k = vRelocable
	case vGlobal:
		e.info = fs.codeABx(opGetGlobal, 0, e.info)
		e.k = vRelocable
	case vIndexed:
		fs.freeReg(e.aux)
		fs.freeReg(e.info)
		e.info = fs.codeABC(opGetTable, 0, e.info, e.aux)
		e.k = vRelocable
	case vVararg, vCall:
		fs.setOneRet(e)
	}
}

func (fs *funcState) codeLabel(a, b, jump int) int {
	fs.getLabel()
	return fs.codeABC(opLoadBool, a, b, jump)
}

func (fs *funcState) discharge2reg(e *expdesc, reg int) {
	fs.dischargeVars(e)
	switch e.k {
	case vNil:
		fs.nil_(reg, 1)
	case vFalse, vTrue:
		b := 0
		if e.k == vTrue {
			b = 1
		}
		fs.codeABC(opLoadBool, reg, b, 0)
	case vK:
		fs.codeABx(opLoadK, reg, e.info)
	case vKNum:
		fs.codeABx(opLoadK, reg, fs.numberK(e.nval))
	case vRelocable:
		setA(fs.getcode(e), reg)
	case vNonReloc:
		if reg != e.info {
			fs.codeABC(opMove, reg, e.info, 0)
		}
	default:
		return
	}
	e.info = reg
	e.k = vNonReloc
}

func (fs *funcState) discharge2anyreg(e *expdesc) {
	if e.k != vNonReloc {
		fs.reserveRegs(1)
		fs.discharge2reg(e, fs.freereg-1)
	}
}

func (fs *funcState) exp2reg(e *expdesc, reg int) {
	fs.discharge2reg(e, reg)
	if e.k == vJmp {
		fs.concat(&e.t, e.info)
	}
	if hasJumps(e) {
		pf, pt := noJump, noJump
		if fs.needValue(e.t) || fs.needValue(e.f) {
			fj := noJump
			if e.k != vJmp {
				fj = fs.jump()
			}
			pf = fs.codeLabel(reg, 0, 1)
			pt = fs.codeLabel(reg, 1, 0)
			fs.patchToHere(fj)
		}
		final := fs.getLabel()
		fs.patchListAux(e.f, final, reg, pf)
		fs.patchListAux(e.t, final, reg, pt)
	}
	e.f, e.t = noJump, noJump
	e.info = reg
	e.k = vNonReloc
}

func (fs *funcState) exp2nextreg(e *expdesc) {
	fs.dischargeVars(e)
	fs.freeExp(e)
	fs.reserveRegs(1)
	fs.exp2reg(e, fs.freereg-1)
}

func (fs *funcState) exp2anyreg(e *expdesc) int {
	fs.dischargeVars(e)
	if e.k == vNonReloc {
		if !hasJumps(e) {
			return e.info
		}
		if e.info >= fs.nactvar {
			fs.exp2reg(e, e.info)
			return e.info
		}
	}
	fs.exp2nextreg(e)
	return e.info
}

func (fs *funcState) exp2val(e *expdesc) {
	if hasJumps(e) {
		fs.exp2anyreg(e)
	} else {
		fs.dischargeVars(e)
	}
}

func (fs *funcState) exp2RK(e *expdesc) int {
	fs.exp2val(e)
	switch e.k {
	case vKNum, vTrue, vFalse, vNil:
		if fs.nk <= maxIndexRK {
			switch e.k {
			case vNil:
				e.info = fs.nilK()
			case vKNum:
				e.info = fs.numberK(e.nval)
			default:
				e.info = fs.boolK(e.k == vTrue)
			}
			e.k = vK
			return rkAsK(e.info)
		}
	case vK:
		if e.info <= maxIndexRK {
			return rkAsK(e.info)
		}
	}
	return fs.exp2anyreg(e)
}

func (fs *funcState) storeVar(v, ex *expdesc) {
	switch v.k {
	case vLocal:
		fs.freeExp(ex)
		fs.exp2reg(ex, v.info)
		return
	case vUpval:
		e := fs.exp2anyreg(ex)
		fs.codeABC(opSetUpval, e, v.info, 0)
	case vGlobal:
		e := fs.exp2anyreg(ex)
		fs.codeABx(opSetGlobal, e, v.info)
	case vIndexed:
		e := fs.exp2RK(ex)
		fs.codeABC(opSetTable, v.info, v.aux, e)
	}
	fs.freeExp(ex)
}

func (fs *funcState) self(e, key *expdesc) {
	fs.exp2anyreg(e)
	fs.freeExp(e)
	fn := fs.freereg
	fs.reserveRegs(2)
	fs.codeABC(opSelf, fn, e.info, fs.exp2RK(key))
	fs.freeExp(key)
	e.info = fn
	e.k = vNonReloc
}

func (fs *funcState) invertJump(e *expdesc) {
	pc := fs.getJumpControl(e.info)
	a := 0
	if getA(*pc) == 0 {
		a = 1
	}
	setA(pc, a)
}

func (fs *funcState) jumpOnCond(e *expdesc, cond int) int {
	if e.k == vRelocable {
		ie := *fs.getcode(e)
		if getOp(ie) == opNot {
			fs.pc--
			fs.f.Code = fs.f.Code[:fs.pc]
			fs.f.LineInfo = fs.f.LineInfo[:fs.pc]
			c := 0
			if cond == 0 {
				c = 1
			}
			return fs.condJump(opTest, getB(ie), 0, c)
		}
	}
	fs.discharge2anyreg(e)
	fs.freeExp(e)
	return fs.condJump(opTestSet, noReg, e.info, cond)
}

// goIfTrue is Lua 5.1.5's luaK_goiftrue: unlike 5.1.4's, a constant
// false is tested like any value (no unconditional jump).
func (fs *funcState) goIfTrue(e *expdesc) {
	var pc int
	fs.dischargeVars(e)
	switch e.k {
	case vK, vKNum, vTrue:
		pc = noJump
	case vJmp:
		fs.invertJump(e)
		pc = e.info
	default:
		pc = fs.jumpOnCond(e, 0)
	}
	fs.concat(&e.f, pc)
	fs.patchToHere(e.t)
	e.t = noJump
}

// goIfFalse is Lua 5.1.5's luaK_goiffalse (a constant true is tested like
// any value).
func (fs *funcState) goIfFalse(e *expdesc) {
	var pc int
	fs.dischargeVars(e)
	switch e.k {
	case vNil, vFalse:
		pc = noJump
	case vJmp:
		pc = e.info
	default:
		pc = fs.jumpOnCond(e, 1)
	}
	fs.concat(&e.t, pc)
	fs.patchToHere(e.f)
	e.f = noJump
}

func (fs *funcState) codeNot(e *expdesc) {
	fs.dischargeVars(e)
	switch e.k {
	case vNil, vFalse:
		e.k = vTrue
	case vK, vKNum, vTrue:
		e.k = vFalse
	case vJmp:
		fs.invertJump(e)
	case vRelocable, vNonReloc:
		fs.discharge2anyreg(e)
		fs.freeExp(e)
		e.info = fs.codeABC(opNot, 0, e.info, 0)
		e.k = vRelocable
	}
	e.f, e.t = e.t, e.f
	fs.removeValues(e.f)
	fs.removeValues(e.t)
}

func (fs *funcState) indexed(t, k *expdesc) {
	t.aux = fs.exp2RK(k)
	t.k = vIndexed
}

// luaiNumMod is luai_nummod: a - floor(a/b)*b.
func luaiNumMod(a, b float64) float64 { return a - math.Floor(a/b)*b }

func (fs *funcState) constFolding(op int, e1, e2 *expdesc) bool {
	if !isNumeral(e1) || !isNumeral(e2) {
		return false
	}
	v1, v2 := e1.nval, e2.nval
	var r float64
	switch op {
	case opAdd:
		r = v1 + v2
	case opSub:
		r = v1 - v2
	case opMul:
		r = v1 * v2
	case opDiv:
		if v2 == 0 {
			return false
		}
		r = v1 / v2
	case opMod:
		if v2 == 0 {
			return false
		}
		r = luaiNumMod(v1, v2)
	case opPow:
		r = cPow(v1, v2)
	case opUnm:
		r = -v1
	default:
		return false
	}
	if math.IsNaN(r) {
		return false
	}
	e1.nval = r
	return true
}

func (fs *funcState) codeArith(op int, e1, e2 *expdesc) {
	if fs.constFolding(op, e1, e2) {
		return
	}
	o2 := 0
	if op != opUnm && op != opLen {
		o2 = fs.exp2RK(e2)
	}
	o1 := fs.exp2RK(e1)
	if o1 > o2 {
		fs.freeExp(e1)
		fs.freeExp(e2)
	} else {
		fs.freeExp(e2)
		fs.freeExp(e1)
	}
	e1.info = fs.codeABC(op, 0, o1, o2)
	e1.k = vRelocable
}

func (fs *funcState) codeComp(op, cond int, e1, e2 *expdesc) {
	o1 := fs.exp2RK(e1)
	o2 := fs.exp2RK(e2)
	fs.freeExp(e2)
	fs.freeExp(e1)
	if cond == 0 && op != opEq {
		o1, o2 = o2, o1
		cond = 1
	}
	e1.info = fs.condJump(op, cond, o1, o2)
	e1.k = vJmp
}

// Unary and binary operators (lparser.c's OPR_ order).
const (
	oprAdd = iota
	oprSub
	oprMul
	oprDiv
	oprMod
	oprPow
	oprConcat
	oprNe
	oprEq
	oprLt
	oprLe
	oprGt
	oprGe
	oprAnd
	oprOr
	oprNoBinOpr
)

const (
	oprMinus = iota
	oprNot
	oprLen
	oprNoUnOpr
)

func (fs *funcState) prefix(op int, e *expdesc) {
	e2 := expdesc{t: noJump, f: noJump, k: vKNum}
	switch op {
	case oprMinus:
		if !isNumeral(e) {
			fs.exp2anyreg(e)
		}
		fs.codeArith(opUnm, e, &e2)
	case oprNot:
		fs.codeNot(e)
	case oprLen:
		fs.exp2anyreg(e)
		fs.codeArith(opLen, e, &e2)
	}
}

func (fs *funcState) infix(op int, v *expdesc) {
	switch op {
	case oprAnd:
		fs.goIfTrue(v)
	case oprOr:
		fs.goIfFalse(v)
	case oprConcat:
		fs.exp2nextreg(v)
	case oprAdd, oprSub, oprMul, oprDiv, oprMod, oprPow:
		if !isNumeral(v) {
			fs.exp2RK(v)
		}
	default:
		fs.exp2RK(v)
	}
}

func (fs *funcState) posfix(op int, e1, e2 *expdesc) {
	switch op {
	case oprAnd:
		fs.dischargeVars(e2)
		fs.concat(&e2.f, e1.f)
		*e1 = *e2
	case oprOr:
		fs.dischargeVars(e2)
		fs.concat(&e2.t, e1.t)
		*e1 = *e2
	case oprConcat:
		fs.exp2val(e2)
		if e2.k == vRelocable && getOp(*fs.getcode(e2)) == opConcat {
			fs.freeExp(e1)
			setB(fs.getcode(e2), e1.info)
			e1.k = vRelocable
			e1.info = e2.info
		} else {
			fs.exp2nextreg(e2)
			fs.codeArith(opConcat, e1, e2)
		}
	case oprAdd:
		fs.codeArith(opAdd, e1, e2)
	case oprSub:
		fs.codeArith(opSub, e1, e2)
	case oprMul:
		fs.codeArith(opMul, e1, e2)
	case oprDiv:
		fs.codeArith(opDiv, e1, e2)
	case oprMod:
		fs.codeArith(opMod, e1, e2)
	case oprPow:
		fs.codeArith(opPow, e1, e2)
	case oprEq:
		fs.codeComp(opEq, 1, e1, e2)
	case oprNe:
		fs.codeComp(opEq, 0, e1, e2)
	case oprLt:
		fs.codeComp(opLt, 1, e1, e2)
	case oprLe:
		fs.codeComp(opLe, 1, e1, e2)
	case oprGt:
		fs.codeComp(opLt, 0, e1, e2)
	case oprGe:
		fs.codeComp(opLe, 0, e1, e2)
	}
}
