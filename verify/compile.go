package verify

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/ast"
	"github.com/yuin/gopher-lua/parse"

	"github.com/scriptctl/scriptctl/verify/luac51"
	"github.com/scriptctl/scriptctl/verify/lualib"
)

// catName is the hidden global that holds the concatenation helper. It
// contains a NUL byte, so no script can name it.
const catName = "\x00cat"

// catChainName is the hidden global of the helper of a long .. chain
// (rewriter.longConcat).
const catChainName = "\x00catn"

// longConcat is the number of operands from which a chain of .. is
// compiled as one call of the chain helper: a chain of nested helper calls
// holds two registers a level, and gopher-lua has 200 where Lua 5.1 has
// 250, so chains of 100 to 199 operands, which the servers compile, would
// overflow them. A shorter chain is one call too where the function's
// locals leave too few registers for the nested calls.
const longConcat = 48

// arithName is the hidden global of the % and ^ helper: gopher-lua computes
// % with Go's math.Mod (5 % 0 and x % inf differ from Lua 5.1's
// a - floor(a/b)*b) and ^ with a NaN of the wrong sign.
const arithName = "\x00arith"

// forName is the hidden global of the numeric for helper: gopher-lua's VM
// accepts only numbers as a for's initial value, limit and step, checks the
// step before the limit and words its errors its own way. Lua 5.1 converts
// strings ('1') and checks initial value, limit, step in that order once all
// three are evaluated.
const forName = "\x00for"

// compileSites turns Lua source into a function prototype the way Redis's Lua 5.1
// would accept it. source is the chunk name Lua 5.1 gives the chunk
// ("@user_script", or a loadstring chunk's text); the prototype is named by
// its short form (luaO_chunkid), which is what error positions print.
//
// What differs from a plain gopher-lua compile:
//   - a Lua 5.1 syntax checker runs first (syntax51.go), so compile errors
//     are Lua 5.1's, goto and labels included;
//   - operators, calls and field accesses get the lines Lua 5.1's code
//     generator gives their instructions (oplines.go);
//   - every a .. b becomes a call of a hidden helper that formats numbers
//     with %.14g (gopher-lua's VM would use Go's formatting) and names the
//     operand in its error like Lua 5.1 ("local 'x'");
//   - % and ^ become calls of a helper computing them like Lua 5.1;
//   - a multiple assignment evaluates every value before assigning (gopher-
//     lua 1.1.2 miscompiles a, b = b, a);
//   - a numeric for's header goes through a helper that converts and checks
//     its values like Lua 5.1 (strings accepted, Lua 5.1's errors);
//   - the helpers are globals whose names hold a NUL byte, so no script can
//     name them; next and pairs skip them.
//
// The error is the message Lua would put after "Error compiling script":
// "user_script:1: ...".
func compileSites(src []byte, source string) (*lua.FunctionProto, error) {
	chunk, err := rewriteChunk(src, source)
	if err != nil {
		return nil, err
	}
	proto, err := lua.Compile(chunk, chunkID(source))
	if err != nil {
		return nil, fmt.Errorf("%s", strings.TrimSpace(err.Error()))
	}
	trimProto(proto)
	return proto, nil
}

// rewriteChunk checks, parses and rewrites src (see compileSites).
func rewriteChunk(src []byte, source string) ([]ast.Stmt, error) {
	name := chunkID(source)
	info, err := checkSyntax51(src, name)
	if err != nil {
		return nil, err
	}
	if len(info.ws) > 0 || len(info.dots) > 0 {
		// gopher-lua's lexer rejects \f and \v, which Lua 5.1 skips as
		// white space: blank them (outside strings only).
		src = append([]byte(nil), src...)
		for _, i := range info.ws {
			src[i] = ' '
		}
		for _, i := range info.dots {
			src[i] = '.'
		}
	}
	var gotoName string
	if len(info.gotos) > 0 {
		src, gotoName = renameGoto(src, info.gotos)
	}
	chunk, err := parse.Parse(bytes.NewReader(src), name)
	if err != nil {
		text := parseErrorText(err, name, src)
		if gotoName != "" {
			text = strings.ReplaceAll(text, gotoName, "goto")
		}
		return nil, errors.New(text)
	}
	if gotoName != "" {
		renameStrings(reflect.ValueOf(chunk), gotoName, "goto")
	}
	setOpLines(chunk, info.ops, info.calls, info.index)
	rw := &rewriter{forDo: info.forDo, forSeen: map[int]int{}}
	rw.block(chunk)
	return chunk, nil
}

// trimProto gives every slice of a compiled prototype its exact length:
// gopher-lua allocates each function's code and line table with room for
// 1024 instructions, about 16 KB a function that a cached script would
// otherwise hold for good.
func trimProto(p *lua.FunctionProto) {
	p.Code = slices.Clone(p.Code)
	p.Constants = slices.Clone(p.Constants)
	p.FunctionPrototypes = slices.Clone(p.FunctionPrototypes)
	p.DbgSourcePositions = slices.Clone(p.DbgSourcePositions)
	p.DbgLocals = slices.Clone(p.DbgLocals)
	p.DbgCalls = slices.Clone(p.DbgCalls)
	p.DbgUpvalues = slices.Clone(p.DbgUpvalues)
	for _, c := range p.FunctionPrototypes {
		trimProto(c)
	}
}

// compiled is one chunk compiled once per process and shared by every
// engine and run that loads the same source under the same chunk name: the
// prototype (never changed once compiled, so runs may share it), or the
// compile error.
type compiled struct {
	proto *lua.FunctionProto
	err   error
	src   []byte        // the source as compiled, kept to rebuild the locals' ranges
	name  string        // the chunk name it was compiled as
	ready chan struct{} // closed when proto and err are set

	dump luacChunk // Lua 5.1's compile, for string.dump (dump51.go)

	scopesOnce sync.Once
	scopes     scopeChunk
}

// localScopes returns the locals' ranges of every function of the chunk
// (operands.go), built on the first runtime error that needs them.
func (c *compiled) localScopes() scopeChunk {
	c.scopesOnce.Do(func() { c.scopes = localScopes(c) })
	return c.scopes
}

// Bounds of the process-wide compile cache: when either is passed the cache
// starts over (entries in use stay valid for the runs holding them).
const (
	maxCachedScripts     = 1000
	maxCachedSourceBytes = 64 << 20
)

// bigSource is the size from which chunks compile one at a time.
const bigSource = 256 << 10

var bigCompile sync.Mutex

// compileCache holds every chunk compiled in the process, by chunk name
// and SHA1 of the source, so that runs, engines and scenario runs compile a
// script once.
var compileCache struct {
	sync.Mutex
	m     map[string]*compiled
	bytes int
}

// compileCached returns the cached compile of src as source, compiling it
// on first use. Engines that ask for the same chunk while it compiles (the
// pre-flight's one engine per target) wait for that compile instead of
// repeating it.
func compileCached(src []byte, source string) *compiled {
	sum := scriptSums(src).sum
	key := source + "\x00" + string(sum[:])
	compileCache.Lock()
	if c, ok := compileCache.m[key]; ok {
		compileCache.Unlock()
		<-c.ready
		return c
	}
	if compileCache.m == nil || len(compileCache.m) >= maxCachedScripts || compileCache.bytes+len(src) > maxCachedSourceBytes {
		compileCache.m, compileCache.bytes = map[string]*compiled{}, 0
	}
	c := &compiled{src: append([]byte(nil), src...), name: source, ready: make(chan struct{})}
	compileCache.m[key] = c
	compileCache.bytes += len(src)
	compileCache.Unlock()
	defer close(c.ready)
	if len(src) >= bigSource {
		// While it compiles, gopher-lua gives every function of a chunk
		// about 16 KB (trimProto frees it after): two large chunks at once
		// (a scenario's EVAL and FCALL runs) would double the peak.
		bigCompile.Lock()
		defer bigCompile.Unlock()
	}
	compiles.Add(1)
	c.proto, c.err = compileSites(c.src, source)
	dropChunkArg(c.proto)
	return c
}

// compiles counts the chunks compileCached compiled (for its tests).
var compiles atomic.Int64

// chunkID is Lua 5.1's luaO_chunkid (luac51.ChunkID): how an error names
// the chunk.
func chunkID(source string) string { return luac51.ChunkID(source) }

// parseErrorText renders a gopher-lua parse error in Lua 5.1's shape,
// "name:line: message near 'token'". gopher-lua's parser only says "syntax
// error", so the message is Lua 5.1's most common one, "unexpected symbol"
// (a known divergence: Lua may say "'=' expected" or "'end' expected").
func parseErrorText(err error, name string, src []byte) string {
	var pe *parse.Error
	if !errors.As(err, &pe) {
		return name + ": " + strings.TrimSpace(err.Error())
	}
	line := pe.Pos.Line
	tok := pe.Token
	if line == parse.EOF || line <= 0 {
		// At the end of the chunk Lua reports the last line.
		line = 1 + bytes.Count(src, []byte("\n"))
		tok = "<eof>"
	}
	msg := pe.Message
	switch {
	case strings.Contains(msg, "syntax error"):
		msg = "unexpected symbol"
	case strings.HasPrefix(msg, "unterminated string"):
		// Lua reports a string broken by a newline on its own line, the
		// token being the text read so far with its opening quote; at the
		// end of the chunk, near '<eof>'.
		msg, tok, line = "unfinished string", "<eof>", 1+bytes.Count(src, []byte("\n"))
		for _, q := range []string{"'", "\""} {
			if i := bytes.Index(src, []byte(q+pe.Token+"\n")); i >= 0 {
				tok, line = q+pe.Token, 1+bytes.Count(src[:i], []byte("\n"))
				break
			}
		}
	case strings.HasPrefix(msg, "unterminated multiline string"):
		msg, tok, line = "unfinished long string", "<eof>", 1+bytes.Count(src, []byte("\n"))
	case strings.HasPrefix(msg, "invalid multiline comment"):
		msg, tok, line = "unfinished long comment", "<eof>", 1+bytes.Count(src, []byte("\n"))
	}
	if tok == "" {
		tok = "<eof>"
	}
	return fmt.Sprintf("%s:%d: %s near '%s'", name, line, msg, tok)
}

// rewriter replaces every concatenation with a call of the helper, tracking
// scopes so an operand can be named the way Lua 5.1 names it in errors.
type rewriter struct {
	funcs   []*funcScope
	forDo   map[int][]int // syntaxInfo.forDo
	forSeen map[int]int   // numeric fors rewritten so far, by 'for' line
	folds   map[*ast.ArithmeticOpExpr]foldResult
}

type funcScope struct {
	blocks [][]string
	line   int // the line the function is defined on (0: the chunk)
}

func (rw *rewriter) enterFunc(params []string, line int) {
	rw.funcs = append(rw.funcs, &funcScope{blocks: [][]string{append([]string(nil), params...)}, line: line})
}

func (rw *rewriter) leaveFunc() { rw.funcs = rw.funcs[:len(rw.funcs)-1] }

func (rw *rewriter) enterBlock(names ...string) {
	f := rw.funcs[len(rw.funcs)-1]
	f.blocks = append(f.blocks, append([]string(nil), names...))
}

func (rw *rewriter) leaveBlock() {
	f := rw.funcs[len(rw.funcs)-1]
	f.blocks = f.blocks[:len(f.blocks)-1]
}

func (rw *rewriter) declare(names ...string) {
	f := rw.funcs[len(rw.funcs)-1]
	f.blocks[len(f.blocks)-1] = append(f.blocks[len(f.blocks)-1], names...)
}

// kind reports how Lua 5.1 would name identifier n: local, upvalue or global.
func (rw *rewriter) kind(n string) string {
	for i := len(rw.funcs) - 1; i >= 0; i-- {
		f := rw.funcs[i]
		for b := len(f.blocks) - 1; b >= 0; b-- {
			for _, x := range f.blocks[b] {
				if x == n {
					if i == len(rw.funcs)-1 {
						return "local"
					}
					return "upvalue"
				}
			}
		}
	}
	return "global"
}

// block rewrites the top-level chunk.
func (rw *rewriter) block(chunk []ast.Stmt) {
	rw.enterFunc(nil, 0)
	rw.stmts(chunk)
	rw.leaveFunc()
}

func (rw *rewriter) stmts(list []ast.Stmt) {
	for i, s := range list {
		list[i] = rw.stmt(s)
	}
}

// tmpName names the i-th temporary of a multiple assignment; the NUL byte
// keeps it out of any script's reach.
func tmpName(i int) string { return fmt.Sprintf("\x00t%d", i) }

// stmt rewrites s and returns the statement to compile in its place.
func (rw *rewriter) stmt(s ast.Stmt) ast.Stmt {
	switch s := s.(type) {
	case *ast.AssignStmt:
		nilable := len(s.Rhs) == 1 && mayBeNil(s.Rhs[0])
		split := len(s.Lhs) > 1 && rw.splittable(s.Lhs)
		rw.exprs(s.Lhs)
		rw.exprs(s.Rhs)
		if call := rw.removal(s, nilable, nil); call != nil {
			return call
		}
		if len(s.Lhs) > 1 {
			// gopher-lua miscompiles a multiple assignment that reads a
			// target (a, b = b, a gives 2, 2). Lua evaluates every value
			// before assigning: do local t1, t2 = b, a; a, b = t1, t2 end.
			names := make([]string, len(s.Lhs))
			vals := make([]ast.Expr, len(s.Lhs))
			for i := range s.Lhs {
				names[i] = tmpName(i)
				id := &ast.IdentExpr{Value: names[i]}
				id.SetLine(s.Line())
				id.SetLastLine(s.LastLine())
				vals[i] = id
			}
			tmp := &ast.LocalAssignStmt{Names: names, Exprs: s.Rhs}
			tmp.SetLine(s.Line())
			tmp.SetLastLine(s.LastLine())
			assign := &ast.AssignStmt{Lhs: s.Lhs, Rhs: vals}
			assign.SetLine(s.Line())
			assign.SetLastLine(s.LastLine())
			stmts := []ast.Stmt{tmp, assign}
			descs := make([]ast.Expr, len(s.Lhs))
			if split {
				for i, e := range s.Lhs {
					if x, ok := e.(*ast.AttrGetExpr); ok {
						descs[i] = rw.describe(x.Object)
					}
				}
			} else if pre := rw.targetTemps(s, descs); pre != nil {
				// the fields' tables and keys, evaluated first as Lua
				// 5.1 evaluates them, make the stores splittable
				stmts = []ast.Stmt{pre, tmp, assign}
				split = true
			}
			if split {
				// one store at a time, right to left as Lua 5.1 stores,
				// so that each is recorded as a single assignment is
				stmts = stmts[:len(stmts)-1]
				for i := len(s.Lhs) - 1; i >= 0; i-- {
					one := &ast.AssignStmt{Lhs: []ast.Expr{s.Lhs[i]}, Rhs: []ast.Expr{vals[i]}}
					one.SetLine(s.Line())
					one.SetLastLine(s.LastLine())
					if st := rw.removal(one, true, descs[i]); st != nil {
						stmts = append(stmts, st)
					} else {
						stmts = append(stmts, one)
					}
				}
			}
			block := &ast.DoBlockStmt{Stmts: stmts}
			block.SetLine(s.Line())
			block.SetLastLine(s.LastLine())
			return block
		}
	case *ast.LocalAssignStmt:
		// "local function f" is parsed as a local assignment of a function
		// expression; f is visible inside its own body.
		if len(s.Names) == 1 && len(s.Exprs) == 1 {
			if _, ok := s.Exprs[0].(*ast.FunctionExpr); ok {
				rw.declare(s.Names...)
				rw.exprs(s.Exprs)
				return s
			}
		}
		rw.exprs(s.Exprs)
		rw.declare(s.Names...)
	case *ast.FuncCallStmt:
		s.Expr = rw.expr(s.Expr)
	case *ast.DoBlockStmt:
		rw.enterBlock()
		rw.stmts(s.Stmts)
		rw.leaveBlock()
	case *ast.WhileStmt:
		s.Condition = rw.expr(s.Condition)
		rw.enterBlock()
		rw.stmts(s.Stmts)
		rw.leaveBlock()
	case *ast.RepeatStmt:
		rw.enterBlock()
		rw.stmts(s.Stmts)
		s.Condition = rw.expr(s.Condition)
		rw.leaveBlock()
	case *ast.IfStmt:
		s.Condition = rw.expr(s.Condition)
		rw.enterBlock()
		rw.stmts(s.Then)
		rw.leaveBlock()
		rw.enterBlock()
		rw.stmts(s.Else)
		rw.leaveBlock()
	case *ast.NumberForStmt:
		doLine := rw.forDoLine(s.Line())
		s.Init = rw.expr(s.Init)
		s.Limit = rw.expr(s.Limit)
		if s.Step != nil {
			s.Step = rw.expr(s.Step)
		}
		rw.numericFor(s, doLine)
		rw.enterBlock(s.Name)
		rw.stmts(s.Stmts)
		rw.leaveBlock()
	case *ast.GenericForStmt:
		rw.exprs(s.Exprs)
		rw.enterBlock(s.Names...)
		rw.stmts(s.Stmts)
		rw.leaveBlock()
	case *ast.FuncDefStmt:
		if s.Name != nil {
			s.Name.Func = rw.exprOrNil(s.Name.Func)
			s.Name.Receiver = rw.exprOrNil(s.Name.Receiver)
		}
		params := s.Func.ParList.Names
		if s.Name != nil && s.Name.Method != "" {
			params = append([]string{"self"}, params...)
		}
		rw.function(s.Func, params)
	case *ast.ReturnStmt:
		rw.exprs(s.Exprs)
	}
	return s
}

// removal compiles the stores the table order needs to see into calls of
// the helpers that record them (tableorder.go): t.k = nil, any t[expr] = v
// (removals, and integer keys added, whose history gopher-lua's array part
// does not keep), and t.k = v with a value that may be nil at run time (a
// variable, a call, a field: a removal, or a key Lua 5.1 creates with no
// value). A t.k = v whose table and value are locals (or upvalues) stays a
// plain store behind a test, the cheap path: if v == nil then
// del(t, "k") else t.k = v end; another value is first held in a local.
// nil for the other assignments (t.k = v with a constant, a table, a
// function or a comparison stays a plain store: its key is a string, whose
// first set gopher-lua records). nilable tells whether the value may be
// nil (mayBeNil, judged before the rewriting).
//
// desc, when not nil, is how Lua names the table in an error (a target
// whose table a temporary holds: targetTemps).
func (rw *rewriter) removal(s *ast.AssignStmt, nilable bool, desc ast.Expr) ast.Stmt {
	if len(s.Lhs) != 1 || len(s.Rhs) != 1 {
		return nil
	}
	target, ok := s.Lhs[0].(*ast.AttrGetExpr)
	if !ok {
		return nil
	}
	if desc == nil {
		desc = rw.describe(target.Object)
	}
	var expr ast.Expr
	_, constKey := target.Key.(*ast.StringExpr)
	switch _, isNil := s.Rhs[0].(*ast.NilExpr); {
	case isNil:
		expr = helperCall(target, delName, target.Object, target.Key, desc)
	case !constKey:
		// t[expr] = v: the key may be an integer, whose history gopher-
		// lua's array part does not keep
		expr = helperCall(target, setName, target.Object, target.Key, s.Rhs[0], desc)
	case !nilable:
		return nil
	case rw.plainName(target.Object):
		return rw.guardedStore(s, target, desc)
	default:
		expr = helperCall(target, setName, target.Object, target.Key, s.Rhs[0], desc)
	}
	call := &ast.FuncCallStmt{Expr: expr}
	call.SetLine(s.Line())
	call.SetLastLine(s.LastLine())
	return call
}

// valName is the local a guarded store holds its value in.
const valName = "\x00v"

// guardedStore compiles t.k = v (t a local or an upvalue) into
// if v == nil then del(t, "k") else t.k = v end, with v first held in a
// local unless it is one.
func (rw *rewriter) guardedStore(s *ast.AssignStmt, target *ast.AttrGetExpr, desc ast.Expr) ast.Stmt {
	at := func(n interface {
		SetLine(int)
		SetLastLine(int)
	}) {
		n.SetLine(s.Line())
		n.SetLastLine(s.LastLine())
	}
	val := s.Rhs[0]
	var hold ast.Stmt
	if !rw.plainName(val) {
		local := &ast.LocalAssignStmt{Names: []string{valName}, Exprs: []ast.Expr{val}}
		at(local)
		hold = local
		id := &ast.IdentExpr{Value: valName}
		at(id)
		val = id
	}
	obj := &ast.IdentExpr{Value: target.Object.(*ast.IdentExpr).Value}
	at(obj)
	nilx := &ast.NilExpr{}
	at(nilx)
	cond := &ast.RelationalOpExpr{Operator: "==", Lhs: val, Rhs: nilx}
	at(cond)
	del := &ast.FuncCallStmt{Expr: helperCall(target, delName, obj, target.Key, desc)}
	at(del)
	store := &ast.AssignStmt{Lhs: s.Lhs, Rhs: []ast.Expr{val}}
	at(store)
	ifs := &ast.IfStmt{Condition: cond, Then: []ast.Stmt{del}, Else: []ast.Stmt{store}}
	at(ifs)
	if hold == nil {
		return ifs
	}
	block := &ast.DoBlockStmt{Stmts: []ast.Stmt{hold, ifs}}
	at(block)
	return block
}

// plainName reports whether e is a local or an upvalue (a temporary of the
// rewriting included): reading it twice has no effect.
func (rw *rewriter) plainName(e ast.Expr) bool {
	id, ok := e.(*ast.IdentExpr)
	if !ok {
		return false
	}
	if id.Value == valName || isTmpName(id.Value) {
		return true
	}
	if id.Value == "" || id.Value[0] == 0 {
		return false
	}
	return rw.kind(id.Value) != "global"
}

// isTmpName reports a name tmpName or targetTemps gives.
func isTmpName(n string) bool {
	if len(n) < 3 || n[0] != 0 || (n[1] != 't' && n[1] != 'o' && n[1] != 'k') {
		return false
	}
	for _, c := range n[2:] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// mayBeNil reports whether expression e (not yet rewritten) may give nil
// at run time: a variable, a field, a call, ..., and/or, and the
// operators whose metamethods may return nil; not a constant, a table,
// a function, a comparison or a not.
func mayBeNil(e ast.Expr) bool {
	switch e.(type) {
	case *ast.NumberExpr, *ast.StringExpr, *ast.TrueExpr, *ast.FalseExpr,
		*ast.TableExpr, *ast.FunctionExpr, *ast.RelationalOpExpr, *ast.UnaryNotOpExpr:
		return false
	}
	return true
}

// targetTemps holds the tables and computed keys of a multiple
// assignment's field targets in temporaries, evaluated left to right
// before the values as Lua 5.1 does (local o1, k1 = a.b, f()), and points
// the targets at them; descs gets how Lua names each target's table. nil
// when no target is a field.
func (rw *rewriter) targetTemps(s *ast.AssignStmt, descs []ast.Expr) ast.Stmt {
	var names []string
	var exprs []ast.Expr
	ident := func(n string) *ast.IdentExpr {
		id := &ast.IdentExpr{Value: n}
		id.SetLine(s.Line())
		id.SetLastLine(s.LastLine())
		return id
	}
	for i, e := range s.Lhs {
		x, ok := e.(*ast.AttrGetExpr)
		if !ok {
			continue
		}
		descs[i] = rw.describe(x.Object)
		on := fmt.Sprintf("\x00o%d", i)
		names, exprs = append(names, on), append(exprs, x.Object)
		key := x.Key
		switch key.(type) {
		case *ast.StringExpr, *ast.NumberExpr, *ast.TrueExpr, *ast.FalseExpr:
		default:
			kn := fmt.Sprintf("\x00k%d", i)
			names, exprs = append(names, kn), append(exprs, key)
			key = ident(kn)
		}
		t := &ast.AttrGetExpr{Object: ident(on), Key: key}
		t.SetLine(x.Line())
		t.SetLastLine(x.LastLine())
		s.Lhs[i] = t
	}
	if names == nil {
		return nil
	}
	pre := &ast.LocalAssignStmt{Names: names, Exprs: exprs}
	pre.SetLine(s.Line())
	pre.SetLastLine(s.LastLine())
	return pre
}

// splittable reports whether the targets of a multiple assignment can be
// stored one at a time, right to left, with the same effect: each is a
// field of a local (or upvalue) with a constant or local key, or a
// variable no field target reads (a, t.k = ... but not t, t.k = ...).
func (rw *rewriter) splittable(lhs []ast.Expr) bool {
	assigned := map[string]bool{}
	for _, e := range lhs {
		if id, ok := e.(*ast.IdentExpr); ok {
			assigned[id.Value] = true
		}
	}
	fields := false
	for _, e := range lhs {
		x, ok := e.(*ast.AttrGetExpr)
		if !ok {
			continue
		}
		fields = true
		if !rw.plainName(x.Object) || assigned[x.Object.(*ast.IdentExpr).Value] {
			return false
		}
		switch k := x.Key.(type) {
		case *ast.StringExpr, *ast.NumberExpr, *ast.TrueExpr, *ast.FalseExpr:
		case *ast.IdentExpr:
			if !rw.plainName(k) || assigned[k.Value] {
				return false
			}
		default:
			return false
		}
	}
	return fields
}

// forDoLine returns the line of the 'do' of the next numeric for starting
// on line, in source order.
func (rw *rewriter) forDoLine(line int) int {
	n := rw.forSeen[line]
	rw.forSeen[line] = n + 1
	if lines := rw.forDo[line]; n < len(lines) {
		return lines[n]
	}
	return line
}

// numericFor makes s's header Lua 5.1's: for i = a, b, c becomes
// for i = F(a, b, c), F(), F(), where the hidden helper F evaluates nothing
// itself: its first call gets the three values, converts them to numbers
// or raises Lua 5.1's error (on the 'do' line, as Lua 5.1 does), and returns
// the initial value; the next two return the limit and the step. A header
// of number literals needs no helper.
func (rw *rewriter) numericFor(s *ast.NumberForStmt, doLine int) {
	if isNumberLiteral(s.Init) && isNumberLiteral(s.Limit) && (s.Step == nil || isNumberLiteral(s.Step)) {
		return
	}
	step := s.Step
	if step == nil {
		one := &ast.NumberExpr{Value: "1"}
		one.SetLine(doLine)
		one.SetLastLine(doLine)
		step = one
	}
	call := func(args ...ast.Expr) ast.Expr {
		c := &ast.FuncCallExpr{Func: &ast.IdentExpr{Value: forName}, Args: args, AdjustRet: true}
		c.Func.SetLine(doLine)
		c.Func.SetLastLine(doLine)
		c.SetLine(doLine)
		c.SetLastLine(doLine)
		return c
	}
	s.Init = call(s.Init, s.Limit, step)
	s.Limit = call()
	s.Step = call()
}

// isNumberLiteral reports whether e is a number constant, negated or not.
// numeral is the value of e when Lua 5.1's compiler folds it to a number
// constant (lcode.c's constfolding): a numeral, its negation, and + - * /
// of two such, except a division by zero or a NaN result. Results are
// memoised per node, so that a long chain costs linear time.
func (rw *rewriter) numeral(e ast.Expr) (float64, bool) {
	switch x := e.(type) {
	case *ast.NumberExpr:
		return lualib.ToNumber(lua.LString(x.Value))
	case *ast.UnaryMinusOpExpr:
		v, ok := rw.numeral(x.Expr)
		return -v, ok
	case *ast.ArithmeticOpExpr:
		if r, ok := rw.folds[x]; ok {
			return r.v, r.ok
		}
		v, ok, _ := rw.fold(x)
		if rw.folds == nil {
			rw.folds = map[*ast.ArithmeticOpExpr]foldResult{}
		}
		rw.folds[x] = foldResult{v, ok}
		return v, ok
	}
	return 0, false
}

type foldResult struct {
	v  float64
	ok bool
}

// fold is x's value when Lua 5.1 folds it, and runtime: x is + - * or / of
// two numerals that Lua 5.1 computes at run time (no division by 0, no
// NaN) while gopher-lua would fold it.
func (rw *rewriter) fold(x *ast.ArithmeticOpExpr) (v float64, ok, runtime bool) {
	if x.Operator == "%" || x.Operator == "^" {
		return 0, false, false
	}
	a, aok := rw.numeral(x.Lhs)
	b, bok := rw.numeral(x.Rhs)
	if !aok || !bok {
		return 0, false, false
	}
	switch x.Operator {
	case "+":
		v = a + b
	case "-":
		v = a - b
	case "*":
		v = a * b
	case "/":
		if b == 0 {
			return 0, false, true
		}
		v = a / b
	}
	if math.IsNaN(v) {
		return 0, false, true
	}
	return v, true, false
}

func isNumberLiteral(e ast.Expr) bool {
	if u, ok := e.(*ast.UnaryMinusOpExpr); ok {
		e = u.Expr
	}
	_, ok := e.(*ast.NumberExpr)
	return ok
}

func (rw *rewriter) function(f *ast.FunctionExpr, params []string) {
	rw.enterFunc(params, f.Line())
	rw.stmts(f.Stmts)
	rw.leaveFunc()
}

func (rw *rewriter) exprs(list []ast.Expr) {
	for i, e := range list {
		list[i] = rw.expr(e)
	}
}

func (rw *rewriter) exprOrNil(e ast.Expr) ast.Expr {
	if e == nil {
		return nil
	}
	return rw.expr(e)
}

func (rw *rewriter) expr(e ast.Expr) ast.Expr {
	switch x := e.(type) {
	case *ast.StringConcatOpExpr:
		if ops := concatOperands(x); len(ops) >= longConcat || rw.activeLocals()+2*len(ops) > 160 {
			return rw.longConcatCall(x, ops)
		}
		lhs, rhs := rw.expr(x.Lhs), rw.expr(x.Rhs)
		return helperCall(x, catName, lhs, rhs, rw.describe(x.Lhs), rw.describe(x.Rhs))
	case *ast.AttrGetExpr:
		x.Object = rw.expr(x.Object)
		x.Key = rw.expr(x.Key)
	case *ast.TableExpr:
		for _, f := range x.Fields {
			f.Key = rw.exprOrNil(f.Key)
			f.Value = rw.expr(f.Value)
		}
		if len(x.Fields) > 0 {
			// the helper records the shape, which presizes the table
			// and so fixes its Lua 5.1 key order (tableorder.go)
			shape := &ast.StringExpr{Value: ctorShape(x)}
			shape.SetLine(x.Line())
			shape.SetLastLine(x.LastLine())
			return helperCall(x, tnewName, x, shape)
		}
	case *ast.FuncCallExpr:
		x.Func = rw.exprOrNil(x.Func)
		x.Receiver = rw.exprOrNil(x.Receiver)
		rw.exprs(x.Args)
	case *ast.LogicalOpExpr:
		x.Lhs, x.Rhs = rw.expr(x.Lhs), rw.expr(x.Rhs)
	case *ast.RelationalOpExpr:
		x.Lhs, x.Rhs = rw.expr(x.Lhs), rw.expr(x.Rhs)
	case *ast.ArithmeticOpExpr:
		if x.Operator == "%" || x.Operator == "^" {
			op := &ast.StringExpr{Value: x.Operator}
			op.SetLine(x.Line())
			op.SetLastLine(x.LastLine())
			lhs, rhs := rw.expr(x.Lhs), rw.expr(x.Rhs)
			return helperCall(x, arithName, op, lhs, rhs, rw.describe(x.Lhs), rw.describe(x.Rhs))
		}
		if _, _, runtime := rw.fold(x); runtime {
			// Lua 5.1 leaves 1/0 and a NaN to run time, where its 0
			// may be a -0 sharing the constant: gopher-lua would fold.
			op := &ast.StringExpr{Value: x.Operator}
			op.SetLine(x.Line())
			op.SetLastLine(x.LastLine())
			return helperCall(x, arithName, op, x.Lhs, x.Rhs, rw.describe(x.Lhs), rw.describe(x.Rhs))
		}
		x.Lhs, x.Rhs = rw.expr(x.Lhs), rw.expr(x.Rhs)
	case *ast.UnaryMinusOpExpr:
		x.Expr = rw.expr(x.Expr)
	case *ast.UnaryNotOpExpr:
		x.Expr = rw.expr(x.Expr)
	case *ast.UnaryLenOpExpr:
		// Lua 5.1's border and its indifference to __len on tables
		// (tableorder.go)
		inner := rw.expr(x.Expr)
		return helperCall(x, lenName, inner, rw.describe(x.Expr))
	case *ast.FunctionExpr:
		rw.function(x, x.ParList.Names)
	}
	return e
}

// describe returns, as a string constant, how Lua 5.1 names operand e in a
// type error ("local 'x'", "upvalue 'x'", "global 'x'", "field 'x'"), or "".
func (rw *rewriter) describe(e ast.Expr) ast.Expr {
	var s string
	switch x := e.(type) {
	case *ast.IdentExpr:
		s = fmt.Sprintf("%s '%s'", rw.kind(x.Value), x.Value)
	case *ast.AttrGetExpr:
		// kname: a key that is not a string constant is '?'
		s = "field '?'"
		if k, ok := x.Key.(*ast.StringExpr); ok {
			s = fmt.Sprintf("field '%s'", k.Value)
		}
	}
	out := &ast.StringExpr{Value: s}
	out.SetLine(e.Line())
	out.SetLastLine(e.LastLine())
	return out
}

// helperCall is a call of the engine's helper name with args, standing where
// at stood (same lines, one result), so errors keep the source line.
func helperCall(at ast.Expr, name string, args ...ast.Expr) *ast.FuncCallExpr {
	call := &ast.FuncCallExpr{Func: &ast.IdentExpr{Value: name}, Args: args, AdjustRet: true}
	call.Func.SetLine(at.Line())
	call.Func.SetLastLine(at.LastLine())
	call.SetLine(at.Line())
	call.SetLastLine(at.LastLine())
	return call
}

// activeLocals counts the locals of the function being rewritten that are
// in scope, each holding a register.
func (rw *rewriter) activeLocals() int {
	n := 0
	for _, b := range rw.funcs[len(rw.funcs)-1].blocks {
		n += len(b)
	}
	return n
}

// concatOperands returns the operands of the chain x1 .. x2 .. ... .. xn
// that x heads (the parser nests it to the right: x1 .. (x2 .. ...)).
func concatOperands(x *ast.StringConcatOpExpr) []ast.Expr {
	var ops []ast.Expr
	for {
		ops = append(ops, x.Lhs)
		next, ok := x.Rhs.(*ast.StringConcatOpExpr)
		if !ok {
			return append(ops, x.Rhs)
		}
		x = next
	}
}

// longConcatCall compiles a long chain (longConcat operands or more) as
// one call of the chain helper, catn({x1, ..., xn, 0}, names): a table
// constructor stores its positions 50 at a time, so the operands, still
// evaluated left to right, no longer hold a register each. The helper
// concatenates them right to left with the short chain's operand names
// (scriptRun.concatChain), each name ended by a NUL byte. The trailing 0
// keeps the last operand out of the constructor's last position, where a
// call would give all its values. The call stands on the line of the
// chain's last operand, where Lua 5.1 puts the chain's one OP_CONCAT.
func (rw *rewriter) longConcatCall(x *ast.StringConcatOpExpr, ops []ast.Expr) ast.Expr {
	var names strings.Builder
	fields := make([]*ast.Field, 0, len(ops)+1)
	line := x.Line()
	for _, op := range ops {
		d := rw.describe(op).(*ast.StringExpr)
		names.WriteString(d.Value)
		names.WriteByte(0)
		fields = append(fields, &ast.Field{Value: rw.expr(op)})
		line = max(line, op.Line(), op.LastLine())
	}
	zero := &ast.NumberExpr{Value: "0"}
	zero.SetLine(line)
	zero.SetLastLine(line)
	fields = append(fields, &ast.Field{Value: zero})
	tbl := &ast.TableExpr{Fields: fields}
	tbl.SetLine(line)
	tbl.SetLastLine(line)
	str := &ast.StringExpr{Value: names.String()}
	str.SetLine(line)
	str.SetLastLine(line)
	at := &ast.NilExpr{}
	at.SetLine(line)
	at.SetLastLine(line)
	return helperCall(at, catChainName, tbl, str)
}

// renameGoto gives every name goto of src (at the offsets gotos, found by
// the Lua 5.1 checker: never inside a string or a comment) another name,
// one that src does not contain anywhere, so that gopher-lua's parser,
// to which goto is a keyword, reads the chunk as Lua 5.1 does. Lines stay
// where they were. renameStrings puts goto back in the parsed chunk.
func renameGoto(src []byte, gotos []int) ([]byte, string) {
	name := "goto_"
	for i := 0; bytes.Contains(src, []byte(name)); i++ {
		name = "goto_" + strconv.Itoa(i)
	}
	out := make([]byte, 0, len(src)+len(gotos)*(len(name)-4))
	last := 0
	for _, at := range gotos {
		out = append(out, src[last:at]...)
		out = append(out, name...)
		last = at + len("goto")
	}
	return append(out, src[last:]...), name
}

// renameStrings sets every string of the parsed chunk v equal to from
// (names, the keys of t.from and {from = v}, method names) to to. from
// appears nowhere in the source, so no string constant is touched.
func renameStrings(v reflect.Value, from, to string) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			renameStrings(v.Elem(), from, to)
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				renameStrings(v.Field(i), from, to)
			}
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			renameStrings(v.Index(i), from, to)
		}
	case reflect.String:
		if v.CanSet() && v.String() == from {
			v.SetString(to)
		}
	}
}
