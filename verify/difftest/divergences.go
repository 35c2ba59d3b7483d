package difftest

import (
	"maps"
	"regexp"
)

// KnownDivergences maps a snippet name (prefixed "fcall:" for function mode
// only) to the reason it cannot match Redis 7.0.15. Each entry is also in
// verify/README.md under "Known divergences". The corpus tests here and the
// `scriptctl eval` corpus tests fail on any other difference.
var KnownDivergences = map[string]string{
	"limit-locals-200-load": localsReason,
}

// localsReason: gopher-lua's compiler has 200 registers for a function's
// locals and temporaries together, Lua 5.1 250 (200 for locals): a
// function with 199 or 200 locals in scope and a call beside them compiles
// on the servers and fails offline with gopher-lua's "register overflow"
// (verify/README.md, divergence 17).
const localsReason = "200 locals and a call beside them: Lua 5.1 compiles it (250 registers), gopher-lua's compiler refuses it (200 registers for locals and temporaries); verify/README.md divergence 17"

// TargetDivergences maps a target (verify.Targets) to the snippets that
// cannot match on that target only (name, or "fcall:" name for function
// mode only) and why. The live corpus and TestRecordedTargets read it.
var TargetDivergences = map[string]map[string]string{
	"redis-7.2": unpatchedBuild,
	"redis-7.4": withDivergences(unpatchedBuild, map[string]string{
		"fcall:sets-spop-arity": "Redis 7.4.1 crashes at the FUNCTION FLUSH after this function (its last call, SPOP without a key, failed its arity check); 8.0.2 does not, and the engine models only the crash after a failed argument conversion (fnArgvCrash)",
	}),
	"valkey-7.2": unpatchedBuild,
	"valkey-8.0": unpatchedBuild,
	"valkey-9.1": poisonedNode,
}

// poisonedNode: on a Valkey 9.1.2 cluster, once a script's command was
// refused for a key of another slot (cluster-command-cross-slot, which runs
// earlier on the same primary), that node refuses every later script
// command, PING included, with "Attempted to access a non local key in a
// cluster node", for every client, until it restarts (reproduced by hand on
// a 3-primary 9.1.2 cluster). The engine answers as a node without that
// state; each of these matches when run on its own.
var poisonedNode = map[string]string{
	"cluster-spublish-same-slot":                poisonedReason,
	"cluster-spublish-other-slot-shebang":       poisonedReason,
	"cluster-sort-by-pattern":                   poisonedReason,
	"cluster-sort-get-hash":                     poisonedReason,
	"cluster-databases":                         poisonedReason,
	"cluster-move-to-active":                    poisonedReason,
	"cluster-index-members-other-slots":         poisonedReason,
	"fcall:cluster-undeclared-same-slot":        poisonedReason,
	"fcall:cluster-prefix-hash-tag":             poisonedReason,
	"fcall:cluster-undeclared-local-other-slot": poisonedReason,
	"fcall:cluster-undeclared-non-local-call":   poisonedReason,
	"cluster-function-allow-cross-slot-keys":    poisonedReason,
}

const poisonedReason = "Valkey 9.1.2 bug: after a script command refused for a non-local key, the node refuses every later script command (see poisonedNode)"

// BuildDivergences maps a server build judged as another target
// (internal/redistest Kind, such as redis-8.0.6 judged as redis-8.0) to the
// snippets where that build differs from the release the target imitates,
// and why: the target has one set of facts per line.
var BuildDivergences = map[string]map[string]string{
	"redis-8.0.6": {
		"redis-version":                  "REDIS_VERSION and REDIS_VERSION_NUM are the build's own (8.0.6); the redis-8.0 target imitates 8.0.2",
		"gorder-cmsgpack-g":              "the packed _G holds the redis table, whose REDIS_VERSION and REDIS_VERSION_NUM are the build's own (8.0.6); the redis-8.0 target imitates 8.0.2",
		"gorder-cmsgpack-g-nested":       "the packed _G holds the redis table, whose REDIS_VERSION and REDIS_VERSION_NUM are the build's own (8.0.6); the redis-8.0 target imitates 8.0.2",
		"gorder-cmsgpack-redis":          "the packed redis table holds REDIS_VERSION and REDIS_VERSION_NUM, the build's own (8.0.6); the redis-8.0 target imitates 8.0.2",
		"corelib-tonumber-binary-prefix": "Debian unstable's build compiles Lua as C23, whose strtoul (glibc 2.38+) skips a 0b prefix in base 2; the redis-8.0 target imitates 8.0.2, built as C17",
		"err-table-without-err-uncaught": "Redis 8.0.6 answers error() with a table without a string err field with \"ERR unknown error\" and the script's location; 8.0.2, whose crash the redis-8.0 target imitates (server-crash), segfaults",
	},
}

// c23BinaryPrefix matches a random core-library call that reads a binary
// numeral with a "0b" prefix (TestRandomCorelib's C(tonumber, '0b1', 2)).
var c23BinaryPrefix = regexp.MustCompile(`^C\(tonumber, '[ \t\n\v\f\r]*[+-]?0[bB][01]`)

// BuildCallDivergences: calls of TestRandomCorelib where a server build
// differs from the release its target imitates, and why.
var BuildCallDivergences = map[string]struct {
	Call *regexp.Regexp
	Why  string
}{
	"redis-8.0.6": {c23BinaryPrefix, "Debian unstable's build compiles Lua as C23, whose strtoul (glibc 2.38+) skips a 0b prefix in base 2; the redis-8.0 target imitates 8.0.2, built as C17"},
}

// unpatchedBuild: the recorded targets were built from their release tags
// (7.2.6, 7.4.1, Valkey 7.2.7, 8.0.1), which predate the October 2025 Lua
// security fixes (Redis 7.2.11, 7.4.6, 8.0.4; Valkey 7.2.11, 8.0.6). The
// builds CI runs live (Debian's 7.0.15-1~deb12u10 and 8.0.2) carry those
// fixes, and the engine imitates them.
var unpatchedBuild = map[string]string{
	"base-setfenv-removed":                 "setfenv exists on the unpatched release (the CVE-2025-46818 fix removed setfenv, getfenv and newproxy); the engine has none, as patched servers",
	"base-getfenv-removed":                 "getfenv exists on the unpatched release (removed by the CVE-2025-46818 fix); the engine has none, as patched servers",
	"base-newproxy-removed":                "newproxy exists on the unpatched release (removed by the CVE-2025-46818 fix); the engine has none, as patched servers",
	"edge-error-newline":                   "the unpatched release sends error()'s newline inside the error reply (invalid RESP: redis-cli prints \"Bad simple string value\"); the patched builds and the engine reply with a space",
	"edge-error-call-surrounding-newlines": "the unpatched release sends error()'s newlines inside the error reply (invalid RESP: redis-cli prints \"Bad simple string value\"); the patched builds and the engine reply with spaces",
}

// TargetMatches maps a target to the KnownDivergences that match on it
// anyway, and why: they are then required to match there.
var TargetMatches = map[string]map[string]string{}

// SeedOrder maps a target to the snippets whose reply lists a hashtable in
// its order there, which depends on a hash seed the server picks at start
// (so no recording or engine can reproduce it), and why. They are compared
// as multisets of lines (the engine answers in its documented order, with
// a warning): every member must be there, in any order.
var SeedOrder = map[string]map[string]string{
	"redis-8.0":  tempSetHT,
	"valkey-8.0": tempSetHT,
	"valkey-8.1": tempSetHT,
	"valkey-9.1": tempSetHT,
}

// tempSetHT: from Redis 8.0 (redis#13567) and Valkey 8.0, SUNION and SDIFF
// (and SPOP of a whole set, served by SUNION) build their reply in a
// hashtable as soon as one input is a listpack or a hashtable.
var tempSetHT = map[string]string{
	"sets-sunion-hashtable-of-integers-sorted":     "SUNION of a listpack replies in a temporary hashtable's order",
	"sets-spop-count-hashtable-of-integers-sorted": "SPOP of the whole listpack set replies through SUNION, in a temporary hashtable's order",
	"sets-sdiff-algorithm-one-intset-result":       "SDIFF of a listpack replies in a temporary hashtable's order",
}

// withDivergences returns base with more added.
func withDivergences(base, more map[string]string) map[string]string {
	out := maps.Clone(base)
	maps.Copy(out, more)
	return out
}
