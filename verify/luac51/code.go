package luac51

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
