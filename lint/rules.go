package lint

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/scriptctl/scriptctl/internal/cmdtable"
	"github.com/scriptctl/scriptctl/internal/lazy"
	"github.com/scriptctl/scriptctl/internal/target"
	"github.com/scriptctl/scriptctl/manifest"
)

func init() {
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

var tokenNames = map[string]string{
	"TEqeq": "'=='", "TNeq": "'~='", "TLte": "'<='", "TGte": "'>='", "T2Comma": "'..'",
	"T3Comma": "'...'", "T2Colon": "'::'", "TIdent": "a name", "TNumber": "a number", "TString": "a string",
	"$end": "end of file", "$unk": "an unknown token",
}

var tokRe = lazy.Regexp(`\$end|\$unk|T[A-Z][A-Za-z0-9]*`)

func luaTokenName(s string) string {
	if n, ok := tokenNames[s]; ok {
		return n
	}
	if strings.HasPrefix(s, "T") {
		return "'" + strings.ToLower(s[1:]) + "'"
	}
	return s
}

func runSyntax(p *Pass, r *rule) []Diagnostic {
	var out []Diagnostic
	if e := p.ParseErr; e != nil {
		line, col := e.Pos.Line, e.Pos.Column
		if line <= 0 { // at EOF
			line = len(p.lines)
			for line > 1 && strings.TrimSpace(p.lines[line-1]) == "" {
				line--
			}
			col = len(p.lines[line-1]) + 1
		} else if line <= len(p.lines) && e.Token != "" && col >= len(e.Token) {
			// The scanner reports the end of the token; point at its start.
			l := p.lines[line-1]
			if start := col - len(e.Token); start >= 0 && col <= len(l) && l[start:col] == e.Token {
				col = start + 1
			}
		}
		msg := strings.TrimSpace(e.Message)
		msg = tokRe().ReplaceAllStringFunc(msg, luaTokenName)
		if e.Pos.Line <= 0 {
			msg += " at end of file (a missing 'end', ')', '}' or expression?)"
		} else if e.Token != "" {
			msg += fmt.Sprintf(" near %q", e.Token)
		}
		out = append(out, r.at(p.pos(line, col), "%s", msg))
	}
	if p.Facts != nil {
		for _, g := range p.Facts.Lua52 {
			out = append(out, r.at(g.Pos, "%s is Lua 5.2 syntax; Redis runs Lua 5.1 and rejects it", g.Name))
		}
	}
	return out
}

func runGlobalWrite(p *Pass, r *rule) []Diagnostic {
	var out []Diagnostic
	for _, g := range p.Facts.GlobalWrites {
		if strings.Contains(g.Name, ".") || strings.Contains(g.Name, "[") {
			lib := g.Name[:strings.IndexAny(g.Name, ".[")]
			out = append(out, r.at(g.Pos, "assignment to %s: the built-in table %s is read-only in Redis", g.Name, lib))
			continue
		}
		out = append(out, r.at(g.Pos, "assignment to global %s: Redis forbids globals; declare it local", g.Name))
	}
	return out
}

func runUndeclaredGlobal(p *Pass, r *rule) []Diagnostic {
	var out []Diagnostic
	names := slices.Sorted(func(yield func(string) bool) {
		for n := range redisGlobals {
			if !strings.HasPrefix(n, "__") && !yield(n) {
				return
			}
		}
	})
	written := map[string]bool{}
	for _, g := range p.Facts.GlobalWrites {
		written[g.Name] = true // reported by global-write
	}
	for _, g := range p.Facts.GlobalReads {
		if written[g.Name] {
			continue
		}
		if g.Name == "server" {
			if p.Decl != nil {
				continue // target-command judges it against the manifest's targets
			}
			if lacking := targetsWithoutServerGlobal(p.Decl); len(lacking) > 0 {
				out = append(out, r.at(g.Pos, "server is Valkey 8's alias of redis: it does not exist on %s; use redis", strings.Join(lacking, ", ")))
			}
			continue
		}
		if why, ok := missingGlobals[g.Name]; ok {
			out = append(out, r.at(g.Pos, "%s", why))
			continue
		}
		msg := fmt.Sprintf("%s is not defined: Redis raises \"Script attempted to access nonexistent global variable '%s'\"", g.Name, g.Name)
		if s := suggest(g.Name, names); s != "" {
			msg += fmt.Sprintf(" (did you mean %s?)", s)
		}
		out = append(out, r.at(g.Pos, "%s", msg))
	}
	for _, g := range p.Facts.BadFields {
		if written[g.Name] {
			continue
		}
		lib, field, _ := strings.Cut(g.Name, ".")
		msg := fmt.Sprintf("%s is not defined: %s has no field %s", g.Name, lib, field)
		if s := suggest(field, slices.Sorted(func(yield func(string) bool) {
			for n := range libFields[lib] {
				if !yield(n) {
					return
				}
			}
		})); s != "" {
			msg += fmt.Sprintf(" (did you mean %s.%s?)", lib, s)
		}
		out = append(out, r.at(g.Pos, "%s", msg))
	}
	return out
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

// undeclaredAdvice ends every dynamic-key message, in the words of the
// offline run's undeclared-key finding about the same line
// (verify.Finding.Message).
const undeclaredAdvice = "on a cluster node it must hash to the declared keys' slot, and proxies that demand declared keys refuse it; pass it in KEYS"

func runDynamicKey(p *Pass, r *rule) []Diagnostic {
	var out []Diagnostic
	for _, c := range p.Facts.Calls {
		if c.info == nil || c.info.forbidden != "" || (c.info.streams && c.Open) {
			continue
		}
		for _, i := range c.keyArgs() {
			a := c.Args[i-1]
			v := a.V
			if c.Open && i == len(c.Args) && c.info.interleaved() && v.O&FromKeys != 0 {
				// unpack(kv) spreads over key and value positions (MSET
				// k1 v1 k2 v2): its elements are not all keys.
				continue
			}
			var why string
			switch {
			case v.O&FromArgv != 0 && v.O&FromBuilt != 0:
				why = "is built by " + v.How + " from " + p.describe("ARGV", v.Args)
			case v.O&FromArgv != 0:
				why = "comes from " + p.describe("ARGV", v.Args)
			case v.O&FromReply != 0 && v.O&FromBuilt == 0:
				why = "is read from a reply"
			case v.O&FromBuilt != 0:
				why = "is built by " + v.How
				var from []string
				if v.Keys != 0 {
					from = append(from, p.describe("KEYS", v.Keys))
				}
				if v.O&FromReply != 0 {
					from = append(from, "a reply")
				}
				if len(from) > 0 {
					why += " from " + strings.Join(from, " and ")
				}
			case v.O&FromLiteral != 0 && v.IsLit && v.O == FromLiteral:
				why = fmt.Sprintf("is the literal %q", v.Lit)
			case v.O&FromLiteral != 0:
				why = "may be a constant"
				if v.How != "" {
					why = "may be " + v.How
				}
			default:
				continue
			}
			if c.outside(v.at) {
				// The cause is the caller's argument: report it there.
				d := reached(r.at(v.at, "this value %s and reaches key argument %d of %s at line %d, not KEYS[n]: %s", why, i, c.label(), a.Pos.Line, undeclaredAdvice), c.Path)
				d.also = a.Pos // an ignore comment left at the helper's argument still counts
				out = append(out, d)
				continue
			}
			out = append(out, reached(r.at(a.Pos, "key argument %d of %s %s, not KEYS[n]: %s", i, c.label(), why, undeclaredAdvice), c.Path))
		}
	}
	return out
}

func runIndexRange(table string) func(*Pass, *rule) []Diagnostic {
	return func(p *Pass, r *rule) []Diagnostic {
		refs, declared, what := p.Facts.KeyRefs, len(p.Decl.Keys), "keys"
		if table == "ARGV" {
			refs, declared, what = p.Facts.ArgRefs, len(p.Decl.Args), "args"
		}
		var out []Diagnostic
		for _, ref := range refs {
			switch {
			case ref.N == -1:
			case ref.N < 1:
				out = append(out, r.at(ref.Pos, "%s[%d] is always nil: Lua tables start at 1", table, ref.N))
			case ref.N > declared:
				out = append(out, r.at(ref.Pos, "%s[%d] is beyond the %d %s the manifest declares for %s; it is always nil", table, ref.N, declared, what, p.Decl.Script))
			}
		}
		return out
	}
}

func runUnused(table string) func(*Pass, *rule) []Diagnostic {
	return func(p *Pass, r *rule) []Diagnostic {
		refs, all, names := p.Facts.KeyRefs, p.Facts.AllKeys, p.Decl.Keys
		if table == "ARGV" {
			refs, all, names = p.Facts.ArgRefs, p.Facts.AllArgs, p.Decl.Args
		}
		if all {
			return nil
		}
		used := map[int]bool{}
		for _, ref := range refs {
			used[ref.N] = true
		}
		var out []Diagnostic
		for i, n := range names {
			if !used[i+1] {
				out = append(out, r.at(p.pos(1, 1), "%s[%d] (%s) is declared in the manifest for %s but the script never reads it", table, i+1, n, p.Decl.Script))
			}
		}
		return out
	}
}

func runWriteInReadonly(p *Pass, r *rule) []Diagnostic {
	if !p.Readonly() {
		return nil
	}
	var out []Diagnostic
	for _, c := range p.Facts.Calls {
		if c.info == nil || c.info.forbidden != "" {
			continue
		}
		switch {
		case c.info.write:
			out = append(out, r.at(c.Pos, "%s writes, but the script is flagged no-writes: Redis rejects it with \"Write commands are not allowed from read-only scripts\"", c.Name))
		case c.info.mayReplicate:
			out = append(out, r.at(c.Pos, "%s is replicated, which Redis counts as a write: the no-writes script fails with \"Write commands are not allowed from read-only scripts\"", c.Name))
		}
	}
	return out
}

// runTargetCommand reports a literal command name that a target's command
// table does not list.
func runTargetCommand(p *Pass, r *rule) []Diagnostic {
	var out []Diagnostic
	targets := p.Decl.Targets
	if len(targets) == 0 {
		targets = []string{lintTarget}
	}
	for _, c := range p.Facts.Calls {
		if c.Name == "" || !anyTargetHas(cmdtable.Targets(), c.Name) {
			continue // no server knows it: a misspelling or a dynamic name
		}
		var missing []string
		for _, t := range targets {
			if tb, err := cmdtable.Load(t); err == nil {
				if _, ok := tb.Command(c.Name); !ok {
					missing = append(missing, t)
				}
			}
		}
		if len(missing) > 0 {
			out = append(out, reached(r.at(c.Pos, "%s does not exist on %s (the manifest's targets: %s)", c.Name, strings.Join(missing, ", "), strings.Join(targets, ", ")), c.Path))
			continue
		}
		for _, o := range targetOptions {
			if o.cmd != c.Name || !c.hasLit(o.opt) {
				continue
			}
			var lack []string
			for _, name := range targets {
				if t, ok := target.Lookup(name); ok && !o.has(t) {
					lack = append(lack, name)
				}
			}
			if len(lack) > 0 {
				out = append(out, reached(r.at(c.Pos, "%s ... %s does not exist on %s (%s; the manifest's targets: %s): the call fails with a syntax error there", c.Name, o.opt, strings.Join(lack, ", "), o.since, strings.Join(targets, ", ")), c.Path))
			}
		}
	}
	for _, g := range p.Facts.GlobalReads {
		if g.Name != "server" {
			continue
		}
		if lacking := targetsWithoutServerGlobal(p.Decl); len(lacking) > 0 {
			out = append(out, r.at(g.Pos, "server is Valkey 8's alias of redis: it does not exist on %s (the manifest's targets: %s), where the script fails with a nonexistent-global error; use redis", strings.Join(lacking, ", "), strings.Join(targets, ", ")))
		}
	}
	return out
}

// targetOptions are command options that only some targets have.
var targetOptions = []struct {
	cmd, opt, since string
	has             func(target.Target) bool
}{
	{"SET", "IFEQ", "Valkey 8.1 and Redis 8.4 added it", func(t target.Target) bool { return since(t, target.Valkey, 8, 1) || since(t, target.Redis, 8, 4) }},
	{"SET", "IFNE", "Redis 8.4 added it", func(t target.Target) bool { return since(t, target.Redis, 8, 4) }},
	{"SET", "IFDEQ", "Redis 8.4 added it", func(t target.Target) bool { return since(t, target.Redis, 8, 4) }},
	{"SET", "IFDNE", "Redis 8.4 added it", func(t target.Target) bool { return since(t, target.Redis, 8, 4) }},
}

// since reports whether t is of family at major.minor or later.
func since(t target.Target, family string, major, minor int) bool {
	return t.Family == family && (t.Major > major || t.Major == major && t.Minor >= minor)
}

func runKeyAlias(p *Pass, r *rule) []Diagnostic {
	var out []Diagnostic
	touches := false
	for _, c := range p.Facts.Calls {
		if c.info == nil || c.info.forbidden != "" {
			continue
		}
		for _, i := range c.keyArgs() {
			touches = true
			if a := c.Args[i-1]; !a.Direct {
				out = append(out, reached(r.at(a.Pos, "this key argument is not written KEYS[i]: proxies that check scripts reject it; write KEYS[i] there"), c.Path))
			}
		}
	}
	if touches && p.Decl != nil && len(p.Decl.Keys) == 0 {
		out = append(out, r.at(p.pos(1, 1), "the script touches keys but the manifest declares none for %s, so it is called with numkeys 0: proxies that check scripts reject it; declare the keys", p.Decl.Script))
	}
	return out
}

func runReplyInjection(p *Pass, r *rule) []Diagnostic {
	var out []Diagnostic
	for _, t := range p.Facts.Replies {
		var from []string
		if t.V.Args != 0 {
			from = append(from, p.describe("ARGV", t.V.Args))
		}
		if t.V.Keys != 0 {
			from = append(from, p.describe("KEYS", t.V.Keys))
		}
		out = append(out, r.at(t.Pos, "the text of %s is built from %s, which may hold CR or LF: the reply line ends early and the client reads the rest as another reply; use a fixed text or strip CR and LF with string.gsub", t.Kind, strings.Join(from, ", ")))
	}
	return out
}

func runNondeterministicOrder(p *Pass, r *rule) []Diagnostic {
	var out []Diagnostic
	for _, u := range p.Facts.Unordered {
		if u.Sink == "returned" {
			out = append(out, r.at(u.Pos, "returns a value that depends on the order of the %s reply (an element picked by its place, or a string joined from it): that order is the server's hash table's, which differs between servers and after a rehash or restore; sort the reply (table.sort) first", u.From))
			continue
		}
		out = append(out, reached(r.at(u.Pos, "writes the reply of %s into %s in the server's hash-table order: sort it (table.sort) first", u.From, u.Sink), u.Path))
	}
	return out
}

func anyTargetHas(targets []string, name string) bool {
	for _, t := range targets {
		if tb, err := cmdtable.Load(t); err == nil {
			if _, ok := tb.Command(name); ok {
				return true
			}
		}
	}
	return false
}

func runForbidden(p *Pass, r *rule) []Diagnostic {
	var out []Diagnostic
	for _, c := range p.Facts.Calls {
		if c.info == nil {
			continue
		}
		if c.info.forbidden != "" {
			out = append(out, r.at(c.Pos, "%s must not run in a script: %s", c.Name, c.info.forbidden))
			continue
		}
		if c.Name == "XREAD" || c.Name == "XREADGROUP" {
			for i := range c.Args {
				if s, ok := c.lit(i + 1); ok && strings.EqualFold(s, "BLOCK") {
					out = append(out, r.at(c.Pos, "%s with BLOCK must not run in a script: a script cannot block", c.Name))
					break
				}
				if s, ok := c.lit(i + 1); ok && strings.EqualFold(s, "STREAMS") {
					break
				}
			}
		}
	}
	return out
}

func runUnbounded(p *Pass, r *rule) []Diagnostic {
	var out []Diagnostic
	for _, c := range p.Facts.Calls {
		switch c.Name {
		case "SMEMBERS", "HGETALL", "HKEYS", "HVALS":
			out = append(out, r.at(c.Pos, "%s reads the whole collection; its cost grows with the data while the server waits", c.Name))
		case "LRANGE", "ZRANGE", "ZREVRANGE":
			start, ok1 := c.lit(2)
			stop, ok2 := c.lit(3)
			if ok1 && ok2 && start == "0" && stop == "-1" && !c.hasLit("LIMIT") && !c.hasLit("BYSCORE") && !c.hasLit("BYLEX") {
				out = append(out, r.at(c.Pos, "%s 0 -1 reads the whole collection; read a bounded range instead", c.Name))
			}
			if by := "BYSCORE"; c.Name == "ZRANGE" && ok1 && ok2 && isInf(start) && isInf(stop) && !c.hasLit("LIMIT") {
				if c.hasLit("BYLEX") {
					by = "BYLEX"
				}
				if c.hasLit(by) {
					out = append(out, r.at(c.Pos, "%s %s %s %s without LIMIT reads the whole collection", c.Name, start, stop, by))
				}
			}
		case "ZRANGEBYSCORE", "ZREVRANGEBYSCORE", "ZRANGEBYLEX", "ZREVRANGEBYLEX":
			lo, ok1 := c.lit(2)
			hi, ok2 := c.lit(3)
			if ok1 && ok2 && isInf(lo) && isInf(hi) && !c.hasLit("LIMIT") {
				out = append(out, r.at(c.Pos, "%s %s %s without LIMIT reads the whole collection", c.Name, lo, hi))
			}
		case "SCAN", "SSCAN", "HSCAN", "ZSCAN":
			if c.InLoop {
				out = append(out, r.at(c.Pos, "%s in a loop walks the whole collection inside one script call; iterate from the application", c.Name))
			}
		}
	}
	return out
}

func isInf(s string) bool { return s == "-inf" || s == "+inf" || s == "inf" || s == "-" || s == "+" }

func (c *Call) hasLit(word string) bool {
	for i := range c.Args {
		if s, ok := c.lit(i + 1); ok && strings.EqualFold(s, word) {
			return true
		}
	}
	return false
}

func runDynamicCommand(p *Pass, r *rule) []Diagnostic {
	var out []Diagnostic
	for _, c := range p.Facts.Calls {
		if c.Name == "" {
			out = append(out, reached(r.at(c.Pos, "the command name is not a literal: its keys and writes cannot be checked"), c.Path))
		}
	}
	return out
}

// ttlArgs returns the positions of a call's TTL arguments.
func ttlArgs(c *Call) []int {
	switch c.Name {
	case "SET", "GETEX":
		var out []int
		for i := 2; i < len(c.Args); i++ {
			if s, ok := c.lit(i); ok {
				switch strings.ToUpper(s) {
				case "EX", "PX", "EXAT", "PXAT":
					out = append(out, i+1)
				}
			}
		}
		return out
	case "SETEX", "PSETEX", "EXPIRE", "PEXPIRE", "EXPIREAT", "PEXPIREAT", "RESTORE":
		if len(c.Args) >= 2 {
			return []int{2}
		}
	}
	return nil
}

func runUnvalidatedTTL(p *Pass, r *rule) []Diagnostic {
	var out []Diagnostic
	for _, c := range p.Facts.Calls {
		for _, i := range ttlArgs(c) {
			a := c.Args[i-1]
			if miss := a.V.Args &^ c.Checked; miss != 0 {
				what := c.Name
				if s, ok := c.lit(i - 1); ok && i > 2 {
					what = strings.ToUpper(s) + " of " + c.Name
				}
				out = append(out, reached(r.at(a.Pos, "%s reaches %s without a check on every path before it; validate it and return redis.error_reply first", p.describe("ARGV", miss), what), c.Path))
			}
		}
	}
	return out
}

func runWriteBeforeValidation(p *Pass, r *rule) []Diagnostic {
	var out []Diagnostic
	for _, wc := range p.Facts.WriteChecks {
		w := wc.Write
		if wc.Raise != "" {
			what := wc.Raise
			if what != "a comparison" && what != "arithmetic" {
				what = "redis.call('" + what + "')"
			}
			out = append(out, reached(r.at(w.Pos, "%s runs before %s at line %d that raises an error when %s is not a number: the script stops half done and this write stays (scripts do not roll back); convert and check the argument first", w.Name, what, wc.Check.Line, p.describe("ARGV", wc.Args)), w.Path))
			continue
		}
		out = append(out, reached(r.at(w.Pos, "%s runs before the ARGV check at line %d: when the check rejects the call, this write stays (scripts do not roll back)", w.Name, wc.Check.Line), w.Path))
	}
	return out
}

func runNondeterministic(p *Pass, r *rule) []Diagnostic {
	// firstWrite returns the first write other than c: a random command
	// that writes (SPOP) is not, on its own, a random value stored.
	firstWrite := func(c *Call) *Call {
		for _, w := range p.Facts.Calls {
			if w != c && w.info != nil && w.info.write {
				return w
			}
		}
		return nil
	}
	var out []Diagnostic
	for _, g := range p.Facts.Randoms {
		if w := firstWrite(nil); w != nil {
			out = append(out, r.at(g.Pos, "math.random in a script that writes (%s at line %d): pass the random value in ARGV", w.Name, w.Pos.Line))
		}
	}
	for _, c := range p.Facts.Calls {
		if c.info != nil && c.info.random {
			if w := firstWrite(c); w != nil {
				out = append(out, r.at(c.Pos, "%s is not deterministic, in a script that writes (%s at line %d): pass the value in ARGV", c.Name, w.Name, w.Pos.Line))
			}
		}
	}
	return out
}

func runShebang(p *Pass, r *rule) []Diagnostic {
	at := p.pos(1, 1)
	if p.ShebangErr != nil {
		return []Diagnostic{r.at(at, "%v", p.ShebangErr)}
	}
	var out []Diagnostic
	for _, f := range p.Shebang {
		if !slices.Contains(manifest.ScriptFlags, f) {
			out = append(out, r.at(at, "unknown shebang flag %q: want one of %s", f, strings.Join(manifest.ScriptFlags, ", ")))
		}
	}
	if p.Decl == nil {
		return out
	}
	want, got := set(p.Decl.Flags), set(p.Shebang)
	switch {
	case !p.HasShebang && len(want) > 0 && !p.Decl.FunctionsOnly:
		// Deployed for EVAL/EVALSHA too (manifest deploy: both or
		// scripts): only a shebang carries the flags there.
		out = append(out, r.at(at, "the manifest declares flags [%s] for %s but the script has no shebang, and the manifest deploys it for EVAL/EVALSHA too (deploy: both or scripts), which run it without them; add '#!lua flags=%s', or set deploy: functions", strings.Join(want, " "), p.Decl.Script, strings.Join(want, ",")))
	case p.HasShebang && !slices.Equal(want, got):
		out = append(out, r.at(at, "shebang flags [%s] differ from the manifest's flags [%s] for %s", strings.Join(got, " "), strings.Join(want, " "), p.Decl.Script))
	}
	return out
}

func set(list []string) []string {
	out := slices.Clone(list)
	sort.Strings(out)
	out = slices.Compact(out)
	return slices.DeleteFunc(out, func(s string) bool { return s == "" })
}

// otherCommandsCodes are codes other commands honour in a scriptctl:ignore
// comment: lint accepts them as known and leaves them to those commands
// (scriptctl mutate skips the mutants of a line marked mutant-survived).
var otherCommandsCodes = map[string]bool{"mutant-survived": true}

func runBadSuppression(p *Pass, r *rule) []Diagnostic {
	var out []Diagnostic
	for _, s := range p.supps {
		at := p.pos(s.line, 1)
		at.Col = s.col
		switch {
		case s.code == "":
			out = append(out, r.at(at, "scriptctl:ignore needs a rule code and a reason: -- scriptctl:ignore <code> <reason>"))
		case byCode[s.code] == nil && !otherCommandsCodes[s.code]:
			out = append(out, r.at(at, "scriptctl:ignore names unknown rule %q", s.code))
		case s.reason == "":
			out = append(out, r.at(at, "scriptctl:ignore %s has no reason: say why the finding is acceptable", s.code))
		}
	}
	return out
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

func runReplyContractMissing(p *Pass, r *rule) []Diagnostic {
	if p.Decl == nil || p.Decl.HasReply || len(p.Decl.Callers) == 0 {
		return nil
	}
	return []Diagnostic{r.at(p.pos(1, 1), "script %s has callers (%s) and no reply contract: add reply: to its manifest entry", p.Decl.Script, strings.Join(p.Decl.Callers, ", "))}
}
