package verify

import lua "github.com/yuin/gopher-lua"

// dropChunkArg clears gopher-lua's "needs arg" flag on a main chunk. The
// flag makes every call of the chunk build a Lua 5.0 "arg" table of its
// varargs, a table no name refers to: gopher-lua declares the local "arg"
// only in nested vararg functions, and Lua 5.1 gives a main chunk none
// (luaY_parser sets only VARARG_ISVARARG). The table is never seen, yet
// it cost each script call a hash table. Nested functions keep theirs.
func dropChunkArg(p *lua.FunctionProto) {
	if p != nil {
		p.IsVarArg &^= lua.VarArgNeedsArg
	}
}
