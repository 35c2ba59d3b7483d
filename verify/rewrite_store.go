package verify

import (
	"fmt"

	"github.com/yuin/gopher-lua/ast"
)

// Stores the rewriter turns into helper calls or temporaries: the ones the
// table order must see, and multiple assignments.

// removal compiles the stores the table order needs to see into calls of
// the helpers that record them (tablestore.go): t.k = nil, any t[expr] = v
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
