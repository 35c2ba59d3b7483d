package lint

import (
	"strconv"
	"strings"

	"github.com/yuin/gopher-lua/ast"
	"github.com/yuin/gopher-lua/parse"
)

func (t *tracker) block(stmts []ast.Stmt, sc *scope, st *state) {
	for _, s := range stmts {
		t.stmt(s, sc, st)
	}
}

func (t *tracker) stmt(s ast.Stmt, sc *scope, st *state) {
	switch s := s.(type) {
	case *ast.AssignStmt:
		t.assign(s, sc, st)
	case *ast.LocalAssignStmt:
		for _, n := range s.Names {
			t.loc(s, s.Line(), parse.TIdent, n)
		}
		if len(s.Names) == 1 && len(s.Exprs) == 1 {
			if fn, ok := s.Exprs[0].(*ast.FunctionExpr); ok {
				// local function f: f is visible in its own body.
				b := sc.declare(s.Names[0])
				st.set(b, Value{O: FromUnknown, fn: &funcVal{fn, sc}})
				t.use(fn).named = true
				t.function(fn, sc, st, false)
				return
			}
		}
		vals := t.exprList(s.Exprs, len(s.Names), sc, st)
		for i, n := range s.Names {
			st.set(sc.declare(n), vals[i])
		}
	case *ast.FuncCallStmt:
		t.expr(s.Expr, sc, st)
		if call, ok := s.Expr.(*ast.FuncCallExpr); ok && call.Receiver == nil {
			if b := t.calleeBuiltin(call, sc); b == "error" {
				st.dead, st.errExit = true, true
			}
		}
	case *ast.DoBlockStmt:
		t.block(s.Stmts, sc.child(), st)
	case *ast.WhileStmt:
		t.loc(s, s.Line(), parse.TWhile, "")
		t.expr(s.Condition, sc, st)
		body := st.branch()
		t.loop++
		t.block(s.Stmts, sc.child(), body)
		t.loop--
		body.dead = false
		st.merge(st.branch(), body)
	case *ast.RepeatStmt:
		t.loc(s, s.Line(), parse.TRepeat, "")
		t.loop++
		inner := sc.child()
		t.block(s.Stmts, inner, st)
		wasDead := st.dead
		st.dead = false
		if !wasDead {
			t.expr(s.Condition, inner, st)
		}
		t.loop--
	case *ast.IfStmt:
		t.ifStmt(s, sc, st)
	case *ast.NumberForStmt:
		t.loc(s, s.Line(), parse.TFor, "")
		t.loc(s, s.Line(), parse.TIdent, s.Name)
		init, limit := t.expr(s.Init, sc, st), t.expr(s.Limit, sc, st)
		v := join(init, limit)
		if s.Step != nil {
			v = join(v, t.expr(s.Step, sc, st))
		}
		v = Value{O: FromBuilt, Args: v.Args, Keys: v.Keys, How: "a loop counter"}
		inner := sc.child()
		body := st.branch()
		body.set(inner.declare(s.Name), v)
		t.loop++
		t.block(s.Stmts, inner, body)
		t.loop--
		all := t.checksEveryArg(st, body) && init.IsLit && init.Lit == "1" && limit.lenOf == "ARGV" && (s.Step == nil || isNumber(s.Step, "1"))
		body.dead = false
		st.merge(st.branch(), body)
		if all {
			st.checked = ^uint64(0)
		}
	case *ast.GenericForStmt:
		t.loc(s, s.Line(), parse.TFor, "")
		for _, n := range s.Names {
			t.loc(s, s.Line(), parse.TIdent, n)
		}
		vals := t.exprList(s.Exprs, 1, sc, st)
		elem := Value{O: FromUnknown}
		switch src := vals[0]; src.builtin {
		case "KEYS":
			elem = Value{O: FromKeys, Keys: 1}
		case "ARGV":
			elem = Value{O: FromArgv, Args: 1}
		default:
			if src.O != 0 && src.builtin == "" {
				elem = src
				elem.IsLit, elem.Lit, elem.fn, elem.fields = false, "", nil, nil
			}
		}
		index := Value{O: FromBuilt, How: "a loop index"}
		iter := ""
		if len(s.Exprs) == 1 && isIterCall(s.Exprs[0], sc) {
			iter = s.Exprs[0].(*ast.FuncCallExpr).Func.(*ast.IdentExpr).Value
			if iter == "pairs" && vals[0].builtin == "" && vals[0].O&(FromReply|FromArgv) == 0 {
				// The keys of a table the script fills are not tracked
				// (seen[k] = true); those of a reply or of data decoded
				// from ARGV are not keys.
				index = Value{O: FromUnknown}
			}
		}
		inner := sc.child()
		body := st.branch()
		for i, n := range s.Names {
			v := elem
			if i == 0 && (len(s.Names) > 1 || iter != "") {
				v = index // pairs and ipairs give the key first
			}
			body.set(inner.declare(n), v)
		}
		t.loop++
		t.block(s.Stmts, inner, body)
		t.loop--
		all := t.checksEveryArg(st, body) && vals[0].builtin == "ARGV" && iter != ""
		body.dead = false
		st.merge(st.branch(), body)
		if all {
			st.checked = ^uint64(0)
		}
	case *ast.FuncDefStmt:
		t.funcDef(s, sc, st)
	case *ast.ReturnStmt:
		t.loc(s, s.Line(), parse.TReturn, "")
		first := Value{O: FromLiteral, How: "nil"}
		for i, e := range s.Exprs {
			v := t.expr(e, sc, st)
			if v.errReply {
				st.errExit = true
			}
			if i == 0 {
				first = v
			}
			if v.leak && t.ret == nil && len(t.alone) == 0 && !st.dead {
				t.f.Unordered = append(t.f.Unordered, Unordered{Pos: t.posOf(e), From: v.unord, Sink: "returned"})
			}
		}
		if t.ret != nil {
			t.ret.add(first, st)
		}
		st.dead = true
	case *ast.BreakStmt:
		st.dead = true
	case *ast.LabelStmt:
		pos := t.loc(s, s.Line(), parse.T2Colon, "")
		t.f.Lua52 = append(t.f.Lua52, Ref{Name: "label ::" + s.Name + "::", Pos: pos})
	case *ast.GotoStmt:
		pos := t.loc(s, s.Line(), parse.TGoto, "")
		t.f.Lua52 = append(t.f.Lua52, Ref{Name: "goto", Pos: pos})
	}
}

// checksEveryArg reports whether a loop body that started from st checks
// ARGV at a loop-dependent index (ARGV[i], an ipairs element) on every path
// through it that does not leave: with a loop over all of ARGV, every
// argument is then checked after the loop.
func (t *tracker) checksEveryArg(st, body *state) bool {
	return st.checked&1 == 0 && body.checked&1 != 0 && !body.dead
}

// isNumber reports whether e is the number literal n.
func isNumber(e ast.Expr, n string) bool {
	x, ok := e.(*ast.NumberExpr)
	return ok && x.Value == n
}

// isIterCall reports whether e is ipairs(...) or pairs(...) of the globals.
func isIterCall(e ast.Expr, sc *scope) bool {
	c, ok := e.(*ast.FuncCallExpr)
	if !ok || c.Receiver != nil || len(c.Args) != 1 {
		return false
	}
	id, ok := c.Func.(*ast.IdentExpr)
	return ok && (id.Value == "ipairs" || id.Value == "pairs") && sc.lookup(id.Value) == nil
}

func (t *tracker) assign(s *ast.AssignStmt, sc *scope, st *state) {
	type target struct {
		b *binding
		// tbl is the local table a field store t[k] = v changes; field
		// and known are k's literal text.
		tbl   *binding
		field string
		known bool
	}
	targets := make([]target, len(s.Lhs))
	for i, l := range s.Lhs {
		switch l := l.(type) {
		case *ast.IdentExpr:
			pos := t.loc(l, l.Line(), parse.TIdent, l.Value)
			t.pos[l] = pos
			if b := sc.lookup(l.Value); b != nil {
				targets[i].b = b
			} else {
				t.f.GlobalWrites = append(t.f.GlobalWrites, Ref{Name: l.Value, Pos: pos})
			}
		case *ast.AttrGetExpr:
			obj := t.expr(l.Object, sc, st)
			key := t.expr(l.Key, sc, st)
			if libTables.Get()[obj.builtin] && !strings.Contains(obj.builtin, ".") {
				name := obj.builtin + "[...]"
				if key.IsLit {
					name = obj.builtin + "." + key.Lit
				}
				t.f.GlobalWrites = append(t.f.GlobalWrites, Ref{Name: name, Pos: t.posOf(l)})
			}
			if id, ok := l.Object.(*ast.IdentExpr); ok {
				targets[i].tbl = sc.lookup(id.Value)
				targets[i].field, targets[i].known = key.Lit, key.IsLit && key.O == FromLiteral
			}
		default:
			t.expr(l, sc, st)
		}
	}
	vals := t.exprList(s.Rhs, len(s.Lhs), sc, st)
	for i, tg := range targets {
		switch {
		case tg.b != nil:
			st.set(tg.b, vals[i])
		case tg.tbl != nil:
			t.storeIn(tg.tbl, tg.field, tg.known, vals[i], st)
		}
	}
}

// storeIn records t[k] = v for the local table bound to b.
func (t *tracker) storeIn(b *binding, field string, known bool, v Value, st *state) {
	if old, ok := st.get(b); ok && old.builtin == "" && old.fn == nil {
		st.set(b, store(old, field, known, v))
	}
}

func (t *tracker) funcDef(s *ast.FuncDefStmt, sc *scope, st *state) {
	t.loc(s, s.Line(), parse.TFunction, "")
	method := s.Name.Func == nil
	target := s.Name.Func
	if method {
		target = s.Name.Receiver
	}
	switch f := target.(type) {
	case *ast.IdentExpr:
		pos := t.loc(f, f.Line(), parse.TIdent, f.Value)
		t.pos[f] = pos
		b := sc.lookup(f.Value)
		switch {
		case method && b == nil && libTables.Get()[f.Value]:
			t.f.GlobalWrites = append(t.f.GlobalWrites, Ref{Name: f.Value + "." + s.Name.Method, Pos: pos})
		case method && b == nil:
			t.globalRead(f.Value, pos, sc)
		case method:
			// function M:m() assigns a field of the local M.
		case b != nil:
			st.set(b, Value{O: FromUnknown, fn: &funcVal{s.Func, sc}})
			t.use(s.Func).named = true
		default:
			t.f.GlobalWrites = append(t.f.GlobalWrites, Ref{Name: f.Value, Pos: pos})
		}
	case *ast.AttrGetExpr:
		obj := t.expr(f.Object, sc, st)
		key := t.expr(f.Key, sc, st)
		if libTables.Get()[obj.builtin] && !strings.Contains(obj.builtin, ".") {
			t.f.GlobalWrites = append(t.f.GlobalWrites, Ref{Name: obj.builtin + "." + key.Lit, Pos: t.posOf(f)})
		}
	}
	t.function(s.Func, sc, st, method)
}

func (t *tracker) ifStmt(s *ast.IfStmt, sc *scope, st *state) {
	ifPos := t.loc(s, s.Line(), parse.TIf, "")
	m := &mentions{}
	saved, savedGuard := t.collect, t.guard
	t.collect, t.guard = m, map[ast.Expr]uint64{}
	t.expr(s.Condition, sc, st)
	guard := t.guard
	t.collect, t.guard = saved, savedGuard
	if saved != nil {
		saved.args |= m.args
		saved.argc = saved.argc || m.argc
		saved.reply = saved.reply || m.reply
	}
	pure := (m.args != 0 || m.argc) && !m.reply
	thenSt, elseSt := st.branch(), st.branch()
	if pure {
		thenSt.checked |= m.args
		elseSt.checked |= m.args
	}
	// A comparison that passed constrains what it compares on the branch
	// it guards, whatever else the condition reads.
	thenSt.checked |= guarded(s.Condition, true, guard)
	elseSt.checked |= guarded(s.Condition, false, guard)
	t.narrow(s.Condition, true, sc, thenSt)
	t.narrow(s.Condition, false, sc, elseSt)
	t.block(s.Then, sc.child(), thenSt)
	t.block(s.Else, sc.child(), elseSt)
	if pure && (thenSt.dead && thenSt.errExit || elseSt.dead && elseSt.errExit) {
		t.check(ifPos, st)
	}
	st.merge(thenSt, elseSt)
}

// isConst reports whether v is a string or number literal.
func isConst(v Value) bool {
	return v.IsLit && v.O == FromLiteral
}

// isNumConst reports whether v is a number literal or a string literal
// Redis reads as a number ('60').
func isNumConst(v Value) bool {
	if !isConst(v) {
		return false
	}
	_, err := strconv.ParseFloat(v.Lit, 64)
	return err == nil
}

// guarded returns the arguments that the comparisons of cond constrain
// when cond is truth: `ttl > 0 and ret == 1` passed means ttl is a number
// above 0; `ttl == '60'` passed, or `ttl ~= '60'` failed, means ttl is
// that number.
func guarded(cond ast.Expr, truth bool, guard map[ast.Expr]uint64) uint64 {
	switch e := cond.(type) {
	case *ast.RelationalOpExpr:
		if truth == (e.Operator != "~=") {
			return guard[e]
		}
	case *ast.UnaryNotOpExpr:
		return guarded(e.Expr, !truth, guard)
	case *ast.LogicalOpExpr:
		l, r := guarded(e.Lhs, truth, guard), guarded(e.Rhs, truth, guard)
		if (e.Operator == "and") == truth {
			return l | r // both held (and passed), or both failed (or failed)
		}
		return l & r
	}
	return 0
}

// narrow drops nil from the locals that cond, being truth, proves are not
// nil: `x`, `x ~= nil`, `type(x) == 'string'`, and conjunctions of them.
func (t *tracker) narrow(cond ast.Expr, truth bool, sc *scope, st *state) {
	switch e := cond.(type) {
	case *ast.IdentExpr, *ast.AttrGetExpr:
		if truth {
			t.update(e, sc, st, narrow)
		}
	case *ast.UnaryNotOpExpr:
		t.narrow(e.Expr, !truth, sc, st)
	case *ast.LogicalOpExpr:
		if (e.Operator == "and") == truth {
			// a and b and c is (a and b) and c: each operand narrows, in
			// source order. Only the last maxNarrow operands of a chain
			// do (no script writes a longer one), so that a chain of n
			// operators costs n*maxNarrow steps, not n*n/2.
			ops := []ast.Expr{e.Rhs}
			for x := e; ; {
				l, ok := x.Lhs.(*ast.LogicalOpExpr)
				if !ok || l.Operator != x.Operator {
					ops = append(ops, x.Lhs)
					break
				}
				if len(ops) == maxNarrow {
					break
				}
				ops = append(ops, l.Rhs)
				x = l
			}
			for i := len(ops) - 1; i >= 0; i-- {
				t.narrow(ops[i], truth, sc, st)
			}
		}
	case *ast.RelationalOpExpr:
		if e.Operator != "~=" && e.Operator != "==" {
			return
		}
		// x ~= nil passed, or x == nil failed; type(x) == 'string' passed,
		// or type(x) ~= 'string' failed.
		same := (e.Operator == "==") == truth
		l, r := e.Lhs, e.Rhs
		switch l.(type) {
		case *ast.NilExpr, *ast.StringExpr, *ast.NumberExpr:
			l, r = r, l // the constant on the right
		}
		if _, isNil := r.(*ast.NilExpr); isNil {
			if !same {
				t.narrow(l, true, sc, st)
			}
			return
		}
		switch r.(type) {
		case *ast.StringExpr, *ast.NumberExpr:
			if same {
				// x == 'lifo' or ttl == 60 passed: x is that literal. A
				// key (KEYS[1] == 'x') or an unknown value keeps what it
				// is, not nil: after the branch it is no literal.
				lit := t.expr(r, sc, st)
				t.update(l, sc, st, func(v Value) Value {
					if v.O&(FromKeys|FromUnknown) != 0 {
						return narrow(v)
					}
					return lit
				})
			}
		}
		if str, ok := r.(*ast.StringExpr); ok && str.Value != "nil" && same {
			if c, ok := l.(*ast.FuncCallExpr); ok && len(c.Args) == 1 {
				if id, ok := c.Func.(*ast.IdentExpr); ok && id.Value == "type" && sc.lookup("type") == nil {
					t.narrow(c.Args[0], true, sc, st)
				}
			}
		}
	}
}

// update replaces, on st, the value of what e names, a local or a field
// with a literal name of a local table (opts.parent), with f of it.
func (t *tracker) update(e ast.Expr, sc *scope, st *state, f func(Value) Value) {
	switch e := e.(type) {
	case *ast.IdentExpr:
		if b := sc.lookup(e.Value); b != nil {
			if v, ok := st.get(b); ok {
				st.set(b, f(v))
			}
		}
	case *ast.AttrGetExpr:
		id, ok := e.Object.(*ast.IdentExpr)
		key, isStr := e.Key.(*ast.StringExpr)
		if !ok || !isStr {
			return
		}
		if b := sc.lookup(id.Value); b != nil {
			if v, ok := st.get(b); ok {
				if fv, ok := v.fields[key.Value]; ok {
					st.set(b, store(v, key.Value, true, f(fv)))
				}
			}
		}
	}
}

// raise records that an operation at pos, which raises an error for a bad
// argument in mask, follows the writes made so far on this path: the
// script can stop half done. The finding is one, at the first write not
// yet reported; the later writes are part of the same cause.
func (t *tracker) raise(pos Pos, what string, mask uint64, st *state) {
	first := true
	for _, w := range st.writes {
		// The same statement reached again (a helper called twice) is
		// not an earlier write.
		if t.reported[w] || w.Pos == pos {
			continue
		}
		t.reported[w] = true
		if first {
			t.f.WriteChecks = append(t.f.WriteChecks, WriteCheck{Write: w, Check: pos, Raise: what, Args: mask})
			first = false
		}
	}
}

// cmpRaise returns the unchecked arguments v is computed from when an
// ordering comparison of v with other may raise: v may be nil
// (tonumber(ARGV[1])), or a string compared with a number. Two strings
// compare without error.
func cmpRaise(v, other Value, st *state) uint64 {
	if v.numOrNil || other.num || other.numOrNil {
		return mayRaise(v, st)
	}
	return 0
}

// mayRaise returns the arguments v is computed from that no check has
// made safe for arithmetic or an ordering comparison.
func mayRaise(v Value, st *state) uint64 {
	if v.num {
		return 0
	}
	return v.Args &^ st.checked
}

// check records that an ARGV check at pos follows the writes made so far.
func (t *tracker) check(pos Pos, st *state) {
	for _, w := range st.writes {
		if !t.reported[w] {
			t.reported[w] = true
			t.f.WriteChecks = append(t.f.WriteChecks, WriteCheck{Write: w, Check: pos})
		}
	}
	st.writes = nil
}

// function walks a function body: parameters are unknown, upvalues keep
// what is known of them. ARGV checks made by callers cannot be seen, so
// every ARGV value counts as checked inside a function.
func (t *tracker) function(fn *ast.FunctionExpr, sc *scope, st *state, method bool) {
	inner := sc.child()
	body := &state{parent: st, vals: map[*binding]Value{}, checked: ^uint64(0)}
	if method {
		body.set(inner.declare("self"), Value{O: FromUnknown})
	}
	if fn.ParList != nil {
		for i, n := range fn.ParList.Names {
			t.loc(fn, fn.Line(), parse.TIdent, n)
			v, ok := t.seeds[fn][i]
			if !ok {
				v = Value{O: FromUnknown}
			}
			body.set(inner.declare(n), v)
		}
	}
	savedLoop, savedCollect, savedRet, savedGuard := t.loop, t.collect, t.ret, t.guard
	t.loop, t.collect, t.ret, t.guard = 0, nil, nil, nil
	t.alone = append(t.alone, fn)
	from := t.lens()
	t.block(fn.Stmts, inner, body)
	t.walks[fn] = append(t.walks[fn], factSpan{from, t.lens()})
	t.alone = t.alone[:len(t.alone)-1]
	t.loop, t.collect, t.ret, t.guard = savedLoop, savedCollect, savedRet, savedGuard
}

// maxInline bounds how deep calls of local functions are followed, and
// maxInlines how many are followed in one script.
const (
	maxInline  = 3
	maxInlines = 2000
)

// inline walks the body of a called local function with its parameters
// bound to the call's arguments and the caller's flow state, so that keys,
// TTLs and checks are followed into helpers. It returns what the function
// returns; the caller continues with the ARGV checks and writes the
// function's returns left.
func (t *tracker) inline(at Pos, fv *funcVal, args []Arg, open bool, st *state) Value {
	inner := fv.sc.child()
	body := st.branch()
	if fv.expr.ParList != nil {
		for i, n := range fv.expr.ParList.Names {
			v := Value{O: FromLiteral, How: "nil"}
			switch {
			case i < len(args):
				v = args[i].V
			case open && len(args) > 0:
				v = args[len(args)-1].V
				v.IsLit, v.Lit = false, ""
			}
			body.set(inner.declare(n), v)
		}
	}
	savedRet, savedCollect, savedGuard := t.ret, t.collect, t.guard
	t.ret, t.collect, t.guard = &exits{base: len(st.writes)}, nil, nil
	t.stack, t.via = append(t.stack, fv.expr), append(t.via, at)
	t.use(fv.expr).follows++
	t.block(fv.expr.Stmts, inner, body)
	t.stack, t.via = t.stack[:len(t.stack)-1], t.via[:len(t.via)-1]
	x := t.ret
	t.ret, t.collect, t.guard = savedRet, savedCollect, savedGuard
	if !body.dead {
		x.add(Value{O: FromLiteral, How: "nil"}, body)
	}
	if x.n == 0 {
		return Value{O: FromUnknown} // it always raises
	}
	st.checked |= x.checked
	st.writes = x.writes
	v := x.v
	v.errReply = false
	return v
}

// exprList evaluates exprs and adjusts the values to n, expanding a final
// multi-value expression like Lua does.
func (t *tracker) exprList(exprs []ast.Expr, n int, sc *scope, st *state) []Value {
	out := make([]Value, 0, max(n, len(exprs)))
	for _, e := range exprs {
		out = append(out, t.expr(e, sc, st))
	}
	for len(out) < n {
		if len(exprs) > 0 && isMulti(exprs[len(exprs)-1]) {
			v := out[len(exprs)-1]
			v.IsLit, v.Lit = false, ""
			out = append(out, v)
		} else {
			out = append(out, Value{O: FromLiteral, How: "nil"})
		}
	}
	return out
}

func isMulti(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.FuncCallExpr:
		return !e.AdjustRet
	case *ast.Comma3Expr:
		return !e.AdjustRet
	}
	return false
}
