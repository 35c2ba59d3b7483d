package verify

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"weak"

	lua "github.com/yuin/gopher-lua"

	"github.com/scriptctl/scriptctl/internal/lazy"
	"github.com/scriptctl/scriptctl/verify/lualib"
)

// Limits of one run.
const (
	registrySize    = 1024 * 8 // initial Lua value stack
	registryMaxSize = 1 << 20  // value stack ceiling (about 16 MB)
	maxStringBytes  = 64 << 20 // largest string a run may build (512 MB in Redis)
	maxReplyDepth   = 1000     // nesting of a returned table
)

// scriptRun is one EVAL or FCALL (or one FUNCTION LOAD) in its own sandbox.
type scriptRun struct {
	e    *Engine
	L    *lua.LState
	ctx  *stepContext // the run's step budget and deadline (limits.go)
	keys map[string]bool
	// slot is the slot a run without allow-cross-slot-keys is held to
	// (the declared keys', else the first key's), -1 before one is
	// fixed; home the slot the node is known to serve (topology.go).
	slot, home  int
	crossSlotOK bool   // EVAL without a shebang, or allow-cross-slot-keys
	readOnly    bool   // EVAL_RO, FCALL_RO, or the no-writes flag
	name        string // "script: <name>" in error replies: the SHA, or the function
	loading     bool   // FUNCTION LOAD: redis.call is not available
	resp3       bool   // redis.setresp(3) in this run (resp3.go)

	globals  *lua.LTable                 // the readonly _G proxy scripts see
	readonly map[*lua.LTable]*lua.LTable // readonly proxy -> the table behind it
	behind   map[*lua.LTable]bool        // the tables behind readonly proxies
	metaView map[*lua.LTable]*lua.LTable // readonly proxy -> what getmetatable gives (else nil)
	proxyMT  map[*lua.LTable]*lua.LTable // readonly proxy -> its metatable
	sources  map[string]string           // short chunk id -> Lua source name
	chunks   map[string]*compiled        // short chunk id -> its compile (error-wording sites)
	cat      *lua.LFunction              // the .. helper (compile.go)
	catLong  *lua.LFunction              // the helper of a long .. chain (compile.go)
	arith    *lua.LFunction              // the % and ^ helper (compile.go)
	forHelp  *lua.LFunction              // the numeric for helper (compile.go)
	tnew     *lua.LFunction              // the constructor helper (tableorder.go)
	del      *lua.LFunction              // the t.k = nil helper (tableorder.go)
	set      *lua.LFunction              // the t[k] = v helper (tableorder.go)
	forVals  [2]lua.LNumber              // its last loop's limit and step
	forNext  int                         // which of forVals it returns next
	runErr   *RunError                   // set once the run cannot be judged
	callInfo int                         // the frames (Lua's call infos) the state has room for (overflow.go)
	grown    bool                        // a stack overflow grew the call infos to callInfoGrown
	ccalls   map[*lua.LState]int         // nested C calls per thread (overflow.go)
	base     *lua.LFunction              // the Go frame a run's function is called from (callBase)
	raised   string                      // the last message error() raised, its position final
	coWorded string                      // the last error a coroutine raised, worded inside it (coroutinePanic)
	coPanic  func(*lua.LState)           // coroutinePanic, made once
	onThread func(*lua.LState)           // hookCoroutine, made once
	broken   bool                        // a run was stopped: the state is not reused
	libs     *lualib.State               // the libraries' Go-side settings
	snap     sandboxSnap                 // the tables as built (sandbox.go)
	// ctors records the shape of each table a constructor built, held
	// weakly, and iters the order next walks for the tables being
	// iterated (tableorder.go).
	tables      map[weak.Pointer[lua.LTable]]*tableInfo
	tableSweep  int
	eventTables int // tables with recorded stores (tableInfo.dels) so far
	iters       map[*lua.LTable]*iterState
	borders     map[*lua.LTable]int          // tableorder.go's border: hole-free prefixes checked
	libIters    map[*lua.LTable][]lua.LValue // the library tables' orders being walked (libtables.go)
	layouts     map[*lua.LTable]*layoutCache // models kept for tables with recorded stores (tableorder.go)
	lenHelp     *lua.LFunction               // the # helper (tableorder.go)
	tailYield   map[*lua.LState]bool         // coroutines a tail-call yield left without a frame (coyield.go)
}

func (r *scriptRun) declared(k string) bool { return r.keys[k] }

// fail records a RunError, with the position of the Lua code that called
// the failing Go function, and unwinds the Lua stack; pcall cannot catch it.
func (r *scriptRun) fail(L *lua.LState, re *RunError) {
	if r.runErr == nil {
		if re.Line == 0 {
			re.Chunk, re.Line = luaPos(L, 1)
		}
		r.runErr = re
	}
	L.RaiseError("%s", re.Msg)
}

// aborting reports whether the run must unwind whatever the script does.
func (r *scriptRun) aborting() bool {
	return r.runErr != nil || r.ctx.Err() != nil
}

// newState builds the sandbox Redis 7.0 gives scripts: the base library
// reduced to Redis's allow-list, string, table, math, coroutine, bit, cjson,
// struct, cmsgpack and redis, every global table readonly, and reading an
// unknown global an error.
func (r *scriptRun) newState() {
	if r.callInfo == 0 {
		r.callInfo = callInfoFresh
	}
	// With frameDepthOK the step counter raises Lua's overflow, and the
	// frames beyond leave the error handlers room; without it gopher-lua's
	// own limit stands for Lua's, and its panic carries the traceback.
	frames := r.callInfo
	if frameDepthOK() {
		frames = callInfoMax + 64
	}
	L := lua.NewState(lua.Options{
		SkipOpenLibs:        true,
		CallStackSize:       frames,
		IncludeGoStackTrace: !frameDepthOK(),

		RegistrySize:        registrySize,
		RegistryGrowStep:    registryGrowStep,
		RegistryMaxSize:     registryMaxSize,
		MinimizeStackMemory: true,
	})
	r.L = L
	r.readonly = map[*lua.LTable]*lua.LTable{}
	r.behind = map[*lua.LTable]bool{}
	r.metaView = map[*lua.LTable]*lua.LTable{}
	r.proxyMT = map[*lua.LTable]*lua.LTable{}
	r.sources = map[string]string{"user_script": "@user_script", "user_function": "@user_function"}
	r.chunks = map[string]*compiled{}
	for _, lib := range []struct {
		name string
		open lua.LGFunction
	}{
		{lua.BaseLibName, lua.OpenBase},
		{lua.TabLibName, lua.OpenTable},
		{lua.StringLibName, lua.OpenString},
		{lua.MathLibName, lua.OpenMath},
		{lua.CoroutineLibName, lua.OpenCoroutine},
	} {
		L.Push(L.NewFunction(lib.open))
		L.Push(lua.LString(lib.name))
		L.Call(1, 0)
	}
	r.libs = lualib.OpenWith(L, lualib.Options{Keys: r.tableKeys, View: r.realTable, CmsgpackCopyright: r.e.t.cmsgpackCopyright, Unsupported: func(L *lua.LState, msg string) {
		r.fail(L, notImplemented("%s", msg))
	}})
	G := L.G.Global

	// Base functions: Redis 7.0's set, nothing more.
	keep := map[string]bool{
		"assert": true, "collectgarbage": true, "error": true, "getmetatable": true,
		"ipairs": true, "load": true, "loadstring": true, "next": true, "pairs": true,
		"pcall": true, "rawequal": true, "rawget": true, "rawset": true, "select": true,
		"setmetatable": true, "tonumber": true, "tostring": true, "type": true,
		"unpack": true, "xpcall": true, "_G": true, "_VERSION": true,
		"string": true, "table": true, "math": true, "coroutine": true,
		"bit": true, "cjson": true, "struct": true, "cmsgpack": true,
	}
	var drop []lua.LValue
	G.ForEach(func(k, _ lua.LValue) {
		if s, ok := k.(lua.LString); !ok || !keep[string(s)] {
			drop = append(drop, k)
		}
	})
	for _, k := range drop {
		G.RawSet(k, lua.LNil)
	}
	G.RawSetString("_VERSION", lua.LString("Lua 5.1"))
	r.installBase(G)
	r.installLibs(G)
	co := G.RawGetString("coroutine").(*lua.LTable)
	for _, name := range []string{"create", "wrap"} {
		fn := co.RawGetString(name).(*lua.LFunction).GFunction
		co.RawSetString(name, L.NewFunction(func(L *lua.LState) int {
			if f, ok := L.Get(1).(*lua.LFunction); !ok || f.IsG {
				L.ArgError(1, "Lua function expected")
			}
			return fn(L)
		}))
	}
	yield := co.RawGetString("yield").(*lua.LFunction).GFunction
	co.RawSetString("yield", L.NewFunction(func(L *lua.LState) int {
		if yieldAcrossC(L) {
			L.Error(lua.LString("attempt to yield across metamethod/C-call boundary"), 0)
		}
		return yield(L)
	}))
	if r.e.t.osClock {
		G.RawSetString("os", osTable(L))
	}
	G.RawSetString("redis", r.redisTable())
	errHandler := L.NewFunction(func(L *lua.LState) int {
		L.Push(L.Get(1))
		return 1
	})
	G.RawSetString("__redis__err__handler", errHandler)
	if r.e.t.serverErrHandler {
		G.RawSetString("__server__err__handler", errHandler)
	}

	// Global protection: scripts see a proxy of _G whose reads fall through
	// to the real table and whose writes fail; the real table errors on a
	// missing name.
	gmt := L.NewTable()
	gmt.RawSetString("__index", L.NewFunction(func(L *lua.LState) int {
		k := L.Get(2)
		switch k.(type) {
		case lua.LString, lua.LNumber:
			L.RaiseError("Script attempted to access nonexistent global variable '%s'", luaToString(k))
		default:
			L.RaiseError("Second argument to luaProtectedTableError must be a string or number")
		}
		return 0
	}))
	L.SetMetatable(G, gmt)
	gmtView := r.readonlyProxy(gmt)
	for _, lib := range []string{"string", "table", "math", "coroutine", "bit", "cjson", "struct", "cmsgpack", "redis", "os"} {
		if t, ok := G.RawGetString(lib).(*lua.LTable); ok {
			G.RawSetString(lib, r.readonlyProxy(t))
		}
	}
	if r.e.t.serverGlobal {
		// Valkey 8: `server` is the very table `redis` is.
		G.RawSetString("server", G.RawGetString("redis"))
	}
	// Strings' metatable {__index = string}: gopher-lua reads it raw, so it
	// is a plain table; getmetatable('') returns a readonly view of it.
	smt := L.NewTable()
	smt.RawSetString("__index", G.RawGetString("string"))
	view := L.NewTable()
	view.RawSetString("__index", G.RawGetString("string"))
	smt.RawSetString("__metatable", r.readonlyProxy(view))
	L.SetMetatable(lua.LString(""), smt)
	r.globals = r.readonlyProxy(G)
	// getmetatable(_G) is _G's own metatable, readonly; a library
	// table has none.
	r.metaView[r.globals] = gmtView
	G.RawSetString("_G", r.globals)
	r.cat = L.NewFunction(r.concat)
	G.RawSetString(catName, r.cat)
	r.arith = L.NewFunction(r.arithOp)
	G.RawSetString(arithName, r.arith)
	r.forHelp = L.NewFunction(r.numericFor)
	r.base = L.NewFunction(callBase)
	G.RawSetString(forName, r.forHelp)
	r.tnew = L.NewFunction(r.tableNew)
	G.RawSetString(tnewName, r.tnew)
	r.del = L.NewFunction(r.tableDel)
	G.RawSetString(delName, r.del)
	r.set = L.NewFunction(r.tableSet)
	G.RawSetString(setName, r.set)
	r.lenHelp = L.NewFunction(r.lenOp)
	G.RawSetString(lenName, r.lenHelp)
	r.catLong = L.NewFunction(r.concatChain)
	G.RawSetString(catChainName, r.catLong)
}

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

// luaToString is lua_tostring for a string or number: numbers as %.14g.
func luaToString(v lua.LValue) string {
	if n, ok := v.(lua.LNumber); ok {
		return luaNumber(float64(n))
	}
	return lua.LVAsString(v)
}

var badArgRE = lazy.Regexp(`bad argument #(\d+) to ([^ ('"]+) \(`)

// luaMessage turns a gopher-lua error text into Lua 5.1's wording where
// they differ mechanically.
func luaMessage(s string) string {
	if strings.Contains(s, "bad argument #") {
		s = strings.Replace(s, " to (anonymous) (", " to '?' (", 1)
		s = badArgRE().ReplaceAllString(s, "bad argument #$1 to '$2' (")
	}
	return s
}

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
		switch x := v.(type) {
		case lua.LNumber:
			L.Push(lua.LString(luaNumber(float64(x))))
		case *lua.LNilType:
			L.Push(lua.LString("nil"))
		default:
			L.Push(lua.LString(v.String()))
		}
		return 1
	})
	set("pcall", func(L *lua.LState) int {
		// Redis's pcall calls its first argument (a boolean placeholder
		// when there is none) and answers false with Lua's message when it
		// cannot be called.
		if L.GetTop() == 0 {
			L.Push(lua.LFalse)
			L.Push(lua.LString("attempt to call a boolean value"))
			return 2
		}
		if !callable(L, L.Get(1)) {
			L.Push(lua.LFalse)
			L.Push(lua.LString("attempt to call a " + luaTypeName(L.Get(1)) + " value"))
			return 2
		}
		if !r.enterC(L) {
			L.Push(lua.LFalse)
			L.Push(lua.LString("C stack overflow"))
			return 2
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
				L.Push(lua.LFalse)
				L.Push(lua.LString(msg))
				return 2
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
			L.Push(lua.LFalse)
			L.Push(obj)
			return 2
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
			L.Push(lua.LFalse)
			L.Push(r.xpcallHandler(L, handler, msg))
			return 2
		}
		if !r.enterC(L) {
			L.Push(lua.LFalse)
			L.Push(lua.LString("C stack overflow"))
			return 2
		}
		defer r.leaveC(L)
		top := L.GetTop()
		L.Push(fn)
		err := L.PCall(0, lua.MultRet, r.xpcallFrame(L, handler))
		if err != nil {
			r.restoreStackLimit(L)
			if msg, _, _, ok := callStackOverflow(err); ok {
				r.overflowed(L)
				L.Push(lua.LFalse)
				L.Push(r.xpcallHandler(L, handler, lua.LString(msg)))
				return 2
			}
			r.rethrow(L, err)
			L.Push(lua.LFalse)
			L.Push(errorObject(err))
			return 2
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
		L.SetMetatable(t, mt)
		L.Push(t)
		return 1
	})
	next := L.NewFunction(func(L *lua.LState) int {
		t := L.CheckTable(1)
		real := r.real(t).(*lua.LTable)
		key := L.Get(2)
		if real != t {
			// a readonly view: the library tables, whose order on the
			// server comes from how Redis built them (libtables.go)
			k, v, ok := r.viewNext(real, key)
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
		}
		k, v, ok := r.nextKey(real, key)
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
			if b.Len() > maxStringBytes {
				r.fail(L, &RunError{Code: CodeMemory, Msg: "load: chunk larger than the offline limit"})
			}
		}
		r.grow(L, b.Len())
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

// loadChunk compiles s for loadstring/load: the function, or nil and the
// error message.
func (r *scriptRun) loadChunk(L *lua.LState, s, chunkname string) int {
	c := compileCached([]byte(s), chunkname)
	if err := c.err; err != nil {
		if _, exact := err.(*syntaxError); !exact {
			r.warn("loadstring compile error text is approximated: %s", err)
		}
		L.Push(lua.LNil)
		L.Push(lua.LString(err.Error()))
		return 2
	}
	r.sources[chunkID(chunkname)] = chunkname
	r.chunks[chunkID(chunkname)] = c
	L.Push(r.instantiate(L, c.proto))
	return 1
}

// instantiate makes the function of a compiled chunk, whose globals are the
// readonly _G.
func (r *scriptRun) instantiate(L *lua.LState, proto *lua.FunctionProto) *lua.LFunction {
	fn := L.NewFunctionFromProto(proto)
	fn.Env = r.globals
	return fn
}

// rethrow re-raises an error pcall must not swallow: a RunError, the run's
// step budget or deadline, or a value stack past the offline limit.
func (r *scriptRun) rethrow(L *lua.LState, err error) {
	if r.runErr == nil {
		if isStackOverflow(err) {
			r.runErr = &RunError{Code: CodeStackOverflow, Msg: "stack overflow: the Lua value stack exceeded the offline limit"}
		}
	}
	if r.aborting() {
		L.Error(errorObject(err), 0)
	}
}

// isStackOverflow reports gopher-lua's value stack overflow (Lua 5.1 has
// no such limit short of memory).
func isStackOverflow(err error) bool {
	return strings.Contains(err.Error(), "registry overflow")
}

// errorObject is the Lua value an error carries.
func errorObject(err error) lua.LValue {
	var ae *lua.ApiError
	if errors.As(err, &ae) && ae.Object != nil {
		if s, ok := ae.Object.(lua.LString); ok {
			return lua.LString(luaMessage(string(s)))
		}
		return ae.Object
	}
	return lua.LString(err.Error())
}

// luaWhere is luaL_where: "chunk:line: " for a Lua function at level (1 is
// the function calling the Go function), "" for a Go function or none.
func luaWhere(L *lua.LState, level int) string {
	dbg, ok := L.GetStack(level)
	if !ok {
		return ""
	}
	if _, err := L.GetInfo("Sl", dbg, lua.LNil); err != nil {
		return ""
	}
	if dbg.CurrentLine <= 0 {
		return ""
	}
	return fmt.Sprintf("%s:%d: ", dbg.Source, dbg.CurrentLine)
}

// luaPos is the chunk and line of the Lua function at level, as luaWhere
// prints them; "" and 0 for a Go function or none.
func luaPos(L *lua.LState, level int) (string, int) {
	dbg, ok := L.GetStack(level)
	if !ok {
		return "", 0
	}
	if _, err := L.GetInfo("Sl", dbg, lua.LNil); err != nil || dbg.CurrentLine <= 0 {
		return "", 0
	}
	return dbg.Source, dbg.CurrentLine
}

// concat is the .. operator (see compile): numbers as %.14g, then __concat,
// then Lua 5.1's error naming the operand.
func (r *scriptRun) concat(L *lua.LState) int {
	L.Push(r.concatPair(L, L.Get(1), L.Get(2), L.Get(3), L.Get(4)))
	return 1
}

// concatChain is the helper of a long chain x1 .. x2 .. ... .. xn
// (rewriter.longConcat): its operands, evaluated left to right, in a
// table's positions 1 to n, and the chain's operand names, each ended by a
// NUL byte. It concatenates right to left as the nested helpers of a short
// chain do, cat(x1, cat(x2, ... cat(xn-1, xn))), naming an operand only
// where they would: every operand on its left, only the last on its right.
func (r *scriptRun) concatChain(L *lua.LState) int {
	t := L.CheckTable(1)
	names := strings.Split(L.CheckString(2), "\x00")
	n := len(names) - 1
	acc, accName := t.RawGetInt(n), lua.LValue(lua.LString(names[n-1]))
	for i := n - 1; i >= 1; i-- {
		acc = r.concatPair(L, t.RawGetInt(i), acc, lua.LString(names[i-1]), accName)
		accName = lua.LString("")
	}
	L.Push(acc)
	return 1
}

// concatPair is Lua 5.1's a .. b: strings and numbers (%.14g) joined, else
// the __concat metamethod, else the error naming the operand (an, bn: how
// Lua names a and b, or "").
func (r *scriptRun) concatPair(L *lua.LState, a, b, an, bn lua.LValue) lua.LValue {
	as, aok := concatString(a)
	bs, bok := concatString(b)
	if aok && bok {
		if len(as)+len(bs) > maxStringBytes {
			r.fail(L, &RunError{Code: CodeMemory, Msg: fmt.Sprintf("string of %d bytes exceeds the offline limit of %d", len(as)+len(bs), maxStringBytes)})
		}
		r.grow(L, len(as)+len(bs))
		return lua.LString(as + bs)
	}
	if callMeta(L, a, b, "__concat") {
		v := L.Get(-1)
		L.Pop(1)
		return v
	}
	bad, info := a, an
	if aok {
		bad, info = b, bn
	}
	if s, _ := info.(lua.LString); s != "" {
		L.RaiseError("attempt to concatenate %s (a %s value)", s, bad.Type().String())
	}
	L.RaiseError("attempt to concatenate a %s value", bad.Type().String())
	return lua.LNil
}

func concatString(v lua.LValue) (string, bool) {
	switch x := v.(type) {
	case lua.LString:
		return string(x), true
	case lua.LNumber:
		return luaNumber(float64(x)), true
	}
	return "", false
}

// rewordHandler is the message handler of pcall: it words gopher-lua's
// runtime errors like Lua 5.1 while the failing frame is still there.
func (r *scriptRun) rewordHandler(L *lua.LState) int {
	obj := L.Get(1)
	if s, ok := obj.(lua.LString); ok {
		msg, exact := r.reword(L, string(s), 1)
		if !exact {
			r.warn("error text approximated (gopher-lua wording): %s", msg)
		}
		obj = lua.LString(msg)
	}
	L.Push(obj)
	return 1
}

// warn records an approximation the run could not avoid, once.
func (r *scriptRun) warn(format string, args ...any) { r.e.warn(format, args...) }

// warn records an approximation the engine could not avoid, once: commands
// call it when their reply depends on an order Redis does not fix (a
// hashtable's iteration order, which depends on a seed chosen at server
// start).
func (e *Engine) warn(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	for _, w := range e.warnings {
		if w == msg {
			return
		}
	}
	e.warnings = append(e.warnings, msg)
}

// noteHashOrder warns when a script starts iterating a table with two or
// more keys outside its array part: gopher-lua visits them in insertion
// order, Lua 5.1 in its hash-node order, so the order may differ.
func (r *scriptRun) noteHashOrder(t *lua.LTable) {
	n := t.Len()
	hashKeys := 0
	t.ForEach(func(k, _ lua.LValue) {
		if f, ok := k.(lua.LNumber); ok && float64(f) == float64(int(f)) && int(f) >= 1 && int(f) <= n {
			return
		}
		hashKeys++
	})
	if hashKeys >= 2 {
		r.warn("pairs/next over a table with %d hash keys: the iteration order follows insertion, Redis's Lua 5.1 order may differ", hashKeys)
	}
}

// callable reports whether v can be called: a function, or a value whose
// metatable has __call.
func callable(L *lua.LState, v lua.LValue) bool {
	if _, ok := v.(*lua.LFunction); ok {
		return true
	}
	return L.GetMetaField(v, "__call") != lua.LNil
}

// isHidden reports a key of the engine's hidden globals (a NUL first byte).
func isHidden(k lua.LValue) bool {
	s, ok := k.(lua.LString)
	return ok && len(s) > 0 && s[0] == 0
}

// numericFor is the hidden helper of a numeric for's header (see
// rewriter.numericFor). Called with the initial value, limit and step, it
// converts them like Lua 5.1's OP_FORPREP, raising its errors in its order,
// keeps the limit and step, and returns the initial value; called with no
// arguments, it returns the kept limit, then the step.
func (r *scriptRun) numericFor(L *lua.LState) int {
	if L.GetTop() == 0 {
		L.Push(r.forVals[r.forNext&1])
		r.forNext++
		return 1
	}
	var v [3]float64
	for i, what := range [...]string{"initial value", "limit", "step"} {
		f, ok := lualib.ToNumber(L.Get(i + 1))
		if !ok {
			L.RaiseError("'for' %s must be a number", what)
		}
		v[i] = f
	}
	r.forVals, r.forNext = [2]lua.LNumber{lua.LNumber(v[1]), lua.LNumber(v[2])}, 0
	L.Push(lua.LNumber(v[0]))
	return 1
}

// arithOp is % and ^ as Lua 5.1 computes them: a - floor(a/b)*b and C's
// pow, strings converted like Lua, then __mod/__pow, then Lua's error.
func (r *scriptRun) arithOp(L *lua.LState) int {
	op := L.CheckString(1)
	a, b := L.Get(2), L.Get(3)
	x, aok := lualib.ToNumber(a)
	y, bok := lualib.ToNumber(b)
	if aok && bok {
		var v float64
		switch op {
		case "%":
			v = x - math.Floor(x/y)*y
		case "^":
			v = cPow(x, y)
		case "+": // numerals Lua 5.1 does not fold (compile.go's unfolded)
			v = x + y
		case "-":
			v = x - y
		case "*":
			v = x * y
		default:
			v = x / y
		}
		L.Push(lua.LNumber(v))
		return 1
	}
	event := "__mod"
	if op == "^" {
		event = "__pow"
	}
	if callMeta(L, a, b, event) {
		return 1
	}
	bad, info := b, L.Get(5)
	if !aok {
		bad, info = a, L.Get(4)
	}
	if s, _ := info.(lua.LString); s != "" {
		L.RaiseError("attempt to perform arithmetic on %s (a %s value)", s, luaTypeName(bad))
	}
	L.RaiseError("attempt to perform arithmetic on a %s value", luaTypeName(bad))
	return 0
}

// callMeta calls the binary metamethod event of a, else of b, as Lua 5.1
// does, and leaves its one result on the stack; false when neither has it.
func callMeta(L *lua.LState, a, b lua.LValue, event string) bool {
	mm := L.GetMetaField(a, event)
	if mm == lua.LNil {
		mm = L.GetMetaField(b, event)
	}
	if mm == lua.LNil {
		return false
	}
	if !callable(L, mm) {
		// Lua 5.1 calls any metamethod that is not nil (callTMres)
		L.RaiseError("attempt to call a %s value", luaTypeName(mm))
	}
	L.Push(mm)
	L.Push(a)
	L.Push(b)
	L.Call(2, 1)
	return true
}
