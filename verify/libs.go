package verify

import (
	"math"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// rand48 is Redis's redisLrand48 (deps/lua: rand48.c), the generator behind
// math.random: a 48-bit LCG that starts, like a fresh server, at the
// default state and is never reseeded between scripts.
type rand48 struct{ x uint64 }

// rand48Init is the generator's state before any srand48.
const rand48Init = 0x1234ABCD330E

// seed is redisSrand48.
func (r *rand48) seed(s int32) { r.x = uint64(uint32(s))<<16 | 0x330E }

func (r *rand48) next() int32 {
	r.x = (0x5DEECE66D*r.x + 0xB) & (1<<48 - 1)
	return int32(r.x >> 17)
}

// installLibs fixes the library functions whose gopher-lua behaviour differs
// from Lua 5.1 as Redis ships it, and adds the Lua 5.1 functions gopher-lua
// lacks.
func (r *scriptRun) installLibs(G *lua.LTable) {
	L := r.L
	str := G.RawGetString("string").(*lua.LTable)
	mth := G.RawGetString("math").(*lua.LTable)
	tbl := G.RawGetString("table").(*lua.LTable)

	// gopher-lua uses the string table as the strings' metatable; Lua 5.1
	// has a separate metatable {__index = string} (set in newState, once the
	// string table is readonly).
	str.RawSetString("__index", lua.LNil)
	str.RawSetString("format", L.NewFunction(strFormat))
	if gm := str.RawGetString("gmatch"); gm != lua.LNil {
		str.RawSetString("gfind", gm)
	}
	str.RawSetString("dump", L.NewFunction(func(L *lua.LState) int {
		L.CheckFunction(1)
		L.RaiseError("unable to dump given function")
		return 0
	}))
	rep := str.RawGetString("rep").(*lua.LFunction)
	str.RawSetString("rep", L.NewFunction(func(L *lua.LState) int {
		s := L.CheckString(1)
		n := L.CheckInt(2)
		if n > 0 && int64(len(s))*int64(n) > maxStringBytes {
			r.fail(L, &RunError{Code: CodeMemory, Msg: "string.rep result exceeds the offline limit of 64 MB"})
		}
		L.Push(rep)
		L.Push(lua.LString(s))
		L.Push(lua.LNumber(n))
		L.Call(2, 1)
		return 1
	}))

	e := r.e
	mth.RawSetString("random", L.NewFunction(func(L *lua.LState) int {
		rv := float64(e.rand.next()%math.MaxInt32) / float64(math.MaxInt32)
		switch L.GetTop() {
		case 0:
			L.Push(lua.LNumber(rv))
		case 1:
			u := L.CheckInt(1)
			if u < 1 {
				L.ArgError(1, "interval is empty")
			}
			L.Push(lua.LNumber(math.Floor(rv*float64(u)) + 1))
		case 2:
			l := L.CheckInt(1)
			u := L.CheckInt(2)
			if l > u {
				L.ArgError(2, "interval is empty")
			}
			L.Push(lua.LNumber(math.Floor(rv*float64(u-l+1)) + float64(l)))
		default:
			L.RaiseError("wrong number of arguments")
		}
		return 1
	}))
	mth.RawSetString("randomseed", L.NewFunction(func(L *lua.LState) int {
		e.rand.seed(int32(L.CheckInt(1)))
		return 0
	}))
	mth.RawSetString("mod", mth.RawGetString("fmod"))

	tbl.RawSetString("concat", L.NewFunction(func(L *lua.LState) int {
		t := L.CheckTable(1)
		sep := L.OptString(2, "")
		i := L.OptInt(3, 1)
		j := L.OptInt(4, t.Len())
		var b strings.Builder
		for k := i; k <= j; k++ {
			s, ok := concatString(t.RawGetInt(k))
			if !ok {
				L.RaiseError("invalid value (at index %d) in table for 'concat'", k)
			}
			b.WriteString(s)
			if k < j {
				b.WriteString(sep)
			}
			if b.Len() > maxStringBytes {
				r.fail(L, &RunError{Code: CodeMemory, Msg: "table.concat result exceeds the offline limit of 64 MB"})
			}
		}
		L.Push(lua.LString(b.String()))
		return 1
	}))
	for _, name := range []string{"insert", "remove", "sort"} {
		orig := tbl.RawGetString(name).(*lua.LFunction)
		tbl.RawSetString(name, L.NewFunction(func(L *lua.LState) int {
			if r.isReadonly(L.Get(1)) {
				roError(L)
			}
			top := L.GetTop()
			L.Push(orig)
			for i := 1; i <= top; i++ {
				L.Push(L.Get(i))
			}
			L.Call(top, lua.MultRet)
			return L.GetTop() - top
		}))
	}
	tbl.RawSetString("setn", L.NewFunction(func(L *lua.LState) int {
		L.RaiseError("'setn' is obsolete")
		return 0
	}))
	tbl.RawSetString("foreach", L.NewFunction(func(L *lua.LState) int {
		t := L.CheckTable(1)
		f := L.CheckFunction(2)
		k, v := t.Next(lua.LNil)
		for k != lua.LNil {
			L.Push(f)
			L.Push(k)
			L.Push(v)
			L.Call(2, 1)
			if res := L.Get(-1); res != lua.LNil {
				return 1
			}
			L.Pop(1)
			k, v = t.Next(k)
		}
		return 0
	}))
	tbl.RawSetString("foreachi", L.NewFunction(func(L *lua.LState) int {
		t := L.CheckTable(1)
		f := L.CheckFunction(2)
		n := t.Len()
		for i := 1; i <= n; i++ {
			L.Push(f)
			L.Push(lua.LNumber(i))
			L.Push(t.RawGetInt(i))
			L.Call(2, 1)
			if res := L.Get(-1); res != lua.LNil {
				return 1
			}
			L.Pop(1)
		}
		return 0
	}))
}
