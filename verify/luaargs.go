package verify

import (
	lua "github.com/yuin/gopher-lua"

	"github.com/scriptctl/scriptctl/verify/lualib"
)

// Library arguments the way Lua 5.1's lauxlib reads them (luaL_checknumber,
// luaL_checkinteger, luaL_checkint, luaL_opt*, luaL_checklstring), for the
// library functions the engine implements: a string that converts to a
// number is a number, a number is a string (%.14g), and the conversions to
// integers are the C casts of Redis's x86-64 build (lua_Integer is a 64-bit
// ptrdiff_t, luaL_checkint then casts to a 32-bit int). gopher-lua's own
// Check*/Opt* accept neither conversion.

// argTypeName is luaL_typename for argument n: "no value" past the top.
func argTypeName(L *lua.LState, n int) string {
	if n > L.GetTop() {
		return "no value"
	}
	return luaTypeName(L.Get(n))
}

// noneOrNil is lua_isnoneornil.
func noneOrNil(L *lua.LState, n int) bool {
	return n > L.GetTop() || L.Get(n) == lua.LNil
}

// checkNum is luaL_checknumber.
func checkNum(L *lua.LState, n int) float64 {
	if n <= L.GetTop() {
		if f, ok := lualib.ToNumber(L.Get(n)); ok {
			return f
		}
	}
	L.ArgError(n, "number expected, got "+argTypeName(L, n))
	return 0
}

// checkInteger is luaL_checkinteger: the number cast to a 64-bit integer.
func checkInteger(L *lua.LState, n int) int64 { return cInt(checkNum(L, n)) }

// checkInt is luaL_checkint: luaL_checkinteger cast to a C int (the low 32
// bits).
func checkInt(L *lua.LState, n int) int { return int(int32(checkInteger(L, n))) }

// optInteger is luaL_optinteger.
func optInteger(L *lua.LState, n int, def int64) int64 {
	if noneOrNil(L, n) {
		return def
	}
	return checkInteger(L, n)
}

// optInt is luaL_optint.
func optInt(L *lua.LState, n int, def int) int {
	if noneOrNil(L, n) {
		return def
	}
	return checkInt(L, n)
}

// checkStr is luaL_checklstring: a string, or a number as %.14g.
func checkStr(L *lua.LState, n int) string {
	if n <= L.GetTop() {
		if s, ok := concatString(L.Get(n)); ok {
			return s
		}
	}
	L.ArgError(n, "string expected, got "+argTypeName(L, n))
	return ""
}

// optStr is luaL_optlstring.
func optStr(L *lua.LState, n int, def string) string {
	if noneOrNil(L, n) {
		return def
	}
	return checkStr(L, n)
}

// checkAny is luaL_checkany.
func checkAny(L *lua.LState, n int) lua.LValue {
	if n > L.GetTop() {
		L.ArgError(n, "value expected")
	}
	return L.Get(n)
}

// maxCStack is Lua 5.1's LUAI_MAXCSTACK: lua_checkstack refuses to grow a
// C function's frame (its arguments and results) past 8000 slots.
const maxCStack = 8000

// checkStack is lua_checkstack for a Go function about to push n values.
func checkStack(L *lua.LState, n int) bool {
	return n <= maxCStack && L.GetTop()+n <= maxCStack
}
