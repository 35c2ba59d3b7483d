package verify

import (
	"fmt"
	"math"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/scriptctl/scriptctl/verify/lualib"
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
	mth.RawSetString("huge", lua.LNumber(math.Inf(1)))

	tbl.RawSetString("concat", L.NewFunction(func(L *lua.LState) int {
		t := L.CheckTable(1)
		sep := L.OptString(2, "")
		i := L.OptInt(3, 1)
		j := L.OptInt(4, t.Len())
		var b strings.Builder
		for k := i; k <= j; k++ {
			s, ok := concatString(t.RawGetInt(k))
			if !ok {
				L.RaiseError("invalid value (%s) at index %d in table for 'concat'", luaTypeName(t.RawGetInt(k)), k)
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
	wrapArgChecks(str, stringArgs)
	wrapArgChecks(mth, mathArgs)
	wrapArgChecks(tbl, tableArgs)
}

// The arguments library functions require, for Lua 5.1's "got no value"
// error: gopher-lua reads a missing argument as nil and says "got nil".
var (
	stringArgs = map[string][]string{
		"byte": {"string"}, "find": {"string", "string"}, "format": {"string"},
		"gmatch": {"string", "string"}, "gfind": {"string", "string"},
		"gsub": {"string", "string", "string/function/table"}, "len": {"string"},
		"lower": {"string"}, "match": {"string", "string"}, "rep": {"string", "number"},
		"reverse": {"string"}, "sub": {"string", "number"}, "upper": {"string"},
	}
	mathArgs = map[string][]string{
		"abs": {"number"}, "acos": {"number"}, "asin": {"number"}, "atan": {"number"},
		"atan2": {"number", "number"}, "ceil": {"number"}, "cos": {"number"}, "cosh": {"number"},
		"deg": {"number"}, "exp": {"number"}, "floor": {"number"}, "fmod": {"number", "number"},
		"mod": {"number", "number"}, "frexp": {"number"}, "ldexp": {"number", "number"},
		"log": {"number"}, "log10": {"number"}, "max": {"number"}, "min": {"number"},
		"modf": {"number"}, "pow": {"number", "number"}, "rad": {"number"},
		"randomseed": {"number"}, "sin": {"number"}, "sinh": {"number"}, "sqrt": {"number"},
		"tan": {"number"}, "tanh": {"number"},
	}
	tableArgs = map[string][]string{
		"concat": {"table"}, "insert": {"table"}, "remove": {"table"}, "sort": {"table"},
		"getn": {"table"}, "maxn": {"table"}, "foreach": {"table", "function"},
		"foreachi": {"table", "function"},
	}
)

// wrapArgChecks makes the functions of lib raise Lua 5.1's error for a
// missing required argument before running.
func wrapArgChecks(lib *lua.LTable, specs map[string][]string) {
	for name, want := range specs {
		fn, ok := lib.RawGetString(name).(*lua.LFunction)
		if !ok || !fn.IsG {
			continue
		}
		orig, want := fn.GFunction, want
		fn.GFunction = func(L *lua.LState) int {
			top := L.GetTop()
			for i, w := range want {
				n := i + 1
				if n > top {
					if w == "string/function/table" {
						L.ArgError(n, w+" expected")
					}
					L.ArgError(n, w+" expected, got no value")
				}
				v := L.Get(n)
				if !argIs(v, w) {
					if w == "string/function/table" {
						L.ArgError(n, w+" expected")
					}
					L.ArgError(n, fmt.Sprintf("%s expected, got %s", w, luaTypeName(v)))
				}
				// A number where a string is expected converts with
				// %.14g, not gopher-lua's Go formatting.
				if f, isNum := v.(lua.LNumber); isNum && strings.HasPrefix(w, "string") {
					L.Replace(n, lua.LString(luaNumber(float64(f))))
				}
			}
			return orig(L)
		}
	}
}

// argIs is luaL_check*'s acceptance test for a declared argument type.
func argIs(v lua.LValue, want string) bool {
	switch want {
	case "string":
		_, ok := concatString(v)
		return ok
	case "number":
		_, ok := lualib.ToNumber(v)
		return ok
	case "table":
		_, ok := v.(*lua.LTable)
		return ok
	case "function":
		_, ok := v.(*lua.LFunction)
		return ok
	case "string/function/table":
		switch v.(type) {
		case lua.LString, lua.LNumber, *lua.LTable, *lua.LFunction:
			return true
		}
		return false
	}
	return true
}
