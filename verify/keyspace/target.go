package keyspace

import (
	"maps"
	"sync"

	"github.com/scriptctl/scriptctl/internal/cmdtable"
	"github.com/scriptctl/scriptctl/internal/cnum"
	"github.com/scriptctl/scriptctl/internal/lazy"
)

// Facts are what a client or a script can observe of a target's data
// commands, as data: the commands ask these fields and never compare
// version strings. The engine's own facts (package verify: the scripting
// layer's texts, Lua's libraries) sit beside them there. Each row is
// checked by running the same cases on the real server (verify/README.md
// "Targets").
type Facts struct {
	name string // the target name, internal/target's
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

// Name returns the target's name.
func (f *Facts) Name() string { return f.name }

// ReplyDouble writes a double reply as the target does.
func (f *Facts) ReplyDouble(x float64) string { return f.replyDouble(x) }

// Command returns what this target declares for the command name.
func (f *Facts) Command(name string) (*cmdtable.Command, bool) {
	return f.Table().Command(name)
}

// Table is the target's command table, decoded on first use (a process
// that never runs a script, such as deploy, does not pay for it) and
// shared by servers on every goroutine.
func (f *Facts) Table() *cmdtable.Table {
	f.tableOnce.Do(func() { f.tbl = cmdtable.MustLoad(f.name) })
	return f.tbl
}

// handler returns the emulation of the command name on this target.
func (f *Facts) handler(name string) (handler, bool) {
	if h, ok := f.handlers[name]; ok {
		return h, true
	}
	h, ok := handlers.Get()[name]
	return h, ok
}

// DefaultTarget is the target a Config without one imitates.
const DefaultTarget = "redis-7.0"

// TargetFacts returns the facts of the target name, nil for one the
// engine does not imitate.
func TargetFacts(name string) *Facts { return targets.Get()[name] }

// The eras of Redis's data commands, by the release that changed them.
type era int

const (
	era70 era = iota
	era72
	era74
	era80
)

func redisFacts(name string, e era) *Facts {
	f := &Facts{name: name, replyDouble: replyDouble70}
	switch e {
	case era72:
		f.replyDouble = cnum.D2string
		f.clusterOneDB = true
		f.data = data72()
	case era74, era80:
		f.replyDouble = cnum.D2string
		f.sortPatternSlot, f.clusterOneDB = true, true
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

// replyDouble70 is Redis 7.0's addReplyDouble over RESP2: "%.17g", with
// inf and -inf spelled out.
func replyDouble70(f float64) string { return cnum.Format(f, 'g', 17, false) }

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

// valkeyFacts: Valkey 7.2 is Redis 7.2.4's data commands; 8.0 took Redis
// 7.4's.
func valkeyFacts(name string, v8 bool) *Facts {
	f := &Facts{name: name, replyDouble: cnum.D2string, data: data72(), clusterOneDB: true}
	f.handlers = waitaofHandlers()
	if v8 {
		f.data = data74()
		f.data.bitcountStart, f.data.tempSetHT, f.data.xreadPlus, f.data.readonlyStandalone = true, true, true, true
		f.sortPatternSlot = true
	}
	return f
}

// valkey81 adds Valkey 8.1's SET ... IFEQ (its commands, COMMANDLOG among
// them, come from its command table).
func valkey81(f *Facts) *Facts {
	f.sortGetSelf = true
	f.data.embeddedKeys = true
	f.handlers = withHandlers(f.handlers, map[string]handler{"set": {keys: firstKey, run: cmdSetIfeq}})
	return f
}

// valkey91 adds what Valkey 9.0 and 9.1 changed (from 9.1.2, checked
// live): DELIFEQ and MSETEX, and its own hash-field expiry (HEXPIRE to
// HSETEX and HGETDEL: argument checks, texts, rounding and encodings not
// Redis's; cmd_hash_expire_valkey.go).
func valkey91(f *Facts) *Facts {
	f.handlers = withHandlers(f.handlers, map[string]handler{
		"delifeq": {keys: firstKey, run: cmdDelifeq},
		"msetex":  {keys: msetexKeys, run: cmdMsetex},
	})
	f.handlers = withHandlers(f.handlers, valkeyHashExpireHandlers())
	f.data.keyslotStandalone, f.data.geoMemberText, f.data.geoPolygon = true, true, true
	f.data.getexExpireFirst, f.data.clusterDBs = true, true
	f.data.sortStrictRange, f.data.embedLimit, f.data.scriptArgNoInt = true, 136, true
	// Score ranges read as Redis 8.0 reads them (no space, no hexadecimal).
	f.data.strictDouble, f.data.noHexDouble = true, true
	return f
}

// withHandlers returns base with more's handlers added.
func withHandlers(base, more map[string]handler) map[string]handler {
	out := make(map[string]handler, len(base)+len(more))
	maps.Copy(out, base)
	maps.Copy(out, more)
	return out
}

// targets holds every target the engine can imitate, by name; built on
// first use (a command that runs no script never builds the tables).
var targets = lazy.Value[map[string]*Facts]{New: func() map[string]*Facts {
	return map[string]*Facts{
		"redis-7.0":  redisFacts("redis-7.0", era70),
		"redis-7.2":  redisFacts("redis-7.2", era72),
		"redis-7.4":  redisFacts("redis-7.4", era74),
		"redis-8.0":  redisFacts("redis-8.0", era80),
		"valkey-7.2": valkeyFacts("valkey-7.2", false),
		"valkey-8.0": valkeyFacts("valkey-8.0", true),
		"valkey-8.1": valkey81(valkeyFacts("valkey-8.1", true)),
		"valkey-9.1": valkey91(valkey81(valkeyFacts("valkey-9.1", true))),
	}
}}
