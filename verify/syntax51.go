package verify

import (
	"fmt"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/scriptctl/scriptctl/verify/lualib"
)

// A Lua 5.1 syntax checker (llex.c and lparser.c reduced to their error
// paths). gopher-lua's parser accepts Lua 5.2's goto and only ever says
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
	p := &parser51{lx: lexer51{src: src, line: 1, chunk: chunk}, forDo: map[int][]int{}, lastIndex: -1}
	defer func() {
		if r := recover(); r != nil {
			se, ok := r.(*syntaxError)
			if !ok {
				panic(r)
			}
			err = se
		}
	}()
	p.lx.next()
	p.fs = &funcState51{vararg: true}
	p.block()
	p.check(tkEOS)
	return syntaxInfo{ws: p.lx.ws, forDo: p.forDo, dots: p.lx.dots, gotos: p.lx.gotos, ops: p.ops, calls: p.calls, index: p.index}, nil
}

// Tokens: single characters are their byte value; the rest follow.
const (
	tkAnd = 257 + iota
	tkBreak
	tkDo
	tkElse
	tkElseif
	tkEnd
	tkFalse
	tkFor
	tkFunction
	tkIf
	tkIn
	tkLocal
	tkNil
	tkNot
	tkOr
	tkRepeat
	tkReturn
	tkThen
	tkTrue
	tkUntil
	tkWhile
	tkConcat
	tkDots
	tkEq
	tkGe
	tkLe
	tkNe
	tkNumber
	tkName
	tkString
	tkEOS
)

var tokenNames51 = []string{
	"and", "break", "do", "else", "elseif", "end", "false", "for", "function",
	"if", "in", "local", "nil", "not", "or", "repeat", "return", "then", "true",
	"until", "while", "..", "...", "==", ">=", "<=", "~=", "<number>", "<name>",
	"<string>", "<eof>",
}

var keywords51 = func() map[string]int {
	m := map[string]int{}
	for i := tkAnd; i <= tkWhile; i++ {
		m[tokenNames51[i-tkAnd]] = i
	}
	return m
}()

func token2str(t int) string {
	if t < 257 {
		if t < 32 || t == 127 {
			return fmt.Sprintf("char(%d)", t)
		}
		return string([]byte{byte(t)})
	}
	return tokenNames51[t-257]
}

type lexer51 struct {
	src   []byte
	pos   int
	line  int
	chunk string

	tok     int
	tokText string // the text of a name, string or number as Lua saves it
	ahead   int    // lookahead token, -1 when none
	aheadTx string
	lastLn  int // line of the last token consumed
	hasLook bool
	ws      []int // offsets of \f and \v skipped as white space
	dots    []int // offsets of NUL bytes read as the dots of .. or ...
	gotos   []int // offsets of the names goto
}

func (lx *lexer51) cur() int {
	if lx.pos < len(lx.src) {
		return int(lx.src[lx.pos])
	}
	return -1
}

func (lx *lexer51) errorf(msg string, token int, text string) {
	s := fmt.Sprintf("%s:%d: %s", lx.chunk, lx.line, msg)
	if token != 0 {
		s += fmt.Sprintf(" near '%s'", lx.txtToken(token, text))
	}
	panic(&syntaxError{s})
}

func (lx *lexer51) txtToken(token int, text string) string {
	switch token {
	case tkName, tkString, tkNumber:
		return text
	}
	return token2str(token)
}

func isNewline(c int) bool { return c == '\n' || c == '\r' }

func (lx *lexer51) incLine() {
	old := lx.cur()
	lx.pos++
	if c := lx.cur(); isNewline(c) && c != old {
		lx.pos++
	}
	lx.line++
}

func (lx *lexer51) next() {
	lx.lastLn = lx.line
	if lx.hasLook {
		lx.tok, lx.tokText, lx.hasLook = lx.ahead, lx.aheadTx, false
		return
	}
	lx.tok, lx.tokText = lx.scan()
}

func (lx *lexer51) lookahead() int {
	if !lx.hasLook {
		lx.ahead, lx.aheadTx = lx.scan()
		lx.hasLook = true
	}
	return lx.ahead
}

func isAlpha(c int) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
}

func isDigit51(c int) bool { return c >= '0' && c <= '9' }

func (lx *lexer51) scan() (int, string) {
	for {
		c := lx.cur()
		switch {
		case c < 0:
			return tkEOS, ""
		case isNewline(c):
			lx.incLine()
		case c == ' ' || c == '\t':
			lx.pos++
		case c == '\f' || c == '\v':
			lx.ws = append(lx.ws, lx.pos)
			lx.pos++
		case c == '-':
			lx.pos++
			if lx.cur() != '-' {
				return '-', ""
			}
			lx.pos++
			if lx.cur() == '[' {
				start := lx.pos
				if sep := lx.skipSep(); sep >= 0 {
					lx.readLongString(sep, false)
					continue
				}
				lx.pos = start
			}
			for c := lx.cur(); c >= 0 && !isNewline(c); c = lx.cur() {
				lx.pos++
			}
		case c == '[':
			start := lx.pos
			sep := lx.skipSep()
			if sep >= 0 {
				return tkString, lx.readLongString(sep, true)
			}
			if sep == -1 {
				return '[', ""
			}
			lx.errorf("invalid long string delimiter", tkString, string(lx.src[start:lx.pos]))
		case c == '=':
			lx.pos++
			if lx.cur() == '=' {
				lx.pos++
				return tkEq, ""
			}
			return '=', ""
		case c == '<':
			lx.pos++
			if lx.cur() == '=' {
				lx.pos++
				return tkLe, ""
			}
			return '<', ""
		case c == '>':
			lx.pos++
			if lx.cur() == '=' {
				lx.pos++
				return tkGe, ""
			}
			return '>', ""
		case c == '~':
			lx.pos++
			if lx.cur() == '=' {
				lx.pos++
				return tkNe, ""
			}
			return '~', ""
		case c == '"' || c == '\'':
			return tkString, lx.readString(c)
		case c == '.':
			// check_next(ls, ".") takes a NUL byte for the dot too (strchr
			// finds the set's terminator): the compiler sees a dot there.
			lx.pos++
			if c := lx.cur(); c == '.' || c == 0 {
				if c == 0 {
					lx.dots = append(lx.dots, lx.pos)
				}
				lx.pos++
				if c := lx.cur(); c == '.' || c == 0 {
					if c == 0 {
						lx.dots = append(lx.dots, lx.pos)
					}
					lx.pos++
					return tkDots, ""
				}
				return tkConcat, ""
			}
			if !isDigit51(lx.cur()) {
				return '.', ""
			}
			lx.pos--
			return tkNumber, lx.readNumeral()
		case isDigit51(c):
			return tkNumber, lx.readNumeral()
		case isAlpha(c):
			start := lx.pos
			for c := lx.cur(); isAlpha(c) || isDigit51(c); c = lx.cur() {
				lx.pos++
			}
			word := string(lx.src[start:lx.pos])
			if k, ok := keywords51[word]; ok {
				return k, ""
			}
			if word == "goto" {
				lx.gotos = append(lx.gotos, start)
			}
			return tkName, word
		default:
			lx.pos++
			return c, ""
		}
	}
}

func (lx *lexer51) readNumeral() string {
	start := lx.pos
	for c := lx.cur(); isDigit51(c) || c == '.'; c = lx.cur() {
		lx.pos++
	}
	// Lua 5.1 tests the exponent mark and sign with strchr, which also
	// finds the set's terminating NUL: a NUL byte there belongs to the
	// number ("1\0 + 2" is 3). The compiler sees it as white space.
	if c := lx.cur(); c == 'e' || c == 'E' || c == 0 {
		if c == 0 {
			lx.ws = append(lx.ws, lx.pos)
		}
		lx.pos++
		if c := lx.cur(); c == '+' || c == '-' || c == 0 {
			if c == 0 {
				lx.ws = append(lx.ws, lx.pos)
			}
			lx.pos++
		}
	}
	for c := lx.cur(); isAlpha(c) || isDigit51(c); c = lx.cur() {
		lx.pos++
	}
	text := string(lx.src[start:lx.pos])
	if i := strings.IndexByte(text, 0); i >= 0 {
		text = text[:i] // Lua reads the number as a C string
	}
	if _, ok := lualib.ToNumber(lua.LString(text)); !ok {
		lx.errorf("malformed number", tkNumber, text)
	}
	return text
}

// skipSep reads [===[ or ]===]: the count of '=' when the bracket repeats,
// -1 for a lone bracket, -(count)-1 for "[=" not followed by '['.
func (lx *lexer51) skipSep() int {
	s := lx.cur()
	lx.pos++
	count := 0
	for lx.cur() == '=' {
		lx.pos++
		count++
	}
	if lx.cur() == s {
		lx.pos++
		return count
	}
	return -count - 1
}

func (lx *lexer51) readLongString(sep int, isString bool) string {
	var b strings.Builder
	if isNewline(lx.cur()) {
		lx.incLine()
	}
	for {
		c := lx.cur()
		switch {
		case c < 0:
			what := "unfinished long comment"
			if isString {
				what = "unfinished long string"
			}
			lx.errorf(what, tkEOS, "")
		case c == ']':
			start := lx.pos
			if lx.skipSep() == sep {
				return b.String()
			}
			b.Write(lx.src[start:lx.pos])

		case isNewline(c):
			b.WriteByte('\n')
			lx.incLine()
		default:
			b.WriteByte(byte(c))
			lx.pos++
		}
	}
}

func (lx *lexer51) readString(del int) string {
	var b strings.Builder
	b.WriteByte(byte(del))
	lx.pos++
	for lx.cur() != del {
		c := lx.cur()
		switch {
		case c < 0:
			lx.errorf("unfinished string", tkEOS, "")
		case isNewline(c):
			lx.errorf("unfinished string", tkString, b.String())
		case c == '\\':
			lx.pos++
			e := lx.cur()
			switch e {
			case 'a':
				b.WriteByte('\a')
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case 'v':
				b.WriteByte('\v')
			case '\n', '\r':
				b.WriteByte('\n')
				lx.incLine()
				continue
			case -1:
				continue // unfinished string, reported above
			default:
				if !isDigit51(e) {
					b.WriteByte(byte(e))
					break
				}
				n := 0
				for i := 0; i < 3 && isDigit51(lx.cur()); i++ {
					n = n*10 + lx.cur() - '0'
					lx.pos++
				}
				if n > 255 {
					lx.errorf("escape sequence too large", tkString, b.String())
				}
				b.WriteByte(byte(n))
				continue
			}
			lx.pos++
		default:
			b.WriteByte(byte(c))
			lx.pos++
		}
	}
	lx.pos++
	b.WriteByte(byte(del))
	return b.String()
}

// parser51 is lparser.c's recursive descent, checking only.
type parser51 struct {
	lx    lexer51
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
		p.lx.errorf("chunk has too many syntax levels", 0, "")
	}
}

func (p *parser51) leaveLevel() { p.level-- }

type funcState51 struct {
	vararg bool
	loops  int
	prev   *funcState51
}

func (p *parser51) errorExpected(t int) {
	p.syntaxError(fmt.Sprintf("'%s' expected", token2str(t)))
}

func (p *parser51) syntaxError(msg string) {
	p.lx.errorf(msg, p.lx.tok, p.lx.tokText)
}

func (p *parser51) testNext(t int) bool {
	if p.lx.tok == t {
		p.lx.next()
		return true
	}
	return false
}

func (p *parser51) check(t int) {
	if p.lx.tok != t {
		p.errorExpected(t)
	}
}

func (p *parser51) checkNext(t int) {
	p.check(t)
	p.lx.next()
}

func (p *parser51) checkMatch(what, who, where int) {
	if !p.testNext(what) {
		if where == p.lx.line {
			p.errorExpected(what)
		}
		p.syntaxError(fmt.Sprintf("'%s' expected (to close '%s' at line %d)", token2str(what), token2str(who), where))
	}
}

func (p *parser51) checkName() {
	p.check(tkName)
	p.lx.next()
}

func blockFollow(t int) bool {
	switch t {
	case tkElse, tkElseif, tkEnd, tkUntil, tkEOS:
		return true
	}
	return false
}

// block is lparser.c's chunk: statements until a block end.
func (p *parser51) block() {
	p.enterLevel()
	last := false
	for !last && !blockFollow(p.lx.tok) {
		last = p.statement()
		p.testNext(';')
	}
	p.leaveLevel()
}

func (p *parser51) statement() bool {
	line := p.lx.line
	switch p.lx.tok {
	case tkIf:
		p.lx.next()
		p.cond()
		p.checkNext(tkThen)
		p.block()
		for p.lx.tok == tkElseif {
			p.lx.next()
			p.cond()
			p.checkNext(tkThen)
			p.block()
		}
		if p.testNext(tkElse) {
			p.block()
		}
		p.checkMatch(tkEnd, tkIf, line)
	case tkWhile:
		p.lx.next()
		p.cond()
		p.checkNext(tkDo)
		p.loop(p.block)
		p.checkMatch(tkEnd, tkWhile, line)
	case tkDo:
		p.lx.next()
		p.block()
		p.checkMatch(tkEnd, tkDo, line)
	case tkFor:
		p.lx.next()
		p.checkName()
		switch p.lx.tok {
		case '=':
			// Take this loop's slot before its expressions, which may hold
			// loops of their own (in function bodies).
			slot := len(p.forDo[line])
			p.forDo[line] = append(p.forDo[line], line)
			p.lx.next()
			p.expr()
			p.checkNext(',')
			p.expr()
			if p.testNext(',') {
				p.expr()
			}
			p.check(tkDo)
			p.forDo[line][slot] = p.lx.line
		case ',', tkIn:
			for p.testNext(',') {
				p.checkName()
			}
			p.checkNext(tkIn)
			p.exprList()
		default:
			p.syntaxError("'=' or 'in' expected")
		}
		p.checkNext(tkDo)
		p.loop(p.block)
		p.checkMatch(tkEnd, tkFor, line)
	case tkRepeat:
		p.lx.next()
		p.loop(p.block)
		p.checkMatch(tkUntil, tkRepeat, line)
		p.cond()
	case tkFunction:
		p.lx.next()
		p.checkName()
		for p.lx.tok == '.' {
			p.lx.next()
			p.checkName()
		}
		if p.testNext(':') {
			p.checkName()
		}
		p.body(line)
	case tkLocal:
		p.lx.next()
		if p.testNext(tkFunction) {
			p.checkName()
			p.body(p.lx.line)
			return false
		}
		p.checkName()
		for p.testNext(',') {
			p.checkName()
		}
		if p.testNext('=') {
			p.exprList()
		}
	case tkReturn:
		p.lx.next()
		if !blockFollow(p.lx.tok) && p.lx.tok != ';' {
			p.exprList()
		}
		return true
	case tkBreak:
		p.lx.next()
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
			p.index[i] = p.lx.lastLn
		}
	}
}

func (p *parser51) body(line int) {
	p.fs = &funcState51{prev: p.fs}
	p.checkNext('(')
	if p.lx.tok != ')' {
		for {
			switch p.lx.tok {
			case tkName:
				p.lx.next()
			case tkDots:
				p.lx.next()
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
	p.checkMatch(tkEnd, tkFunction, line)
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
			p.index[pending] = p.lx.lastLn
		}
		p.expr()
	}
}

// primaryExp is a name or a parenthesized expression.
func (p *parser51) primaryExp() expKind {
	switch p.lx.tok {
	case '(':
		line := p.lx.line
		p.lx.next()
		p.expr()
		p.checkMatch(')', '(', line)
		if p.lastIndex >= 0 {
			// discharged once the ')' is read
			p.index[p.lastIndex] = p.lx.lastLn
		}
		return expOther
	case tkName:
		p.lx.next()
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
		switch p.lx.tok {
		case '.':
			p.lx.next()
			p.checkName()
			k = expAssignable
			p.index = append(p.index, p.lx.lastLn)
			p.lastIndex = len(p.index) - 1
			continue
		case '[':
			p.lx.next()
			p.expr()
			p.checkNext(']')
			k = expAssignable
			p.index = append(p.index, p.lx.lastLn)
			p.lastIndex = len(p.index) - 1
			continue
		case ':':
			p.lx.next()
			p.checkName()
			p.funcArgs()
			k = expCall
			p.lastIndex = -1
		case '(', tkString, '{':
			p.funcArgs()
			k = expCall
			p.lastIndex = -1
		default:
			return k
		}
	}
}

func (p *parser51) funcArgs() {
	line := p.lx.line
	defer func() { p.calls = append(p.calls, line) }()
	switch p.lx.tok {
	case '(':
		if line != p.lx.lastLn {
			p.syntaxError("ambiguous syntax (function call x new statement)")
		}
		p.lx.next()
		pending := -1
		if p.lx.tok != ')' {
			p.exprList()
			pending = p.lastIndex
		}
		p.checkMatch(')', '(', line)
		if pending >= 0 {
			// the last argument is discharged once the ')' is read
			p.index[pending] = p.lx.lastLn
		}
	case '{':
		p.constructor()
	case tkString:
		p.lx.next()
	default:
		p.syntaxError("function arguments expected")
	}
}

func (p *parser51) constructor() {
	line := p.lx.line
	p.checkNext('{')
	// a field access as a list item is discharged once the separator
	// after it (closelistfield) or the '}' (lastlistfield) is read
	pending := -1
	for p.lx.tok != '}' {
		switch p.lx.tok {
		case tkName:
			if p.lx.lookahead() != '=' {
				p.expr()
				pending = p.lastIndex
			} else {
				p.lx.next()
				p.checkNext('=')
				p.expr()
			}
		case '[':
			p.lx.next()
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
			p.index[pending] = p.lx.lastLn
		}
		pending = -1
	}
	p.checkMatch('}', '{', line)
	if pending >= 0 {
		p.index[pending] = p.lx.lastLn
	}
}

func (p *parser51) simpleExp() {
	switch p.lx.tok {
	case tkNumber, tkString, tkNil, tkTrue, tkFalse:
		p.lx.next()
	case tkDots:
		if !p.fs.vararg {
			p.syntaxError("cannot use '...' outside a vararg function")
		}
		p.lx.next()
	case '{':
		p.constructor()
	case tkFunction:
		p.lx.next()
		p.body(p.lx.line)
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
	case tkConcat:
		return 5, 4, true
	case tkEq, tkNe, '<', tkLe, '>', tkGe:
		return 3, 3, true
	case tkAnd:
		return 2, 2, true
	case tkOr:
		return 1, 1, true
	}
	return 0, 0, false
}

func (p *parser51) expr() { p.subExpr(0) }

func (p *parser51) subExpr(limit int) {
	p.enterLevel()
	defer p.leaveLevel()
	switch p.lx.tok {
	case tkNot, '-', '#':
		op := p.lx.tok
		p.lx.next()
		p.subExpr(8)
		p.ops = append(p.ops, opLine{op: op, unary: true, line: p.lx.lastLn})
		p.lastIndex = -1
	default:
		p.simpleExp()
	}
	// a field access left of a binary operator is discharged once the
	// operator is read (luaK_infix)
	pending := p.lastIndex
	for {
		left, right, ok := binaryPriority(p.lx.tok)
		if !ok || left <= limit {
			p.lastIndex = pending
			return
		}
		op := p.lx.tok
		p.lx.next()
		if pending >= 0 {
			p.index[pending] = p.lx.lastLn
			pending = -1
		}
		p.subExpr(right)
		p.ops = append(p.ops, opLine{op: op, line: p.lx.lastLn})
		p.lastIndex = -1
	}
}
