// Command luacompile is a baseline the speed benchmarks measure scriptctl's
// offline eval against: a minimal Go program that reads a Lua file,
// compiles it with gopher-lua (the compiler and VM the offline engine runs
// on), runs it in a bare LState and prints its number result. It does none
// of the engine's work (Lua 5.1's syntax, lines and numerals, the
// sandbox, the reply).
//
// By default it parses the file with gopher-lua's own parser: plain
// gopher-lua. With -tree it reads only the lines of the benchmark's script
// ("local x = 0", then "x = x + <digit>" lines, "return x", comments) and
// builds their tree directly, all nodes in a few allocations, with no lexer
// or parser: the floor of any offline eval that compiles with gopher-lua,
// whose parse would cost nothing.
package main

import (
	"bytes"
	"fmt"
	"os"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/ast"
	"github.com/yuin/gopher-lua/parse"
)

func main() {
	args := os.Args[1:]
	tree := len(args) == 2 && args[0] == "-tree"
	if tree {
		args = args[1:]
	}
	if len(args) != 1 {
		fmt.Fprintln(os.Stderr, "usage: luacompile [-tree] FILE")
		os.Exit(2)
	}
	src, err := os.ReadFile(args[0])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	var chunk []ast.Stmt
	if tree {
		chunk, err = buildTree(src)
	} else {
		chunk, err = parse.Parse(bytes.NewReader(src), "@user_script")
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	proto, err := lua.Compile(chunk, "@user_script")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	L := lua.NewState(lua.Options{SkipOpenLibs: true})
	defer L.Close()
	L.Push(L.NewFunctionFromProto(proto))
	if err := L.PCall(0, 1, nil); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("(integer) %s\n", L.Get(-1).String())
}

// buildTree builds the tree of the benchmark's script line by line.
func buildTree(src []byte) ([]ast.Stmt, error) {
	lines := bytes.Split(src, []byte("\n"))
	n := len(lines)
	assigns := make([]ast.AssignStmt, 0, n)
	idents := make([]ast.IdentExpr, 0, 2*n)
	nums := make([]ast.NumberExpr, 0, n)
	ops := make([]ast.ArithmeticOpExpr, 0, n)
	exprs := make([]ast.Expr, 0, 2*n)
	stmts := make([]ast.Stmt, 0, n)
	ident := func(line int) *ast.IdentExpr {
		idents = append(idents, ast.IdentExpr{Value: "x"})
		id := &idents[len(idents)-1]
		id.SetLine(line)
		return id
	}
	list := func(e ast.Expr) []ast.Expr {
		exprs = append(exprs, e)
		return exprs[len(exprs)-1 : len(exprs) : len(exprs)]
	}
	for i, l := range lines {
		line := i + 1
		switch {
		case len(l) == 0 || bytes.HasPrefix(l, []byte("--")):
		case string(l) == "local x = 0":
			nums = append(nums, ast.NumberExpr{Value: "0"})
			num := &nums[len(nums)-1]
			num.SetLine(line)
			s := &ast.LocalAssignStmt{Names: []string{"x"}, Exprs: list(num)}
			s.SetLine(line)
			stmts = append(stmts, s)
		case len(l) == 9 && string(l[:8]) == "x = x + " && l[8] >= '0' && l[8] <= '9':
			nums = append(nums, ast.NumberExpr{Value: string(l[8:])})
			num := &nums[len(nums)-1]
			num.SetLine(line)
			ops = append(ops, ast.ArithmeticOpExpr{Lhs: ident(line), Operator: "+", Rhs: num})
			op := &ops[len(ops)-1]
			op.SetLine(line)
			assigns = append(assigns, ast.AssignStmt{Lhs: list(ident(line)), Rhs: list(op)})
			s := &assigns[len(assigns)-1]
			s.SetLine(line)
			stmts = append(stmts, s)
		case string(l) == "return x":
			s := &ast.ReturnStmt{Exprs: list(ident(line))}
			s.SetLine(line)
			stmts = append(stmts, s)
		default:
			return nil, fmt.Errorf("line %d: not a line of the benchmark's script: %q", line, l)
		}
	}
	return stmts, nil
}
