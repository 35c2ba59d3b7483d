package verify

import (
	"fmt"

	"github.com/scriptctl/scriptctl/verify/luac51"
)

// A Lua 5.1 syntax checker (lparser.c reduced to its error paths, over
// luac51's lexer, llex.c). gopher-lua's parser accepts Lua 5.2's goto and only ever says
// "syntax error"; this checker gives the message Lua 5.1 gives, so compile
// errors read exactly as Redis prints them: "user_script:3: '<name>'
// expected near '='", "'end' expected (to close 'if' at line 1) near
// '<eof>'". It builds no tree: gopher-lua still compiles the chunk.

// syntaxError is a Lua 5.1 compile error: "chunk:line: message".
type syntaxError struct{ msg string }

func (e *syntaxError) Error() string { return e.msg }

// syntaxInfo is what the Lua 5.1 checker learns for the compiler.
type syntaxInfo struct {
	// ws are the offsets of form feeds and vertical tabs skipped as white
	// space, and of NUL bytes a numeral swallowed.
	ws []int
	// forDo maps the line of each numeric for's 'for' to the lines of its
	// 'do', one per loop starting on that line in source order: Lua 5.1
	// reports a non-number initial value, limit or step on the 'do' line.
	forDo map[int][]int
	// dots are the offsets of NUL bytes Lua 5.1 reads as the second or
	// third dot of .. or ... ("a .\0 b" is a concatenation).
	dots []int
	// gotos are the offsets of the names goto: a plain name in Lua 5.1,
	// a keyword to gopher-lua's parser.
	gotos []int
	// ops are the chunk's unary and binary operators in the order Lua
	// 5.1's parser completes them (luaK_prefix, luaK_posfix), each with the
	// line of the last token consumed then: the line Lua 5.1's code
	// generator gives the operator's instruction (oplines.go).
	ops []opLine
	// calls are the lines of the chunk's calls (the line of the '(', the
	// string or the '{' of their arguments, funcargs' luaK_fixline), in
	// the order Lua 5.1's parser completes them.
	calls []int
	// index are the lines of the chunk's field accesses (a.b, a[k]), in
	// the order Lua 5.1's parser reads them: the line its code generator
	// gives the GETTABLE, the last token consumed when the access is
	// discharged (the name or ']', or a binary operator that follows).
	index []int
}

// checkSyntax51 returns Lua 5.1's compile error for src, or nil, and what
// the compiler needs to know about src (syntaxInfo).
func checkSyntax51(src []byte, chunk string) (info syntaxInfo, err error) {
	p := &parser51{lx: luac51.NewLexer(src, chunk), forDo: map[int][]int{}, lastIndex: -1}
	defer func() {
		if r := recover(); r != nil {
			le, ok := r.(*luac51.Error)
			if !ok {
				panic(r)
			}
			err = &syntaxError{le.Msg}
		}
	}()
	p.lx.Next()
	p.fs = &funcState51{vararg: true}
	p.block()
	p.check(luac51.TkEOS)
	return syntaxInfo{ws: p.lx.WS, forDo: p.forDo, dots: p.lx.Dots, gotos: p.lx.Gotos, ops: p.ops, calls: p.calls, index: p.index}, nil
}

// parser51 is lparser.c's recursive descent, checking only.
type parser51 struct {
	lx    *luac51.Lexer
	fs    *funcState51
	forDo map[int][]int // see syntaxInfo
	level int           // lparser.c's nCcalls: blocks and sub-expressions entered
	ops   []opLine      // see syntaxInfo
	calls []int         // see syntaxInfo
	index []int         // see syntaxInfo
	// lastIndex is the position in index of the access that ended the
	// last suffixed expression read, -1 when it did not end with one.
	lastIndex int
}

// maxSyntaxLevels is Lua 5.1's LUAI_MAXCCALLS, the parser's limit on
// nested blocks and sub-expressions (enterlevel): 199 nested do blocks
// load on the servers, 200 fail. A script compiled from C (EVAL, FUNCTION
// LOAD) starts at level 0.
const maxSyntaxLevels = 200

// enterLevel is lparser.c's enterlevel; leaveLevel its leavelevel.
func (p *parser51) enterLevel() {
	p.level++
	if p.level > maxSyntaxLevels {
		p.lx.Errorf("chunk has too many syntax levels", 0, "")
	}
}

func (p *parser51) leaveLevel() { p.level-- }

type funcState51 struct {
	vararg bool
	loops  int
	prev   *funcState51
}

func (p *parser51) errorExpected(t int) {
	p.syntaxError(fmt.Sprintf("'%s' expected", luac51.TokenString(t)))
}

func (p *parser51) syntaxError(msg string) {
	p.lx.Errorf(msg, p.lx.T.Tok, p.lx.T.Raw)
}

func (p *parser51) testNext(t int) bool {
	if p.lx.T.Tok == t {
		p.lx.Next()
		return true
	}
	return false
}

func (p *parser51) check(t int) {
	if p.lx.T.Tok != t {
		p.errorExpected(t)
	}
}

func (p *parser51) checkNext(t int) {
	p.check(t)
	p.lx.Next()
}

func (p *parser51) checkMatch(what, who, where int) {
	if !p.testNext(what) {
		if where == p.lx.Line {
			p.errorExpected(what)
		}
		p.syntaxError(fmt.Sprintf("'%s' expected (to close '%s' at line %d)", luac51.TokenString(what), luac51.TokenString(who), where))
	}
}

func (p *parser51) checkName() {
	p.check(luac51.TkName)
	p.lx.Next()
}

func blockFollow(t int) bool {
	switch t {
	case luac51.TkElse, luac51.TkElseif, luac51.TkEnd, luac51.TkUntil, luac51.TkEOS:
		return true
	}
	return false
}

// block is lparser.c's chunk: statements until a block end.
func (p *parser51) block() {
	p.enterLevel()
	last := false
	for !last && !blockFollow(p.lx.T.Tok) {
		last = p.statement()
		p.testNext(';')
	}
	p.leaveLevel()
}

func (p *parser51) statement() bool {
	line := p.lx.Line
	switch p.lx.T.Tok {
	case luac51.TkIf:
		p.lx.Next()
		p.cond()
		p.checkNext(luac51.TkThen)
		p.block()
		for p.lx.T.Tok == luac51.TkElseif {
			p.lx.Next()
			p.cond()
			p.checkNext(luac51.TkThen)
			p.block()
		}
		if p.testNext(luac51.TkElse) {
			p.block()
		}
		p.checkMatch(luac51.TkEnd, luac51.TkIf, line)
	case luac51.TkWhile:
		p.lx.Next()
		p.cond()
		p.checkNext(luac51.TkDo)
		p.loop(p.block)
		p.checkMatch(luac51.TkEnd, luac51.TkWhile, line)
	case luac51.TkDo:
		p.lx.Next()
		p.block()
		p.checkMatch(luac51.TkEnd, luac51.TkDo, line)
	case luac51.TkFor:
		p.lx.Next()
		p.checkName()
		switch p.lx.T.Tok {
		case '=':
			// Take this loop's slot before its expressions, which may hold
			// loops of their own (in function bodies).
			slot := len(p.forDo[line])
			p.forDo[line] = append(p.forDo[line], line)
			p.lx.Next()
			p.expr()
			p.checkNext(',')
			p.expr()
			if p.testNext(',') {
				p.expr()
			}
			p.check(luac51.TkDo)
			p.forDo[line][slot] = p.lx.Line
		case ',', luac51.TkIn:
			for p.testNext(',') {
				p.checkName()
			}
			p.checkNext(luac51.TkIn)
			p.exprList()
		default:
			p.syntaxError("'=' or 'in' expected")
		}
		p.checkNext(luac51.TkDo)
		p.loop(p.block)
		p.checkMatch(luac51.TkEnd, luac51.TkFor, line)
	case luac51.TkRepeat:
		p.lx.Next()
		p.loop(p.block)
		p.checkMatch(luac51.TkUntil, luac51.TkRepeat, line)
		p.cond()
	case luac51.TkFunction:
		p.lx.Next()
		p.checkName()
		for p.lx.T.Tok == '.' {
			p.lx.Next()
			p.checkName()
		}
		if p.testNext(':') {
			p.checkName()
		}
		p.body(line)
	case luac51.TkLocal:
		p.lx.Next()
		if p.testNext(luac51.TkFunction) {
			p.checkName()
			p.body(p.lx.Line)
			return false
		}
		p.checkName()
		for p.testNext(',') {
			p.checkName()
		}
		if p.testNext('=') {
			p.exprList()
		}
	case luac51.TkReturn:
		p.lx.Next()
		if !blockFollow(p.lx.T.Tok) && p.lx.T.Tok != ';' {
			p.exprList()
		}
		return true
	case luac51.TkBreak:
		p.lx.Next()
		if p.fs.loops == 0 {
			p.syntaxError("no loop to break")
		}
		return true
	default:
		if k := p.suffixedExp(); k != expCall {
			if k != expAssignable {
				p.syntaxError("syntax error")
			}
			p.restAssign(p.lastIndex)
		}
	}
	return false
}

func (p *parser51) loop(f func()) {
	p.fs.loops++
	f()
	p.fs.loops--
}

func (p *parser51) cond() { p.expr() }

type expKind int

const (
	expOther expKind = iota
	expAssignable
	expCall
)

// restAssign reads the rest of an assignment whose first target, not a
// call, the caller parsed; first is that target's position in index, -1
// when it is a name. Lua 5.1 stores into a field once the values are read
// (restassign's luaK_storevar after explist1): the SETTABLE that gopher-lua
// gives the target's line gets the line of the values' last token.
func (p *parser51) restAssign(first int) {
	targets := []int{first}
	for p.testNext(',') {
		if p.suffixedExp() != expAssignable {
			p.syntaxError("syntax error")
		}
		targets = append(targets, p.lastIndex)
	}
	p.checkNext('=')
	p.exprList()
	for _, i := range targets {
		if i >= 0 {
			p.index[i] = p.lx.LastLine
		}
	}
}

func (p *parser51) body(line int) {
	p.fs = &funcState51{prev: p.fs}
	p.checkNext('(')
	if p.lx.T.Tok != ')' {
		for {
			switch p.lx.T.Tok {
			case luac51.TkName:
				p.lx.Next()
			case luac51.TkDots:
				p.lx.Next()
				p.fs.vararg = true
			default:
				p.syntaxError("<name> or '...' expected")
			}
			if p.fs.vararg || !p.testNext(',') {
				break
			}
		}
	}
	p.checkNext(')')
	p.block()
	p.checkMatch(luac51.TkEnd, luac51.TkFunction, line)
	p.fs = p.fs.prev
}

func (p *parser51) exprList() {
	p.expr()
	for {
		// a field access before a ',' is discharged once the ',' is read
		pending := p.lastIndex
		if !p.testNext(',') {
			return
		}
		if pending >= 0 {
			p.index[pending] = p.lx.LastLine
		}
		p.expr()
	}
}

// primaryExp is a name or a parenthesized expression.
func (p *parser51) primaryExp() expKind {
	switch p.lx.T.Tok {
	case '(':
		line := p.lx.Line
		p.lx.Next()
		p.expr()
		p.checkMatch(')', '(', line)
		if p.lastIndex >= 0 {
			// discharged once the ')' is read
			p.index[p.lastIndex] = p.lx.LastLine
		}
		return expOther
	case luac51.TkName:
		p.lx.Next()
		return expAssignable
	}
	p.syntaxError("unexpected symbol")
	return expOther
}

// suffixedExp is lparser.c's primaryexp: a prefix and its suffixes.
func (p *parser51) suffixedExp() expKind {
	k := p.primaryExp()
	p.lastIndex = -1
	for {
		switch p.lx.T.Tok {
		case '.':
			p.lx.Next()
			p.checkName()
			k = expAssignable
			p.index = append(p.index, p.lx.LastLine)
			p.lastIndex = len(p.index) - 1
			continue
		case '[':
			p.lx.Next()
			p.expr()
			p.checkNext(']')
			k = expAssignable
			p.index = append(p.index, p.lx.LastLine)
			p.lastIndex = len(p.index) - 1
			continue
		case ':':
			p.lx.Next()
			p.checkName()
			p.funcArgs()
			k = expCall
			p.lastIndex = -1
		case '(', luac51.TkString, '{':
			p.funcArgs()
			k = expCall
			p.lastIndex = -1
		default:
			return k
		}
	}
}

func (p *parser51) funcArgs() {
	line := p.lx.Line
	defer func() { p.calls = append(p.calls, line) }()
	switch p.lx.T.Tok {
	case '(':
		if line != p.lx.LastLine {
			p.syntaxError("ambiguous syntax (function call x new statement)")
		}
		p.lx.Next()
		pending := -1
		if p.lx.T.Tok != ')' {
			p.exprList()
			pending = p.lastIndex
		}
		p.checkMatch(')', '(', line)
		if pending >= 0 {
			// the last argument is discharged once the ')' is read
			p.index[pending] = p.lx.LastLine
		}
	case '{':
		p.constructor()
	case luac51.TkString:
		p.lx.Next()
	default:
		p.syntaxError("function arguments expected")
	}
}

func (p *parser51) constructor() {
	line := p.lx.Line
	p.checkNext('{')
	// a field access as a list item is discharged once the separator
	// after it (closelistfield) or the '}' (lastlistfield) is read
	pending := -1
	for p.lx.T.Tok != '}' {
		switch p.lx.T.Tok {
		case luac51.TkName:
			if p.lx.Lookahead() != '=' {
				p.expr()
				pending = p.lastIndex
			} else {
				p.lx.Next()
				p.checkNext('=')
				p.expr()
			}
		case '[':
			p.lx.Next()
			p.expr()
			p.checkNext(']')
			p.checkNext('=')
			p.expr()
		default:
			p.expr()
			pending = p.lastIndex
		}
		if !p.testNext(',') && !p.testNext(';') {
			break
		}
		if pending >= 0 {
			p.index[pending] = p.lx.LastLine
		}
		pending = -1
	}
	p.checkMatch('}', '{', line)
	if pending >= 0 {
		p.index[pending] = p.lx.LastLine
	}
}

func (p *parser51) simpleExp() {
	switch p.lx.T.Tok {
	case luac51.TkNumber, luac51.TkString, luac51.TkNil, luac51.TkTrue, luac51.TkFalse:
		p.lx.Next()
	case luac51.TkDots:
		if !p.fs.vararg {
			p.syntaxError("cannot use '...' outside a vararg function")
		}
		p.lx.Next()
	case '{':
		p.constructor()
	case luac51.TkFunction:
		p.lx.Next()
		p.body(p.lx.Line)
	default:
		p.suffixedExp()
		return
	}
	p.lastIndex = -1
}

// Binary operator priorities (left, right) of Lua 5.1.
func binaryPriority(t int) (int, int, bool) {
	switch t {
	case '+', '-':
		return 6, 6, true
	case '*', '/', '%':
		return 7, 7, true
	case '^':
		return 10, 9, true
	case luac51.TkConcat:
		return 5, 4, true
	case luac51.TkEq, luac51.TkNe, '<', luac51.TkLe, '>', luac51.TkGe:
		return 3, 3, true
	case luac51.TkAnd:
		return 2, 2, true
	case luac51.TkOr:
		return 1, 1, true
	}
	return 0, 0, false
}

func (p *parser51) expr() { p.subExpr(0) }

func (p *parser51) subExpr(limit int) {
	p.enterLevel()
	defer p.leaveLevel()
	switch p.lx.T.Tok {
	case luac51.TkNot, '-', '#':
		op := p.lx.T.Tok
		p.lx.Next()
		p.subExpr(8)
		p.ops = append(p.ops, opLine{op: op, unary: true, line: p.lx.LastLine})
		p.lastIndex = -1
	default:
		p.simpleExp()
	}
	// a field access left of a binary operator is discharged once the
	// operator is read (luaK_infix)
	pending := p.lastIndex
	for {
		left, right, ok := binaryPriority(p.lx.T.Tok)
		if !ok || left <= limit {
			p.lastIndex = pending
			return
		}
		op := p.lx.T.Tok
		p.lx.Next()
		if pending >= 0 {
			p.index[pending] = p.lx.LastLine
			pending = -1
		}
		p.subExpr(right)
		p.ops = append(p.ops, opLine{op: op, line: p.lx.LastLine})
		p.lastIndex = -1
	}
}
