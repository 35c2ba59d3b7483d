package verify

import (
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/scriptctl/scriptctl/verify/lualib"
)

// The base library of a run's state, where gopher-lua's differs from Lua
// 5.1's in a way scripts can see.

// installBase replaces base functions whose gopher-lua behaviour differs
// from Lua 5.1 in a way scripts can see.
func (r *scriptRun) installBase(G *lua.LTable) {
	L := r.L
	set := func(name string, fn lua.LGFunction) { G.RawSetString(name, L.NewFunction(fn)) }
	getmeta := G.RawGetString("getmetatable").(*lua.LFunction).GFunction
	set("getmetatable", func(L *lua.LState) int {
		// A readonly table is the server's table itself: its metatable
		// is what it had (_G's: the one that refuses unknown names),
		// not the proxy's.
		if t, ok := L.Get(1).(*lua.LTable); ok {
			if _, ro := r.readonly[t]; ro {
				if mv := r.metaView[t]; mv != nil {
					L.Push(mv)
				} else {
					L.Push(lua.LNil)
				}
				return 1
			}
		}
		return getmeta(L)
	})
	set("tostring", func(L *lua.LState) int {
		v := L.CheckAny(1)
		if mm := L.GetMetaField(v, "__tostring"); mm != lua.LNil {
			if !callable(L, mm) {
				// luaL_callmeta's lua_call, from C: no position, no name
				L.Error(lua.LString("attempt to call a "+luaTypeName(mm)+" value"), 0)
			}
			L.Push(mm)
			L.Push(v)
			L.Call(1, 1)
			return 1
		}
		L.Push(lua.LString(rawToString(v)))
		return 1
	})
	set("pcall", func(L *lua.LState) int {
		// Redis's pcall calls its first argument (a boolean placeholder
		// when there is none) and answers false with Lua's message when it
		// cannot be called.
		if L.GetTop() == 0 {
			return failed(L, lua.LString("attempt to call a boolean value"))
		}
		if !callable(L, L.Get(1)) {
			return failed(L, lua.LString("attempt to call a "+luaTypeName(L.Get(1))+" value"))
		}
		if !r.enterC(L) {
			return failed(L, lua.LString("C stack overflow"))
		}
		defer r.leaveC(L)
		top := L.GetTop()
		L.Push(L.Get(1))
		for i := 2; i <= top; i++ {
			L.Push(L.Get(i))
		}
		base := L.GetTop() - top
		err := L.PCall(top-1, lua.MultRet, L.NewFunction(r.rewordHandler))
		if err != nil {
			r.restoreStackLimit(L)
			if msg, _, _, ok := callStackOverflow(err); ok {
				r.overflowed(L)
				return failed(L, lua.LString(msg))
			}
			r.rethrow(L, err)
			// Redis 7 replaces pcall: an error table's err field (what
			// redis.call raises) becomes the error value itself.
			obj := errorObject(err)
			if t, ok := obj.(*lua.LTable); ok {
				switch v := t.RawGetString("err").(type) {
				case lua.LString, lua.LNumber:
					obj = v
				}
			}
			return failed(L, obj)
		}
		L.Insert(lua.LTrue, base+1)
		return L.GetTop() - base
	})
	set("xpcall", func(L *lua.LState) int {
		fn := L.Get(1)
		if L.GetTop() < 2 {
			L.ArgError(2, "value expected")
		}
		handler := L.Get(2)
		if !callable(L, fn) {
			msg := lua.LString("attempt to call a " + luaTypeName(fn) + " value")
			return failed(L, r.xpcallHandler(L, handler, msg))
		}
		if !r.enterC(L) {
			return failed(L, lua.LString("C stack overflow"))
		}
		defer r.leaveC(L)
		top := L.GetTop()
		L.Push(fn)
		err := L.PCall(0, lua.MultRet, r.xpcallFrame(L, handler))
		if err != nil {
			r.restoreStackLimit(L)
			if msg, _, _, ok := callStackOverflow(err); ok {
				r.overflowed(L)
				return failed(L, r.xpcallHandler(L, handler, lua.LString(msg)))
			}
			r.rethrow(L, err)
			return failed(L, errorObject(err))
		}
		L.Insert(lua.LTrue, top+1)
		return L.GetTop() - top
	})
	set("rawset", func(L *lua.LState) int {
		t := L.CheckTable(1)
		if r.isReadonly(t) {
			roError(L)
		}
		L.CheckAny(2)
		L.CheckAny(3)
		if k := L.Get(2); k != lua.LNil {
			r.noteStore(t, k, L.Get(3), t.RawGet(k) != lua.LNil)
		}
		t.RawSet(L.Get(2), L.Get(3))
		L.Push(t)
		return 1
	})
	set("rawget", func(L *lua.LState) int {
		t := L.CheckTable(1)
		L.CheckAny(2)
		L.Push(r.real(t).(*lua.LTable).RawGet(L.Get(2)))
		return 1
	})
	set("setmetatable", func(L *lua.LState) int {
		t := L.CheckTable(1)
		mt := L.Get(2)
		if r.isReadonly(t) {
			roError(L)
		}
		if _, ok := mt.(*lua.LTable); !ok && mt != lua.LNil {
			L.ArgError(2, "nil or table expected")
		}
		if cur := L.GetMetaField(t, "__metatable"); cur != lua.LNil {
			L.RaiseError("cannot change a protected metatable")
		}
		if mt != lua.LNil {
			r.metaSet = true
		}
		L.SetMetatable(t, mt)
		L.Push(t)
		return 1
	})
	next := L.NewFunction(func(L *lua.LState) int {
		t := L.CheckTable(1)
		real := r.real(t).(*lua.LTable)
		key := L.Get(2)
		var k, v lua.LValue
		var ok bool
		if real != t {
			// a readonly view: the library tables, whose order on the
			// server comes from how Redis built them (libtables.go)
			k, v, ok = r.viewNext(real, key)
		} else {
			k, v, ok = r.nextKey(real, key)
		}
		if !ok {
			L.Error(lua.LString("invalid key to 'next'"), 0)
		}
		if k == lua.LNil {
			L.Push(lua.LNil)
			return 1
		}
		L.Push(k)
		L.Push(v)
		return 2
	})
	G.RawSetString("next", next)
	set("pairs", func(L *lua.LState) int {
		t := L.CheckTable(1)
		L.Push(next)
		L.Push(t)
		L.Push(lua.LNil)
		return 3
	})
	set("load", func(L *lua.LState) int {
		fn := L.CheckFunction(1)
		chunkname := optStr(L, 2, "=(load)")
		var b strings.Builder
		built := building{r: r, L: L}
		for {
			L.Push(fn)
			L.Call(0, 1)
			piece := L.Get(-1)
			L.Pop(1)
			if piece == lua.LNil {
				break
			}
			s, ok := piece.(lua.LString)
			if !ok {
				L.Push(lua.LNil)
				L.Push(lua.LString("reader function must return a string"))
				return 2
			}
			if s == "" {
				break
			}
			b.WriteString(string(s))
			built.reached(b.Len())
		}
		built.done(b.Len())
		return r.loadChunk(L, b.String(), chunkname)
	})
	set("loadstring", func(L *lua.LState) int {
		s := checkStr(L, 1)
		return r.loadChunk(L, s, optStr(L, 2, s))
	})
	set("gcinfo", func(L *lua.LState) int {
		L.Push(lua.LNumber(0))
		return 1
	})
}

// rawToString is Lua 5.1's tostring of v without a __tostring metamethod
// (luaL_tolstring's default): numbers as Lua prints them, cjson.null as
// the NULL lightuserdata it is on the servers.
func rawToString(v lua.LValue) string {
	switch x := v.(type) {
	case lua.LNumber:
		return luaNumber(float64(x))
	case *lua.LNilType:
		return "nil"
	}
	if lualib.IsNull(v) {
		return lualib.NullName
	}
	return v.String()
}

// failed is pcall's and xpcall's result for a call that failed: false and
// the error value.
func failed(L *lua.LState, err lua.LValue) int {
	L.Push(lua.LFalse)
	L.Push(err)
	return 2
}
