package verify

import (
	"fmt"
	"github.com/scriptctl/scriptctl/internal/cmdtable"
	"github.com/scriptctl/scriptctl/verify/lua51"
	"sort"
	"strings"
	"sync"
)

// serverFacts is what a script can observe that differs between server
// lines, as data: the engine's code asks these fields and never compares
// version strings. Each row is checked by running the same cases on the
// real server (live in CI for redis-7.0, redis-8.0 and valkey-8.1; from the
// source and recordings of the exact release named in version for the
// others).
type serverFacts struct {
	name   string // the target name, internal/target's
	family string // "redis" or "valkey"

	// REDIS_VERSION and REDIS_VERSION_NUM; Valkey reports the Redis
	// compatibility version 7.2.4 there.
	redisVersion    string
	redisVersionNum int
	// Valkey's own VALKEY_VERSION, VALKEY_VERSION_NUM and SERVER_NAME
	// constants; empty on Redis.
	valkeyVersion    string
	valkeyVersionNum int
	serverName       string
	// serverGlobal: `server` is the same table as `redis` (Valkey 8.0+).
	serverGlobal bool
	// strtoulBinaryPrefix: tonumber(s, 2) skips a "0b" or "0B" prefix, as
	// glibc 2.38+'s C23 strtoul does for a Lua compiled as C23 (GCC 15's
	// default: Debian unstable's Valkey 9.1.2 and Redis 8.0.6 builds).
	strtoulBinaryPrefix bool
	// cmsgpackCopyright: cmsgpack._COPYRIGHT when it is not lua-cmsgpack's
	// own (Valkey 8.0's deps/lua names Redis Ltd., valkey#740).
	cmsgpackCopyright string

	// Script-layer errors (raised by redis.call, returned by redis.pcall).
	errUnknownCommand string
	errArity          string
	errNoScript       string
	// noscript is EVALSHA's reply for an unknown SHA.
	noscript string
	// texts rewrites the engine's Redis 7.0 wording of a library error into
	// this target's (exact text -> text); see text.
	texts map[string]string
	// libName replaces "redis." in redis.register_function's errors.
	libName string

	// numArg turns a number passed to redis.call into the argument string
	// (luaArgsToRedisArgv): "%.17g" in 7.0, the integer or fpconv_dtoa's
	// shortest round-trip form from 7.2 (argNumber, argNumberShortest).
	numArg func(float64) string
	// osClock: the `os` global exists, with os.clock only (Redis 7.4,
	// Valkey 8.0: luaopen_os of the sandboxed loslib.c).
	osClock bool
	// luaHash is the hash the target's Lua gives strings, which places a
	// table's string keys and so fixes its iteration order (lua51):
	// Lua 5.1's over every byte (Redis 7.0+, Valkey up to 8.0), MurmurHash3
	// from Valkey 8.1 (valkey#1168, deps/lua/src/lstring.c).
	luaHash lua51.StringHash
	// serverErrHandler: the global __server__err__handler exists beside
	// __redis__err__handler (Valkey 8.1's eval.c).
	serverErrHandler bool
	// fnArgvCrash: FUNCTION FLUSH frees the functions' Lua client (Redis
	// 7.4's functionsLibCtxClearCurrent releases the engines), which
	// crashes on the argc a failed argument conversion left behind
	// (functions.badArgv; seen on 8.0.2). Valkey 8.0 and 8.1 keep the client.
	fnArgvCrash bool
	// scriptingEngines: Valkey 8.1's scripting engine manager. EVAL's
	// shebang names its engine case-insensitively, checked after the
	// options ("Could not find scripting engine 'x'"), and FUNCTION LOAD
	// checks function names after the library's code ran, without the
	// "Error registering functions" prefix and with "Function names" in
	// the invalid-name text.
	scriptingEngines bool
	// replyDouble writes a double reply (ZSCORE, ZRANGE WITHSCORES, ...):
	// "%.17g" on 7.0, d2string (an integer when integral, else
	// fpconv_dtoa's shortest form) from 7.2 (networking.c addReplyDouble).
	replyDouble func(float64) string
	// table is the target's command table, recorded from its server
	// (internal/cmdtable): a command it lists but the engine does not
	// emulate gets "not implemented offline", never "unknown command".
	tableOnce sync.Once
	tbl       *cmdtable.Table
	// handlers replace or add command emulations on this target (SET with
	// Valkey 8.1's IFEQ).
	handlers map[string]handler

	// scriptCrossSlotText: a script's command whose own keys hash to
	// different slots on a cluster fails with "Command '<name>' in script
	// attempted to access keys that don't hash to the same slot" (Redis
	// 7.4.0 #12707, Valkey 8.0); before, with the non-local key text.
	scriptCrossSlotText bool
	// sortPatternSlot: on a cluster SORT refuses a BY or GET pattern only
	// when its keys may be in another slot than the sorted key's
	// (patternHashSlot, Redis 7.4.0, Valkey 8.0); before, every GET and
	// every BY with '*'.
	sortPatternSlot bool
	// sortGetSelf: that rule spares GET "#", the element itself (Redis
	// 8.0, Valkey 8.1; seen on 8.0.2 and 8.1.1 by the cluster corpus).
	sortGetSelf bool
	// clusterOneDB: a cluster node has one database (config.c sets dbnum
	// to 1; Redis 7.2, every Valkey): COPY ... DB n answers "DB index is
	// out of range" before the cluster rule's text (seen on 8.0.2 and
	// 8.1.1 by the cluster corpus).
	clusterOneDB bool

	// errNoName: a script's error reply says "script: on <source>:<line>."
	// without the script's SHA or the function's name (Valkey 9.0's Lua
	// engine module; seen on 9.1.2 for EVAL and FCALL).
	errNoName bool
	// scriptSubText: a script's unknown subcommand gets the server's own
	// "unknown subcommand 'X'. Try CMD HELP." rather than the script
	// layer's unknown-command text (seen on 9.1.2; its wrong subcommand
	// arity is still the script layer's text).
	scriptSubText bool
	// errorReplyBare: redis.error_reply of a text without a space keeps
	// its CR and LF for the reply to turn into spaces ("\nY\n" answers
	// "ERR  Y"); errTableUnknown: error() with a table without a string
	// err field fails with "ERR unknown error" instead of crashing the
	// server; bigNumberCString: a big_number reply ends at its first NUL
	// byte (Valkey 9.0's Lua module, src/modules/lua/script_lua.c; seen on
	// 9.1.2).
	errorReplyBare, errTableUnknown, bigNumberCString bool

	// data: the data-type commands' encodings, limits, argument parsing and
	// texts (dataFacts).
	data dataFacts
}

// dataFacts are what the data-type commands do differently on a target,
// each named by the release that changed it (from the tags' sources, and
// proven by the corpus live or recorded: verify/README.md "Targets").
type dataFacts struct {
	// Redis 7.2.0 (and every Valkey).

	// listpackSets: a set of non-integers with at most 128 members of at
	// most 64 bytes is a listpack (set-max-listpack-entries/-value,
	// t_set.c), and keeps insertion order.
	listpackSets bool
	// listpackLists: a list of at most 8 KB is a listpack, a quicklist past
	// it (list-max-listpack-size -2, t_list.c listTypeTryConversion).
	listpackLists bool
	// printHelp: addReplyHelp ends with "Print this help." (7.0: "Prints").
	printHelp bool
	// timeoutRange: getTimeoutFromObjectOrReply answers "timeout is out of
	// range" past LLONG_MAX ms, or past it once added to the clock.
	timeoutRange bool
	// xsetidDeleted: XSETID below the stream's max_deleted_entry_id is an
	// error, and the last ID is kept.
	xsetidDeleted bool
	// xinfoActiveTime: XINFO consumers carry "active-time" beside
	// "seen-time"; XCLAIM and XAUTOCLAIM create the consumer.
	xinfoActiveTime bool
	// xaddSeqEDOM: XADD ms-* past the last sequence number is the
	// "equal or smaller" ID error (7.0: "Elements are too large").
	xaddSeqEDOM bool
	// lposRankRange: LPOS's RANK is within -LONG_MAX..LONG_MAX.
	lposRankRange bool
	// zrankWithScore: ZRANK/ZREVRANK take WITHSCORE (and no other argument).
	zrankWithScore bool
	// xreadUnbalancedName: XREAD's unbalanced-streams error names the
	// command in lower case ("'xread'", "'xreadgroup'" and '>').
	xreadUnbalancedName bool
	// Redis 7.4.0 (Valkey 8.0).

	// xreadBlockScript: XREAD/XREADGROUP take BLOCK in a script (and then
	// do not block); before, it was an error.
	xreadBlockScript bool
	// rangeLong: LREM's count is within -LONG_MAX..LONG_MAX.
	rangeLong bool
	// bitArgsFirst: BITCOUNT and BITPOS read their arguments before the
	// key (a missing key no longer hides a bad argument).
	bitArgsFirst bool
	// scanCursorULL: SCAN cursors are read by string2ull (a leading space
	// or "+" is taken, "-1" and "" are not).
	scanCursorULL bool

	// Redis 8.0.

	// geoDouble: GEOPOS and WITHCOORD coordinates are addReplyDouble
	// (d2string), not addReplyHumanLongDouble.
	geoDouble bool
	// strictDouble: ZSET ranges and SORT read doubles with string2d-like
	// strictness (no leading space, no hex).
	strictDouble bool
	// xreadPlusText: XREAD's unbalanced-streams text names '+' too.
	xreadPlusText bool

	// Redis 8.0 and Valkey 8.0.

	// xreadPlus: XREAD takes "+", the stream's last entry.
	xreadPlus bool
	// tempSetHT: SUNION and SDIFF (not their STORE forms, but SPOP of the
	// whole set) build their reply in a hashtable as soon as one input is
	// not an intset (redis#13567), an order Redis does not fix.
	tempSetHT bool

	// Valkey 8.0.

	// bitcountStart: BITCOUNT key start (the end defaults to the last byte);
	// the unit is read before the end.
	bitcountStart bool

	// readonlyStandalone: READONLY and READWRITE answer OK without cluster
	// support (Valkey 8.0's cluster.c; Redis refuses them).
	readonlyStandalone bool

	// Valkey 9.0.

	// sortStrictRange: SORT reads a score whole (no leading or trailing
	// space, no hexadecimal); the empty string, an overflow and an
	// underflow to zero are errors, a subnormal is read (seen on 9.1.2).
	sortStrictRange bool
	// embedLimit: the bytes embedsWithKey fits a string in (64 when 0): a
	// value longer than 44 bytes is embedded too while it fits (136 on
	// 9.1.2, measured for keys of 1 to 70 bytes with and without expiry).
	embedLimit int
	// noHexDouble: ZADD's scores and GEOADD's coordinates refuse a
	// hexadecimal number (seen on 9.1.2: "value is not a valid float"),
	// which C's strtod read.
	noHexDouble bool
	// scriptArgNoInt: a value a script's command stores from its
	// arguments (SET, APPEND of a new key, ...) keeps its string
	// encoding, never int (seen on 9.1.2: SET from a script of '99' is
	// embstr; from a client, int). INCR's result is an integer either way.
	scriptArgNoInt bool

	// Valkey 8.1.

	// keyslotStandalone: CLUSTER KEYSLOT answers the slot on a server
	// without cluster support (its other subcommands refuse; seen on 9.1.2).
	keyslotStandalone bool
	// getexExpireFirst: GETEX checks its expire time before it looks the
	// key up (a missing key or another type with EX 0 is "invalid expire
	// time"; seen on 9.1.2).
	getexExpireFirst bool
	// clusterDBs: a cluster node has numbered databases (Valkey 9.0's
	// cluster-databases, 1 by default): SELECT and MOVE to another index
	// are "DB index is out of range" instead of "not allowed in cluster
	// mode"; SELECT 0 is OK (seen on a 9.1.2 cluster).
	clusterDBs bool
	// geoMemberText: a FROMMEMBER or GEORADIUSBYMEMBER member the set lacks
	// is "member X does not exist"; geoPolygon: GEOSEARCH and
	// GEOSEARCHSTORE take BYPOLYGON (a polygon around its centroid, in
	// meters: geohash.go), and the shape error names it (Valkey 9.0; seen
	// on 9.1.2).
	geoMemberText, geoPolygon bool

	// embeddedKeys: the key (and its expiry) live in the value's object
	// (object.c createStringObjectWithKeyAndExpire): a stored value is
	// never a shared integer (OBJECT REFCOUNT 1), and a string stays embstr
	// only while object, key, expiry and value fit in 64 bytes.
	embeddedKeys bool
}

// versionName is the server's own version: Valkey's, or Redis's.
func (f *serverFacts) versionName() string {
	if f.valkeyVersion != "" {
		return f.valkeyVersion
	}
	return f.redisVersion
}

// command returns what this target declares for the command name.
func (f *serverFacts) command(name string) (*cmdtable.Command, bool) {
	return f.table().Command(name)
}

// handler returns the emulation of the command name on this target.
func (f *serverFacts) handler(name string) (handler, bool) {
	if h, ok := f.handlers[name]; ok {
		return h, true
	}
	h, ok := handlers[name]
	return h, ok
}

// text returns msg as this target words it: the engine writes Redis
// 7.0.15's texts, and a target that words one differently lists it in texts.
func (f *serverFacts) text(msg string) string {
	if t, ok := f.texts[msg]; ok {
		return t
	}
	if f.libName != "" && strings.Contains(msg, "redis.register_function") {
		return strings.ReplaceAll(msg, "redis.register_function", f.libName+".register_function")
	}
	return msg
}

// The error texts of each family and era, from the servers' sources
// (script_lua.c, server.c) and checked live where a server runs in CI.
const (
	redisErrUnknown = "ERR Unknown Redis command called from script"
	redisErrArity   = "ERR Wrong number of args calling Redis command from script"
	redisErrNoScrpt = "ERR This Redis command is not allowed from script"
	redisNoscript   = "NOSCRIPT No matching script. Please use EVAL."

	valkeyErrUnknown = "ERR Unknown command called from script"
	valkeyErrArity   = "ERR Wrong number of args calling command from script"
	valkeyNoscript   = "NOSCRIPT No matching script."
	// valkeyErrNoScrpt: Valkey 9.0's Lua module words the noscript refusal
	// with the server's name (seen on 9.1.2).
	valkeyErrNoScrpt = "ERR This Valkey command is not allowed from script"
)

// The eras of Redis's scripting layer, by the release that changed what a
// script sees (from the tags' src/script_lua.c):
//   - 7.2.0: number arguments of redis.call by fpconv_dtoa (7.2.5 and 7.4.0
//     then print integral values as integers: #13115), and set_repl's
//     error says "one argument";
//   - 7.4.0: the `os` global with os.clock, and redis.log's "Invalid log
//     level." (7.0 and 7.2: "Invalid debug level.").
type era int

const (
	era70 era = iota
	era72
	era74
	era80
)

func redisFacts(name, version string, num int, e era) *serverFacts {
	f := &serverFacts{name: name, family: "redis", redisVersion: version, redisVersionNum: num,
		errUnknownCommand: redisErrUnknown, errArity: redisErrArity, errNoScript: redisErrNoScrpt, noscript: redisNoscript,
		numArg: argNumber, replyDouble: replyDouble70}
	switch e {
	case era72:
		f.numArg, f.texts, f.replyDouble = argNumberShortest, redis72Texts, d2string
		f.clusterOneDB = true
		f.data = data72()
	case era74, era80:
		f.numArg, f.texts, f.osClock, f.replyDouble = argNumberShortest, redis74Texts, true, d2string
		f.fnArgvCrash = true
		f.scriptCrossSlotText, f.sortPatternSlot, f.clusterOneDB = true, true, true
		f.data = data74()
		f.handlers = hashExpireHandlers(e == era80)
		if e == era80 {
			f.sortGetSelf = true
			f.data.geoDouble, f.data.strictDouble, f.data.xreadPlus, f.data.xreadPlusText, f.data.tempSetHT = true, true, true, true, true
		}
	}
	if e != era70 {
		f.handlers = withHandlers(f.handlers, waitaofHandlers()) // WAITAOF is 7.2's
	}
	return f
}

// data72 are the data-type facts of Redis 7.2 and Valkey 7.2.
func data72() dataFacts {
	return dataFacts{listpackSets: true, listpackLists: true, printHelp: true, timeoutRange: true,
		xsetidDeleted: true, xinfoActiveTime: true, xaddSeqEDOM: true, lposRankRange: true, zrankWithScore: true, xreadUnbalancedName: true}
}

// data74 are those of Redis 7.4 and Valkey 8.0: 7.2's, and the 7.4 changes.
func data74() dataFacts {
	d := data72()
	d.xreadBlockScript, d.rangeLong, d.scanCursorULL, d.bitArgsFirst = true, true, true, true
	return d
}

// valkeyFacts: Valkey 7.2 is Redis 7.2.4's scripting layer (with #13115,
// backported to 7.2.5); 8.0 renamed the script errors and shortened
// NOSCRIPT, added the `server` global, and took Redis 7.4's os.clock and
// log-level text.
func valkeyFacts(name, version string, num int, v8 bool) *serverFacts {
	f := &serverFacts{name: name, family: "valkey", redisVersion: "7.2.4", redisVersionNum: 0x070204,
		valkeyVersion: version, valkeyVersionNum: num, serverName: "valkey",
		errUnknownCommand: redisErrUnknown, errArity: redisErrArity, errNoScript: redisErrNoScrpt, noscript: redisNoscript,
		numArg: argNumberShortest, texts: redis72Texts, replyDouble: d2string, data: data72(), clusterOneDB: true}
	f.handlers = waitaofHandlers()
	if v8 {
		f.data = data74()
		f.data.bitcountStart, f.data.tempSetHT, f.data.xreadPlus, f.data.readonlyStandalone = true, true, true, true
		f.serverGlobal, f.osClock = true, true
		f.cmsgpackCopyright = "Copyright (C) 2012, Redis Ltd."
		f.scriptCrossSlotText, f.sortPatternSlot = true, true
		f.errUnknownCommand, f.errArity, f.noscript = valkeyErrUnknown, valkeyErrArity, valkeyNoscript
		f.texts = valkey8Texts
		f.libName = "server"
	}
	return f
}

// redis72Texts: Redis 7.2.0 fixed set_repl's text (script_lua.c).
var redis72Texts = map[string]string{
	"ERR redis.set_repl() requires two arguments.": "ERR redis.set_repl() requires one argument.",
}

// redis74Texts: Redis 7.4.0 renamed redis.log's level error (script_lua.c).
var redis74Texts = withTexts(redis72Texts, map[string]string{
	"ERR Invalid debug level.": "ERR Invalid log level.",
})

// valkey8Texts are the library errors Valkey 8.0 reworded (script_lua.c,
// function_lua.c of 8.0.1; checked live on 8.1.1).
var valkey8Texts = map[string]string{
	"ERR redis.log() requires two arguments or more.":                  "ERR server.log() requires two arguments or more.",
	"ERR redis.setresp() requires one argument.":                       "ERR server.setresp() requires one argument.",
	"ERR redis.set_repl() requires two arguments.":                     "ERR server.set_repl() requires one argument.",
	"ERR Please specify at least one argument for this redis lib call": "ERR Please specify at least one argument for this call",
	"ERR Invalid command passed to redis.acl_check_cmd()":              "ERR Invalid command passed to server.acl_check_cmd()",
	"ERR Lua redis lib command arguments must be strings or integers":  "ERR Command arguments must be strings or integers",
	"ERR Invalid debug level.":                                         "ERR Invalid log level.",
}

// withHandlers returns base with more's handlers added.
func withHandlers(base, more map[string]handler) map[string]handler {
	out := make(map[string]handler, len(base)+len(more))
	for k, v := range base {
		out[k] = v
	}
	for k, v := range more {
		out[k] = v
	}
	return out
}

// withTexts returns base with more's rewordings added.
func withTexts(base, more map[string]string) map[string]string {
	out := make(map[string]string, len(base)+len(more))
	for k, v := range base {
		out[k] = v
	}
	for k, v := range more {
		out[k] = v
	}
	return out
}

// targets holds every target the engine can imitate, by name; built on
// first use (a command that runs no script never builds the tables).
var targets = sync.OnceValue(func() map[string]*serverFacts {
	return map[string]*serverFacts{
		"redis-7.0":  redisFacts("redis-7.0", "7.0.15", 0x07000f, era70),
		"redis-7.2":  redisFacts("redis-7.2", "7.2.6", 0x070206, era72),
		"redis-7.4":  redisFacts("redis-7.4", "7.4.1", 0x070401, era74),
		"redis-8.0":  redisFacts("redis-8.0", "8.0.2", 0x080002, era80),
		"valkey-7.2": valkeyFacts("valkey-7.2", "7.2.7", 0x070207, false),
		"valkey-8.0": valkeyFacts("valkey-8.0", "8.0.1", 0x080001, true),
		"valkey-8.1": valkey81(valkeyFacts("valkey-8.1", "8.1.1", 0x080101, true)),
		"valkey-9.1": valkey91(valkey81(valkeyFacts("valkey-9.1", "9.1.2", 0x090102, true))),
	}
})

// valkey81 adds Valkey 8.1's scripting engine manager and SET ... IFEQ
// (its commands, COMMANDLOG among them, come from its command table).
func valkey81(f *serverFacts) *serverFacts {
	f.scriptingEngines, f.serverErrHandler = true, true
	f.sortGetSelf = true
	f.luaHash = lua51.HashMurmur3
	f.data.embeddedKeys = true
	f.handlers = withHandlers(f.handlers, map[string]handler{"set": {keys: firstKey, run: cmdSetIfeq}})
	return f
}

// valkey91 adds what Valkey 9.0 and 9.1 changed for scripts (from 9.1.2,
// checked live): a script error names no script ("script: on
// @user_script:1."), DELIFEQ and MSETEX, and its own hash-field expiry
// (HEXPIRE to HSETEX and HGETDEL: argument checks, texts, rounding and
// encodings not Redis's; cmd_hash_expire_valkey.go).
func valkey91(f *serverFacts) *serverFacts {
	f.errNoName, f.scriptSubText = true, true
	// A command whose own keys are in other slots is refused as a non
	// local key, not with the cross-slot text (seen on a 9.1.2 cluster).
	f.scriptCrossSlotText = false
	f.handlers = withHandlers(f.handlers, map[string]handler{
		"delifeq": {keys: firstKey, run: cmdDelifeq},
		"msetex":  {keys: msetexKeys, run: cmdMsetex},
	})
	f.handlers = withHandlers(f.handlers, valkeyHashExpireHandlers())
	f.errorReplyBare, f.errTableUnknown, f.bigNumberCString = true, true, true
	f.strtoulBinaryPrefix = true
	f.data.keyslotStandalone, f.data.geoMemberText, f.data.geoPolygon = true, true, true
	f.data.getexExpireFirst, f.data.clusterDBs = true, true
	f.errNoScript = valkeyErrNoScrpt
	f.texts = withTexts(f.texts, map[string]string{
		// The cluster check moved out of the scripting layer.
		errNonLocal: "ERR Attempted to access a non local key in a cluster node",
	})
	f.data.sortStrictRange, f.data.embedLimit, f.data.scriptArgNoInt = true, 136, true
	// Score ranges read as Redis 8.0 reads them (no space, no hexadecimal).
	f.data.strictDouble, f.data.noHexDouble = true, true
	return f
}

// table is the target's command table, decoded on first use (a process
// that never runs a script, such as deploy, does not pay for it) and
// shared by engines on every goroutine.
func (f *serverFacts) table() *cmdtable.Table {
	f.tableOnce.Do(func() { f.tbl = cmdtable.MustLoad(f.name) })
	return f.tbl
}

// DefaultTarget is the server the engine imitates when Options.Target is
// empty.
const DefaultTarget = "redis-7.0"

// Targets returns the names of the targets the engine can imitate, sorted.
func Targets() []string {
	out := make([]string, 0, len(targets()))
	for n := range targets() {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// lookupTarget returns the facts of name ("" is DefaultTarget).
func lookupTarget(name string) (*serverFacts, error) {
	if name == "" {
		name = DefaultTarget
	}
	f, ok := targets()[name]
	if !ok {
		return nil, fmt.Errorf("unknown target %q: the engine imitates %s", name, strings.Join(Targets(), ", "))
	}
	return f, nil
}

// CheckTarget reports whether the engine can imitate target name.
func CheckTarget(name string) error {
	_, err := lookupTarget(name)
	return err
}
