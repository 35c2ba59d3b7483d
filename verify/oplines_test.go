package verify

import (
	"testing"

	"github.com/yuin/gopher-lua/ast"

	"github.com/scriptctl/scriptctl/verify/luac51"
)

// TestFuncStatementLines: a function statement stores its function on the
// line of 'function', however many lines its name takes; the parts of the
// name are read on their own lines, and a method still gets self (Lua
// 5.1's lines, proven live by lua_lines.yaml's line-funcname-*).
func TestFuncStatementLines(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		// each script starts on line 2, inside the pcall's function
		{"local t = 1\nfunction t\n.f()\nend", "user_script:3: attempt to index local 't' (a number value)"},
		{"local t = true\nfunction t\n\n:m()\nend", "user_script:3: attempt to index local 't' (a boolean value)"},
		{"local a = 1\nfunction a\n.b\n.c()\nend", "user_script:4: attempt to index local 'a' (a number value)"},
		{"local a = {b = 1}\nfunction a\n.b\n:c()\nend", "user_script:3: attempt to index field 'b' (a number value)"},
	} {
		r := mustEval(t, New(Options{}), "return {pcall(function()\n"+c.src+"\nend)}", nil, nil)
		want := ArrayReply(NilReply(), BulkReply(c.want))
		if !r.Equal(want) {
			t.Errorf("%q: got %s, want %s", c.src, r, want)
		}
	}
	r := mustEval(t, New(Options{}), "local t = {}\nfunction t\n:m(a)\nreturn self == t, a\nend\nreturn {tostring(t:m(1)), select(2, t:m(2))}", nil, nil)
	if want := ArrayReply(BulkReply("true"), IntReply(2)); !r.Equal(want) {
		t.Errorf("method: got %s, want %s", r, want)
	}
}

// setOpLines is the tests' second way to Lua 5.1's lines (the parser sets
// them itself, parser51.setLines): it walks a tree built with gopher-lua's
// lines and gives its nodes the lines the parser recorded in syntaxInfo,
// operators in the order Lua 5.1's parser completes them. It sets the line of every arithmetic, comparison, length and
// concatenation operator of chunk to Lua 5.1's, from ops, and the line of
// every call to the line of its arguments' first token, from calls (Lua
// 5.1's funcargs fixes the CALL there), and the line of every field
// access to the line Lua 5.1 emits its GETTABLE on, from index. When the two
// parsers do not line up (never expected), it changes nothing.
func setOpLines(chunk []ast.Stmt, ops []opLine, calls, index []int) {
	w := &opWalker{ops: ops, calls: calls, index: index}
	w.stmts(chunk)
	if w.bad || w.n != len(ops) || w.nc != len(calls) || w.ni != len(index) {
		return
	}
	for _, s := range w.sets {
		s.node.SetLine(s.line)
	}
}

type opWalker struct {
	ops   []opLine
	n     int // operators matched so far
	calls []int
	nc    int // calls matched so far
	index []int
	ni    int // field accesses matched so far
	bad   bool
	sets  []opSet
}

// next matches the next recorded operator against token op of the tree and
// returns its line.
func (w *opWalker) next(op int, unary bool) (int, bool) {
	if w.bad || w.n >= len(w.ops) || w.ops[w.n].op != op || w.ops[w.n].unary != unary {
		w.bad = true
		return 0, false
	}
	w.n++
	return w.ops[w.n-1].line, true
}

func (w *opWalker) set(node interface{ SetLine(int) }, op int, unary bool) {
	if line, ok := w.next(op, unary); ok {
		w.sets = append(w.sets, opSet{node, line})
	}
}

// take gives node the next recorded line of lines (a call's or a field
// access's), *n counting those matched so far.
func (w *opWalker) take(node interface{ SetLine(int) }, lines []int, n *int) {
	if *n >= len(lines) {
		w.bad = true
		return
	}
	w.sets = append(w.sets, opSet{node, lines[*n]})
	*n++
}

func (w *opWalker) stmts(list []ast.Stmt) {
	for _, s := range list {
		if w.bad {
			return
		}
		w.stmt(s)
	}
}

func (w *opWalker) exprs(list []ast.Expr) {
	for _, e := range list {
		w.expr(e)
	}
}

func (w *opWalker) stmt(s ast.Stmt) {
	switch x := s.(type) {
	case *ast.AssignStmt:
		w.exprs(x.Lhs)
		w.exprs(x.Rhs)
	case *ast.LocalAssignStmt:
		w.exprs(x.Exprs)
	case *ast.FuncCallStmt:
		w.expr(x.Expr)
	case *ast.DoBlockStmt:
		w.stmts(x.Stmts)
	case *ast.WhileStmt:
		w.expr(x.Condition)
		w.stmts(x.Stmts)
	case *ast.RepeatStmt:
		w.stmts(x.Stmts)
		w.expr(x.Condition)
	case *ast.IfStmt:
		w.expr(x.Condition)
		w.stmts(x.Then)
		w.stmts(x.Else)
	case *ast.NumberForStmt:
		w.expr(x.Init)
		w.expr(x.Limit)
		if x.Step != nil {
			w.expr(x.Step)
		}
		w.stmts(x.Stmts)
	case *ast.GenericForStmt:
		w.exprs(x.Exprs)
		w.stmts(x.Stmts)
	case *ast.FuncDefStmt:
		w.expr(x.Func)
	case *ast.ReturnStmt:
		w.exprs(x.Exprs)
	}
}

func (w *opWalker) expr(e ast.Expr) {
	if w.bad || e == nil {
		return
	}
	switch x := e.(type) {
	case *ast.ArithmeticOpExpr:
		w.expr(x.Lhs)
		w.expr(x.Rhs)
		w.set(x, int(x.Operator[0]), false)
	case *ast.RelationalOpExpr:
		w.expr(x.Lhs)
		w.expr(x.Rhs)
		op := map[string]int{"<": '<', ">": '>', "<=": luac51.TkLe, ">=": luac51.TkGe, "==": luac51.TkEq, "~=": luac51.TkNe}[x.Operator]
		w.set(x, op, false)
	case *ast.StringConcatOpExpr:
		w.expr(x.Lhs)
		w.expr(x.Rhs)
		w.set(x, luac51.TkConcat, false)
	case *ast.LogicalOpExpr:
		w.expr(x.Lhs)
		w.expr(x.Rhs)
		op := luac51.TkAnd
		if x.Operator == "or" {
			op = luac51.TkOr
		}
		w.next(op, false)
	case *ast.UnaryMinusOpExpr:
		w.expr(x.Expr)
		w.set(x, '-', true)
	case *ast.UnaryLenOpExpr:
		w.expr(x.Expr)
		w.set(x, '#', true)
	case *ast.UnaryNotOpExpr:
		w.expr(x.Expr)
		w.next(luac51.TkNot, true)
	case *ast.AttrGetExpr:
		w.expr(x.Object)
		w.expr(x.Key)
		w.take(x, w.index, &w.ni)
	case *ast.FuncCallExpr:
		w.expr(x.Func)
		w.expr(x.Receiver)
		w.exprs(x.Args)
		w.take(x, w.calls, &w.nc)
	case *ast.TableExpr:
		for _, f := range x.Fields {
			w.expr(f.Key)
			w.expr(f.Value)
		}
	case *ast.FunctionExpr:
		w.stmts(x.Stmts)
	}
}
