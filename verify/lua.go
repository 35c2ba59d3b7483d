package verify

import (
	"fmt"
	"weak"

	lua "github.com/yuin/gopher-lua"

	"github.com/scriptctl/scriptctl/verify/lualib"
)

// Limits of one run.
const (
	registrySize    = 1024 * 8 // initial Lua value stack
	registryMaxSize = 1 << 20  // value stack ceiling (about 16 MB)
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
	metaSet  bool                        // a metatable was set in the state: sweepWeak has work
	readonly map[*lua.LTable]*lua.LTable // readonly proxy -> the table behind it
	behind   map[*lua.LTable]bool        // the tables behind readonly proxies
	metaView map[*lua.LTable]*lua.LTable // readonly proxy -> what getmetatable gives (else nil)
	proxyMT  map[*lua.LTable]*lua.LTable // readonly proxy -> its metatable
	sources  map[string]string           // short chunk id -> Lua source name
	chunks   map[string]*compiled        // short chunk id -> its compile (error-wording sites)
	cat      *lua.LFunction              // the .. helper (rewrite_ops.go)
	catLong  *lua.LFunction              // the helper of a long .. chain (rewrite_ops.go)
	many     *lua.LFunction              // the helper of a long list of values (rewrite.go's manyValues)
	arith    *lua.LFunction              // the % and ^ helper (rewrite_ops.go)
	forHelp  *lua.LFunction              // the numeric for helper (rewrite_ops.go)
	tnew     *lua.LFunction              // the constructor helper (tableorder.go)
	del      *lua.LFunction              // the t.k = nil helper (tablestore.go)
	set      *lua.LFunction              // the t[k] = v helper (tablestore.go)
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
	sealed   bool                        // snap holds the state as built: reset may restore it
	libs     *lualib.State               // the libraries' Go-side settings
	snap     sandboxSnap                 // the tables as built (sandbox.go)
	// ctors records the shape of each table a constructor built, held
	// weakly, and iters the order next walks for the tables being
	// iterated (tableorder.go).
	tables      map[weak.Pointer[lua.LTable]]*tableInfo
	tableSweep  int
	eventTables int  // tables with recorded stores (tableInfo.dels) so far
	recorded    int  // events recorded in this state (recordRoom)
	recordFull  bool // the memory budget refused recording more
	iters       map[*lua.LTable]*iterState
	iterBuilds  int                          // iteration orders built by nextKey (a traversal builds one)
	borders     map[*lua.LTable]int          // tableiter.go's border: hole-free prefixes checked
	libIters    map[*lua.LTable][]lua.LValue // the library tables' orders being walked (libtables.go)
	layouts     map[*lua.LTable]*layoutCache // models kept for tables with recorded stores (tablereplay.go)
	lenHelp     *lua.LFunction               // the # helper (tableiter.go)
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
	wrapArith.Do()
	if r.callInfo == 0 {
		r.callInfo = callInfoFresh
	}
	// With frameDepthOK the step counter raises Lua's overflow, and the
	// frames beyond leave the error handlers room; without it gopher-lua's
	// own limit stands for Lua's, and its panic carries the traceback.
	frames := r.callInfo
	if frameDepthOK.Get() {
		frames = callInfoMax + 64
	}
	L := lua.NewState(lua.Options{
		SkipOpenLibs:        true,
		CallStackSize:       frames,
		IncludeGoStackTrace: !frameDepthOK.Get(),

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
	r.libs = lualib.OpenWith(L, lualib.Options{Keys: r.tableKeys, View: r.realTable, CmsgpackCopyright: r.e.t.cmsgpackCopyright, Store: r.libStore, Unsupported: func(L *lua.LState, msg string) {
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
	r.chargeLibraries(G)
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
	r.many = L.NewFunction(manyHelper)
	G.RawSetString(manyName, r.many)
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
