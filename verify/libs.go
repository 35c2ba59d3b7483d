package verify

import (
	"fmt"
	"strings"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/scriptctl/scriptctl/internal/lazy"
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
	str.RawSetString("find", L.NewFunction(func(L *lua.LState) int { return r.strFindAux(L, true) }))
	str.RawSetString("match", L.NewFunction(func(L *lua.LState) int { return r.strFindAux(L, false) }))
	str.RawSetString("gmatch", L.NewFunction(r.strGmatch))
	str.RawSetString("gfind", L.NewFunction(r.strGmatch))
	str.RawSetString("gsub", L.NewFunction(r.strGsub))
	str.RawSetString("dump", L.NewFunction(r.strDump)) // dump51.go
	// Byte-wise, like C's tolower/toupper in the "C" locale; gopher-lua's
	// versions decode UTF-8 and replace invalid bytes.
	byteMap := func(f func(byte) byte) lua.LGFunction {
		return func(L *lua.LState) int {
			b := []byte(L.CheckString(1))
			for i, c := range b {
				b[i] = f(c)
			}
			L.Push(lua.LString(b))
			return 1
		}
	}
	str.RawSetString("lower", L.NewFunction(byteMap(func(c byte) byte {
		if c >= 'A' && c <= 'Z' {
			return c + 32
		}
		return c
	})))
	str.RawSetString("upper", L.NewFunction(byteMap(func(c byte) byte {
		if c >= 'a' && c <= 'z' {
			return c - 32
		}
		return c
	})))
	str.RawSetString("reverse", L.NewFunction(func(L *lua.LState) int {
		b := []byte(L.CheckString(1))
		for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
			b[i], b[j] = b[j], b[i]
		}
		L.Push(lua.LString(b))
		return 1
	}))
	tbl.RawSetString("sort", L.NewFunction(r.tableSort))
	tbl.RawSetString("setn", L.NewFunction(func(L *lua.LState) int {
		L.RaiseError("'setn' is obsolete")
		return 0
	}))
	tbl.RawSetString("getn", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LNumber(r.border(L.CheckTable(1))))
		return 1
	}))
	tbl.RawSetString("foreach", L.NewFunction(func(L *lua.LState) int {
		t := L.CheckTable(1)
		f := L.CheckFunction(2)
		k, v, _ := r.nextKey(t, lua.LNil)
		for k != lua.LNil {
			L.Push(f)
			L.Push(k)
			L.Push(v)
			L.Call(2, 1)
			if res := L.Get(-1); res != lua.LNil {
				return 1
			}
			L.Pop(1)
			var ok bool
			if k, v, ok = r.nextKey(t, k); !ok {
				L.RaiseError("invalid key to 'next'")
			}
		}
		return 0
	}))
	tbl.RawSetString("foreachi", L.NewFunction(func(L *lua.LState) int {
		t := L.CheckTable(1)
		f := L.CheckFunction(2)
		n := r.border(t)
		for i := 1; i <= n; i++ {
			L.Push(f)
			L.Push(lua.LNumber(i))
			L.Push(lualib.RawGetInt(t, i))
			L.Call(2, 1)
			if res := L.Get(-1); res != lua.LNil {
				return 1
			}
			L.Pop(1)
		}
		return 0
	}))
	co := G.RawGetString("coroutine").(*lua.LTable)
	resume := co.RawGetString("resume").(*lua.LFunction).GFunction
	co.RawSetString("resume", L.NewFunction(func(L *lua.LState) int {
		th, ok := L.Get(1).(*lua.LState)
		if !ok {
			L.ArgError(1, "coroutine expected")
		}
		if st := L.Status(th); st != "suspended" {
			L.Push(lua.LFalse)
			L.Push(lua.LString("cannot resume " + st + " coroutine"))
			return 2
		}
		// The coroutine counts its steps in the run's budget.
		if c := L.Context(); c != nil && th.Context() != c {
			th.SetContext(c)
		}
		if n, ok := r.resumeTailYield(L, th); ok {
			return n
		}
		top := L.GetTop()
		n := resume(L)
		if n > 0 && L.Get(-n) == lua.LTrue {
			r.noteTailYield(th)
		}
		// An error inside the coroutine: its stack is gone, so word it
		// from the failing line's operations alone.
		if n == 2 && L.Get(top+1) == lua.LFalse {
			if msg, ok := L.Get(-1).(lua.LString); ok && (r.coWorded == "" || string(msg) != r.coWorded) {
				out, exact := r.reword(L, string(msg), -1)
				if !exact {
					r.warn("error text approximated (gopher-lua wording): %s", out)
				}
				L.Pop(1)
				L.Push(lua.LString(out))
			}
		}
		return n
	}))
	resumeFn := co.RawGetString("resume").(*lua.LFunction).GFunction
	create := co.RawGetString("create").(*lua.LFunction).GFunction
	co.RawSetString("wrap", L.NewFunction(func(L *lua.LState) int {
		L.CheckFunction(1)
		create(L)
		th := L.Get(-1)
		L.Pop(1)
		L.Push(L.NewFunction(func(L *lua.LState) int {
			L.Insert(th, 1)
			n := resumeFn(L)
			if L.Get(-n) == lua.LFalse {
				// auxwrap: the error again, a string prefixed with the
				// caller's position.
				obj := L.Get(-n + 1)
				if s, ok := obj.(lua.LString); ok {
					// its position is final (see reword)
					r.raised = luaWhere(L, 1) + string(s)
					L.Error(lua.LString(r.raised), 0)
				}
				L.Error(obj, 0)
			}
			return n - 1
		}))
		return 1
	}))
	yield := co.RawGetString("yield").(*lua.LFunction).GFunction
	co.RawSetString("yield", L.NewFunction(func(L *lua.LState) int {
		if L == L.G.MainThread {
			L.Error(lua.LString("attempt to yield across metamethod/C-call boundary"), 0)
		}
		return yield(L)
	}))
	co.RawSetString("status", L.NewFunction(func(L *lua.LState) int {
		th, ok := L.Get(1).(*lua.LState)
		if !ok {
			L.ArgError(1, "coroutine expected")
		}
		L.Push(lua.LString(L.Status(th)))
		return 1
	}))

	r.installLib51(G)
	wrapArgChecks(str, stringArgs.Get())
	wrapArgChecks(mth, mathArgs.Get())
	wrapArgChecks(tbl, tableArgs.Get())
}

// The arguments library functions require, for Lua 5.1's "got no value"
// error: gopher-lua reads a missing argument as nil and says "got nil".
var (
	stringArgs = lazy.Value[map[string][]string]{New: func() map[string][]string {
		return map[string][]string{
			"byte": {"string"}, "find": {"string", "string"}, "format": {"string"},
			"gmatch": {"string", "string"}, "gfind": {"string", "string"},
			"gsub": {"string", "string", "string/function/table"}, "len": {"string"},
			"lower": {"string"}, "match": {"string", "string"}, "rep": {"string", "number"},
			"reverse": {"string"}, "sub": {"string", "number"}, "upper": {"string"},
		}
	}}
	mathArgs = lazy.Value[map[string][]string]{New: func() map[string][]string {
		return map[string][]string{
			"abs": {"number"}, "acos": {"number"}, "asin": {"number"}, "atan": {"number"},
			"atan2": {"number", "number"}, "ceil": {"number"}, "cos": {"number"}, "cosh": {"number"},
			"deg": {"number"}, "exp": {"number"}, "floor": {"number"}, "fmod": {"number", "number"},
			"mod": {"number", "number"}, "frexp": {"number"}, "ldexp": {"number", "number"},
			"log": {"number"}, "log10": {"number"}, "max": {"number"}, "min": {"number"},
			"modf": {"number"}, "pow": {"number", "number"}, "rad": {"number"},
			"randomseed": {"number"}, "sin": {"number"}, "sinh": {"number"}, "sqrt": {"number"},
			"tan": {"number"}, "tanh": {"number"},
		}
	}}
	tableArgs = lazy.Value[map[string][]string]{New: func() map[string][]string {
		return map[string][]string{
			"insert": {"table"}, "remove": {"table"}, "sort": {"table"},
			"getn": {"table"}, "maxn": {"table"}, "foreach": {"table", "function"},
			"foreachi": {"table", "function"},
		}
	}}
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

// processStart stands for the server's start: os.clock counts from it.
var processStart = time.Now()

// osTable is the sandboxed os library of Redis 7.4 and Valkey 8.0
// (loslib.c's sandbox_syslib): os.clock only, the processor time the
// server has used in seconds. Offline it is the time since the engine's
// process started: a number that only grows, as a script can observe.
func osTable(L *lua.LState) *lua.LTable {
	t := L.NewTable()
	t.RawSetString("clock", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LNumber(time.Since(processStart).Seconds()))
		return 1
	}))
	return t
}

// tableSort is Lua 5.1's table.sort (ltablib.c sort): luaSort over the
// table's raw array up to #t, comparing with the function given or with
// lua_lessthan. A readonly table refuses the first write, as Redis's
// patched lua_rawseti does, so sorting one that needs no write succeeds.
func (r *scriptRun) tableSort(L *lua.LState) int {
	t := L.CheckTable(1)
	real := r.real(t).(*lua.LTable)
	ro := real != t
	n := r.border(real)
	cmp := L.Get(2)
	if cmp != lua.LNil {
		if _, ok := cmp.(*lua.LFunction); !ok {
			L.ArgError(2, "function expected, got "+luaTypeName(cmp))
		}
	}
	get := func(i int) lua.LValue { return lualib.RawGetInt(real, i) }
	set := func(i int, v lua.LValue) {
		if ro {
			roError(L)
		}
		real.RawSetInt(i, v)
	}
	less := func(a, b lua.LValue) bool { return luaLessThan(L, a, b) }
	if cmp != lua.LNil {
		less = func(a, b lua.LValue) bool { return callBool(L, cmp, a, b) }
	}
	if err := luaSort(n, get, set, less); err != nil {
		// luaL_error: the position of the code that called table.sort.
		L.Error(lua.LString(luaWhere(L, 1)+err.Error()), 0)
	}
	return 0
}

// callBool calls fn(a, b) and reads its first result as a condition.
func callBool(L *lua.LState, fn, a, b lua.LValue) bool {
	L.Push(fn)
	L.Push(a)
	L.Push(b)
	L.Call(2, 1)
	res := lua.LVAsBool(L.Get(-1))
	L.Pop(1)
	return res
}

// luaLessThan is Lua 5.1's lua_lessthan (lvm.c luaV_lessthan): numbers,
// strings byte-wise (strcoll in the C locale), otherwise an __lt
// metamethod both operands share; anything else is luaG_ordererror,
// raised without a position as from C.
func luaLessThan(L *lua.LState, a, b lua.LValue) bool {
	if a.Type() == b.Type() {
		switch x := a.(type) {
		case lua.LNumber:
			return x < b.(lua.LNumber)
		case lua.LString:
			return x < b.(lua.LString)
		}
		if mm := L.GetMetaField(a, "__lt"); mm != lua.LNil && mm == L.GetMetaField(b, "__lt") {
			return callBool(L, mm, a, b)
		}
	}
	L.Error(lua.LString(orderError(a, b)), 0)
	return false
}

// orderError is luaG_ordererror's text. Lua compares the type names' third
// letters to tell "two X values" from "X with Y", so a thread and a string
// are "two thread values".
func orderError(a, b lua.LValue) string {
	t1, t2 := luaTypeName(a), luaTypeName(b)
	if len(t1) > 2 && len(t2) > 2 && t1[2] == t2[2] {
		return "attempt to compare two " + t1 + " values"
	}
	return "attempt to compare " + t1 + " with " + t2
}
