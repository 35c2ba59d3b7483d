package luac51

import "math"

// The code generator is lcode.c: register allocation, constants, jump
// lists and the peephole optimisations, in the order Lua 5.1 applies them.

// Opcodes of Lua 5.1 (lopcodes.h).
const (
	opMove = iota
	opLoadK
	opLoadBool
	opLoadNil
	opGetUpval
	opGetGlobal
	opGetTable
	opSetGlobal
	opSetUpval
	opSetTable
	opNewTable
	opSelf
	opAdd
	opSub
	opMul
	opDiv
	opMod
	opPow
	opUnm
	opNot
	opLen
	opConcat
	opJmp
	opEq
	opLt
	opLe
	opTest
	opTestSet
	opCall
	opTailCall
	opReturn
	opForLoop
	opForPrep
	opTForLoop
	opSetList
	opClose
	opClosure
	opVararg
)

// Instruction layout: op 6 bits, A 8, C 9, B 9; Bx is C and B together.
const (
	maxArgBx       = 1<<18 - 1
	maxArgSBx      = maxArgBx >> 1
	maxArgC        = 1<<9 - 1
	noReg          = 255
	bitRK          = 1 << 8
	maxIndexRK     = bitRK - 1
	noJump         = -1
	maxStack       = 250
	fieldsPerFlush = 50
	multRet        = -1
)

func isK(x int) bool  { return x&bitRK != 0 }
func rkAsK(x int) int { return x | bitRK }

func getOp(i uint32) int  { return int(i & 0x3f) }
func getA(i uint32) int   { return int(i>>6) & 0xff }
func getB(i uint32) int   { return int(i >> 23) }
func getC(i uint32) int   { return int(i>>14) & 0x1ff }
func getSBx(i uint32) int { return int(i>>14) - maxArgSBx }

func setOp(i *uint32, o int)  { *i = *i&^0x3f | uint32(o) }
func setA(i *uint32, a int)   { *i = *i&^(0xff<<6) | uint32(a&0xff)<<6 }
func setB(i *uint32, b int)   { *i = *i&^(0x1ff<<23) | uint32(b&0x1ff)<<23 }
func setC(i *uint32, c int)   { *i = *i&^(0x1ff<<14) | uint32(c&0x1ff)<<14 }
func setSBx(i *uint32, s int) { *i = *i&^(0x3ffff<<14) | uint32((s+maxArgSBx)&0x3ffff)<<14 }

func createABC(o, a, b, c int) uint32 {
	return uint32(o) | uint32(a&0xff)<<6 | uint32(b&0x1ff)<<23 | uint32(c&0x1ff)<<14
}

func createABx(o, a, bx int) uint32 {
	return uint32(o) | uint32(a&0xff)<<6 | uint32(bx&0x3ffff)<<14
}

// testTMode: the opcodes followed by a jump (EQ, LT, LE, TEST, TESTSET,
// TFORLOOP).
func testTMode(o int) bool {
	switch o {
	case opEq, opLt, opLe, opTest, opTestSet, opTForLoop:
		return true
	}
	return false
}

type expKind int

const (
	vVoid expKind = iota
	vNil
	vTrue
	vFalse
	vK
	vKNum
	vLocal
	vUpval
	vGlobal
	vIndexed
	vJmp
	vRelocable
	vNonReloc
	vCall
	vVararg
)

type expdesc struct {
	k    expKind
	info int
	aux  int
	nval float64
	t, f int
}

func initExp(e *expdesc, k expKind, i int) {
	e.f, e.t = noJump, noJump
	e.k = k
	e.info = i
}

func hasJumps(e *expdesc) bool { return e.t != e.f }

func isNumeral(e *expdesc) bool { return e.k == vKNum && e.t == noJump && e.f == noJump }

func hasMultRet(k expKind) bool { return k == vCall || k == vVararg }

func (fs *funcState) getcode(e *expdesc) *uint32 { return &fs.f.Code[e.info] }

func (fs *funcState) nil_(from, n int) {
	if fs.pc > fs.lasttarget {
		if fs.pc == 0 {
			if from >= fs.nactvar {
				return
			}
		} else {
			prev := &fs.f.Code[fs.pc-1]
			if getOp(*prev) == opLoadNil {
				pfrom, pto := getA(*prev), getB(*prev)
				if pfrom <= from && from <= pto+1 {
					if from+n-1 > pto {
						setB(prev, from+n-1)
					}
					return
				}
			}
		}
	}
	fs.codeABC(opLoadNil, from, from+n-1, 0)
}

func (fs *funcState) jump() int {
	jpc := fs.jpc
	fs.jpc = noJump
	j := fs.codeAsBx(opJmp, 0, noJump)
	fs.concat(&j, jpc)
	return j
}

func (fs *funcState) ret(first, nret int) {
	fs.codeABC(opReturn, first, nret+1, 0)
}

func (fs *funcState) condJump(op, a, b, c int) int {
	fs.codeABC(op, a, b, c)
	return fs.jump()
}

func (fs *funcState) fixJump(pc, dest int) {
	offset := dest - (pc + 1)
	if offset > maxArgSBx || -offset > maxArgSBx {
		fs.ls.syntaxError("control structure too long")
	}
	setSBx(&fs.f.Code[pc], offset)
}

func (fs *funcState) getLabel() int {
	fs.lasttarget = fs.pc
	return fs.pc
}

func (fs *funcState) getJump(pc int) int {
	offset := getSBx(fs.f.Code[pc])
	if offset == noJump {
		return noJump
	}
	return pc + 1 + offset
}

func (fs *funcState) getJumpControl(pc int) *uint32 {
	if pc >= 1 && testTMode(getOp(fs.f.Code[pc-1])) {
		return &fs.f.Code[pc-1]
	}
	return &fs.f.Code[pc]
}

func (fs *funcState) needValue(list int) bool {
	for ; list != noJump; list = fs.getJump(list) {
		if getOp(*fs.getJumpControl(list)) != opTestSet {
			return true
		}
	}
	return false
}

func (fs *funcState) patchTestReg(node, reg int) bool {
	i := fs.getJumpControl(node)
	if getOp(*i) != opTestSet {
		return false
	}
	if reg != noReg && reg != getB(*i) {
		setA(i, reg)
	} else {
		*i = createABC(opTest, getB(*i), 0, getC(*i))
	}
	return true
}

func (fs *funcState) removeValues(list int) {
	for ; list != noJump; list = fs.getJump(list) {
		fs.patchTestReg(list, noReg)
	}
}

func (fs *funcState) patchListAux(list, vtarget, reg, dtarget int) {
	for list != noJump {
		next := fs.getJump(list)
		if fs.patchTestReg(list, reg) {
			fs.fixJump(list, vtarget)
		} else {
			fs.fixJump(list, dtarget)
		}
		list = next
	}
}

func (fs *funcState) dischargeJpc() {
	fs.patchListAux(fs.jpc, fs.pc, noReg, fs.pc)
	fs.jpc = noJump
}

func (fs *funcState) patchList(list, target int) {
	if target == fs.pc {
		fs.patchToHere(list)
	} else {
		fs.patchListAux(list, target, noReg, target)
	}
}

func (fs *funcState) patchToHere(list int) {
	fs.getLabel()
	fs.concat(&fs.jpc, list)
}

func (fs *funcState) concat(l1 *int, l2 int) {
	if l2 == noJump {
		return
	}
	if *l1 == noJump {
		*l1 = l2
		return
	}
	list := *l1
	for {
		next := fs.getJump(list)
		if next == noJump {
			break
		}
		list = next
	}
	fs.fixJump(list, l2)
}

func (fs *funcState) checkStack(n int) {
	newstack := fs.freereg + n
	if newstack > int(fs.f.MaxStackSize) {
		if newstack >= maxStack {
			fs.ls.syntaxError("function or expression too complex")
		}
		fs.f.MaxStackSize = byte(newstack)
	}
}

func (fs *funcState) reserveRegs(n int) {
	fs.checkStack(n)
	fs.freereg += n
}

func (fs *funcState) freeReg(reg int) {
	if !isK(reg) && reg >= fs.nactvar {
		fs.freereg--
	}
}

func (fs *funcState) freeExp(e *expdesc) {
	if e.k == vNonReloc {
		fs.freeReg(e.info)
	}
}

// constKey is a constant as a key of the function's constant table: nil,
// a boolean, a number (0 and -0 are one key) or a string.
type constKey struct {
	kind byte
	n    float64
	s    string
}

func (fs *funcState) addK(key constKey, v Constant) int {
	if i, ok := fs.h[key]; ok {
		return i
	}
	if fs.nk >= maxArgBx {
		fs.ls.syntaxError("constant table overflow")
	}
	fs.h[key] = fs.nk
	fs.f.Constants = append(fs.f.Constants, v)
	fs.nk++
	return fs.nk - 1
}

func (fs *funcState) stringK(s string) int {
	return fs.addK(constKey{kind: KString, s: s}, Constant{Kind: KString, S: s})
}

func (fs *funcState) numberK(r float64) int {
	k := r
	if k == 0 {
		k = 0 // -0 and 0 are the same key
	}
	return fs.addK(constKey{kind: KNumber, n: k}, Constant{Kind: KNumber, N: r})
}

func (fs *funcState) boolK(b bool) int {
	n := 0.0
	if b {
		n = 1
	}
	return fs.addK(constKey{kind: KBool, n: n}, Constant{Kind: KBool, B: b})
}

func (fs *funcState) nilK() int {
	return fs.addK(constKey{kind: KNil}, Constant{Kind: KNil})
}

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
		var tie bool
		if r, tie = cPow(v1, v2); tie {
			fs.f.powTie = true
		}
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

func (fs *funcState) fixLine(line int) {
	fs.f.LineInfo[fs.pc-1] = int32(line)
}

func (fs *funcState) code(i uint32, line int) int {
	fs.dischargeJpc()
	if fs.pc >= maxCode {
		fs.ls.syntaxError("code size overflow")
	}
	fs.f.Code = append(fs.f.Code, i)
	fs.f.LineInfo = append(fs.f.LineInfo, int32(line))
	fs.pc++
	return fs.pc - 1
}

// maxCode bounds the instructions of one function (Lua 5.1's bound is
// memory; this one keeps a hostile chunk from exhausting the process).
const maxCode = 1 << 24

func (fs *funcState) codeABC(o, a, b, c int) int {
	return fs.code(createABC(o, a, b, c), fs.ls.lx.LastLine)
}

func (fs *funcState) codeABx(o, a, bc int) int {
	return fs.code(createABx(o, a, bc), fs.ls.lx.LastLine)
}

func (fs *funcState) codeAsBx(o, a, sbx int) int {
	return fs.codeABx(o, a, sbx+maxArgSBx)
}

func (fs *funcState) setList(base, nelems, tostore int) {
	c := (nelems-1)/fieldsPerFlush + 1
	b := tostore
	if tostore == multRet {
		b = 0
	}
	if c <= maxArgC {
		fs.codeABC(opSetList, base, b, c)
	} else {
		fs.codeABC(opSetList, base, b, 0)
		fs.code(uint32(c), fs.ls.lx.LastLine)
	}
	fs.freereg = base + 1
}
