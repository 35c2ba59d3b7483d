package lint

import (
	"github.com/yuin/gopher-lua/ast"
)

// maxSyntaxLevels is Lua 5.1's LUAI_MAXCCALLS: its parser counts one level
// for every block (chunk) and every sub-expression it enters, and refuses
// a script past 200 with "chunk has too many syntax levels". Redis 7.0,
// Redis 8.0 and Valkey 8.1 all build Lua 5.1 so: `do ... end` nested 199
// times loads, 200 times fails; `return - - ... 1` with 198 minus signs
// loads, 199 fails (observed with SCRIPT LOAD on the three).
const maxSyntaxLevels = 200

// tooDeep is the first node of chunk past maxSyntaxLevels, or nil. gopher-lua
// has no such limit, and its tree of a 100,000-deep chain would cost the
// linter a deep recursion; Redis refuses the script, so the linter reports
// the syntax error and walks no further.
//
// The count is a lower bound of Lua's: a level is counted only where
// Lua's parser certainly enters one (a block, a function body, the right
// operand of a binary operator, the operand of a unary one, an
// expression in a statement, an argument, a table field, an index key).
// Parentheses leave no node and count nothing; an else holding a lone if
// is counted as elseif. So a script flagged here is one Redis refuses.
// Left operands, callees and indexed objects are Lua's loops, not
// levels: they are walked as loops here too, so the walk's depth stays
// below maxSyntaxLevels whatever the input.
func tooDeep(chunk []ast.Stmt) ast.PositionHolder {
	w := levelWalker{}
	w.block(nil, chunk, 1)
	return w.found
}

type levelWalker struct {
	found ast.PositionHolder
}

func (w *levelWalker) over(n ast.PositionHolder, level int) bool {
	if w.found != nil {
		return true
	}
	if level > maxSyntaxLevels {
		w.found = n
		return true
	}
	return false
}

// block walks stmts, a chunk at level; owner is the statement or
// function the chunk belongs to.
func (w *levelWalker) block(owner ast.PositionHolder, stmts []ast.Stmt, level int) {
	if owner != nil && w.over(owner, level) {
		return
	}
	for _, s := range stmts {
		if w.found != nil {
			return
		}
		w.stmt(s, level)
	}
}

func (w *levelWalker) exprs(es []ast.Expr, level int) {
	for _, e := range es {
		w.expr(e, level)
	}
}

func (w *levelWalker) stmt(s ast.Stmt, c int) {
	if w.over(s, c) {
		return
	}
	switch s := s.(type) {
	case *ast.AssignStmt:
		w.exprs(s.Lhs, c)
		w.exprs(s.Rhs, c+1)
	case *ast.LocalAssignStmt:
		for _, e := range s.Exprs {
			if f, ok := e.(*ast.FunctionExpr); ok {
				// local function f() ... end has no sub-expression, and
				// its tree is local f = function() ... end's.
				w.block(f, f.Stmts, c+1)
			} else {
				w.expr(e, c+1)
			}
		}
	case *ast.FuncCallStmt:
		w.expr(s.Expr, c)
	case *ast.DoBlockStmt:
		w.block(s, s.Stmts, c+1)
	case *ast.WhileStmt:
		w.expr(s.Condition, c+1)
		w.block(s, s.Stmts, c+1)
	case *ast.RepeatStmt:
		w.block(s, s.Stmts, c+1)
		w.expr(s.Condition, c+1)
	case *ast.IfStmt:
		// elseif is a loop in Lua's parser: a chain of them is walked as
		// one.
		for {
			w.expr(s.Condition, c+1)
			w.block(s, s.Then, c+1)
			next, ok := (*ast.IfStmt)(nil), len(s.Else) == 1
			if ok {
				next, ok = s.Else[0].(*ast.IfStmt)
			}
			if !ok {
				w.block(s, s.Else, c+1)
				return
			}
			s = next
		}
	case *ast.NumberForStmt:
		w.expr(s.Init, c+1)
		w.expr(s.Limit, c+1)
		if s.Step != nil {
			w.expr(s.Step, c+1)
		}
		w.block(s, s.Stmts, c+1)
	case *ast.GenericForStmt:
		w.exprs(s.Exprs, c+1)
		w.block(s, s.Stmts, c+1)
	case *ast.FuncDefStmt:
		if s.Func != nil {
			w.block(s, s.Func.Stmts, c+1)
		}
	case *ast.ReturnStmt:
		w.exprs(s.Exprs, c+1)
	}
}

// expr walks e, parsed by a sub-expression at level.
func (w *levelWalker) expr(e ast.Expr, level int) {
	for e != nil && !w.over(e, level) {
		switch x := e.(type) {
		case *ast.LogicalOpExpr:
			w.expr(x.Rhs, level+1)
			e = x.Lhs
		case *ast.RelationalOpExpr:
			w.expr(x.Rhs, level+1)
			e = x.Lhs
		case *ast.StringConcatOpExpr:
			w.expr(x.Rhs, level+1)
			e = x.Lhs
		case *ast.ArithmeticOpExpr:
			w.expr(x.Rhs, level+1)
			e = x.Lhs
		case *ast.UnaryMinusOpExpr:
			e, level = x.Expr, level+1
		case *ast.UnaryNotOpExpr:
			e, level = x.Expr, level+1
		case *ast.UnaryLenOpExpr:
			e, level = x.Expr, level+1
		case *ast.AttrGetExpr:
			w.expr(x.Key, level+1)
			e = x.Object
		case *ast.FuncCallExpr:
			for _, a := range x.Args {
				if _, ok := a.(*ast.TableExpr); ok {
					w.expr(a, level) // f{...} is no sub-expression
				} else {
					w.expr(a, level+1)
				}
			}
			if x.Receiver != nil {
				e = x.Receiver
			} else {
				e = x.Func
			}
		case *ast.TableExpr:
			for _, f := range x.Fields {
				if f.Key != nil {
					w.expr(f.Key, level+1)
				}
				w.expr(f.Value, level+1)
			}
			return
		case *ast.FunctionExpr:
			w.block(x, x.Stmts, level+1)
			return
		default:
			return
		}
	}
}
