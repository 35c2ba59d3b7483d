package verify

import (
	"encoding/binary"

	lua "github.com/yuin/gopher-lua"
)

// string.dump. The servers the engine imitates keep Lua 5.1's string.dump
// (the October 2025 fixes refuse binary chunks in load and loadstring, not
// the dump): a Lua function dumps to Lua 5.1 bytecode, a C function fails
// with "unable to dump given function". gopher-lua compiles to its own
// instructions, so the engine writes Lua 5.1's 12-byte header (ldump.c
// DumpHeader: "\27Lua", version 0x51, format 0, little endian, sizes of
// int, size_t, Instruction and lua_Number, integral flag 0) and the
// function's source name as DumpString writes it, and warns that the bytes
// after those are not the server's. A script that only checks the type, the
// length or the header, or hands the dump to loadstring (which refuses
// binary chunks on the servers as in the engine), sees what it sees live.
func (r *scriptRun) strDump(L *lua.LState) int {
	fn := L.CheckFunction(1)
	if fn.IsG {
		L.Error(lua.LString("unable to dump given function"), 0)
	}
	b := []byte{0x1b, 'L', 'u', 'a', 0x51, 0, 1, 4, 8, 4, 8, 0}
	src := "=?"
	if fn.Proto != nil {
		src = fn.Proto.SourceName
	}
	b = binary.LittleEndian.AppendUint64(b, uint64(len(src)+1))
	b = append(append(b, src...), 0)
	r.e.warn("string.dump: the header is Lua 5.1's; the bytecode after it is not the server's (gopher-lua compiles to other instructions)")
	L.Push(lua.LString(b))
	return 1
}
