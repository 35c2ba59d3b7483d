package lint

import (
	"slices"
	"strconv"
	"strings"

	"github.com/yuin/gopher-lua/ast"
	"github.com/yuin/gopher-lua/parse"
)

// maxExprDepth bounds the nesting of expressions the tracker follows.
// Redis's Lua refuses more than 200 syntax levels, and operator chains
// (1+1+...+1, a..a..a) are walked as loops, so only a script the server
// refuses gets here; past the bound a value is unknown, and the walk's
// stack stays small whatever the input.
const maxExprDepth = 5000

// maxNarrow bounds the operands of one and/or chain a condition narrows
// by (narrow).
const maxNarrow = 64

// maxFoldLen bounds the literal a concatenation of literals folds to:
// longer, it is a built string, so a long chain of literal concatenations
// costs its length, not its length squared.
const maxFoldLen = 1024

func (t *tracker) expr(e ast.Expr, sc *scope, st *state) Value {
	if t.depth >= maxExprDepth {
		return t.finish(e, Value{O: FromUnknown})
	}
	t.depth++
	v := t.expr0(e, sc, st)
	t.depth--
	return t.finish(e, v)
}

// finish is what expr adds to the value of e: its position when it has
// none, and the mentions being collected.
func (t *tracker) finish(e ast.Expr, v Value) Value {
	if v.at.Line == 0 {
		v.at = t.posOf(e)
	}
	if t.collect != nil {
		t.collect.args |= v.Args
		if v.O&FromReply != 0 {
			t.collect.reply = true
		}
	}
	return v
}

func (t *tracker) leaf(e ast.Expr, typ int, str string) Pos {
	if p, ok := t.pos[e]; ok {
		return p
	}
	pos := t.p.locate(e.Line(), typ, str)
	t.pos[e] = pos
	return pos
}

func (t *tracker) expr0(e ast.Expr, sc *scope, st *state) Value {
	switch e := e.(type) {
	case *ast.TrueExpr:
		t.leaf(e, parse.TTrue, "")
		return Value{O: FromLiteral, How: "true", litNotNil: true}
	case *ast.FalseExpr:
		t.leaf(e, parse.TFalse, "")
		return Value{O: FromLiteral, How: "false"}
	case *ast.NilExpr:
		t.leaf(e, parse.TNil, "")
		return Value{O: FromLiteral, How: "nil"}
	case *ast.NumberExpr:
		t.leaf(e, parse.TNumber, e.Value)
		return Value{O: FromLiteral, Lit: e.Value, IsLit: true, How: "the number " + e.Value, litNotNil: true, num: true, clean: true}
	case *ast.StringExpr:
		if _, ok := t.pos[e]; !ok {
			t.pos[e] = t.locateString(e)
		}
		return Value{O: FromLiteral, Lit: e.Value, IsLit: true, How: quote(e.Value), litNotNil: true, clean: !strings.ContainsAny(e.Value, "\r\n")}
	case *ast.Comma3Expr:
		t.leaf(e, parse.T3Comma, "")
		return Value{O: FromUnknown}
	case *ast.IdentExpr:
		pos := t.leaf(e, parse.TIdent, e.Value)
		if b := sc.lookup(e.Value); b != nil {
			if v, ok := st.get(b); ok {
				if v.fn != nil {
					u := t.use(v.fn.expr)
					u.reads++
					u.readIn = append(u.readIn, slices.Clone(t.alone))
				}
				return v
			}
			return Value{O: FromUnknown}
		}
		return t.globalRead(e.Value, pos, sc)
	case *ast.AttrGetExpr:
		return t.index(e, sc, st)
	case *ast.TableExpr:
		t.leaf(e, '{', "")
		v := Value{}
		isErr := false
		fields := map[string]Value{}
		n := 0
		var lits []string
		allLit := len(e.Fields) > 0
		for _, f := range e.Fields {
			name, named := "", false
			reply := ""
			if f.Key != nil {
				k := t.expr(f.Key, sc, st)
				if k.IsLit && k.Lit == "err" {
					isErr = true
				}
				if k.IsLit && (k.Lit == "err" || k.Lit == "ok") {
					reply = "{" + k.Lit + " = ...}"
				}
				name, named = k.Lit, k.IsLit && k.O == FromLiteral
			} else {
				n++
				name, named = strconv.Itoa(n), !isMulti(f.Value)
			}
			fv := t.expr(f.Value, sc, st)
			if reply != "" {
				t.replyText(reply, f.Value, fv)
			}
			if ls := litSet(fv); ls != nil && allLit {
				lits = append(lits, ls...)
			} else {
				allLit = false
			}
			if named {
				fields[name] = fv
			}
			if fv.builtin == "KEYS" {
				t.allKeys++
			}
			if fv.builtin == "ARGV" {
				t.allArgs++
			}
			if v.O == 0 {
				v = fv
			} else {
				v = join(v, fv)
			}
		}
		// An empty table keeps O == 0: it holds nothing yet, and what is
		// stored in it later (t[#t+1] = KEYS[i], table.insert) is its value.
		v.IsLit, v.Lit, v.builtin, v.lenOf, v.fn, v.errReply = false, "", "", "", nil, isErr
		v.fields, v.alts = fields, nil
		if allLit && len(lits) <= maxAlts {
			v.alts = slices.Compact(slices.Sorted(slices.Values(lits)))
		}
		return v
	case *ast.FuncCallExpr:
		return t.call(e, sc, st)
	case *ast.LogicalOpExpr:
		if and, ok := e.Lhs.(*ast.LogicalOpExpr); ok && e.Operator == "or" && and.Operator == "and" {
			// cond and X or Y is X or Y when X cannot be nil or false.
			cond := t.expr(and.Lhs, sc, st)
			x, y := t.expr(and.Rhs, sc, st), t.expr(e.Rhs, sc, st)
			if x.O&FromLiteral == 0 || x.litNotNil && !slices.Contains(litSet(x), "false") {
				return join(x, y)
			}
			return join(join(cond, x), y)
		}
		l := t.expr(e.Lhs, sc, st)
		// The right side runs only when the left is true (and) or false
		// (or): `ttl and ttl > 0`, `not ttl or ttl <= 0`.
		rs := st.branch()
		t.narrow(e.Lhs, e.Operator == "and", sc, rs)
		r := t.expr(e.Rhs, sc, rs)
		if len(rs.writes) > len(st.writes) {
			st.writes = rs.writes
		}
		v := join(l, r)
		if e.Operator == "or" && (l.num || l.numOrNil) && r.num {
			v.num = true // tonumber(ARGV[1]) or 0
		}
		return v
	case *ast.RelationalOpExpr:
		l, r := t.expr(e.Lhs, sc, st), t.expr(e.Rhs, sc, st)
		if e.Operator == "==" || e.Operator == "~=" {
			// ttl == 60 or ttl == '60' constrains ttl to a number; x ==
			// 'a' makes x a literal (narrow) but no number: checked is
			// about numbers (TTLs, arithmetic).
			if t.guard != nil && (isNumConst(l) && !isConst(r) || isNumConst(r) && !isConst(l)) {
				t.guard[e] = l.Args | r.Args
			}
		} else {
			if t.guard != nil {
				t.guard[e] = l.Args | r.Args
			}
			if m := cmpRaise(l, r, st) | cmpRaise(r, l, st); m != 0 && len(st.writes) > 0 {
				t.raise(t.posOf(e), "a comparison", m, st)
			}
		}
		return boolOf(join(l, r), "a comparison")
	case *ast.StringConcatOpExpr:
		// a..b..c is a..(b..c): the chain is walked as a loop, its left
		// operands in source order, then joined from the right.
		chain := []*ast.StringConcatOpExpr{e}
		for next, ok := e.Rhs.(*ast.StringConcatOpExpr); ok; next, ok = next.Rhs.(*ast.StringConcatOpExpr) {
			chain = append(chain, next)
		}
		ls := make([]Value, len(chain))
		for i, c := range chain {
			ls[i] = t.expr(c.Lhs, sc, st)
		}
		r := t.expr(chain[len(chain)-1].Rhs, sc, st)
		for i := len(chain) - 1; i > 0; i-- {
			r = t.finish(chain[i], concatValue(ls[i], r))
		}
		return concatValue(ls[0], r)
	case *ast.ArithmeticOpExpr:
		// 1+1+1 is (1+1)+1: the chain is walked as a loop from its
		// leftmost operand.
		chain := []*ast.ArithmeticOpExpr{e}
		for next, ok := e.Lhs.(*ast.ArithmeticOpExpr); ok; next, ok = next.Lhs.(*ast.ArithmeticOpExpr) {
			chain = append(chain, next)
		}
		l := t.expr(chain[len(chain)-1].Lhs, sc, st)
		for i := len(chain) - 1; ; i-- {
			v := t.arith(chain[i], l, t.expr(chain[i].Rhs, sc, st), st)
			if i == 0 {
				return v
			}
			l = t.finish(chain[i], v)
		}
	case *ast.UnaryMinusOpExpr:
		v := t.expr(e.Expr, sc, st)
		if v.IsLit && v.O == FromLiteral {
			return Value{O: FromLiteral, Lit: "-" + v.Lit, IsLit: true, How: "the number -" + v.Lit}
		}
		v.O |= FromBuilt
		v.How, v.builtin, v.num, v.clean = "arithmetic", "", true, true
		return v
	case *ast.UnaryNotOpExpr:
		return boolOf(t.expr(e.Expr, sc, st), "a boolean")
	case *ast.UnaryLenOpExpr:
		v := t.expr(e.Expr, sc, st)
		if v.builtin == "KEYS" || v.builtin == "ARGV" {
			if v.builtin == "ARGV" && t.collect != nil {
				t.collect.argc = true
			}
			return Value{O: FromLiteral, lenOf: v.builtin, How: "#" + v.builtin, litNotNil: true, num: true, clean: true}
		}
		v.O |= FromBuilt
		v.How, v.IsLit, v.Lit, v.builtin, v.alts, v.num, v.unord, v.clean = "a length", false, "", "", nil, true, "", true
		return v
	case *ast.FunctionExpr:
		t.leaf(e, parse.TFunction, "")
		t.function(e, sc, st, false)
		return Value{O: FromUnknown, How: "a function", fn: &funcVal{e, sc}}
	}
	return Value{O: FromUnknown}
}

// locateString finds a string constant, written as a string token or, in
// a.b and {b = ...}, as a name.
func (t *tracker) locateString(e *ast.StringExpr) Pos {
	line := e.Line()
	toks := t.p.tokens[line]
	for i := t.p.cursor[line]; i < len(toks); i++ {
		if (toks[i].typ == parse.TString || toks[i].typ == parse.TIdent) && toks[i].str == e.Value {
			t.p.cursor[line] = i + 1
			return t.p.pos(line, toks[i].col)
		}
	}
	return t.p.locate(line, parse.TString, e.Value)
}

func (t *tracker) globalRead(name string, pos Pos, sc *scope) Value {
	if !redisGlobals.Get()[name] {
		t.f.GlobalReads = append(t.f.GlobalReads, Ref{Name: name, Pos: pos})
		return Value{O: FromUnknown}
	}
	return Value{O: FromUnknown, builtin: name}
}

func (t *tracker) index(e *ast.AttrGetExpr, sc *scope, st *state) Value {
	obj := t.expr(e.Object, sc, st)
	key := t.expr(e.Key, sc, st)
	switch obj.builtin {
	case "KEYS", "ARGV":
		n := -1
		if key.IsLit && key.O == FromLiteral {
			if i, err := strconv.Atoi(key.Lit); err == nil {
				n = i
			}
		} else if key.lenOf == obj.builtin && t.p.Decl != nil {
			if obj.builtin == "KEYS" {
				n = len(t.p.Decl.Keys)
			} else {
				n = len(t.p.Decl.Args)
			}
		}
		ref := IndexRef{N: n, Pos: t.posOf(e)}
		if obj.builtin == "KEYS" {
			t.f.KeyRefs = append(t.f.KeyRefs, ref)
			if n < 0 {
				t.allKeys++
			}
			return Value{O: FromKeys, Keys: bit(n)}
		}
		t.f.ArgRefs = append(t.f.ArgRefs, ref)
		if n < 0 {
			t.allArgs++
		}
		return Value{O: FromArgv, Args: bit(n)}
	case "":
		// A named field that holds more than literals (cfg.key with cfg =
		// {key = KEYS[1], ttl = 30}) is that field's value.
		if key.IsLit && key.O == FromLiteral && obj.fields != nil {
			if fv, ok := obj.fields[key.Lit]; ok && fv.O != 0 {
				fv.fn = nil
				return fv
			}
		}
	default:
		if key.IsLit && key.O == FromLiteral {
			name := obj.builtin + "." + key.Lit
			if fields, ok := libFields.Get()[obj.builtin]; ok && !fields[key.Lit] {
				t.f.BadFields = append(t.f.BadFields, Ref{Name: name, Pos: t.pos[e.Key]})
				return Value{O: FromUnknown}
			}
			return Value{O: FromUnknown, builtin: name}
		}
		return Value{O: FromUnknown}
	}
	// An element of a table holds what was put in it; an element of a
	// table of literals is one of them (or nil). An element picked by its
	// place in an unordered reply (members[1]) carries the order.
	v := obj
	v.IsLit, v.Lit, v.lenOf, v.num, v.numOrNil, v.fields = false, "", "", false, false, nil
	if v.unord != "" && !v.paged {
		v.leak = true
	}
	v.paged = false // page[2] is the elements, in server order
	if v.O == FromLiteral && len(v.alts) > 0 {
		return v
	}
	v.alts = nil
	if v.O == 0 || v.O == FromLiteral {
		v.O = FromUnknown
	}
	return v
}

// posOf returns the position of the first token of e.
func (t *tracker) posOf(e ast.Expr) Pos {
	// The position of an operator chain is its leftmost operand's: the
	// nodes walked on the way there remember it, so that a chain of n
	// operators costs n steps in all, not n*n/2.
	walked := t.walked[:0]
	defer func() { t.walked = walked[:0] }()
	for {
		if p, ok := t.pos[e]; ok {
			for _, w := range walked {
				t.pos[w] = p
			}
			return p
		}
		walked = append(walked, e)
		switch x := e.(type) {
		case *ast.AttrGetExpr:
			e = x.Object
		case *ast.FuncCallExpr:
			if x.Receiver != nil {
				e = x.Receiver
			} else {
				e = x.Func
			}
		case *ast.LogicalOpExpr:
			e = x.Lhs
		case *ast.RelationalOpExpr:
			e = x.Lhs
		case *ast.StringConcatOpExpr:
			e = x.Lhs
		case *ast.ArithmeticOpExpr:
			e = x.Lhs
		case *ast.UnaryMinusOpExpr:
			e = x.Expr
		case *ast.UnaryNotOpExpr:
			e = x.Expr
		case *ast.UnaryLenOpExpr:
			e = x.Expr
		default:
			p := t.p.pos(e.Line(), 1)
			if len(walked) > maxSpine {
				// A leftmost operand never walked (past maxExprDepth):
				// the chain above it keeps the line, so that it is not
				// walked again for each of its nodes. A leaf itself is
				// never kept here: walking it finds its column.
				for _, w := range walked[:len(walked)-1] {
					t.pos[w] = p
				}
			}
			return p
		}
	}
}

// maxSpine is the length of a walk of posOf past which a position found
// only by its line is kept for the nodes walked.
const maxSpine = 64

// concatValue is the value of l..r.
func concatValue(l, r Value) Value {
	if l.IsLit && r.IsLit && l.O == FromLiteral && r.O == FromLiteral && len(l.Lit)+len(r.Lit) <= maxFoldLen {
		return Value{O: FromLiteral, Lit: l.Lit + r.Lit, IsLit: true, How: quote(l.Lit + r.Lit)}
	}
	v := join(l, r)
	v.O |= FromBuilt
	v.How, v.IsLit, v.Lit, v.builtin, v.alts, v.num = "concatenation", false, "", "", nil, false
	v.leak, v.at = v.unord != "", Pos{} // made here
	return v
}

// arith is the value of e, an arithmetic operator, whose operands are l
// and r.
func (t *tracker) arith(e *ast.ArithmeticOpExpr, l, r Value, st *state) Value {
	if m := mayRaise(l, st) | mayRaise(r, st); m != 0 && len(st.writes) > 0 {
		t.raise(t.posOf(e), "arithmetic", m, st)
	}
	v := join(l, r)
	v.O |= FromBuilt
	v.How, v.IsLit, v.Lit, v.builtin, v.lenOf, v.alts, v.num, v.unord, v.clean = "arithmetic", false, "", "", "", nil, true, "", true
	v.at = Pos{} // made here
	return v
}
