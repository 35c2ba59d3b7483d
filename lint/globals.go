package lint

import (
	"strings"

	"github.com/scriptctl/scriptctl/internal/lazy"
)

// redisGlobals are the globals a Redis 7.0 script can read, as a real
// redis-server 7.0.15 lists them (TestGlobalsMatchRedis): the allow-lists of
// src/script_lua.c (libraries, the redis API, Lua builtins) plus KEYS and
// ARGV. os is absent (7.4 adds only os.clock); so are print, dofile,
// loadfile, require, module, package, io, debug, and the deprecated
// getfenv, setfenv and newproxy.
var redisGlobals = lazy.Value[map[string]bool]{New: func() map[string]bool {
	return setOf(
		"string", "cjson", "bit", "cmsgpack", "math", "table", "struct",
		"redis", "__redis__err__handler",
		"xpcall", "tostring", "setmetatable", "next", "assert", "tonumber", "rawequal",
		"collectgarbage", "getmetatable", "rawset", "pcall", "coroutine", "type", "_G", "select",
		"unpack", "gcinfo", "pairs", "rawget", "loadstring", "ipairs", "_VERSION", "load",
		"error",
		"KEYS", "ARGV",
	)
}}

// missingGlobals explain the globals people reach for that Redis removes.
var missingGlobals = lazy.Value[map[string]string]{New: func() map[string]string {
	return map[string]string{
		"os":       "os is not available in Redis 7.0-7.2 scripts (7.4 adds only os.clock)",
		"io":       "io is not available in Redis scripts: scripts cannot touch files",
		"require":  "require is not available in Redis scripts: a script is one self-contained chunk",
		"print":    "print was removed from Redis scripts in 7.0: use redis.log(redis.LOG_NOTICE, ...)",
		"dofile":   "dofile is not available in Redis scripts",
		"loadfile": "loadfile is not available in Redis scripts",
		"module":   "module is not available in Redis scripts",
		"package":  "package is not available in Redis scripts",
		"debug":    "debug is not available in Redis scripts",
		"getfenv":  "getfenv is not available in Redis scripts (removed for sandboxing)",
		"setfenv":  "setfenv is not available in Redis scripts (removed for sandboxing)",
		"newproxy": "newproxy is not available in Redis scripts (removed for sandboxing)",
	}
}}

// libFields are the fields of the library tables whose contents are fixed
// (Lua 5.1 as Redis builds it, and the redis API of Redis 7). Reading any
// other field yields nil, and calling it fails at run time.
var libFields = lazy.Value[map[string]map[string]bool]{New: func() map[string]map[string]bool {
	return map[string]map[string]bool{
		"redis": setOf("call", "pcall", "error_reply", "status_reply", "sha1hex", "log", "LOG_DEBUG",
			"LOG_VERBOSE", "LOG_NOTICE", "LOG_WARNING", "setresp", "set_repl", "REPL_ALL", "REPL_AOF",
			"REPL_REPLICA", "REPL_SLAVE", "REPL_NONE", "replicate_commands", "breakpoint", "debug",
			"acl_check_cmd", "REDIS_VERSION", "REDIS_VERSION_NUM"),
		"string": setOf("byte", "char", "dump", "find", "format", "gfind", "gmatch", "gsub", "len", "lower",
			"match", "rep", "reverse", "sub", "upper"),
		"table": setOf("concat", "foreach", "foreachi", "getn", "insert", "maxn", "remove", "setn", "sort"),
		"math": setOf("abs", "acos", "asin", "atan", "atan2", "ceil", "cos", "cosh", "deg", "exp", "floor",
			"fmod", "frexp", "huge", "ldexp", "log", "log10", "max", "min", "mod", "modf", "pi", "pow", "rad",
			"random", "randomseed", "sin", "sinh", "sqrt", "tan", "tanh"),
		"bit": setOf("tobit", "tohex", "bnot", "band", "bor", "bxor", "lshift", "rshift", "arshift", "rol",
			"ror", "bswap"),
	}
}}

// libTables are the global tables Redis makes read-only: assigning to one
// of their fields fails with "Attempt to modify a readonly table".
var libTables = lazy.Value[map[string]bool]{New: func() map[string]bool {
	return setOf("redis", "string", "table", "math", "bit", "cjson", "cmsgpack", "struct",
		"coroutine", "_G")
}}

func setOf(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// suggest returns the candidate closest to name (edit distance at most 2),
// or "".
func suggest(name string, candidates []string) string {
	best, bestD := "", 3
	for _, c := range candidates {
		if c == name {
			continue
		}
		if d := editDistance(strings.ToLower(name), strings.ToLower(c)); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return 99
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
