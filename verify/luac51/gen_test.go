package luac51

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// progGen writes random Lua 5.1 chunks that compile: every statement and
// expression kind, nested functions, locals, upvalues and constants, for
// comparing the code generator with the server's.
type progGen struct {
	r      *rand.Rand
	b      strings.Builder
	scopes [][]string // locals in scope, innermost last
	loop   int        // enclosing loops in the current function
	vararg bool
	fnloop []int
	fnva   []bool
	nlocal int
}

func (g *progGen) w(format string, args ...any) { fmt.Fprintf(&g.b, format, args...) }

// sp separates a block's opening keyword from its first statement.
func (g *progGen) sp() {
	if g.r.IntN(2) == 0 {
		g.w("\n")
	} else {
		g.w(" ")
	}
}

// nl ends a statement: a ';' keeps a next statement starting with '('
// from reading as a call.
func (g *progGen) nl() {
	g.w("%s", []string{";\n", "; ", ";\n\n"}[g.r.IntN(3)])
}

func (g *progGen) local() string {
	var all []string
	for _, s := range g.scopes {
		all = append(all, s...)
	}
	if len(all) == 0 || g.r.IntN(5) == 0 {
		return []string{"x", "y", "KEYS", "redis", "t", "_G"}[g.r.IntN(6)]
	}
	return all[g.r.IntN(len(all))]
}

func (g *progGen) declare(n string) { g.scopes[len(g.scopes)-1] = append(g.scopes[len(g.scopes)-1], n) }

func (g *progGen) newName() string {
	g.nlocal++
	return fmt.Sprintf("l%d", g.nlocal)
}

var numbers = []string{"0", "1", "2", "-1", "0.5", "1e300", "1e400", "3.25", "2^53", "0x10", "-0", "255", "256", "1/0", "7 % 3", "10"}
var strs = []string{"''", "'a'", "\"b\"", "'k1'", "[[long]]", "'x\\ny'", "'\\0'", "'a b'"}

func (g *progGen) expr(d int) {
	if d > 3 {
		g.simple()
		return
	}
	switch g.r.IntN(14) {
	case 0, 1:
		g.simple()
	case 2:
		g.expr(d + 1)
		g.w(" %s ", []string{"+", "-", "*", "/", "%", "^", "..", "==", "~=", "<", "<=", ">", ">=", "and", "or"}[g.r.IntN(15)])
		g.expr(d + 1)
	case 3:
		g.w("%s", []string{"- ", "not ", "#"}[g.r.IntN(3)])
		g.expr(d + 1)
	case 4:
		g.w("(")
		g.expr(d + 1)
		g.w(")")
	case 5:
		g.call(d + 1)
	case 6:
		g.w("{")
		n := g.r.IntN(6)
		if g.r.IntN(8) == 0 {
			n = 40 + g.r.IntN(30)
		}
		for i := 0; i < n; i++ {
			switch g.r.IntN(4) {
			case 0:
				g.w("f%d = ", g.r.IntN(5))
			case 1:
				g.w("[ ")
				g.expr(d + 1)
				g.w(" ] = ")
			}
			g.expr(d + 1)
			g.w("%s ", []string{",", ";"}[g.r.IntN(2)])
		}
		if g.r.IntN(3) == 0 {
			g.call(d + 1)
		}
		g.w("}")
	case 7:
		g.function(d + 1)
	case 8:
		g.prefix(d + 1)
		g.w("[ ")
		g.expr(d + 1)
		g.w(" ]")
	case 9:
		g.prefix(d + 1)
		g.w(".f%d", g.r.IntN(3))
	case 10:
		if g.vararg {
			g.w("...")
		} else {
			g.simple()
		}
	default:
		g.w("%s", g.local())
	}
}

func (g *progGen) simple() {
	switch g.r.IntN(5) {
	case 0:
		g.w("%s", numbers[g.r.IntN(len(numbers))])
	case 1:
		g.w("%s", strs[g.r.IntN(len(strs))])
	case 2:
		g.w("%s", []string{"nil", "true", "false"}[g.r.IntN(3)])
	default:
		g.w("%s", g.local())
	}
}

func (g *progGen) prefix(d int) {
	switch g.r.IntN(3) {
	case 0:
		g.w("(")
		g.expr(d + 1)
		g.w(")")
	case 1:
		g.call(d + 1)
	default:
		g.w("%s", g.local())
	}
}

func (g *progGen) call(d int) {
	g.prefix(d + 1)
	switch g.r.IntN(5) {
	case 0:
		g.w(":m%d", g.r.IntN(2))
		fallthrough
	case 1, 2:
		g.w("(")
		n := g.r.IntN(4)
		for i := 0; i < n; i++ {
			if i > 0 {
				g.w(", ")
			}
			g.expr(d + 1)
		}
		g.w(")")
	case 3:
		g.w("'s'")
	default:
		g.w("{}")
	}
}

func (g *progGen) function(d int) {
	g.w("function(")
	g.scopes = append(g.scopes, nil)
	g.fnloop = append(g.fnloop, g.loop)
	g.fnva = append(g.fnva, g.vararg)
	g.loop, g.vararg = 0, false
	n := g.r.IntN(4)
	for i := 0; i < n; i++ {
		if i > 0 {
			g.w(", ")
		}
		name := g.newName()
		g.declare(name)
		g.w("%s", name)
	}
	if g.r.IntN(3) == 0 {
		if n > 0 {
			g.w(", ")
		}
		g.w("...")
		g.vararg = true
	}
	g.w(")")
	g.sp()
	g.block(d + 1)
	g.w("end")
	g.loop, g.vararg = g.fnloop[len(g.fnloop)-1], g.fnva[len(g.fnva)-1]
	g.fnloop, g.fnva = g.fnloop[:len(g.fnloop)-1], g.fnva[:len(g.fnva)-1]
	g.scopes = g.scopes[:len(g.scopes)-1]
}

func (g *progGen) block(d int) {
	g.scopes = append(g.scopes, nil)
	n := g.r.IntN(5)
	if d > 3 {
		n = g.r.IntN(2)
	}
	for i := 0; i < n; i++ {
		g.stat(d)
		g.nl()
	}
	switch g.r.IntN(6) {
	case 0:
		g.w("return")
		if g.r.IntN(2) == 0 {
			g.w(" ")
			g.exprList(d)
		}
		g.nl()
	case 1:
		if g.loop > 0 {
			g.w("break")
			g.nl()
		}
	}
	g.scopes = g.scopes[:len(g.scopes)-1]
}

func (g *progGen) exprList(d int) {
	n := 1 + g.r.IntN(3)
	for i := 0; i < n; i++ {
		if i > 0 {
			g.w(", ")
		}
		g.expr(d + 1)
	}
}

func (g *progGen) target(d int) {
	switch g.r.IntN(3) {
	case 0:
		g.prefix(d + 1)
		g.w("[ ")
		g.expr(d + 1)
		g.w(" ]")
	case 1:
		g.prefix(d + 1)
		g.w(".f%d", g.r.IntN(3))
	default:
		g.w("%s", g.local())
	}
}

func (g *progGen) stat(d int) {
	if d > 4 {
		g.w("%s = ", g.local())
		g.simple()
		return
	}
	switch g.r.IntN(13) {
	case 0:
		names := []string{}
		for i := 0; i <= g.r.IntN(3); i++ {
			names = append(names, g.newName())
		}
		g.w("local %s", strings.Join(names, ", "))
		if g.r.IntN(4) != 0 {
			g.w(" = ")
			g.exprList(d)
		}
		for _, n := range names {
			g.declare(n)
		}
	case 1:
		name := g.newName()
		g.declare(name)
		g.w("local function %s", name)
		g.b.WriteString(strings.TrimPrefix(g.captureFunction(d), "function"))
	case 2:
		n := 1 + g.r.IntN(3)
		for i := 0; i < n; i++ {
			if i > 0 {
				g.w(", ")
			}
			g.target(d)
		}
		g.w(" = ")
		g.exprList(d)
	case 3:
		g.call(d)
	case 4:
		g.w("if ")
		g.expr(d + 1)
		g.w(" then")
		g.sp()
		g.block(d + 1)
		for g.r.IntN(3) == 0 {
			g.w("elseif ")
			g.expr(d + 1)
			g.w(" then")
			g.sp()
			g.block(d + 1)
		}
		if g.r.IntN(2) == 0 {
			g.w("else")
			g.sp()
			g.block(d + 1)
		}
		g.w("end")
	case 5:
		g.w("while ")
		g.expr(d + 1)
		g.w(" do")
		g.sp()
		g.loop++
		g.block(d + 1)
		g.loop--
		g.w("end")
	case 6:
		v := g.newName()
		g.w("for %s = ", v)
		g.expr(d + 1)
		g.w(", ")
		g.expr(d + 1)
		if g.r.IntN(2) == 0 {
			g.w(", ")
			g.expr(d + 1)
		}
		g.w(" do")
		g.sp()
		g.loop++
		g.scopes = append(g.scopes, []string{v})
		g.block(d + 1)
		g.scopes = g.scopes[:len(g.scopes)-1]
		g.loop--
		g.w("end")
	case 7:
		vs := []string{g.newName()}
		for g.r.IntN(2) == 0 {
			vs = append(vs, g.newName())
		}
		g.w("for %s in ", strings.Join(vs, ", "))
		g.exprList(d)
		g.w(" do")
		g.sp()
		g.loop++
		g.scopes = append(g.scopes, vs)
		g.block(d + 1)
		g.scopes = g.scopes[:len(g.scopes)-1]
		g.loop--
		g.w("end")
	case 8:
		g.w("repeat")
		g.sp()
		g.loop++
		g.scopes = append(g.scopes, nil)
		n := g.r.IntN(3)
		for i := 0; i < n; i++ {
			g.stat(d + 1)
			g.nl()
		}
		g.w("until ")
		g.expr(d + 1)
		g.scopes = g.scopes[:len(g.scopes)-1]
		g.loop--
	case 9:
		g.w("do")
		g.sp()
		g.block(d + 1)
		g.w("end")
	case 10:
		g.w("function %s", []string{"gf", "t.a", "t.a.b", "t:m", "t.a:m"}[g.r.IntN(5)])
		g.b.WriteString(strings.TrimPrefix(g.captureFunction(d), "function"))
	default:
		g.w("%s = ", g.local())
		g.expr(d + 1)
	}
}

// captureFunction writes a function into a string (for the statement
// forms that print their own head).
func (g *progGen) captureFunction(d int) string {
	saved := g.b.String()
	g.b.Reset()
	g.function(d + 1)
	s := g.b.String()
	g.b.Reset()
	g.b.WriteString(saved)
	return s
}

// randomChunk is one random chunk of seed.
func randomChunk(seed uint64) string {
	g := &progGen{r: rand.New(rand.NewPCG(seed, 7)), scopes: [][]string{nil}, vararg: true}
	n := 1 + g.r.IntN(8)
	for i := 0; i < n; i++ {
		g.stat(0)
		g.nl()
	}
	return g.b.String()
}
