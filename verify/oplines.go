package verify

// Lines of operators written over several lines. Lua 5.1's code generator
// gives an instruction the line of the last token consumed when it is
// emitted (lcode.c's luaK_code(fs, i, fs->ls->lastline)), and an
// operator's instruction is emitted once its last operand is parsed
// (luaK_prefix, luaK_posfix): `local y = a +\n b` fails on b's line, and
// `x ..\n y` on y's. gopher-lua gives an operator its first operand's line.
// The Lua 5.1 parser (syntax51.go) builds the tree with gopher-lua's lines
// and, once the chunk is read, gives its operators, calls and field
// accesses Lua 5.1's (parser51.setLines), before the rewriter turns some of
// them into helper calls that keep the line. It also records each
// operator's line in the order it completes them, which is the post-order
// of the tree walked in source order: the tests check the two agree.

// opLine is an operator as Lua 5.1's parser completes it: its token, unary
// or binary, and the line of the last token consumed then.
type opLine struct {
	op    int
	unary bool
	line  int
}

// opSet is a node and the line it gets.
type opSet struct {
	node interface{ SetLine(int) }
	line int
}
