package lint

import (
	"fmt"
	"slices"
	"strings"

	"github.com/scriptctl/scriptctl/manifest"
)

// registerRules registers every rule, in the order Rules lists them; it
// runs once, from loadRules.
func registerRules() {
	register(&rule{code: "syntax", severity: Error, withoutParse: true,
		summary: "The script does not parse as Redis's Lua 5.1",
		help: "Redis compiles the script with Lua 5.1 and rejects it before it runs. Lua 5.2+ syntax " +
			"that gopher-lua accepts (goto and ::labels::) is an error too. Fix the syntax; use a loop " +
			"with break or a nested function instead of goto.",
		run: runSyntax})
	register(&rule{code: "global-write", severity: Error,
		summary: "Assignment to a global variable",
		help: "Redis protects the global table: assigning a global (or a field of a built-in table such " +
			"as redis or string) fails at run time with \"Attempt to modify a readonly table\". Declare " +
			"the variable local; define helpers as 'local function f() ... end'.",
		run: runGlobalWrite})
	register(&rule{code: "undeclared-global", severity: Error,
		summary: "Read of a global that Redis does not define",
		help: "Reading a global Redis does not define fails with \"Script attempted to access " +
			"nonexistent global variable\": a misspelt local, redis.cal for redis.call, or a library " +
			"Redis removes (os, io, require, print, dofile, loadfile). Fix the name or use a local.",
		run: runUndeclaredGlobal})
	register(&rule{code: "target-command", severity: Error, needsManifest: true,
		summary: "A command one of the manifest's targets does not have",
		help: "The manifest's targets list the servers the script must run on. A command that does " +
			"not exist on one of them (HEXPIRE before Redis 7.4, DELIFEQ outside Valkey 9) fails " +
			"there with an unknown-command error. Use a command every target has, or drop the target.",
		run: runTargetCommand})
	register(&rule{code: "dynamic-key", severity: Warning, strict: Error,
		summary: "A key position is not KEYS[n]",
		help: "A literal key name, a concatenation, an ARGV value or a key read from a reply at a key " +
			"position of a command (as COMMAND INFO gives them) is a key the caller did not pass in " +
			"KEYS. A standalone server runs it. A cluster node runs it only while it hashes to the slot " +
			"of the script's declared keys (a shared hash tag such as {q}, as BullMQ's bull:{q}: keys " +
			"do); otherwise the server refuses it with \"Script attempted to access a non local key in a " +
			"cluster node\" (\"... keys that do not hash to the same slot\" for scripts with a shebang " +
			"and functions). Proxies that demand declared keys refuse it always. A warning; an error " +
			"with strict keys (strict_keys: true, --strict-keys, --profile strict-proxy). Declare the key " +
			"in the manifest and pass it as KEYS[n]; a value taken from KEYS through locals, tables or " +
			"loops is fine.",
		run: runDynamicKey})
	register(&rule{code: "keys-out-of-range", severity: Error, needsManifest: true,
		summary: "KEYS[n] beyond the manifest's declared keys",
		help: "The manifest declares how many keys each caller passes; KEYS[n] beyond that count is " +
			"always nil. Declare the key in the manifest or fix the index.",
		run: runIndexRange("KEYS")})
	register(&rule{code: "args-out-of-range", severity: Error, needsManifest: true,
		summary: "ARGV[n] beyond the manifest's declared args",
		help: "The manifest declares how many arguments each caller passes; ARGV[n] beyond that count " +
			"is always nil. Declare the argument in the manifest or fix the index.",
		run: runIndexRange("ARGV")})
	register(&rule{code: "unused-key", severity: Warning, needsManifest: true,
		summary: "A declared key the script never reads",
		help: "A key declared in the manifest but never used still has to be passed, and in a cluster " +
			"still has to share the slot. Remove it from the manifest or use it.",
		run: runUnused("KEYS")})
	register(&rule{code: "unused-arg", severity: Warning, needsManifest: true,
		summary: "A declared argument the script never reads",
		help: "An argument declared in the manifest but never read is usually a bug (the script ignores " +
			"what the caller sends). Remove it from the manifest or use it.",
		run: runUnused("ARGV")})
	register(&rule{code: "write-in-readonly", severity: Error,
		summary: "A write command in a script flagged no-writes",
		help: "A script flagged no-writes (in the manifest or its shebang) may run on replicas and with " +
			"EVAL_RO/FCALL_RO; Redis rejects any write with \"Write commands are not allowed from " +
			"read-only scripts\". Remove the write or drop the flag.",
		run: runWriteInReadonly})
	register(&rule{code: "forbidden-command", severity: Error,
		summary: "A command that must never run in a script",
		help: "KEYS, FLUSHALL/FLUSHDB, SCRIPT, FUNCTION, EVAL*, FCALL*, CONFIG, DEBUG, SHUTDOWN, MONITOR, " +
			"the SUBSCRIBE family, MULTI/EXEC/WATCH, WAIT and the blocking commands (BLPOP, BRPOP, BLMOVE, " +
			"BZPOPMIN, BZPOPMAX, XREAD/XREADGROUP with BLOCK) are rejected in scripts, block the server, " +
			"or reach far beyond the declared keys. Do that work in the application.",
		run: runForbidden})
	register(&rule{code: "unbounded-command", severity: Warning,
		summary: "A whole-collection read that grows with the data",
		help: "SMEMBERS, HGETALL, HKEYS, HVALS, LRANGE 0 -1, ZRANGE 0 -1 and SCAN loops take time " +
			"proportional to the collection, and the whole server waits while a script runs. Read a " +
			"bounded range (LRANGE 0 99, ZRANGE ... LIMIT) or iterate from the application.",
		run: runUnbounded})
	register(&rule{code: "dynamic-command", severity: Warning,
		summary: "The command name is not a literal",
		help: "When the command name is computed, nobody (the linter included) can tell which keys it " +
			"touches or whether it writes. Call each command with a literal name, branching in Lua if " +
			"needed.",
		run: runDynamicCommand})
	register(&rule{code: "unvalidated-ttl", severity: Warning,
		summary: "An ARGV value reaches a TTL without a check",
		help: "An ARGV value used as an EX/PX/EXAT/PXAT argument or by EXPIRE/PEXPIRE/SETEX/PSETEX " +
			"must be checked on every path before it: a bad value makes the command fail halfway " +
			"through the script (earlier writes stay, there is no rollback), and 0 or a negative " +
			"value deletes the key. Check it first and return redis.error_reply on failure.",
		run: runUnvalidatedTTL})
	register(&rule{code: "write-before-validation", severity: Warning,
		summary: "A write runs before an ARGV check that follows it",
		help: "Scripts do not roll back: when a check of the arguments rejects the call after a write " +
			"has run, the write stays. Validate every argument first, then write.",
		run: runWriteBeforeValidation})
	register(&rule{code: "nondeterministic", severity: Warning,
		summary: "A random value in a script that writes",
		help: "math.random, TIME, RANDOMKEY, SRANDMEMBER, SPOP, HRANDFIELD and ZRANDMEMBER make a " +
			"writing script's effects differ between runs, so a replayed or retried call does not do " +
			"the same thing (Redis 7 replicates the effects, so replicas agree, but a retry or an " +
			"offline replay does not). Pass the value in ARGV from the caller instead; where the " +
			"server clock is intended (a token bucket), suppress the finding with a reason.",
		run: runNondeterministic})
	register(&rule{code: "shebang-flags", severity: Error, withoutParse: true, linesOnly: true,
		summary: "Unknown shebang flags, or flags that differ from the manifest",
		help: "A '#!lua flags=...' first line sets the flags Redis applies under EVAL/EVALSHA; the " +
			"manifest's flags are what FCALL gets. Unknown flags are rejected by Redis, and flags that " +
			"differ make the same script behave differently depending on how it is called. Use only " +
			strings.Join(manifest.ScriptFlags, ", ") + " and keep them equal to the manifest. A script " +
			"without a shebang whose manifest entry has flags is a finding only when the manifest " +
			"deploys it for EVAL/EVALSHA (deploy: both, the default, or scripts); with deploy: " +
			"functions, FCALL applies the manifest's flags.",
		run: runShebang})
	register(&rule{code: "reply-contract-missing", severity: Warning, needsManifest: true, withoutParse: true, linesOnly: true,
		summary: "A script with callers and no reply contract",
		help: "A caller decodes the script's reply; without a reply: type in the manifest, verify and " +
			"explore cannot check the replies and scriptctl gen cannot type them. Add reply: to the " +
			"script's manifest entry (docs/manifest.md, \"Reply contracts\"), for example " +
			"reply: '1 | 0 | error(\"ERR empty token\")'.",
		run: runReplyContractMissing})
	register(&rule{code: "key-alias", severity: Error, profile: "strict-proxy",
		summary: "A key argument not written KEYS[i] (strict-proxy profile)",
		help: "Some managed proxies read the script text and reject it unless every key argument of " +
			"redis.call is literally KEYS[i] (a local holding KEYS[1] is refused) and the script " +
			"declares its keys (numkeys > 0). Off by default; --profile strict-proxy turns it on. " +
			"Write KEYS[i] at every key position and pass every key in KEYS.",
		run: runKeyAlias})
	register(&rule{code: "reply-injection", severity: Warning,
		summary: "An error or status reply text built from input that may hold CR or LF",
		help: "redis.error_reply, redis.status_reply, {err = ...} and {ok = ...} send their text as a " +
			"one-line RESP reply. Text built from ARGV or KEYS may hold CR or LF, which ends the line " +
			"early: the client reads the rest as another reply (CVE-2025-67733 on unpatched servers). " +
			"Use a fixed text, or strip the characters first: string.gsub(s, '[\\r\\n]', ' ').",
		run: runReplyInjection})
	register(&rule{code: "nondeterministic-order", severity: Warning,
		summary: "The order of SMEMBERS, HKEYS, HGETALL, SCAN, ... returned or written unsorted",
		help: "SMEMBERS, SINTER, HKEYS, HVALS, HGETALL, the SCAN family, SRANDMEMBER, SPOP and KEYS " +
			"reply in the order of the server's hash table, which differs between servers, versions and " +
			"after a rehash, restore or failover. A script that returns that order, or writes it into a " +
			"list, string or stream, gives different results for the same data. Sort it first " +
			"(table.sort) or keep the data in a sorted set.",
		run: runNondeterministicOrder})
	register(&rule{code: "native-alternative", severity: Info, needsManifest: true,
		summary: "A script whose whole effect is one native command on every target",
		help: "A token-safe delete (GET compared with a token, then DEL) is DELIFEQ on Valkey 9; a token-safe " +
			"renew (then PEXPIRE) or compare-and-set (then SET) is SET ... IFEQ on Valkey 8.1 and Redis 8.4. " +
			"When every target the manifest lists has the command, call it instead: nothing to deploy, no " +
			"script cache to keep. The finding is a suggestion (info): it never fails a run.",
		run: runNativeAlternative})
	register(&rule{code: "bad-suppression", severity: Error, withoutParse: true,
		summary: "A scriptctl:ignore comment without a known code or a reason",
		help: "A suppression is written '-- scriptctl:ignore <code> <reason>' on the line of the finding " +
			"or the line above. One without a reason, or naming an unknown code, suppresses nothing.",
		run: runBadSuppression})
}

// argName names ARGV[n] or KEYS[n] with its manifest name when known.
func (p *Pass) indexName(table string, n int) string {
	s := fmt.Sprintf("%s[%d]", table, n)
	var names []string
	if p.Decl != nil {
		names = p.Decl.Keys
		if table == "ARGV" {
			names = p.Decl.Args
		}
	}
	if n >= 1 && n <= len(names) {
		s += " (" + names[n-1] + ")"
	}
	return s
}

// describe names the sources of a value for a message.
func (p *Pass) describe(table string, mask uint64) string {
	var parts []string
	if mask&1 != 0 {
		parts = append(parts, table+"[i]")
	}
	for n := 1; n < 64; n++ {
		if mask&(1<<uint(n)) != 0 {
			parts = append(parts, p.indexName(table, n))
		}
	}
	return strings.Join(parts, ", ")
}

// reached returns d with the call path the cause is reached through as a
// related location: "reached from 12:3, then 5:7".
func reached(d Diagnostic, path []Pos) Diagnostic {
	if len(path) == 0 {
		return d
	}
	var b strings.Builder
	for i, p := range path {
		if i > 0 {
			b.WriteString(", then ")
		}
		fmt.Fprintf(&b, "%d:%d", p.Line, p.Col)
	}
	d.Related = []Related{{Pos: path[0], Message: "reached from " + b.String()}}
	return d
}

// outside reports whether pos lies outside the body of the local function
// the call is in: the value was made by a caller.
func (c *Call) outside(pos Pos) bool {
	return c.body != nil && pos.Line != 0 && (pos.Line < c.body.Line() || pos.Line > c.body.LastLine())
}

func (c *Call) lit(i int) (string, bool) {
	if i < 1 || i > len(c.Args) {
		return "", false
	}
	v := c.Args[i-1].V
	if v.IsLit && v.O == FromLiteral {
		return v.Lit, true
	}
	return "", false
}

// keyArgs returns the key positions of the call (1-based among its Args)
// that it has: `redis.call('SET')` has none, and fails on the server.
func (c *Call) keyArgs() []int {
	pos := slices.Clone(c.info.keyPositions(len(c.Args)+1, c.lit))
	return slices.DeleteFunc(pos, func(i int) bool { return i < 1 || i > len(c.Args) })
}

func (c *Call) hasLit(word string) bool {
	for i := range c.Args {
		if s, ok := c.lit(i + 1); ok && strings.EqualFold(s, word) {
			return true
		}
	}
	return false
}

// targetsWithoutServerGlobal lists the targets where the `server` global
// (Valkey 8's alias of `redis`) does not exist: every Redis and Valkey 7.2.
func targetsWithoutServerGlobal(d *Decl) []string {
	targets := []string{lintTarget}
	if d != nil && len(d.Targets) > 0 {
		targets = d.Targets
	}
	var out []string
	for _, t := range targets {
		if !strings.HasPrefix(t, "valkey-") || t == "valkey-7.2" {
			out = append(out, t)
		}
	}
	return out
}
