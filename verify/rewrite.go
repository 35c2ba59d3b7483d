package verify

import (
	"fmt"
	"strconv"

	"github.com/yuin/gopher-lua/ast"
)

// The rewriter (compileSites): gopher-lua's tree walked in source order,
// with the scopes that name an operand as Lua 5.1 names it.

// rewriter replaces every concatenation with a call of the helper, tracking
// scopes so an operand can be named the way Lua 5.1 names it in errors.
type rewriter struct {
	funcs   []*funcScope
	forDo   map[int][]int // syntaxInfo.forDo
	forSeen map[int]int   // numeric fors rewritten so far, by 'for' line
	folds   map[*ast.ArithmeticOpExpr]foldResult
	negZero bool // a numeral folds to -0 (zeroconst.go)
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
			funcStoreLine(s)
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
		s.Exprs = rw.manyValues(s.Exprs, s.Line())
	}
	return s
}

// funcStoreLine gives the store of a function statement Lua 5.1's line,
// the line of 'function' (funcstat's luaK_fixline), where gopher-lua
// stores on the line of the name's last part: `function t\n.f()` with t
// not a table fails on line 1. A method's definition becomes the field
// form with self as its first parameter, as Lua 5.1's parser makes it
// (body's "self" local), so that its receiver keeps its own line for the
// instruction that reads it (`function a\n.b\n:c()` reads a.b on line 2,
// the name's line before the ':', and stores on line 1).
func funcStoreLine(s *ast.FuncDefStmt) {
	if s.Name.Func == nil {
		key := &ast.StringExpr{Value: s.Name.Method}
		key.SetLine(s.Name.Receiver.Line())
		key.SetLastLine(s.Name.Receiver.Line())
		pars := s.Func.ParList
		pars.Names = append([]string{"self"}, pars.Names...)
		s.Name = &ast.FuncName{Func: &ast.AttrGetExpr{Object: s.Name.Receiver, Key: key}}
	}
	s.Name.Func.SetLine(s.Line())
	// The function is defined on that line too (body's line argument).
	s.Func.SetLine(s.Line())
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
		x.Args = rw.manyValues(x.Args, x.Line())
	case *ast.LogicalOpExpr:
		x.Lhs, x.Rhs = rw.expr(x.Lhs), rw.expr(x.Rhs)
	case *ast.RelationalOpExpr:
		x.Lhs, x.Rhs = rw.expr(x.Lhs), rw.expr(x.Rhs)
	case *ast.ArithmeticOpExpr:
		if x.Operator == "%" || x.Operator == "^" {
			c := rw.constant(x)
			rw.noteZero(c.v, c.numeral())
			if c.numeral() && !c.logic {
				// folded as Lua 5.1 folds it: one constant, whose zero
				// is the same constant as the function's other zeros
				// (and an infinity, such as (-0) ^ -1, reads none)
				return numeralExpr(x, c.v)
			}
			op := &ast.StringExpr{Value: x.Operator}
			op.SetLine(x.Line())
			op.SetLastLine(x.LastLine())
			lhs, rhs := rw.expr(x.Lhs), rw.expr(x.Rhs)
			call := helperCall(x, arithName, op, lhs, rhs, rw.describe(x.Lhs), rw.describe(x.Rhs))
			if c.numeral() {
				return foldedAfter(call, c.v)
			}
			return call
		}
		v, ok, runtime, logic := rw.fold(x)
		rw.noteZero(v, ok)
		if ok && logic {
			// Lua 5.1 folds through and, or and not (constant)
			x.Lhs, x.Rhs = rw.expr(x.Lhs), rw.expr(x.Rhs)
			return foldedAfter(x, v)
		}
		if runtime {
			// Lua 5.1 leaves 1/0 and a NaN to run time, where its 0
			// may be a -0 sharing the constant: gopher-lua would fold.
			op := &ast.StringExpr{Value: x.Operator}
			op.SetLine(x.Line())
			op.SetLastLine(x.LastLine())
			return helperCall(x, arithName, op, rw.expr(x.Lhs), rw.expr(x.Rhs), rw.describe(x.Lhs), rw.describe(x.Rhs))
		}
		x.Lhs, x.Rhs = rw.expr(x.Lhs), rw.expr(x.Rhs)
	case *ast.UnaryMinusOpExpr:
		c := rw.constant(x)
		rw.noteZero(c.v, c.numeral())
		x.Expr = rw.expr(x.Expr)
		if c.numeral() && c.logic {
			// Lua 5.1 folds through and, or and not (constant)
			return foldedAfter(x, c.v)
		}
	case *ast.UnaryNotOpExpr:
		x.Expr = rw.expr(x.Expr)
	case *ast.UnaryLenOpExpr:
		// Lua 5.1's border and its indifference to __len on tables
		// (tableiter.go)
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

// manyName is the hidden global of the many-values helper (manyValues).
const manyName = "\x00many"

// manyValues returns list, a call's arguments or a return's values, in a
// form gopher-lua compiles when list is long. Lua 5.1 gives a function 250
// registers (a call of 240 arguments compiles; MAXSTACK), gopher-lua 200,
// each value of a list taking one while the list is built (beside the
// function's locals): past that, gopher-lua refuses the chunk ("register
// overflow"). A long list becomes one call of the helper, which takes the
// values in a table constructor (which gopher-lua builds 50 at a time) and
// returns them all, nils included: many(n, {v1, ..., vn}[, last]), last
// being a final call or ... whose every value follows (Lua's multiple
// results). The values are computed in the same order, and the call or
// return itself, its line and the name errors give its function, stay.
func (rw *rewriter) manyValues(list []ast.Expr, line int) []ast.Expr {
	if len(list) <= manyValuesMin {
		return list
	}
	vals := list
	var last ast.Expr
	switch x := list[len(list)-1].(type) {
	case *ast.FuncCallExpr:
		if !x.AdjustRet {
			vals, last = list[:len(list)-1], x
		}
	case *ast.Comma3Expr:
		if !x.AdjustRet {
			vals, last = list[:len(list)-1], x
		}
	}
	fields := make([]*ast.Field, len(vals))
	for i, v := range vals {
		fields[i] = &ast.Field{Value: v}
	}
	t := &ast.TableExpr{Fields: fields}
	n := &ast.NumberExpr{Value: strconv.Itoa(len(vals))}
	for _, e := range []ast.Expr{t, n} {
		e.SetLine(line)
		e.SetLastLine(line)
	}
	args := []ast.Expr{n, t}
	if last != nil {
		args = append(args, last)
	}
	call := helperCall(t, manyName, args...)
	call.AdjustRet = false // every value, the last call's too
	return []ast.Expr{call}
}

// manyValuesMin is the length of a list past which manyValues rewrites it,
// whatever else holds registers (the function's locals, an enclosing list
// still being built: `f(<100 values>, g(<100 values>))`). A shorter list
// stays as it is: the helper's table constructor holds up to 50 values
// (and the helper, the count and the table) in registers while it is
// built, so it would save few or none.
const manyValuesMin = 60

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
