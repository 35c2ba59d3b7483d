package lint

import (
	"slices"
	"strings"

	"github.com/scriptctl/scriptctl/internal/cmdtable"
	"github.com/scriptctl/scriptctl/internal/lazy"
)

// lintTarget is the server whose command table the linter reads: which
// commands exist, which write, where their keys are.
const lintTarget = "redis-7.0"

// commandTable is lintTarget's command table, decoded on first use.
var commandTable = lazy.Value[*cmdtable.Table]{New: func() *cmdtable.Table { return cmdtable.MustLoad(lintTarget) }}

// cmdInfo is what the linter knows of one Redis command: the server's own
// declaration (existence, write flag, key specs) from the shared command
// table, and the judgments COMMAND does not give (why a script must never
// run it, whether its reply is random).
type cmdInfo struct {
	// cmd is the server's declaration; nil for a command only newer
	// servers know (WAITAOF), which the linter still forbids.
	cmd *cmdtable.Command
	// write: the server flags it write.
	write bool
	// mayReplicate: not a write, but Redis propagates it (PUBLISH,
	// PFCOUNT), so a no-writes script may not run it either.
	mayReplicate bool
	// streams: the keys are a share of the arguments after a keyword
	// (XREAD ... STREAMS k1 k2 id1 id2): with an unpacked tail, which
	// argument is a key is unknown.
	streams bool
	// forbidden is why a script must never run the command ("" if it may).
	forbidden string
	// random: the reply is not a function of the data set.
	random bool
}

// commands holds every command of the target, by upper-case name: built
// by loadCommands.
var commands map[string]*cmdInfo

// extras are the linter's own judgments, by command, and a flag COMMAND
// hides: Redis declares PUBLISH, SPUBLISH and PFCOUNT may_replicate but
// leaves the flag out of COMMAND INFO on purpose (server.c).
var (
	forbidden  map[string]string // filled by forbidCommands, in loadCommands
	randoms    map[string]bool   // filled by loadCommands, as replicates
	replicates map[string]bool
)

// forbidCommands fills forbidden: on first use (loadCommands), not at
// process start.
func forbidCommands() {
	forbidden = map[string]string{}
	forbid := func(reason string, names ...string) {
		for _, n := range names {
			forbidden[n] = reason
		}
	}
	forbid("it scans the whole keyspace and blocks the server; in a cluster it sees one node only", "KEYS")
	forbid("it wipes data far beyond the script's declared keys", "FLUSHALL", "FLUSHDB", "SWAPDB")
	forbid("scripts must not manage scripts or functions", "SCRIPT", "FUNCTION", "EVAL", "EVALSHA", "EVAL_RO",
		"EVALSHA_RO", "FCALL", "FCALL_RO")
	forbid("server administration does not belong in a script", "CONFIG", "DEBUG", "SHUTDOWN", "MONITOR",
		"SAVE", "BGSAVE", "BGREWRITEAOF", "REPLICAOF", "SLAVEOF", "SYNC", "PSYNC", "ACL", "MODULE", "CLIENT",
		"CLUSTER", "FAILOVER", "MIGRATE", "RESET", "AUTH", "HELLO", "ROLE", "QUIT", "REPLCONF")
	forbid("a script cannot subscribe: it runs to completion and returns one reply", "SUBSCRIBE",
		"PSUBSCRIBE", "SSUBSCRIBE", "UNSUBSCRIBE", "PUNSUBSCRIBE", "SUNSUBSCRIBE")
	forbid("a script is already atomic; transactions are not allowed inside it", "MULTI", "EXEC",
		"DISCARD", "WATCH", "UNWATCH")
	forbid("it waits for replicas while the whole server is blocked by the script", "WAIT", "WAITAOF")
	forbid("a blocking command cannot block in a script: it returns at once as if it timed out",
		"BLPOP", "BRPOP", "BRPOPLPUSH", "BLMOVE", "BLMPOP", "BZPOPMIN", "BZPOPMAX", "BZMPOP")
}

// loadCommands builds commands from the command table, on first use.
var loadCommands = lazy.Once{F: func() {
	forbidCommands()
	randoms = setOf("SRANDMEMBER", "HRANDFIELD", "ZRANDMEMBER", "SPOP", "TIME", "RANDOMKEY")
	replicates = setOf("PUBLISH", "SPUBLISH", "PFCOUNT")
	commands = map[string]*cmdInfo{}
	for _, c := range commandTable.Get().Commands {
		if c.Parent() != nil {
			continue
		}
		commands[strings.ToUpper(c.Name)] = infoOf(c)
	}
	for name, reason := range forbidden {
		if _, ok := commands[name]; !ok {
			commands[name] = &cmdInfo{forbidden: reason}
		}
	}
}}

// infoOf joins the server's declaration of c with the linter's judgments.
func infoOf(c *cmdtable.Command) *cmdInfo {
	name := strings.ToUpper(c.Name)
	info := &cmdInfo{
		cmd:          c,
		write:        c.Write(),
		mayReplicate: replicates[name] || c.HasFlag("may_replicate"),
		forbidden:    forbidden[name],
		random:       randoms[name],
	}
	if info.forbidden == "" && c.Noscript() {
		// Every noscript command of the target has a reason above; this
		// covers a table that gains one.
		info.forbidden = "Redis refuses it inside scripts (it is flagged noscript)"
	}
	for _, s := range c.Specs {
		if s.BeginSearch == "keyword" && s.FindKeys == "range" && s.Limit > 0 {
			info.streams = true
		}
	}
	return info
}

// lookupCommand returns what is known of the command, or nil.
func lookupCommand(name string) *cmdInfo {
	loadCommands.Do()
	return commands[strings.ToUpper(name)]
}

// interleaved reports whether keys alternate with other arguments (MSET
// key value key value).
func (c *cmdInfo) interleaved() bool {
	if c.cmd == nil {
		return false
	}
	return slices.ContainsFunc(c.cmd.Specs, func(s cmdtable.KeySpec) bool { return s.KeyStep > 1 })
}

// keyPositions returns the argument positions (1-based, after the command
// name) holding keys, given the call's n arguments (the name included) as
// far as they are known: lit(i) returns argument i's literal text and
// whether it is a literal. It reads the server's key specs as Redis does
// (COMMAND GETKEYS), keeping what is certain when some arguments are not
// literals. A shard channel (SPUBLISH) counts as a key: it routes like one.
func (c *cmdInfo) keyPositions(n int, lit func(i int) (string, bool)) []int {
	if c.cmd == nil {
		return nil
	}
	return c.cmd.KeysPartial(n, lit, true)
}
