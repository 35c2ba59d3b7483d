package lualib

import lua "github.com/yuin/gopher-lua"

// RawGetInt is t[i] without metamethods, as lua_rawgeti reads it.
// gopher-lua's LTable.RawGetInt reads only the dense array, which ends
// below lua.MaxArrayIndex: RawSetInt puts the keys from there on in the
// hash part, where only RawGetH finds them.
func RawGetInt(t *lua.LTable, i int) lua.LValue {
	if i >= lua.MaxArrayIndex {
		return t.RawGetH(lua.LNumber(i))
	}
	return t.RawGetInt(i)
}
