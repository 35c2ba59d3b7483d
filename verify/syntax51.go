package verify

import (
	"fmt"
	"math"
	"strconv"

	"github.com/yuin/gopher-lua/ast"

	"github.com/scriptctl/scriptctl/verify/luac51"
)

// The Lua 5.1 parser (lparser.c's recursive descent over luac51's lexer,
// llex.c). It reads a chunk the way Redis's Lua 5.1 reads it, with Lua
// 5.1's compile errors word for word ("user_script:3: '<name>' expected
// near '='", "'end' expected (to close 'if' at line 1) near '<eof>'"),
// and builds the tree gopher-lua's compiler takes: the nodes, fields and
// lines gopher-lua's own parser would give the same chunk. gopher-lua's
// parser is never run: it accepts Lua 5.2's goto, rejects form feeds and
// hex-float numerals, reads "0123" as octal and a numeral past the largest
// double as a NaN, only ever says "syntax error", and takes several times
// as long.

// syntaxError is a Lua 5.1 compile error: "chunk:line: message".
type syntaxError struct{ msg string }

func (e *syntaxError) Error() string { return e.msg }

// syntaxInfo is what the Lua 5.1 parser learns for the compiler besides the
// tree.
type syntaxInfo struct {
	// forDo maps the line of each numeric for's 'for' to the lines of its
	// 'do', one per loop starting on that line in source order: Lua 5.1
	// reports a non-number initial value, limit or step on the 'do' line.
	forDo map[int][]int
	// ops (recorded for the tests only) are the chunk's unary and binary operators in the order Lua
	// 5.1's parser completes them (luaK_prefix, luaK_posfix), each with the
	// line of the last token consumed then: the line Lua 5.1's code
	// generator gives the operator's instruction (oplines.go).
	ops []opLine
	// calls (recorded for the tests only) are the lines of the chunk's calls (the line of the '(', the
	// string or the '{' of their arguments, funcargs' luaK_fixline), in
	// the order Lua 5.1's parser completes them.
	calls []int
	// index are the lines of the chunk's field accesses (a.b, a[k]), in
	// the order Lua 5.1's parser reads them: the line its code generator
	// gives the GETTABLE, the last token consumed when the access is
	// discharged (the name or ']', or a binary operator that follows).
	index []int
}

// parse51 parses src as Lua 5.1 does: the tree for gopher-lua's compiler
// and what the compiler needs to know besides (syntaxInfo), or Lua 5.1's
// compile error.
func parse51(src []byte, chunk string) (stmts []ast.Stmt, info syntaxInfo, err error) {
	return parseChunk51(src, chunk, false)
}

// ParseLua51 reads src as Redis's Lua 5.1 does and returns the tree
// gopher-lua's parser builds for it, with gopher-lua's lines, or Lua
// 5.1's compile error ("chunk:line: message"). It reads what gopher-lua's
// parser refuses and Lua 5.1 accepts (goto as a name, form feeds, hex
// floats): for tools that walk gopher-lua's tree, such as lint.
func ParseLua51(src []byte, chunk string) ([]ast.Stmt, error) {
	p := newParser51(src, chunk)
	p.gopherLines = true
	stmts, _, err := p.parse()
	return stmts, err
}

// parseChunk51 is parse51; with record set it also records the operators'
// and calls' lines in syntaxInfo (ops, calls), for the tests to check the
// tree's lines against.
func parseChunk51(src []byte, chunk string, record bool) (stmts []ast.Stmt, info syntaxInfo, err error) {
	p := newParser51(src, chunk)
	p.record = record
	return p.parse()
}

func newParser51(src []byte, chunk string) *parser51 {
	return &parser51{lx: luac51.NewLexer(src, chunk), forDo: map[int][]int{}, lastIndex: -1}
}

func (p *parser51) parse() (stmts []ast.Stmt, info syntaxInfo, err error) {
	defer func() {
		if r := recover(); r != nil {
			le, ok := r.(*luac51.Error)
			if !ok {
				panic(r)
			}
			stmts, err = nil, &syntaxError{le.Msg}
		}
	}()
	p.lx.Next()
	p.fs = &funcState51{vararg: true}
	stmts = p.block()
	p.check(luac51.TkEOS)
	if !p.gopherLines {
		p.setLines()
	}
	return stmts, syntaxInfo{forDo: p.forDo, ops: p.ops, calls: p.calls, index: p.index}, nil
}

// parser51 is lparser.c's recursive descent.
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
	// sets are the operators and calls of the tree and their Lua 5.1
	// lines; indexNodes are the field accesses of index, in its order.
	sets        blocks[opSet]
	indexNodes  blocks[ast.Expr]
	record      bool // record ops and calls (parseChunk51)
	gopherLines bool // leave gopher-lua's lines (ParseLua51)

	// The most common nodes come from slabs: a chunk of statements
	// allocates a few blocks of them instead of one object per node.
	idents  slab[ast.IdentExpr]
	numbers slab[ast.NumberExpr]
	strs    slab[ast.StringExpr]
	gets    slab[ast.AttrGetExpr]
	callx   slab[ast.FuncCallExpr]
	arith   slab[ast.ArithmeticOpExpr]
	assigns slab[ast.AssignStmt]
	exprs   exprSlab
}

// slab hands out the elements of blocks of Ts, each block twice the size of
// the last up to 256: few allocations for a big chunk, little unused room
// for a small one.
type slab[T any] struct {
	free []T
	next int
}

func (s *slab[T]) new() *T {
	if len(s.free) == 0 {
		s.next = min(max(2*s.next, 8), 256)
		s.free = make([]T, s.next)
	}
	x := &s.free[0]
	s.free = s.free[1:]
	return x
}

// blocks is a list kept in blocks that are never copied as it grows, each
// twice the size of the last up to 1024.
type blocks[T any] struct {
	list [][]T
}

func (b *blocks[T]) add(x T) {
	n := len(b.list)
	if n == 0 || len(b.list[n-1]) == cap(b.list[n-1]) {
		size := 16
		if n > 0 {
			size = min(2*cap(b.list[n-1]), 1024)
		}
		b.list = append(b.list, make([]T, 0, size))
		n++
	}
	b.list[n-1] = append(b.list[n-1], x)
}

// exprSlab hands out one-element lists of expressions the same way.
type exprSlab struct {
	free []ast.Expr
	next int
}

// one returns a list holding e, with no room to grow into its neighbours.
func (s *exprSlab) one(e ast.Expr) []ast.Expr {
	if len(s.free) == 0 {
		s.next = min(max(2*s.next, 8), 256)
		s.free = make([]ast.Expr, s.next)
	}
	x := s.free[0:1:1]
	s.free = s.free[1:]
	x[0] = e
	return x
}

// setLines gives the tree's operators, calls and field accesses the lines
// Lua 5.1's code generator gives their instructions (oplines.go). They are
// set once the chunk is read: until then every node has the line
// gopher-lua's parser gives it, which the nodes built around it copy.
func (p *parser51) setLines() {
	for _, b := range p.sets.list {
		for _, s := range b {
			s.node.SetLine(s.line)
		}
	}
	i := 0
	for _, b := range p.indexNodes.list {
		for _, n := range b {
			n.SetLine(p.index[i])
			i++
		}
	}
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

// checkName reads a name and returns it.
func (p *parser51) checkName() string {
	p.check(luac51.TkName)
	name := p.lx.T.S
	p.lx.Next()
	return name
}

func blockFollow(t int) bool {
	switch t {
	case luac51.TkElse, luac51.TkElseif, luac51.TkEnd, luac51.TkUntil, luac51.TkEOS:
		return true
	}
	return false
}

// block is lparser.c's chunk: statements until a block end.
func (p *parser51) block() []ast.Stmt {
	p.enterLevel()
	stmts := []ast.Stmt{}
	last := false
	for !last && !blockFollow(p.lx.T.Tok) {
		var st ast.Stmt
		st, last = p.statement()
		stmts = append(stmts, st)
		p.testNext(';')
	}
	p.leaveLevel()
	return stmts
}

// statement reads one statement; last reports a return or break, which
// end their block.
func (p *parser51) statement() (st ast.Stmt, last bool) {
	line := p.lx.Line    // lparser.c's linenumber, which its errors name
	tline := p.lx.T.Line // the line gopher-lua's tree gives the statement
	switch p.lx.T.Tok {
	case luac51.TkIf:
		p.lx.Next()
		top := &ast.IfStmt{Condition: p.cond()}
		top.SetLine(tline)
		p.checkNext(luac51.TkThen)
		top.Then = p.block()
		cur := top
		for p.lx.T.Tok == luac51.TkElseif {
			eline := p.lx.T.Line
			p.lx.Next()
			elif := &ast.IfStmt{Condition: p.cond()}
			elif.SetLine(eline)
			p.checkNext(luac51.TkThen)
			elif.Then = p.block()
			cur.Else = []ast.Stmt{elif}
			cur = elif
		}
		if p.testNext(luac51.TkElse) {
			cur.Else = p.block()
		}
		end := p.lx.T.Line
		p.checkMatch(luac51.TkEnd, luac51.TkIf, line)
		top.SetLastLine(end)
		return top, false
	case luac51.TkWhile:
		p.lx.Next()
		w := &ast.WhileStmt{Condition: p.cond()}
		w.SetLine(tline)
		p.checkNext(luac51.TkDo)
		w.Stmts = p.loop()
		w.SetLastLine(p.lx.T.Line)
		p.checkMatch(luac51.TkEnd, luac51.TkWhile, line)
		return w, false
	case luac51.TkDo:
		p.lx.Next()
		d := &ast.DoBlockStmt{Stmts: p.block()}
		d.SetLine(tline)
		d.SetLastLine(p.lx.T.Line)
		p.checkMatch(luac51.TkEnd, luac51.TkDo, line)
		return d, false
	case luac51.TkFor:
		p.lx.Next()
		first := p.checkName()
		var f ast.Stmt
		var body *[]ast.Stmt
		switch p.lx.T.Tok {
		case '=':
			// Take this loop's slot before its expressions, which may hold
			// loops of their own (in function bodies).
			slot := len(p.forDo[line])
			p.forDo[line] = append(p.forDo[line], line)
			p.lx.Next()
			nf := &ast.NumberForStmt{Name: first, Init: p.expr()}
			p.checkNext(',')
			nf.Limit = p.expr()
			if p.testNext(',') {
				nf.Step = p.expr()
			}
			p.check(luac51.TkDo)
			p.forDo[line][slot] = p.lx.Line
			f, body = nf, &nf.Stmts
		case ',', luac51.TkIn:
			gf := &ast.GenericForStmt{Names: []string{first}}
			for p.testNext(',') {
				gf.Names = append(gf.Names, p.checkName())
			}
			p.checkNext(luac51.TkIn)
			gf.Exprs = p.exprList()
			f, body = gf, &gf.Stmts
		default:
			p.syntaxError("'=' or 'in' expected")
		}
		p.checkNext(luac51.TkDo)
		*body = p.loop()
		f.SetLine(tline)
		f.SetLastLine(p.lx.T.Line)
		p.checkMatch(luac51.TkEnd, luac51.TkFor, line)
		return f, false
	case luac51.TkRepeat:
		p.lx.Next()
		r := &ast.RepeatStmt{Stmts: p.loop()}
		r.SetLine(tline)
		p.checkMatch(luac51.TkUntil, luac51.TkRepeat, line)
		r.Condition = p.cond()
		r.SetLastLine(r.Condition.Line())
		return r, false
	case luac51.TkFunction:
		p.lx.Next()
		nline := p.lx.T.Line
		id := &ast.IdentExpr{Value: p.checkName()}
		id.SetLine(nline)
		name := &ast.FuncName{Func: id}
		for p.lx.T.Tok == '.' {
			p.lx.Next()
			kline := p.lx.T.Line
			key := &ast.StringExpr{Value: p.checkName()}
			key.SetLine(kline)
			fn := &ast.AttrGetExpr{Object: name.Func, Key: key}
			fn.SetLine(kline)
			name = &ast.FuncName{Func: fn}
		}
		if p.testNext(':') {
			name = &ast.FuncName{Receiver: name.Func, Method: p.checkName()}
		}
		fd := &ast.FuncDefStmt{Name: name, Func: p.body(line)}
		fd.SetLine(tline)
		fd.SetLastLine(fd.Func.LastLine())
		return fd, false
	case luac51.TkLocal:
		p.lx.Next()
		if p.testNext(luac51.TkFunction) {
			name := p.checkName()
			fn := p.body(p.lx.Line)
			la := &ast.LocalAssignStmt{Names: []string{name}, Exprs: []ast.Expr{fn}}
			la.SetLine(tline)
			la.SetLastLine(fn.LastLine())
			return la, false
		}
		la := &ast.LocalAssignStmt{Names: []string{p.checkName()}}
		la.SetLine(tline)
		for p.testNext(',') {
			la.Names = append(la.Names, p.checkName())
		}
		if p.testNext('=') {
			la.Exprs = p.exprList()
		} else {
			la.Exprs = []ast.Expr{}
		}
		return la, false
	case luac51.TkReturn:
		p.lx.Next()
		r := &ast.ReturnStmt{}
		r.SetLine(tline)
		if !blockFollow(p.lx.T.Tok) && p.lx.T.Tok != ';' {
			r.Exprs = p.exprList()
		}
		return r, true
	case luac51.TkBreak:
		p.lx.Next()
		if p.fs.loops == 0 {
			p.syntaxError("no loop to break")
		}
		b := &ast.BreakStmt{}
		b.SetLine(tline)
		return b, true
	default:
		e, k := p.suffixedExp()
		if k == expCall {
			cs := &ast.FuncCallStmt{Expr: e}
			cs.SetLine(e.Line())
			return cs, false
		}
		if k != expAssignable {
			p.syntaxError("syntax error")
		}
		return p.restAssign(e, p.lastIndex), false
	}
}

// loop reads a loop's body.
func (p *parser51) loop() []ast.Stmt {
	p.fs.loops++
	b := p.block()
	p.fs.loops--
	return b
}

func (p *parser51) cond() ast.Expr { return p.expr() }

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
func (p *parser51) restAssign(target ast.Expr, first int) ast.Stmt {
	as := p.assigns.new()
	as.Lhs = p.exprs.one(target)
	as.SetLine(target.Line())
	targets := []int{first}
	for p.testNext(',') {
		e, k := p.suffixedExp()
		if k != expAssignable {
			p.syntaxError("syntax error")
		}
		as.Lhs = append(as.Lhs, e)
		targets = append(targets, p.lastIndex)
	}
	p.checkNext('=')
	as.Rhs = p.exprList()
	for _, i := range targets {
		if i >= 0 {
			p.index[i] = p.lx.LastLine
		}
	}
	return as
}

// body reads a function's parameters and block (lparser.c's body): the
// function, on the line of its '(' and with the line of its 'end' last.
func (p *parser51) body(line int) *ast.FunctionExpr {
	p.fs = &funcState51{prev: p.fs}
	fn := &ast.FunctionExpr{ParList: &ast.ParList{Names: []string{}}}
	fn.SetLine(p.lx.T.Line)
	p.checkNext('(')
	if p.lx.T.Tok != ')' {
		for {
			switch p.lx.T.Tok {
			case luac51.TkName:
				fn.ParList.Names = append(fn.ParList.Names, p.lx.T.S)
				p.lx.Next()
			case luac51.TkDots:
				p.lx.Next()
				p.fs.vararg = true
				fn.ParList.HasVargs = true
			default:
				p.syntaxError("<name> or '...' expected")
			}
			if p.fs.vararg || !p.testNext(',') {
				break
			}
		}
	}
	p.checkNext(')')
	fn.Stmts = p.block()
	fn.SetLastLine(p.lx.T.Line)
	p.checkMatch(luac51.TkEnd, luac51.TkFunction, line)
	p.fs = p.fs.prev
	return fn
}

func (p *parser51) exprList() []ast.Expr {
	list := p.exprs.one(p.expr())
	for {
		// a field access before a ',' is discharged once the ',' is read
		pending := p.lastIndex
		if !p.testNext(',') {
			return list
		}
		if pending >= 0 {
			p.index[pending] = p.lx.LastLine
		}
		list = append(list, p.expr())
	}
}

// primaryExp is a name or a parenthesized expression.
func (p *parser51) primaryExp() (ast.Expr, expKind) {
	switch p.lx.T.Tok {
	case '(':
		line := p.lx.Line
		tline := p.lx.T.Line
		p.lx.Next()
		e, k := p.subExpr(0)
		p.checkMatch(')', '(', line)
		if p.lastIndex >= 0 {
			// discharged once the ')' is read
			p.index[p.lastIndex] = p.lx.LastLine
		}
		// gopher-lua's grammar: a call in parentheses keeps its line and
		// is adjusted to one value; any other expression takes the line
		// of the '(' (a vararg is adjusted too).
		if call, ok := e.(*ast.FuncCallExpr); ok && k == expCall {
			call.AdjustRet = true
		} else {
			if v, ok := e.(*ast.Comma3Expr); ok {
				v.AdjustRet = true
			}
			e.SetLine(tline)
		}
		return e, expOther
	case luac51.TkName:
		id := p.idents.new()
		id.Value = p.lx.T.S
		id.SetLine(p.lx.T.Line)
		p.lx.Next()
		return id, expAssignable
	}
	p.syntaxError("unexpected symbol")
	return nil, expOther
}

// suffixedExp is lparser.c's primaryexp: a prefix and its suffixes.
func (p *parser51) suffixedExp() (ast.Expr, expKind) {
	e, k := p.primaryExp()
	p.lastIndex = -1
	for {
		switch p.lx.T.Tok {
		case '.':
			p.lx.Next()
			key := p.strs.new()
			key.Value = p.lx.T.S
			key.SetLine(p.lx.T.Line)
			p.checkName()
			get := p.gets.new()
			get.Object, get.Key = e, key
			get.SetLine(e.Line())
			e, k = get, expAssignable
			p.index = append(p.index, p.lx.LastLine)
			p.indexNodes.add(get)
			p.lastIndex = len(p.index) - 1
			continue
		case '[':
			p.lx.Next()
			get := p.gets.new()
			get.Object = e
			get.SetLine(e.Line())
			get.Key = p.expr()
			p.checkNext(']')
			e, k = get, expAssignable
			p.index = append(p.index, p.lx.LastLine)
			p.indexNodes.add(get)
			p.lastIndex = len(p.index) - 1
			continue
		case ':':
			p.lx.Next()
			call := p.callx.new()
			call.Method, call.Receiver = p.checkName(), e
			call.SetLine(e.Line())
			call.Args = p.funcArgs(call)
			e, k = call, expCall
			p.lastIndex = -1
		case '(', luac51.TkString, '{':
			call := p.callx.new()
			call.Func = e
			call.SetLine(e.Line())
			call.Args = p.funcArgs(call)
			e, k = call, expCall
			p.lastIndex = -1
		default:
			return e, k
		}
	}
}

// funcArgs reads call's arguments.
func (p *parser51) funcArgs(call *ast.FuncCallExpr) []ast.Expr {
	line := p.lx.Line
	defer func() {
		if p.record {
			p.calls = append(p.calls, line)
		}
		p.sets.add(opSet{call, line})
	}()
	switch p.lx.T.Tok {
	case '(':
		if line != p.lx.LastLine {
			p.syntaxError("ambiguous syntax (function call x new statement)")
		}
		p.lx.Next()
		pending := -1
		args := []ast.Expr{}
		if p.lx.T.Tok != ')' {
			args = p.exprList()
			pending = p.lastIndex
		}
		p.checkMatch(')', '(', line)
		if pending >= 0 {
			// the last argument is discharged once the ')' is read
			p.index[pending] = p.lx.LastLine
		}
		return args
	case '{':
		return p.exprs.one(p.constructor())
	case luac51.TkString:
		s := p.stringExpr()
		p.lx.Next()
		return p.exprs.one(s)
	default:
		p.syntaxError("function arguments expected")
	}
	return nil
}

// stringExpr is the current token, a string, as an expression.
func (p *parser51) stringExpr() *ast.StringExpr {
	s := p.strs.new()
	s.Value = p.lx.T.S
	s.SetLine(p.lx.T.Line)
	return s
}

func (p *parser51) constructor() *ast.TableExpr {
	line := p.lx.Line
	t := &ast.TableExpr{Fields: []*ast.Field{}}
	t.SetLine(p.lx.T.Line)
	p.checkNext('{')
	// a field access as a list item is discharged once the separator
	// after it (closelistfield) or the '}' (lastlistfield) is read
	pending := -1
	for p.lx.T.Tok != '}' {
		switch p.lx.T.Tok {
		case luac51.TkName:
			if p.lx.Lookahead() != '=' {
				t.Fields = append(t.Fields, &ast.Field{Value: p.expr()})
				pending = p.lastIndex
			} else {
				key := &ast.StringExpr{Value: p.lx.T.S}
				key.SetLine(p.lx.T.Line)
				p.lx.Next()
				p.checkNext('=')
				t.Fields = append(t.Fields, &ast.Field{Key: key, Value: p.expr()})
			}
		case '[':
			p.lx.Next()
			f := &ast.Field{Key: p.expr()}
			p.checkNext(']')
			p.checkNext('=')
			f.Value = p.expr()
			t.Fields = append(t.Fields, f)
		default:
			t.Fields = append(t.Fields, &ast.Field{Value: p.expr()})
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
	return t
}

func (p *parser51) simpleExp() (ast.Expr, expKind) {
	var e ast.Expr
	switch p.lx.T.Tok {
	case luac51.TkNumber:
		n := p.numbers.new()
		n.Value = numeralText(p.lx.T.N)
		n.SetLine(p.lx.T.Line)
		e = n
		p.lx.Next()
	case luac51.TkString:
		e = p.stringExpr()
		p.lx.Next()
	case luac51.TkNil, luac51.TkTrue, luac51.TkFalse:
		switch p.lx.T.Tok {
		case luac51.TkNil:
			e = &ast.NilExpr{}
		case luac51.TkTrue:
			e = &ast.TrueExpr{}
		default:
			e = &ast.FalseExpr{}
		}
		e.SetLine(p.lx.T.Line)
		p.lx.Next()
	case luac51.TkDots:
		if !p.fs.vararg {
			p.syntaxError("cannot use '...' outside a vararg function")
		}
		e = &ast.Comma3Expr{}
		e.SetLine(p.lx.T.Line)
		p.lx.Next()
	case '{':
		e = p.constructor()
	case luac51.TkFunction:
		fline := p.lx.T.Line
		p.lx.Next()
		body := p.body(p.lx.Line)
		fn := &ast.FunctionExpr{ParList: body.ParList, Stmts: body.Stmts}
		fn.SetLine(fline)
		fn.SetLastLine(body.LastLine())
		e = fn
	default:
		return p.suffixedExp()
	}
	p.lastIndex = -1
	return e, expOther
}

// numeralText is a numeral's value v as gopher-lua's compiler reads it
// back exactly (its parseNumber: strconv.ParseInt with base 0, then
// ParseFloat): an integer in decimal, an infinity as "+Inf", any other
// value in Go's shortest form. Lua 5.1 reads the numeral (strtod, hex
// floats and all); gopher-lua's lexer would read "0123" as octal and a
// numeral past the largest double as a NaN.
func numeralText(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "+Inf"
	case v == math.Trunc(v) && math.Abs(v) < 1<<53:
		return strconv.FormatInt(int64(v), 10)
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
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

func (p *parser51) expr() ast.Expr {
	e, _ := p.subExpr(0)
	return e
}

// subExpr reads an expression whose binary operators bind tighter than
// limit; the kind is the simple expression's when no operator applies.
func (p *parser51) subExpr(limit int) (ast.Expr, expKind) {
	p.enterLevel()
	defer p.leaveLevel()
	var e ast.Expr
	k := expOther
	switch op := p.lx.T.Tok; op {
	case luac51.TkNot, '-', '#':
		p.lx.Next()
		operand, _ := p.subExpr(8)
		if p.record {
			p.ops = append(p.ops, opLine{op: op, unary: true, line: p.lx.LastLine})
		}
		p.lastIndex = -1
		e = unaryExpr(op, operand)
		if op != luac51.TkNot {
			p.sets.add(opSet{e, p.lx.LastLine})
		}
	default:
		e, k = p.simpleExp()
	}
	// a field access left of a binary operator is discharged once the
	// operator is read (luaK_infix)
	pending := p.lastIndex
	for {
		left, right, ok := binaryPriority(p.lx.T.Tok)
		if !ok || left <= limit {
			p.lastIndex = pending
			return e, k
		}
		op := p.lx.T.Tok
		p.lx.Next()
		if pending >= 0 {
			p.index[pending] = p.lx.LastLine
			pending = -1
		}
		rhs, _ := p.subExpr(right)
		if p.record {
			p.ops = append(p.ops, opLine{op: op, line: p.lx.LastLine})
		}
		p.lastIndex = -1
		e, k = p.binaryExpr(op, e, rhs), expOther
		if op != luac51.TkAnd && op != luac51.TkOr {
			p.sets.add(opSet{e, p.lx.LastLine})
		}
	}
}

// unaryExpr is gopher-lua's node for unary operator op, on its operand's
// line.
func unaryExpr(op int, x ast.Expr) ast.Expr {
	var e ast.Expr
	switch op {
	case luac51.TkNot:
		e = &ast.UnaryNotOpExpr{Expr: x}
	case '-':
		e = &ast.UnaryMinusOpExpr{Expr: x}
	default:
		e = &ast.UnaryLenOpExpr{Expr: x}
	}
	e.SetLine(x.Line())
	return e
}

// binaryExpr is gopher-lua's node for binary operator op, on its left
// operand's line.
func (p *parser51) binaryExpr(op int, l, r ast.Expr) ast.Expr {
	var e ast.Expr
	switch op {
	case luac51.TkOr:
		e = &ast.LogicalOpExpr{Lhs: l, Operator: "or", Rhs: r}
	case luac51.TkAnd:
		e = &ast.LogicalOpExpr{Lhs: l, Operator: "and", Rhs: r}
	case luac51.TkConcat:
		e = &ast.StringConcatOpExpr{Lhs: l, Rhs: r}
	case '+', '-', '*', '/', '%', '^':
		a := p.arith.new()
		a.Lhs, a.Operator, a.Rhs = l, arithOp(op), r
		e = a
	default:
		e = &ast.RelationalOpExpr{Lhs: l, Operator: relOp(op), Rhs: r}
	}
	e.SetLine(l.Line())
	return e
}

// arithOp is arithmetic op's operator as gopher-lua's tree spells it.
func arithOp(op int) string {
	switch op {
	case '+':
		return "+"
	case '-':
		return "-"
	case '*':
		return "*"
	case '/':
		return "/"
	case '%':
		return "%"
	}
	return "^"
}

// relOp is comparison op's operator as gopher-lua's tree spells it.
func relOp(op int) string {
	switch op {
	case luac51.TkEq:
		return "=="
	case luac51.TkNe:
		return "~="
	case luac51.TkLe:
		return "<="
	case luac51.TkGe:
		return ">="
	}
	return string(rune(op))
}
