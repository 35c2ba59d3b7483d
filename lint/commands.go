package lint

import "strings"

// cmdInfo is what the linter knows of one Redis command: where its keys
// are (as COMMAND INFO's key specs give them), whether it writes, and
// whether a script must never run it.
type cmdInfo struct {
	write bool
	// keys are ranges of argument positions holding keys; position 1 is the
	// first argument after the command name. last -1 means up to the last
	// argument.
	keys []keyRange
	// numkeys is the position of a numkeys argument; the keys follow it.
	numkeys int
	// streams: keys are the first half of the arguments after STREAMS.
	streams bool
	// kwKey lists keywords whose next argument is a key (SORT ... STORE k).
	kwKey []string
	// forbidden is why a script must never run the command ("" if it may).
	forbidden string
	// random: the reply is not a function of the data set.
	random bool
	// mayReplicate: not a write, but Redis propagates it (PUBLISH,
	// PFCOUNT), so a no-writes script may not run it either.
	mayReplicate bool
	// movable: the command reads keys that no argument position names
	// (SORT BY/GET patterns).
	movable bool
}

type keyRange struct{ first, last, step int }

var commands = map[string]*cmdInfo{}

// def registers commands sharing one shape.
func def(info cmdInfo, names ...string) {
	for _, n := range names {
		c := info
		commands[n] = &c
	}
}

var (
	one      = []keyRange{{1, 1, 1}}
	all      = []keyRange{{1, -1, 1}}
	two      = []keyRange{{1, 2, 1}}
	second   = []keyRange{{2, 2, 1}}
	pairKeys = []keyRange{{1, -1, 2}}
)

func init() {
	// Strings and generic keyspace.
	def(cmdInfo{keys: one}, "GET", "STRLEN", "GETRANGE", "SUBSTR", "TTL", "PTTL", "TYPE", "EXPIRETIME",
		"PEXPIRETIME", "DUMP", "GETBIT", "BITCOUNT", "BITPOS", "BITFIELD_RO", "LLEN", "LRANGE", "LINDEX", "LPOS",
		"SCARD", "SISMEMBER", "SMISMEMBER", "SMEMBERS", "SSCAN", "HGET", "HMGET", "HEXISTS", "HLEN", "HKEYS",
		"HVALS", "HGETALL", "HSTRLEN", "HSCAN", "ZSCORE", "ZMSCORE", "ZCARD", "ZCOUNT", "ZRANGE", "ZRANGEBYSCORE",
		"ZREVRANGE", "ZREVRANGEBYSCORE", "ZRANGEBYLEX", "ZREVRANGEBYLEX", "ZRANK", "ZREVRANK", "ZLEXCOUNT",
		"ZSCAN", "XLEN", "XRANGE", "XREVRANGE", "XPENDING", "GEODIST", "GEOHASH", "GEOPOS", "GEOSEARCH",
		"GEORADIUS_RO", "GEORADIUSBYMEMBER_RO")
	def(cmdInfo{keys: two}, "LCS")
	// SORT_RO ... BY/GET patterns read keys no argument names.
	def(cmdInfo{keys: one, movable: true}, "SORT_RO")
	// A shard channel routes like a key (COMMAND INFO lists it as one).
	def(cmdInfo{keys: one, mayReplicate: true}, "SPUBLISH")
	def(cmdInfo{keys: all}, "MGET", "EXISTS", "TOUCH", "SINTER", "SUNION", "SDIFF")
	def(cmdInfo{keys: all, mayReplicate: true}, "PFCOUNT")
	def(cmdInfo{keys: one, write: true}, "SET", "SETNX", "SETEX", "PSETEX", "GETSET", "GETDEL", "GETEX",
		"APPEND", "INCR", "INCRBY", "INCRBYFLOAT", "DECR", "DECRBY", "SETRANGE", "EXPIRE", "PEXPIRE",
		"EXPIREAT", "PEXPIREAT", "PERSIST", "RESTORE", "SETBIT", "BITFIELD", "LPUSH", "RPUSH", "LPUSHX",
		"RPUSHX", "LPOP", "RPOP", "LSET", "LREM", "LTRIM", "LINSERT", "SADD", "SREM", "HSET", "HSETNX", "HMSET",
		"HDEL", "HINCRBY", "HINCRBYFLOAT", "ZADD", "ZREM", "ZINCRBY", "ZREMRANGEBYRANK", "ZREMRANGEBYSCORE",
		"ZREMRANGEBYLEX", "ZPOPMIN", "ZPOPMAX", "XADD", "XDEL", "XTRIM", "XACK", "XCLAIM", "XAUTOCLAIM",
		"XSETID", "PFADD", "GEOADD", "MOVE", "RESTORE-ASKING")
	def(cmdInfo{keys: second, write: true}, "PFDEBUG")
	def(cmdInfo{keys: pairKeys, write: true}, "MSET", "MSETNX")
	def(cmdInfo{keys: all, write: true}, "DEL", "UNLINK", "PFMERGE", "SINTERSTORE", "SUNIONSTORE", "SDIFFSTORE")
	def(cmdInfo{keys: two, write: true}, "RENAME", "RENAMENX", "COPY", "RPOPLPUSH", "LMOVE", "SMOVE",
		"ZRANGESTORE", "GEOSEARCHSTORE")
	def(cmdInfo{keys: []keyRange{{2, -1, 1}}, write: true}, "BITOP")
	def(cmdInfo{keys: one, write: true, kwKey: []string{"STORE"}}, "SORT")
	def(cmdInfo{keys: one, write: true, kwKey: []string{"STORE", "STOREDIST"}}, "GEORADIUS", "GEORADIUSBYMEMBER")
	// numkeys commands.
	def(cmdInfo{numkeys: 1}, "SINTERCARD", "ZINTERCARD", "ZUNION", "ZINTER", "ZDIFF")
	def(cmdInfo{numkeys: 1, write: true}, "LMPOP", "ZMPOP")
	def(cmdInfo{keys: one, numkeys: 2, write: true}, "ZUNIONSTORE", "ZINTERSTORE", "ZDIFFSTORE")
	// Subcommands with the key second.
	def(cmdInfo{keys: second}, "OBJECT", "XINFO", "MEMORY")
	def(cmdInfo{keys: second, write: true}, "XGROUP")
	// Streams.
	def(cmdInfo{streams: true}, "XREAD")
	def(cmdInfo{streams: true, write: true}, "XREADGROUP")
	// Randomness.
	def(cmdInfo{keys: one, random: true}, "SRANDMEMBER", "HRANDFIELD", "ZRANDMEMBER")
	def(cmdInfo{keys: one, random: true, write: true}, "SPOP")
	def(cmdInfo{random: true}, "TIME", "RANDOMKEY")
	// Keyless commands a script may run.
	def(cmdInfo{}, "PING", "ECHO", "DBSIZE", "LASTSAVE", "INFO", "SELECT", "COMMAND", "SCAN")
	def(cmdInfo{mayReplicate: true}, "PUBLISH")

	// Forbidden.
	forbid := func(reason string, names ...string) {
		for _, n := range names {
			c, ok := commands[n]
			if !ok {
				c = &cmdInfo{}
				commands[n] = c
			}
			c.forbidden = reason
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

// lookupCommand returns what is known of the command, or nil.
func lookupCommand(name string) *cmdInfo { return commands[strings.ToUpper(name)] }

// keyPositions returns the argument positions (1-based, after the command
// name) holding keys, given the call's arguments as far as they are known.
// args[0] is the command name; lit(i) returns argument i's literal text and
// whether it is a literal. n is the number of arguments when known exactly,
// else -1: ranges running to the end are then cut at the last known one.
// interleaved reports whether keys alternate with other arguments (MSET
// key value key value).
func (c *cmdInfo) interleaved() bool {
	for _, r := range c.keys {
		if r.step > 1 {
			return true
		}
	}
	return false
}

func (c *cmdInfo) keyPositions(n int, lit func(i int) (string, bool)) []int {
	var out []int
	for _, r := range c.keys {
		last := r.last
		if last < 0 {
			last = n - 1 + last + 1
		}
		for i := r.first; i <= last && i < n; i += r.step {
			out = append(out, i)
		}
	}
	if c.numkeys > 0 && c.numkeys < n {
		if s, ok := lit(c.numkeys); ok {
			k := atoi(s)
			for i := c.numkeys + 1; i <= c.numkeys+k && i < n; i++ {
				out = append(out, i)
			}
		}
	}
	for i := 1; i+1 < n; i++ {
		if s, ok := lit(i); ok && containsFold(c.kwKey, s) {
			out = append(out, i+1)
		}
	}
	if c.streams {
		for i := 1; i < n; i++ {
			if s, ok := lit(i); ok && strings.EqualFold(s, "STREAMS") {
				rest := n - i - 1
				for j := i + 1; j <= i+rest/2; j++ {
					out = append(out, j)
				}
				break
			}
		}
	}
	return out
}

func containsFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

// atoi parses a small non-negative decimal integer; -1 when s is not one.
func atoi(s string) int {
	if s == "" || len(s) > 6 {
		return -1
	}
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' {
			return -1
		}
		n = n*10 + int(c-'0')
	}
	return n
}
