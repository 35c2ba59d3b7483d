package verify

import (
	"math"
	"strings"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/ast"

	"github.com/scriptctl/scriptctl/verify/lualib"
)

// Operators and loops the rewriter turns into helper calls (.., % and ^,
// the numeric for's header), and its constant folding.

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

// constKind is the kind of a constant expression as Lua 5.1's code
// generator holds it (expdesc VKNUM, VK, VTRUE, VFALSE, VNIL), or notConst.
type constKind uint8

const (
	notConst constKind = iota
	constNum
	constStr
	constTrue
	constFalse
	constNil
)

// constInfo is an expression as Lua 5.1's code generator holds it: its
// kind, a number's value, whether jumps are pending on its true and false
// lists, and logic: it went through and, or or not, which gopher-lua does
// not fold.
type constInfo struct {
	k           constKind
	v           float64
	t, f, logic bool
}

// numeral: a number constant with no jump pending, which Lua 5.1 folds
// (isnumeral).
func (c constInfo) numeral() bool { return c.k == constNum && !c.t && !c.f }

// constant is e as Lua 5.1's code generator holds it; a numeral
// (constInfo.numeral) is a number constant that it folds (lcode.c's
// constfolding): a numeral, its negation, and + - * / % ^ of two such,
// except a division by zero or a NaN result. Arithmetic results are
// memoised per node, so that a long chain costs linear time. It folds
// through and, or and not: an always true constant on the left of and (a
// number, a string, true; luaK_goiftrue) or nil or false on the left of or
// adds no jump, so the result is the right operand: `3 and 0` is the
// numeral 0 and `-(3 and 0)` the constant -0; so is `-((y or 0) and 0)`,
// whose left operand is a number whatever y is (its true list is patched
// away).
func (rw *rewriter) constant(e ast.Expr) constInfo {
	switch x := e.(type) {
	case *ast.NumberExpr:
		if v, ok := lualib.ToNumber(lua.LString(x.Value)); ok {
			return constInfo{k: constNum, v: v}
		}
	case *ast.StringExpr:
		return constInfo{k: constStr}
	case *ast.TrueExpr:
		return constInfo{k: constTrue}
	case *ast.FalseExpr:
		return constInfo{k: constFalse}
	case *ast.NilExpr:
		return constInfo{k: constNil}
	case *ast.UnaryMinusOpExpr:
		if c := rw.constant(x.Expr); c.numeral() {
			return constInfo{k: constNum, v: -c.v, logic: c.logic}
		}
	case *ast.UnaryNotOpExpr:
		// codenot: the opposite boolean, true and false lists swapped
		c := rw.constant(x.Expr)
		switch c.k {
		case constNil, constFalse:
			return constInfo{k: constTrue, t: c.f, f: c.t, logic: true}
		case constNum, constStr, constTrue:
			return constInfo{k: constFalse, t: c.f, f: c.t, logic: true}
		}
	case *ast.LogicalOpExpr:
		a, b := rw.constant(x.Lhs), rw.constant(x.Rhs)
		if b.k == notConst {
			break
		}
		if x.Operator == "and" {
			// luaK_goiftrue, then the left false list joins the result's
			switch a.k {
			case constNum, constStr, constTrue:
				b.f = b.f || a.f
			default:
				b.f = true
			}
		} else {
			// luaK_goiffalse, then the left true list joins the result's
			switch a.k {
			case constNil, constFalse:
				b.t = b.t || a.t
			default:
				b.t = true
			}
		}
		b.logic = true
		return b
	case *ast.ArithmeticOpExpr:
		r, ok := rw.folds[x]
		if !ok {
			r.v, r.ok, _, r.logic = rw.fold(x)
			if rw.folds == nil {
				rw.folds = map[*ast.ArithmeticOpExpr]foldResult{}
			}
			rw.folds[x] = r
		}
		if r.ok {
			return constInfo{k: constNum, v: r.v, logic: r.logic}
		}
	}
	return constInfo{}
}

type foldResult struct {
	v         float64
	ok, logic bool
}

// fold is x's value when Lua 5.1 folds it, and runtime: x is + - * or / of
// two numerals that Lua 5.1 computes at run time (no division by 0, no
// NaN) while gopher-lua would fold it. logic: an operand went through and,
// or or not (constant).
func (rw *rewriter) fold(x *ast.ArithmeticOpExpr) (v float64, ok, runtime, logic bool) {
	ca, cb := rw.constant(x.Lhs), rw.constant(x.Rhs)
	if !ca.numeral() || !cb.numeral() {
		return 0, false, false, false
	}
	a, b, logic := ca.v, cb.v, ca.logic || cb.logic
	switch x.Operator {
	case "+":
		v = a + b
	case "-":
		v = a - b
	case "*":
		v = a * b
	case "/":
		if b == 0 {
			return 0, false, true, logic
		}
		v = a / b
	case "%":
		if b == 0 {
			return 0, false, true, logic
		}
		v = a - math.Floor(a/b)*b
	case "^":
		v = cPow(a, b)
	}
	if math.IsNaN(v) {
		return 0, false, true, logic
	}
	return v, true, false, logic
}

// numeralExpr is a numeral of value v (not a NaN) standing where x stood,
// its text the parser's (numeralText, which gopher-lua reads back exactly,
// an infinity included): a negative value, -0 included, as the negation of
// its magnitude, which gopher-lua folds to one constant.
func numeralExpr(x ast.Expr, v float64) ast.Expr {
	var n ast.Expr = &ast.NumberExpr{Value: numeralText(math.Abs(v))}
	n.SetLine(x.Line())
	n.SetLastLine(x.LastLine())
	if !math.Signbit(v) {
		return n
	}
	neg := &ast.UnaryMinusOpExpr{Expr: n}
	neg.SetLine(x.Line())
	neg.SetLastLine(x.LastLine())
	return neg
}

// foldedAfter is x (rewritten), which Lua 5.1 folds to the constant v
// through and, or or not and gopher-lua does not, evaluated for its effects
// (a call in a left operand, `(f() or 0) and 1`, runs in Lua 5.1 too) and
// then given as the numeral v: `x and v`, x being a number.
func foldedAfter(x ast.Expr, v float64) ast.Expr {
	and := &ast.LogicalOpExpr{Operator: "and", Lhs: x, Rhs: numeralExpr(x, v)}
	and.SetLine(x.Line())
	and.SetLastLine(x.LastLine())
	return and
}

// isNumberLiteral reports whether e is a number constant, negated or not.
func isNumberLiteral(e ast.Expr) bool {
	if u, ok := e.(*ast.UnaryMinusOpExpr); ok {
		e = u.Expr
	}
	_, ok := e.(*ast.NumberExpr)
	return ok
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
