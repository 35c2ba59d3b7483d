package keyspace

import (
	"math"
	"strings"
)

// Sorted set commands, after Redis 7.0.15's t_zset.c: argument parsing,
// order of checks, error texts, reply shapes and the listpack/skiplist
// details a client can see (ZSCAN's score text, -0 scores).

func registerZset() {
	register("zadd", firstKey, func(e *Server, a []string) Reply { return zaddGeneric(e, a, false) })
	register("zincrby", firstKey, func(e *Server, a []string) Reply { return zaddGeneric(e, a, true) })
	register("zscore", firstKey, cmdZscore)
	register("zmscore", firstKey, cmdZmscore)
	register("zcard", firstKey, cmdZcard)
	register("zcount", firstKey, cmdZcount)
	register("zlexcount", firstKey, cmdZlexcount)
	register("zrank", firstKey, func(e *Server, a []string) Reply { return zrankGeneric(e, a, false) })
	register("zrevrank", firstKey, func(e *Server, a []string) Reply { return zrankGeneric(e, a, true) })
	register("zrem", firstKey, cmdZrem)
	register("zremrangebyrank", firstKey, func(e *Server, a []string) Reply { return zremrangeGeneric(e, a, zrangeRank) })
	register("zremrangebyscore", firstKey, func(e *Server, a []string) Reply { return zremrangeGeneric(e, a, zrangeScore) })
	register("zremrangebylex", firstKey, func(e *Server, a []string) Reply { return zremrangeGeneric(e, a, zrangeLex) })
	register("zrange", firstKey, func(e *Server, a []string) Reply { return zrangeGeneric(e, a, 1, false, zrangeAuto, dirAuto) })
	register("zrangestore", firstTwoKeys, func(e *Server, a []string) Reply { return zrangeGeneric(e, a, 2, true, zrangeAuto, dirAuto) })
	register("zrevrange", firstKey, func(e *Server, a []string) Reply { return zrangeGeneric(e, a, 1, false, zrangeRank, dirReverse) })
	register("zrangebyscore", firstKey, func(e *Server, a []string) Reply { return zrangeGeneric(e, a, 1, false, zrangeScore, dirForward) })
	register("zrevrangebyscore", firstKey, func(e *Server, a []string) Reply { return zrangeGeneric(e, a, 1, false, zrangeScore, dirReverse) })
	register("zrangebylex", firstKey, func(e *Server, a []string) Reply { return zrangeGeneric(e, a, 1, false, zrangeLex, dirForward) })
	register("zrevrangebylex", firstKey, func(e *Server, a []string) Reply { return zrangeGeneric(e, a, 1, false, zrangeLex, dirReverse) })
	register("zpopmin", firstKey, func(e *Server, a []string) Reply { return zpopMinMax(e, a, false) })
	register("zpopmax", firstKey, func(e *Server, a []string) Reply { return zpopMinMax(e, a, true) })
	register("zmpop", numkeysKeys(1, 1), func(e *Server, a []string) Reply { r, _ := zmpopGeneric(e, a, 1, false, true); return r })
	registerFull("bzpopmin", bzpopKeys, func(e *Server, a []string, inScript bool) (Reply, error) { return bzpopGeneric(e, a, false, inScript) })
	registerFull("bzpopmax", bzpopKeys, func(e *Server, a []string, inScript bool) (Reply, error) { return bzpopGeneric(e, a, true, inScript) })
	registerFull("bzmpop", numkeysKeys(2, 1), func(e *Server, a []string, inScript bool) (Reply, error) {
		return zmpopGeneric(e, a, 2, true, inScript)
	})
	register("zunion", numkeysKeys(1, 0), func(e *Server, a []string) Reply { return zsetOpGeneric(e, a, 1, opUnion, false) })
	register("zinter", numkeysKeys(1, 0), func(e *Server, a []string) Reply { return zsetOpGeneric(e, a, 1, opInter, false) })
	register("zdiff", numkeysKeys(1, 0), func(e *Server, a []string) Reply { return zsetOpGeneric(e, a, 1, opDiff, false) })
	register("zintercard", numkeysKeys(1, 0), func(e *Server, a []string) Reply { return zsetOpGeneric(e, a, 1, opInter, true) })
	register("zunionstore", storeKeys, func(e *Server, a []string) Reply { return zsetOpGeneric(e, a, 2, opUnion, false) })
	register("zinterstore", storeKeys, func(e *Server, a []string) Reply { return zsetOpGeneric(e, a, 2, opInter, false) })
	register("zdiffstore", storeKeys, func(e *Server, a []string) Reply { return zsetOpGeneric(e, a, 2, opDiff, false) })
	registerFull("zrandmember", firstKey, cmdZrandmember)
	register("zscan", firstKey, cmdZscan)
}

// Key positions of the sorted set commands.

func bzpopKeys(args []string) []string { return args[1 : len(args)-1] }

// numkeysKeys reads "numkeys key..." at args[i], followed by at least
// more arguments; an invalid count names no key (the command then fails
// on it before touching any).
func numkeysKeys(i, more int) func([]string) []string {
	return func(args []string) []string {
		n, ok := parseInt(args[i])
		if !ok || n < 1 || n > int64(len(args)-i-1-more) {
			return nil
		}
		return args[i+1 : i+1+int(n)]
	}
}

// storeKeys is "destination numkeys key...".
func storeKeys(args []string) []string {
	return append([]string{args[1]}, numkeysKeys(2, 0)(args)...)
}

var (
	errMinMaxFloat = ErrorReply("ERR min or max is not a float")
	errMinMaxLex   = ErrorReply("ERR min or max not valid string range item")
	errZsetNaN     = ErrorReply("ERR resulting score is not a number (NaN)")
	errOutOfRange  = ErrorReply("ERR value is out of range")
)

// getZSet looks key up: (zset or nil when missing, error reply).
func getZSet(e *Server, key string) (*zset, *Reply) {
	v := e.db.get(key)
	if v == nil {
		return nil, nil
	}
	if v.kind != kindZSet {
		return nil, &errWrongType
	}
	return v.zset, nil
}

// storeZSet is setKey for a computed result: it replaces key whatever it
// held, expiry included; an empty result deletes key instead.
func storeZSet(e *Server, key string, z *zset) {
	if z.len() == 0 {
		e.db.del(key)
		return
	}
	e.db.keys[key] = &value{kind: kindZSet, zset: z}
}

// dropIfEmpty deletes key once its zset lost its last member.
func dropIfEmpty(e *Server, key string, z *zset) {
	if z.len() == 0 {
		e.db.del(key)
	}
}

// scoreText is addReplyDouble in RESP2: inf and -inf, else %.17g
// (0.1 is 0.10000000000000001, -0 is -0).
// scoreText is a score as the target's addReplyDouble writes it (RESP2).
func scoreText(e *Server, f float64) string { return e.t.replyDouble(f) }

func scoreReply(e *Server, f float64) Reply { return BulkReply(scoreText(e, f)) }

// zmembersReply is a flat array of members, each followed by its score
// when withScores.
func zmembersReply(e *Server, ms []ZMember, withScores bool) Reply {
	n := len(ms)
	if withScores {
		n *= 2
	}
	out := make([]Reply, 0, n)
	for _, m := range ms {
		out = append(out, BulkReply(m.Member))
		if withScores {
			out = append(out, scoreReply(e, m.Score))
		}
	}
	return ArrayReply(out...)
}

// ZADD flags (zsetAdd's in and out flags).
const (
	zaddIncr = 1 << iota
	zaddNX
	zaddXX
	zaddGT
	zaddLT
)

const (
	zaddAdded = 1 << iota
	zaddUpdated
	zaddNop
)

// zsetAdd is Redis's zsetAdd: the out flags, the new score, and false
// when the result is NaN.
func zsetAdd(z *zset, score float64, member string, flags int) (int, float64, bool) {
	cur, exists := z.score(member)
	if exists {
		if flags&zaddNX != 0 {
			return zaddNop, 0, true
		}
		if flags&zaddIncr != 0 {
			score += cur
			if math.IsNaN(score) {
				return 0, 0, false
			}
		}
		if (flags&zaddLT != 0 && score >= cur) || (flags&zaddGT != 0 && score <= cur) {
			return zaddNop, 0, true
		}
		if score != cur {
			z.set(member, score)
			return zaddUpdated, score, true
		}
		return 0, score, true
	}
	if flags&zaddXX != 0 {
		return zaddNop, 0, true
	}
	z.set(member, score)
	return zaddAdded, score, true
}

// zaddGeneric is ZADD and ZINCRBY (incr).
func zaddGeneric(e *Server, a []string, incr bool) Reply {
	flags, ch := 0, false
	if incr {
		flags = zaddIncr
	}
	idx := 2
	for ; idx < len(a); idx++ {
		switch strings.ToLower(a[idx]) {
		case "nx":
			flags |= zaddNX
		case "xx":
			flags |= zaddXX
		case "ch":
			ch = true
		case "incr":
			flags |= zaddIncr
		case "gt":
			flags |= zaddGT
		case "lt":
			flags |= zaddLT
		default:
			goto parsed
		}
	}
parsed:
	elements := len(a) - idx
	if elements%2 != 0 || elements == 0 {
		return errSyntax
	}
	elements /= 2
	nx, xx, gt, lt := flags&zaddNX != 0, flags&zaddXX != 0, flags&zaddGT != 0, flags&zaddLT != 0
	if nx && xx {
		return ErrorReply("ERR XX and NX options at the same time are not compatible")
	}
	if (gt && nx) || (lt && nx) || (gt && lt) {
		return ErrorReply("ERR GT, LT, and/or NX options at the same time are not compatible")
	}
	if flags&zaddIncr != 0 && elements > 1 {
		return ErrorReply("ERR INCR option supports a single increment-element pair")
	}
	scores := make([]float64, elements)
	for j := range scores {
		f, ok := string2d(a[idx+2*j])
		if !ok || (e.t.data.noHexDouble && hexNumber(a[idx+2*j])) {
			return errNotFloat
		}
		scores[j] = f
	}
	z, errr := getZSet(e, a[1])
	if errr != nil {
		return *errr
	}
	var added, updated, processed int64
	var score float64
	if z == nil && !xx {
		z = newZSet()
		e.db.keys[a[1]] = &value{kind: kindZSet, zset: z}
	}
	if z != nil {
		for j, s := range scores {
			out, newScore, ok := zsetAdd(z, s, a[idx+2*j+1], flags)
			if !ok {
				return errZsetNaN
			}
			if out&zaddAdded != 0 {
				added++
			}
			if out&zaddUpdated != 0 {
				updated++
			}
			if out&zaddNop == 0 {
				processed++
			}
			score = newScore
		}
	}
	if flags&zaddIncr != 0 {
		if processed > 0 {
			return scoreReply(e, score)
		}
		return NilReply()
	}
	if ch {
		return IntReply(added + updated)
	}
	return IntReply(added)
}

func cmdZscore(e *Server, a []string) Reply {
	z, errr := getZSet(e, a[1])
	if errr != nil {
		return *errr
	}
	if z == nil {
		return NilReply()
	}
	if s, ok := z.score(a[2]); ok {
		return scoreReply(e, s)
	}
	return NilReply()
}

func cmdZmscore(e *Server, a []string) Reply {
	z, errr := getZSet(e, a[1])
	if errr != nil {
		return *errr
	}
	out := make([]Reply, 0, len(a)-2)
	for _, m := range a[2:] {
		if z != nil {
			if s, ok := z.score(m); ok {
				out = append(out, scoreReply(e, s))
				continue
			}
		}
		out = append(out, NilReply())
	}
	return ArrayReply(out...)
}

func cmdZcard(e *Server, a []string) Reply {
	z, errr := getZSet(e, a[1])
	if errr != nil {
		return *errr
	}
	if z == nil {
		return IntReply(0)
	}
	return IntReply(int64(z.len()))
}

func cmdZcount(e *Server, a []string) Reply {
	r, ok := parseScoreRange(e, a[2], a[3])
	if !ok {
		return errMinMaxFloat
	}
	z, errr := getZSet(e, a[1])
	if errr != nil {
		return *errr
	}
	if z == nil {
		return IntReply(0)
	}
	return IntReply(r.spec().count(z, true))
}

func cmdZlexcount(e *Server, a []string) Reply {
	r, ok := parseLexRange(a[2], a[3])
	if !ok {
		return errMinMaxLex
	}
	z, errr := getZSet(e, a[1])
	if errr != nil {
		return *errr
	}
	if z == nil {
		return IntReply(0)
	}
	spec := r.spec()
	return IntReply(spec.count(z, spec.monotone(e, z, a[0])))
}

func zrankGeneric(e *Server, a []string, rev bool) Reply {
	withScore := false
	if e.t.data.zrankWithScore {
		// 7.2: ZRANK key member [WITHSCORE]
		switch {
		case len(a) > 4:
			return errorf("wrong number of arguments for '%s' command", a[0])
		case len(a) == 4 && !strings.EqualFold(a[3], "withscore"):
			return errSyntax
		}
		withScore = len(a) == 4
	}
	z, errr := getZSet(e, a[1])
	if errr != nil {
		return *errr
	}
	if z == nil {
		return NilReply()
	}
	r := z.rank(a[2])
	if r < 0 {
		return NilReply()
	}
	if rev {
		r = z.len() - 1 - r
	}
	if withScore {
		sc, _ := z.score(a[2])
		return ArrayReply(IntReply(int64(r)), BulkReply(scoreText(e, sc)))
	}
	return IntReply(int64(r))
}

func cmdZrem(e *Server, a []string) Reply {
	z, errr := getZSet(e, a[1])
	if errr != nil {
		return *errr
	}
	if z == nil {
		return IntReply(0)
	}
	var n int64
	for _, m := range a[2:] {
		if z.rem(m) {
			n++
		}
		if z.len() == 0 {
			e.db.del(a[1])
			break
		}
	}
	return IntReply(n)
}
