package verify

import (
	"slices"
	"strconv"
	"strings"
	"sync"

	lua "github.com/yuin/gopher-lua"

	"github.com/scriptctl/scriptctl/internal/lazy"
	"github.com/scriptctl/scriptctl/verify/lua51"
)

// The library tables a server's Lua builds at start-up iterate (pairs,
// next, table.foreach) in the order Lua 5.1 laid them out while the
// server built them: each is replayed here, on the target's string hash,
// from how it was built, which is the same on every target (Redis 7.0 to
// 8.0 and Valkey 7.2 to 8.1 ship the same deps/lua): luaL_register makes
// a table presized for its luaL_Reg list (lua_createtable(L, 0, n)) and
// sets the functions in the list's order; lua_newtable makes an empty one.
// The redis table is built the same way on every target but for Valkey's
// keys. _G is replayed from the steps each target's server fills it with
// (globalsRecipe), for the EVAL state and the Functions state apart.

// libTable is how one library table is built: the hash size it is created
// with and its keys in the order they are set.
type libTable struct {
	nhash int
	keys  string
}

// libTables are the library tables by global name.
var libTables = lazy.Value[map[string]libTable]{New: func() map[string]libTable {
	return map[string]libTable{
		// lstrlib.c: luaL_register(L, "string", strlib); gfind is strlib's
		// and set again (LUA_COMPAT_GFIND), a key it already has
		"string": {15, "byte char dump find format gfind gmatch gsub len lower match rep reverse sub upper"},
		// ltablib.c: luaL_register(L, "table", tab_funcs)
		"table": {9, "concat foreach foreachi getn maxn insert remove setn sort"},
		// lmathlib.c: luaL_register(L, "math", mathlib), then pi, huge and
		// mod (LUA_COMPAT_MOD)
		"math": {28, "abs acos asin atan2 atan ceil cosh cos deg exp floor fmod frexp ldexp log10 log max min modf pow rad random randomseed sinh sin sqrt tanh tan pi huge mod"},
		// lbaselib.c: luaL_register(L, "coroutine", co_funcs)
		"coroutine": {6, "create resume running status wrap yield"},
		// lua_bit.c: luaL_register(L, "bit", bit_funcs)
		"bit": {12, "tobit bnot band bor bxor lshift rshift arshift rol ror bswap tohex"},
		// lua_struct.c: luaL_register(L, "struct", thislib)
		"struct": {3, "pack unpack size"},
		// lua_cjson.c: lua_newtable, the reg list (luaL_setfuncs), then null,
		// _NAME and _VERSION
		"cjson": {0, "encode decode encode_sparse_array encode_max_depth decode_max_depth encode_number_precision encode_keep_buffer encode_invalid_numbers decode_invalid_numbers new null _NAME _VERSION"},
		// lua_cmsgpack.c: lua_newtable, the cmds list, then the metadata
		"cmsgpack": {0, "pack unpack unpack_one unpack_limit _NAME _VERSION _COPYRIGHT _DESCRIPTION"},
		// the os table of the targets that have one holds clock alone
		"os": {0, "clock"},
		// script_lua.c's luaRegisterRedisAPI (luaRegisterServerAPI in
		// Valkey): lua_newtable, call, pcall, luaRegisterLogFunction's log and
		// levels, luaRegisterVersion's version fields (Valkey adds its own and
		// SERVER_NAME), setresp, ..., acl_check_cmd; then eval.c's
		// scriptingInit adds breakpoint, debug and replicate_commands to the
		// EVAL state's table (a function's state has no such keys). The same
		// on Redis 7.0 to 8.0 and Valkey 7.2 to 8.1 but for Valkey's keys,
		// which the replay skips on Redis (replayed are the keys the target's
		// table holds).
		"redis": {0, redisAPIKeys},
		// Valkey's server global is the same table
		"server": {0, redisAPIKeys},
	}
}}

const redisAPIKeys = "call pcall log LOG_DEBUG LOG_VERBOSE LOG_NOTICE LOG_WARNING " +
	"REDIS_VERSION_NUM REDIS_VERSION VALKEY_VERSION_NUM VALKEY_VERSION SERVER_NAME " +
	"setresp sha1hex error_reply status_reply set_repl REPL_NONE REPL_AOF REPL_SLAVE REPL_REPLICA REPL_ALL acl_check_cmd " +
	"breakpoint debug replicate_commands"

// libOrders caches the orders replayed, by string hash and keys.
var libOrders sync.Map // libOrderKey -> []lua.LValue

type libOrderKey struct {
	hash lua51.StringHash
	keys string
}

// libOrder returns the order of a table created with nhash hash slots
// and keys set in the order given (space-separated).
func libOrder(h lua51.StringHash, nhash int, keys string) []lua.LValue {
	k := libOrderKey{h, strconv.Itoa(nhash) + ":" + keys}
	if v, ok := libOrders.Load(k); ok {
		return v.([]lua.LValue)
	}
	m := lua51.New(h, 0, nhash)
	for _, key := range strings.Fields(keys) {
		m.Set(lua51.Str(key), true)
	}
	slots, _ := m.Slots()
	out := make([]lua.LValue, len(slots))
	for i, s := range slots {
		out[i] = lua.LString(s.S)
	}
	libOrders.Store(k, out)
	return out
}

// libKeys returns the keys of real, the table behind a readonly library
// view, in the server's order, when it is one of libTables: the keys of
// its list that real holds, set in the list's order (a key the target's
// table lacks was never set on the server either). nil otherwise; exact
// is false when real holds keys the list does not, which then follow the
// others in gopher-lua's order.
func (r *scriptRun) libKeys(real *lua.LTable) (keys []lua.LValue, exact bool) {
	if r.L == nil {
		return nil, false
	}
	G := r.L.G.Global
	if real == G {
		return r.globalKeys(G)
	}
	for name, lt := range libTables.Get() {
		if v, ok := r.real(G.RawGetString(name)).(*lua.LTable); !ok || v != real {
			continue
		}
		listed := strings.Fields(lt.keys)
		held := make([]string, 0, len(listed))
		for _, k := range listed {
			if real.RawGetString(k) != lua.LNil {
				held = append(held, k)
			}
		}
		keys = append([]lua.LValue(nil), libOrder(r.e.t.luaHash, lt.nhash, strings.Join(held, " "))...)
		exact = true
		for k, _ := real.Next(lua.LNil); k != lua.LNil; k, _ = real.Next(k) {
			if s, ok := k.(lua.LString); ok && (isHidden(k) || slices.Contains(held, string(s))) {
				continue
			}
			exact = false
			keys = append(keys, k)
		}
		return keys, exact
	}
	return nil, false
}

// viewNext is next(t, key) for a readonly view of real: the library
// tables in the server's order (libKeys), the others in gopher-lua's,
// warned (noteHashOrder). It reports false for a key next cannot continue
// from.
func (r *scriptRun) viewNext(real *lua.LTable, key lua.LValue) (lua.LValue, lua.LValue, bool) {
	if key != lua.LNil && real.RawGet(key) == lua.LNil {
		return lua.LNil, lua.LNil, false
	}
	keys := r.libIters[real]
	if key == lua.LNil || keys == nil {
		var exact bool
		keys, exact = r.libKeys(real)
		if keys == nil {
			if key == lua.LNil {
				r.noteHashOrder(real)
			}
			k, v := real.Next(key)
			for isHidden(k) {
				k, v = real.Next(k)
			}
			return k, v, true
		}
		if !exact && key == lua.LNil {
			r.warnOrder()
		}
		if r.libIters == nil {
			r.libIters = map[*lua.LTable][]lua.LValue{}
		}
		r.libIters[real] = keys
	}
	i := 0
	if key != lua.LNil {
		i = slices.Index(keys, key) + 1
		if i == 0 {
			return lua.LNil, lua.LNil, false
		}
	}
	for ; i < len(keys); i++ {
		if v := real.RawGet(keys[i]); v != lua.LNil {
			return keys[i], v, true
		}
	}
	return lua.LNil, lua.LNil, true
}

// The global table of a server's Lua state is filled once, when the server
// builds the state, and never changes after: scripts cannot write it (it is
// readonly from Redis 7.0), EVAL sets KEYS and ARGV again before every
// script (their nodes stay), and a function's globals are another, empty
// table that reads through to it. Its order is therefore a fact of the
// target, replayed here from the steps its server takes (script_lua.c's
// luaRegisterRedisAPI, eval.c's scriptingInit, function_lua.c's
// luaEngineInitEngine; Valkey 8.1's engine_lua.c), on Lua 5.1's table:
//
//   - lua_open makes the table with two hash slots (lstate.c f_luaopen);
//   - luaRegisterRedisAPI gives it the allow-list metatable, whose
//     __newindex refuses a name outside its lists: Lua's luaV_settable
//     has made the key's node before it calls __newindex, so a refused
//     name keeps a node with no value (dofile, loadfile, print, and the
//     deprecated getfenv, setfenv and newproxy of the CVE-2025-46818 fix,
//     which every patched build and the engine follow);
//   - luaLoadLibraries: the base library (lbaselib.c base_open: _G, the
//     base_funcs list in order, _VERSION, ipairs, pairs, newproxy; then
//     coroutine), then table, string, math, debug, os (Redis 7.4+, Valkey
//     8.0+), cjson, struct, cmsgpack and bit, each a global of its name;
//   - pcall replaced, redis (Valkey: server, then redis the same table),
//     math set again;
//   - EVAL's state: redis set again with its debug helpers, the error
//     handler chunk's "debug = nil" and its global function
//     __redis__err__handler (Valkey 8.1: debug removed first, then server
//     set again, __server__err__handler and __redis__err__handler);
//     then KEYS and ARGV at the first EVAL;
//   - the Functions state: "debug = nil" alone (its error handler is a
//     local kept in the registry).
//
// Each step is a word of the recipe: a name set to a value, "?name" a
// store the allow list refuses, "-name" a name set to nil.

const globalsBase = "_G assert collectgarbage ?dofile error gcinfo ?getfenv getmetatable ?loadfile load loadstring " +
	"next pcall ?print rawequal rawget rawset select ?setfenv setmetatable tonumber tostring type unpack xpcall " +
	"_VERSION ipairs pairs ?newproxy coroutine "

// globalsRecipe is how the target's server fills _G, for its EVAL state or
// (functions) its Functions state.
func globalsRecipe(t *serverFacts, functions bool) string {
	libs := "table string math debug cjson struct cmsgpack bit "
	if t.osClock {
		libs = "table string math debug os cjson struct cmsgpack bit "
	}
	api := "pcall redis math "
	if t.serverGlobal {
		api = "pcall server redis math "
	}
	steps := globalsBase + libs + api
	switch {
	case functions:
		return steps + "-debug"
	case t.serverErrHandler:
		return steps + "-debug server __server__err__handler __redis__err__handler KEYS ARGV"
	case t.serverGlobal:
		return steps + "server -debug __redis__err__handler KEYS ARGV"
	}
	return steps + "redis -debug __redis__err__handler KEYS ARGV"
}

// globalsLayout is _G's order on a target: its keys with a value, in
// luaH_next's order, and the set of them.
type globalsLayout struct {
	order []lua.LValue
	known map[lua.LValue]bool
}

var globalsLayouts sync.Map // globalsKey -> *globalsLayout

type globalsKey struct {
	t         *serverFacts
	functions bool
}

// globalsOrder replays the target's recipe once and keeps the result.
func globalsOrder(t *serverFacts, functions bool) *globalsLayout {
	k := globalsKey{t, functions}
	if v, ok := globalsLayouts.Load(k); ok {
		return v.(*globalsLayout)
	}
	m := lua51.New(t.luaHash, 0, 2)
	for _, step := range strings.Fields(globalsRecipe(t, functions)) {
		switch step[0] {
		case '?':
			if key := lua51.Str(step[1:]); !m.Contains(key) {
				m.Set(key, false)
			}
		case '-':
			m.Set(lua51.Str(step[1:]), false)
		default:
			m.Set(lua51.Str(step), true)
		}
	}
	g := &globalsLayout{known: map[lua.LValue]bool{}}
	for _, key := range m.Keys() {
		g.order = append(g.order, lua.LString(key.S))
		g.known[lua.LString(key.S)] = true
	}
	v, _ := globalsLayouts.LoadOrStore(k, g)
	return v.(*globalsLayout)
}

// globalKeys is libKeys for the global table G: the server's order of the
// keys G holds; a key the server's _G never holds follows, in gopher-lua's
// order, and makes the order inexact.
func (r *scriptRun) globalKeys(G *lua.LTable) (keys []lua.LValue, exact bool) {
	g := globalsOrder(r.e.t, r.e.funcs != nil && r.e.funcs.run == r)
	keys = make([]lua.LValue, 0, len(g.order))
	for _, k := range g.order {
		if G.RawGet(k) != lua.LNil {
			keys = append(keys, k)
		}
	}
	exact = true
	for k, _ := G.Next(lua.LNil); k != lua.LNil; k, _ = G.Next(k) {
		if !isHidden(k) && !g.known[k] {
			exact = false
			keys = append(keys, k)
		}
	}
	return keys, exact
}
