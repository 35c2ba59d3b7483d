package verify

import (
	"fmt"
	"maps"
	"sort"
	"strings"

	"github.com/scriptctl/scriptctl/internal/cmdtable"
	"github.com/scriptctl/scriptctl/internal/lazy"
	"github.com/scriptctl/scriptctl/verify/keyspace"
	"github.com/scriptctl/scriptctl/verify/lua51"
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
	// atanFused: the libm the target is proven against is glibc 2.41 or
	// later as Debian 13 and unstable build it (GCC 14 and up: Redis 8.0.2,
	// Valkey 8.1.1 and 9.1.2), whose atan fuses two more products for
	// 16 <= |x| < 2^52.4 than 2.36's (Debian 12: Redis 7.0.15 and the
	// builds the other targets were recorded from): crmath.AtanFused.
	atanFused bool
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
	// fnFlushNewState: FUNCTION FLUSH, SYNC or ASYNC, frees the function
	// engines and builds them again, a new Functions Lua state (Redis
	// 7.4.0 #13383, functionsLibCtxClearCurrent; Valkey 9.0's Lua engine
	// module, seen on 9.1.2). Redis 7.0 and 7.2 and Valkey up to 8.1 drop
	// the libraries' references and keep the state.
	fnFlushNewState bool
	// scriptingEngines: Valkey 8.1's scripting engine manager. EVAL's
	// shebang names its engine case-insensitively, checked after the
	// options ("Could not find scripting engine 'x'"), and FUNCTION LOAD
	// checks function names after the library's code ran, without the
	// "Error registering functions" prefix and with "Function names" in
	// the invalid-name text.
	scriptingEngines bool

	// scriptCrossSlotText: a script's command whose own keys hash to
	// different slots on a cluster fails with "Command '<name>' in script
	// attempted to access keys that don't hash to the same slot" (Redis
	// 7.4.0 #12707, Valkey 8.0); before, with the non-local key text.
	scriptCrossSlotText bool

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

	// cmds are the target's data-command facts (keyspace.Facts): its
	// command table, encodings, limits and texts.
	cmds *keyspace.Facts
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
	return f.cmds.Command(name)
}

// replyDouble writes a double reply as the target does.
func (f *serverFacts) replyDouble(x float64) string { return f.cmds.ReplyDouble(x) }

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
		numArg: argNumber, cmds: keyspace.TargetFacts(name)}
	switch e {
	case era72:
		f.numArg, f.texts = argNumberShortest, redis72Texts()
	case era74, era80:
		f.numArg, f.texts, f.osClock = argNumberShortest, redis74Texts(), true
		f.fnArgvCrash, f.fnFlushNewState = true, true
		f.scriptCrossSlotText = true
	}
	return f
}

// valkeyFacts: Valkey 7.2 is Redis 7.2.4's scripting layer (with #13115,
// backported to 7.2.5); 8.0 renamed the script errors and shortened
// NOSCRIPT, added the `server` global, and took Redis 7.4's os.clock and
// log-level text.
func valkeyFacts(name, version string, num int, v8 bool) *serverFacts {
	f := &serverFacts{name: name, family: "valkey", redisVersion: "7.2.4", redisVersionNum: 0x070204,
		valkeyVersion: version, valkeyVersionNum: num, serverName: "valkey",
		errUnknownCommand: redisErrUnknown, errArity: redisErrArity, errNoScript: redisErrNoScrpt, noscript: redisNoscript,
		numArg: argNumberShortest, texts: redis72Texts(), cmds: keyspace.TargetFacts(name)}
	if v8 {
		f.serverGlobal, f.osClock = true, true
		f.cmsgpackCopyright = "Copyright (C) 2012, Redis Ltd."
		f.scriptCrossSlotText = true
		f.errUnknownCommand, f.errArity, f.noscript = valkeyErrUnknown, valkeyErrArity, valkeyNoscript
		f.texts = valkey8Texts()
		f.libName = "server"
	}
	return f
}

// redis72Texts: Redis 7.2.0 fixed set_repl's text (script_lua.c).
func redis72Texts() map[string]string {
	return map[string]string{
		"ERR redis.set_repl() requires two arguments.": "ERR redis.set_repl() requires one argument.",
	}
}

// redis74Texts: Redis 7.4.0 renamed redis.log's level error (script_lua.c).
func redis74Texts() map[string]string {
	return withTexts(redis72Texts(), map[string]string{
		"ERR Invalid debug level.": "ERR Invalid log level.",
	})
}

// valkey8Texts are the library errors Valkey 8.0 reworded (script_lua.c,
// function_lua.c of 8.0.1; checked live on 8.1.1).
func valkey8Texts() map[string]string {
	return map[string]string{
		"ERR redis.log() requires two arguments or more.":                  "ERR server.log() requires two arguments or more.",
		"ERR redis.setresp() requires one argument.":                       "ERR server.setresp() requires one argument.",
		"ERR redis.set_repl() requires two arguments.":                     "ERR server.set_repl() requires one argument.",
		"ERR Please specify at least one argument for this redis lib call": "ERR Please specify at least one argument for this call",
		"ERR Invalid command passed to redis.acl_check_cmd()":              "ERR Invalid command passed to server.acl_check_cmd()",
		"ERR Lua redis lib command arguments must be strings or integers":  "ERR Command arguments must be strings or integers",
		"ERR Invalid debug level.":                                         "ERR Invalid log level.",
	}
}

// withTexts returns base with more's rewordings added.
func withTexts(base, more map[string]string) map[string]string {
	out := make(map[string]string, len(base)+len(more))
	maps.Copy(out, base)
	maps.Copy(out, more)
	return out
}

// targets holds every target the engine can imitate, by name; built on
// first use (a command that runs no script never builds the tables).
var targets = lazy.Value[map[string]*serverFacts]{New: func() map[string]*serverFacts {
	return map[string]*serverFacts{
		"redis-7.0":  redisFacts("redis-7.0", "7.0.15", 0x07000f, era70),
		"redis-7.2":  redisFacts("redis-7.2", "7.2.6", 0x070206, era72),
		"redis-7.4":  redisFacts("redis-7.4", "7.4.1", 0x070401, era74),
		"redis-8.0":  withAtanFused(redisFacts("redis-8.0", "8.0.2", 0x080002, era80)),
		"valkey-7.2": valkeyFacts("valkey-7.2", "7.2.7", 0x070207, false),
		"valkey-8.0": valkeyFacts("valkey-8.0", "8.0.1", 0x080001, true),
		"valkey-8.1": valkey81(valkeyFacts("valkey-8.1", "8.1.1", 0x080101, true)),
		"valkey-9.1": valkey91(valkey81(valkeyFacts("valkey-9.1", "9.1.2", 0x090102, true))),
	}
}}

// valkey81 adds Valkey 8.1's scripting engine manager (its data commands'
// changes, SET ... IFEQ among them, are keyspace's valkey81).
func valkey81(f *serverFacts) *serverFacts {
	f.scriptingEngines, f.serverErrHandler = true, true
	f.luaHash = lua51.HashMurmur3
	return withAtanFused(f)
}

// withAtanFused marks a target proven against Debian 13's or unstable's
// libm (atanFused).
func withAtanFused(f *serverFacts) *serverFacts {
	f.atanFused = true
	return f
}

// valkey91 adds what Valkey 9.0 and 9.1 changed for scripts (from 9.1.2,
// checked live): a script error names no script ("script: on
// @user_script:1."), the server's own text for a script's unknown
// subcommand, the Lua module's reply conversions (its data commands:
// keyspace's valkey91).
func valkey91(f *serverFacts) *serverFacts {
	f.errNoName, f.scriptSubText = true, true
	f.fnFlushNewState = true
	// A command whose own keys are in other slots is refused as a non
	// local key, not with the cross-slot text (seen on a 9.1.2 cluster).
	f.scriptCrossSlotText = false
	f.errorReplyBare, f.errTableUnknown, f.bigNumberCString = true, true, true
	f.strtoulBinaryPrefix = true
	f.errNoScript = valkeyErrNoScrpt
	f.texts = withTexts(f.texts, map[string]string{
		// The cluster check moved out of the scripting layer.
		errNonLocal: "ERR Attempted to access a non local key in a cluster node",
	})
	return f
}

// DefaultTarget is the server the engine imitates when Options.Target is
// empty.
const DefaultTarget = keyspace.DefaultTarget

// Targets returns the names of the targets the engine can imitate, sorted.
func Targets() []string {
	out := make([]string, 0, len(targets.Get()))
	for n := range targets.Get() {
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
	f, ok := targets.Get()[name]
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
