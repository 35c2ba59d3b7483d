package verify

import (
	lua "github.com/yuin/gopher-lua"
)

// Read-only tables: the proxies through which scripts see the server's
// protected tables (Redis 7's lua_enablereadonlytable).

// readonlyProxy returns an empty table that reads through to t and refuses
// writes with Redis 7's "Attempt to modify a readonly table".
func (r *scriptRun) readonlyProxy(t *lua.LTable) *lua.LTable {
	L := r.L
	// Sized tables: L.NewTable reserves 32 array and 32 hash slots, and a
	// state holds a proxy for every library table.
	p := L.CreateTable(0, 0)
	mt := L.CreateTable(0, 4)
	mt.RawSetString("__index", t)
	mt.RawSetString("__newindex", L.NewFunction(func(L *lua.LState) int {
		L.RaiseError("Attempt to modify a readonly table")
		return 0
	}))
	// getmetatable(_G) returns a table that is itself readonly.
	pub := L.CreateTable(0, 0)
	pubmt := L.CreateTable(0, 2)
	pubmt.RawSetString("__index", L.CreateTable(0, 0))
	pubmt.RawSetString("__newindex", mt.RawGetString("__newindex"))
	L.SetMetatable(pub, pubmt)
	r.readonly[pub] = L.CreateTable(0, 0)
	mt.RawSetString("__metatable", pub)
	L.SetMetatable(p, mt)
	r.readonly[p] = t
	r.behind[t] = true
	r.proxyMT[p] = mt
	return p
}

// realTable is real for a table: what cjson.encode and cmsgpack.pack
// encode (lualib.Options.View).
func (r *scriptRun) realTable(t *lua.LTable) *lua.LTable {
	if real, ok := r.readonly[t]; ok {
		return real
	}
	return t
}

// real returns the table behind a readonly proxy, or v itself.
func (r *scriptRun) real(v lua.LValue) lua.LValue {
	if t, ok := v.(*lua.LTable); ok {
		if real, ok := r.readonly[t]; ok {
			return real
		}
	}
	return v
}

func (r *scriptRun) isReadonly(v lua.LValue) bool {
	t, ok := v.(*lua.LTable)
	if !ok {
		return false
	}
	_, ro := r.readonly[t]
	return ro
}

// roError raises the readonly error the way Redis's patched C API does:
// without a position.
func roError(L *lua.LState) {
	L.Error(lua.LString("Attempt to modify a readonly table"), 0)
}
