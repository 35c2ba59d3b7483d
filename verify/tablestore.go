package verify

import (
	lua "github.com/yuin/gopher-lua"
)

// Stores into tables (luaV_settable) that the table order records.

// delName and setName are the hidden globals of the store helpers: a
// statement t.k = nil, and any t[expr] = v.
const (
	delName = "\x00del"
	setName = "\x00set"
)

// tableDel is the t.k = nil helper: (table, key, how Lua names the table).
func (r *scriptRun) tableDel(L *lua.LState) int {
	r.settable(L, L.Get(1), L.Get(2), lua.LNil, L.Get(3))
	return 0
}

// tableSet is the t[k] = v helper: (table, key, value, the table's name).
func (r *scriptRun) tableSet(L *lua.LState) int {
	r.settable(L, L.Get(1), L.Get(2), L.Get(3), L.Get(4))
	return 0
}

// settable is Lua 5.1's luaV_settable: a primitive set unless the key is
// absent and the table has __newindex (a new key takes a node even then),
// which records what the table order needs (noteStore).
func (r *scriptRun) settable(L *lua.LState, t, k, v, desc lua.LValue) {
	for loop := 0; loop < 100; loop++ {
		if tb, ok := t.(*lua.LTable); ok {
			if k == lua.LNil {
				L.RaiseError("table index is nil")
			}
			if n, isNum := k.(lua.LNumber); isNum && n != n {
				L.RaiseError("table index is NaN")
			}
			if r.isReadonly(tb) {
				// the proxies' __newindex, raised here so that the error
				// carries the script's position as the VM's store gives it
				L.RaiseError("Attempt to modify a readonly table")
			}
			present := tb.RawGet(k) != lua.LNil
			mm := lua.LValue(lua.LNil)
			if mt, ok := tb.Metatable.(*lua.LTable); ok && !present {
				mm = mt.RawGetString("__newindex")
			}
			if present || mm == lua.LNil {
				r.noteStore(tb, k, v, present)
				tb.RawSet(k, v)
				return
			}
			r.noteDel(tb, k, false)
			if callNewindex(L, mm, t, k, v) {
				return
			}
			t = mm
			continue
		}
		mm := L.GetMetaField(t, "__newindex")
		if mm == lua.LNil {
			if s, _ := desc.(lua.LString); s != "" && loop == 0 {
				L.RaiseError("attempt to index %s (a %s value)", s, t.Type().String())
			}
			L.RaiseError("attempt to index a %s value", t.Type().String())
		}
		if callNewindex(L, mm, t, k, v) {
			return
		}
		t = mm
	}
	L.RaiseError("loop in settable")
}

// callNewindex calls mm(t, k, v) when the __newindex mm is a function and
// reports whether it did (else the store repeats on mm, a table).
func callNewindex(L *lua.LState, mm, t, k, v lua.LValue) bool {
	fn, ok := mm.(*lua.LFunction)
	if !ok {
		return false
	}
	L.Push(fn)
	L.Push(t)
	L.Push(k)
	L.Push(v)
	L.Call(3, 0)
	return true
}
