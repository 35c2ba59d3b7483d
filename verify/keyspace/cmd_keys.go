package keyspace

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/scriptctl/scriptctl/internal/lazy"
)

// Keyspace commands: DEL UNLINK EXISTS EXPIRE PEXPIRE EXPIREAT PEXPIREAT TTL
// PTTL EXPIRETIME PEXPIRETIME PERSIST TYPE TOUCH RENAME RENAMENX COPY MOVE
// DBSIZE RANDOMKEY KEYS SCAN OBJECT.

func registerKeys() {
	register("del", allKeys, cmdDel)
	register("unlink", allKeys, cmdDel)
	register("exists", allKeys, cmdExists)
	register("expire", firstKey, func(e *Server, a []string) Reply { return expireGeneric(e, a, e.now, 1000) })
	register("pexpire", firstKey, func(e *Server, a []string) Reply { return expireGeneric(e, a, e.now, 1) })
	register("expireat", firstKey, func(e *Server, a []string) Reply { return expireGeneric(e, a, 0, 1000) })
	register("pexpireat", firstKey, func(e *Server, a []string) Reply { return expireGeneric(e, a, 0, 1) })
	register("ttl", firstKey, func(e *Server, a []string) Reply { return ttlGeneric(e, a[1], false) })
	register("pttl", firstKey, func(e *Server, a []string) Reply { return ttlGeneric(e, a[1], true) })
	register("persist", firstKey, cmdPersist)
	register("type", firstKey, cmdType)
	register("expiretime", firstKey, func(e *Server, a []string) Reply { return expiretime(e, a[1], false) })
	register("pexpiretime", firstKey, func(e *Server, a []string) Reply { return expiretime(e, a[1], true) })
	register("touch", allKeys, cmdExists)
	register("rename", firstTwoKeys, func(e *Server, a []string) Reply { return renameGeneric(e, a, false) })
	register("renamenx", firstTwoKeys, func(e *Server, a []string) Reply { return renameGeneric(e, a, true) })
	register("copy", firstTwoKeys, cmdCopy)
	register("move", firstKey, cmdMove)
	register("dbsize", noKeys, cmdDbsize)
	register("randomkey", noKeys, cmdRandomkey)
	register("keys", noKeys, cmdKeys)
	registerIn("scan", noKeys, cmdScan)
	registerIn("object", objectKeys, cmdObject)
}

func firstTwoKeys(args []string) []string { return args[1:3] }

func cmdDel(e *Server, a []string) Reply {
	var n int64
	for _, k := range a[1:] {
		if e.db.del(k) {
			n++
		}
	}
	return IntReply(n)
}

func cmdExists(e *Server, a []string) Reply {
	var n int64
	for _, k := range a[1:] {
		if e.db.get(k) != nil {
			n++
		}
	}
	return IntReply(n)
}

const (
	expNX = 1 << iota
	expXX
	expGT
	expLT
)

// expireGeneric is Redis 7.0's expireGenericCommand: basetime is now for
// EXPIRE/PEXPIRE and 0 for the AT forms; unit is 1000 for seconds.
func expireGeneric(e *Server, a []string, basetime, unit int64) Reply {
	var flags int
	for _, opt := range a[3:] {
		switch strings.ToLower(opt) {
		case "nx":
			flags |= expNX
		case "xx":
			flags |= expXX
		case "gt":
			flags |= expGT
		case "lt":
			flags |= expLT
		default:
			return ErrorReply(fmt.Sprintf("ERR Unsupported option %s", opt))
		}
	}
	if flags&expNX != 0 && flags&(expXX|expGT|expLT) != 0 {
		return ErrorReply("ERR NX and XX, GT or LT options at the same time are not compatible")
	}
	if flags&expGT != 0 && flags&expLT != 0 {
		return ErrorReply("ERR GT and LT options at the same time are not compatible")
	}
	when, ok := parseInt(a[2])
	if !ok {
		return errNotInt
	}
	if unit == 1000 {
		if when > math.MaxInt64/1000 || when < math.MinInt64/1000 {
			return errExpire(a[0])
		}
		when *= 1000
	}
	if when > math.MaxInt64-basetime {
		return errExpire(a[0])
	}
	when += basetime
	v := e.db.get(a[1])
	if v == nil {
		return IntReply(0)
	}
	if flags != 0 {
		cur := int64(-1)
		if v.expireAt > 0 {
			cur = v.expireAt
		}
		if flags&expNX != 0 && cur != -1 {
			return IntReply(0)
		}
		if flags&expXX != 0 && cur == -1 {
			return IntReply(0)
		}
		if flags&expGT != 0 && (when <= cur || cur == -1) {
			return IntReply(0)
		}
		if flags&expLT != 0 && cur != -1 && when >= cur {
			return IntReply(0)
		}
	}
	if when <= e.now {
		e.db.del(a[1])
		return IntReply(1)
	}
	v.expireAt = when
	return IntReply(1)
}

func ttlGeneric(e *Server, key string, ms bool) Reply {
	v := e.db.get(key)
	if v == nil {
		return IntReply(-2)
	}
	if v.expireAt == 0 {
		return IntReply(-1)
	}
	ttl := v.expireAt - e.now
	if ttl < 0 {
		ttl = 0
	}
	if ms {
		return IntReply(ttl)
	}
	return IntReply((ttl + 500) / 1000)
}

func cmdPersist(e *Server, a []string) Reply {
	v := e.db.get(a[1])
	if v == nil || v.expireAt == 0 {
		return IntReply(0)
	}
	v.expireAt = 0
	return IntReply(1)
}

func cmdType(e *Server, a []string) Reply {
	v := e.db.get(a[1])
	if v == nil {
		return StatusReply("none")
	}
	return StatusReply(v.kind.String())
}

// expiretime is EXPIRETIME (seconds, rounded like TTL) and PEXPIRETIME.
func expiretime(e *Server, key string, ms bool) Reply {
	v := e.db.get(key)
	switch {
	case v == nil:
		return IntReply(-2)
	case v.expireAt == 0:
		return IntReply(-1)
	case ms:
		return IntReply(v.expireAt)
	}
	return IntReply((v.expireAt + 500) / 1000)
}

var (
	errSameObject = ErrorReply("ERR source and destination objects are the same")
	errDBRange    = ErrorReply("ERR DB index is out of range")
)

// renameGeneric is RENAME and RENAMENX: the value keeps its expiry; a
// rename onto itself only checks that the key exists.
func renameGeneric(e *Server, a []string, nx bool) Reply {
	v := e.db.get(a[1])
	if v == nil {
		return errNoSuchKey
	}
	if a[1] == a[2] {
		if nx {
			return IntReply(0)
		}
		return okReply
	}
	if e.db.get(a[2]) != nil {
		if nx {
			return IntReply(0)
		}
		e.db.del(a[2])
	}
	e.db.keys[a[2]] = v
	delete(e.db.keys, a[1])
	if nx {
		return IntReply(1)
	}
	return okReply
}

// parseDBIndex is getIntFromObjectOrReply followed by selectDb's range
// check, as SELECT, MOVE and COPY ... DB do them.
func parseDBIndex(s string) (int, *Reply) {
	n, ok := parseInt(s)
	if !ok {
		return 0, &errNotInt
	}
	if n < math.MinInt32 || n > math.MaxInt32 {
		r := ErrorReply("ERR value is out of range, value must between -2147483648 and 2147483647")
		return 0, &r
	}
	if n < 0 || n >= numDBs {
		return 0, &errDBRange
	}
	return int(n), nil
}

// cmdCopy is COPY source destination [DB n] [REPLACE]: a deep copy that
// keeps the source's expiry.
func cmdCopy(e *Server, a []string) Reply {
	dst, replace, otherDB := e.db, false, e.db != e.dbs[0]
	for j := 3; j < len(a); j++ {
		switch opt := strings.ToLower(a[j]); {
		case opt == "replace":
			replace = true
		case opt == "db" && j+1 < len(a):
			id, errr := parseDBIndex(a[j+1])
			if errr != nil {
				return *errr
			}
			if id != 0 && e.cluster() && e.t.clusterOneDB {
				return errDBRange // a cluster node has database 0 only
			}
			dst = e.database(id)
			otherDB = otherDB || id != 0
			j++
		default:
			return errSyntax
		}
	}
	if otherDB && e.cluster() {
		return ErrorReply("ERR Copying to another database is not allowed in cluster mode")
	}
	if dst == e.db && a[1] == a[2] {
		return errSameObject
	}
	v := e.db.get(a[1])
	if v == nil {
		return IntReply(0)
	}
	if dst.get(a[2]) != nil {
		if !replace {
			return IntReply(0)
		}
		dst.del(a[2])
	}
	dst.keys[a[2]] = v.clone()
	return IntReply(1)
}

// cmdMove is MOVE key db: the value and its expiry go to the other database
// unless the key exists there.
func cmdMove(e *Server, a []string) Reply {
	if e.cluster() && !e.t.data.clusterDBs {
		return ErrorReply("ERR MOVE is not allowed in cluster mode")
	}
	id, errr := parseDBIndex(a[2])
	if errr != nil {
		return *errr
	}
	if e.cluster() && id != 0 {
		return ErrorReply("ERR DB index is out of range") // clusterDBs
	}
	dst := e.database(id)
	if dst == e.db {
		return errSameObject
	}
	v := e.db.get(a[1])
	if v == nil || dst.get(a[1]) != nil {
		return IntReply(0)
	}
	dst.keys[a[1]] = v
	delete(e.db.keys, a[1])
	return IntReply(1)
}

// cmdDbsize counts the live keys. Redis counts the keys its dictionary
// holds, which includes an expired key until an access or the active
// expiry cycle (timed by the server) deletes it.
func cmdDbsize(e *Server, _ []string) Reply {
	live := len(e.db.liveKeys())
	if live != len(e.db.keys) {
		e.warn("DBSIZE: %d expired keys are not counted; Redis counts them until its expiry cycle deletes them", len(e.db.keys)-live)
	}
	return IntReply(int64(live))
}

// cmdRandomkey answers the smallest live key: Redis picks at random, so
// with more than one key the engine warns that the pick may differ.
func cmdRandomkey(e *Server, _ []string) Reply {
	keys := e.db.liveKeys()
	if len(keys) == 0 {
		return NilReply()
	}
	if len(keys) > 1 {
		e.warn("RANDOMKEY: Redis picks one of %d keys at random; the engine answers the smallest", len(keys))
	}
	sort.Strings(keys)
	return BulkReply(keys[0])
}

// cmdKeys answers the matching live keys sorted: Redis walks its
// dictionary, whose order depends on a hash seed chosen at server start.
func cmdKeys(e *Server, a []string) Reply {
	var out []string
	all := a[1] == "*"
	for _, k := range e.db.liveKeys() {
		if all || keyMatch(a[1], k) {
			out = append(out, k)
		}
	}
	return unorderedKeys(e, "KEYS", out)
}

// unorderedKeys replies with keys sorted, warning when there are two or
// more: their order on a server is its dictionary's.
func unorderedKeys(e *Server, cmd string, keys []string) Reply {
	if len(keys) > 1 {
		e.warn("%s: the order of the keys follows Redis's hash table (seeded at server start); the engine sorts them", cmd)
	}
	sort.Strings(keys)
	out := make([]Reply, len(keys))
	for i, k := range keys {
		out[i] = BulkReply(k)
	}
	return ArrayReply(out...)
}

// cmdScan is SCAN cursor [MATCH pattern] [COUNT n] [TYPE t]. Redis walks
// its dictionary bucket by bucket in an order set by a hash seed chosen at
// server start. A scan that starts at cursor 0 over fewer keys than COUNT
// visits every bucket in one call and answers cursor 0 with every matching
// key, in an order the engine cannot know (it sorts them and warns); any
// other scan's batches and cursors depend on that seed.
func cmdScan(e *Server, _ Script, a []string) (Reply, error) {
	cursor, ok := parseScanCursor(e, a[1])
	if !ok {
		return ErrorReply("ERR invalid cursor"), nil
	}
	count := int64(10)
	var pat, typ string
	usePat, useType := false, false
	for i := 2; i < len(a); i += 2 {
		if i+1 >= len(a) {
			return errSyntax, nil
		}
		switch strings.ToLower(a[i]) {
		case "count":
			n, ok := parseInt(a[i+1])
			if !ok {
				return errNotInt, nil
			}
			if n < 1 {
				return errSyntax, nil
			}
			count = n
		case "match":
			pat, usePat = a[i+1], a[i+1] != "*"
		case "type":
			typ, useType = a[i+1], true
		default:
			return errSyntax, nil
		}
	}
	if len(e.db.keys) > 0 && (cursor != 0 || int64(len(e.db.keys)) >= count) {
		return Reply{}, NotImplemented("SCAN from cursor %s over %d keys with COUNT %d (its batches and cursors depend on the server's hash seed)", a[1], len(e.db.keys), count)
	}
	var out []string
	for _, k := range e.db.liveKeys() {
		if usePat && !keyMatch(pat, k) {
			continue
		}
		if useType && !strings.EqualFold(typ, e.db.keys[k].kind.String()) {
			continue
		}
		out = append(out, k)
	}
	return ArrayReply(BulkReply("0"), unorderedKeys(e, "SCAN", out)), nil
}

// keyMatch is Redis's glob matcher (util.c stringmatchlen, case-sensitive),
// shared by every SCAN family (stringMatch).
func keyMatch(pattern, s string) bool { return stringMatch(pattern, s, false) }

// objectSubcommands are OBJECT's subcommands with their arity (the name and
// the subcommand count).
var objectSubcommands = lazy.Value[map[string]int]{New: func() map[string]int {
	return map[string]int{"encoding": 3, "freq": 3, "help": 2, "idletime": 3, "refcount": 3}
}}

func objectKeys(args []string) []string {
	if n, ok := objectSubcommands.Get()[strings.ToLower(args[1])]; ok && n == 3 && len(args) == 3 {
		return args[2:3]
	}
	return nil
}

var objectHelp = []string{
	"ENCODING <key>",
	"    Return the kind of internal representation used in order to store the value",
	"    associated with a <key>.",
	"FREQ <key>",
	"    Return the access frequency index of the <key>. The returned integer is",
	"    proportional to the logarithm of the recent access frequency of the key.",
	"IDLETIME <key>",
	"    Return the idle time of the <key>, that is the approximated number of",
	"    seconds elapsed since the last access to the key.",
	"REFCOUNT <key>",
	"    Return the number of references of the value associated with the specified",
	"    <key>.",
}

// embedsWithKey is Valkey 8.1's createStringObjectWithKeyAndExpire test:
// the object (16 bytes), the key as an sds with a one-byte prefix, the
// expiry (8 bytes) and the value as an sds of type 8 fit in limit bytes
// (64; dataFacts.embedLimit).
func embedsWithKey(key string, vlen int, expires bool, limit int) bool {
	size := 16 + sdsSize(len(key)) + 1 + 4 + vlen
	if expires {
		size += 8
	}
	return size <= limit
}

// sdsSize is sdsReqSize(n, sdsReqType(n)): header, bytes and the NUL.
func sdsSize(n int) int {
	switch {
	case n < 1<<5:
		return 2 + n
	case n < 1<<8:
		return 4 + n
	case n < 1<<16:
		return 6 + n
	}
	return 10 + n
}

// cmdObject is OBJECT ENCODING|REFCOUNT|FREQ|IDLETIME|HELP. Redis looks a
// subcommand up before the command runs: an unknown one or a wrong count
// is the same error as for an unknown command or a wrong arity.
func cmdObject(e *Server, sc Script, a []string) (Reply, error) {
	sub := strings.ToLower(a[1])
	arity, ok := objectSubcommands.Get()[sub]
	if sc != nil && (!ok || len(a) != arity) {
		if r, layer := sc.SubcommandError(!ok); layer {
			return r, nil
		}
	}
	switch {
	case !ok:
		return ErrorReply(fmt.Sprintf("ERR unknown subcommand '%.128s'. Try OBJECT HELP.", a[1])), nil
	case len(a) != arity:
		return ErrorReply(fmt.Sprintf("ERR wrong number of arguments for 'object|%s' command", sub)), nil
	case sub == "help":
		return helpReply(e, "object", objectHelp), nil
	}
	v := e.db.get(a[2])
	if v == nil {
		return NilReply(), nil
	}
	switch sub {
	case "encoding":
		enc := v.encoding()
		if e.t.data.embeddedKeys {
			limit := 64
			if e.t.data.embedLimit > 0 {
				limit = e.t.data.embedLimit
			}
			// Past 44 bytes a stored, unedited value is raw by length
			// only where the embedding limit cannot hold it.
			byLength := enc == "raw" && limit > 64 && !v.rawObject && v.encFor == v.str
			if enc == "embstr" || byLength {
				enc = "raw"
				if embedsWithKey(a[2], len(v.str), v.expireAt != 0, limit) {
					enc = "embstr"
				}
			}
		}
		return BulkReply(enc), nil
	case "refcount":
		if e.t.data.embeddedKeys {
			return IntReply(1), nil
		}
		return IntReply(v.refcount()), nil
	case "freq":
		return ErrorReply("ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust."), nil
	}
	return Reply{}, NotImplemented("OBJECT IDLETIME (it follows the server's LRU clock)")
}
