package keyspace

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/scriptctl/scriptctl/internal/cnum"
)

// Sorted set commands, after Redis 7.0.15's t_zset.c: argument parsing,
// order of checks, error texts, reply shapes and the listpack/skiplist
// details a client can see (ZSCAN's score text, -0 scores).

func init() {
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

// string2d is Redis's string2d (getDoubleFromObject): strtod must consume
// the whole string, which may not start with a space; NaN and a result
// that overflowed to infinity or underflowed to zero are refused.
func string2d(s string) (float64, bool) {
	if s == "" || isCSpace(s[0]) || isCSpace(s[len(s)-1]) || strings.IndexByte(s, 0) >= 0 {
		return 0, false
	}
	f, ok := cnum.Str2d(s)
	if !ok || math.IsNaN(f) || strtodRangeError(s, f) {
		return 0, false
	}
	return f, true
}

// strtodRangeError reports whether strtod set ERANGE with a result of
// ±HUGE_VAL or zero: an infinity not spelled as one, or a zero from a
// mantissa with a nonzero digit.
func strtodRangeError(s string, f float64) bool {
	if math.IsInf(f, 0) {
		return !strings.Contains(strings.ToLower(s), "inf")
	}
	if f != 0 {
		return false
	}
	s = strings.TrimLeft(s, " \t\n\v\f\r+-")
	digits, stop := "123456789", "eE"
	if len(s) > 1 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') {
		s, digits, stop = s[2:], "123456789abcdefABCDEF", "pP"
	}
	if i := strings.IndexAny(s, stop); i >= 0 {
		s = s[:i]
	}
	return strings.ContainsAny(s, digits)
}

// parseLong is getLongFromObject: string2ll (long is 64 bits).
func parseLong(s string) (int64, bool) { return parseInt(s) }

// scoreRangeSpec is zrangespec.
type scoreRangeSpec struct {
	min, max     float64
	minex, maxex bool
}

// parseScoreBound is one half of zslParseRange: an optional "(" then
// strtod over a C string (it stops at a NUL byte; leading white space and
// an empty number are accepted, overflow gives ±inf), NaN refused.
func parseScoreBound(e *Server, s string) (f float64, ex bool, ok bool) {
	if i := strings.IndexByte(s, 0); i >= 0 {
		s = s[:i]
	}
	if s != "" && s[0] == '(' {
		ex, s = true, s[1:]
	}
	if s == "" {
		return 0, ex, true
	}
	if e.t.data.strictDouble && !fastFloatForm(s) {
		return 0, false, false
	}
	if isCSpace(s[len(s)-1]) {
		return 0, false, false
	}
	f, ok = cnum.Str2d(s)
	if !ok || math.IsNaN(f) {
		return 0, false, false
	}
	return f, ex, true
}

// hexNumber reports whether s is a hexadecimal number ("0x10", "-0X1p3"),
// which C's strtod reads and Valkey 9's string2d does not.
func hexNumber(s string) bool {
	p := strings.TrimLeft(s, "+-")
	return len(p) > 1 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')
}

// fastFloatForm reports whether fast_float (Redis 8.0's strtod in score
// ranges and SORT) can read s whole: no leading space and no hexadecimal,
// which C's strtod takes.
func fastFloatForm(s string) bool {
	if s == "" || isCSpace(s[0]) {
		return false
	}
	p := s
	if p[0] == '+' || p[0] == '-' {
		p = p[1:]
	}
	return !(len(p) > 1 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
}

func parseScoreRange(e *Server, min, max string) (scoreRangeSpec, bool) {
	var r scoreRangeSpec
	var ok1, ok2 bool
	r.min, r.minex, ok1 = parseScoreBound(e, min)
	r.max, r.maxex, ok2 = parseScoreBound(e, max)
	return r, ok1 && ok2
}

// lexBound is one end of a zlexrangespec: "-" and "+" are the smallest and
// largest strings (inf -1 and +1).
type lexBound struct {
	s   string
	inf int
}

type lexRangeSpec struct {
	min, max     lexBound
	minex, maxex bool
}

// parseLexBound is zslParseLexRangeItem.
func parseLexBound(s string) (lexBound, bool, bool) {
	if s == "" {
		return lexBound{}, false, false
	}
	switch s[0] {
	case '+', '-':
		if len(s) != 1 {
			return lexBound{}, false, false
		}
		if s[0] == '+' {
			return lexBound{inf: 1}, true, true
		}
		return lexBound{inf: -1}, true, true
	case '(':
		return lexBound{s: s[1:]}, true, true
	case '[':
		return lexBound{s: s[1:]}, false, true
	}
	return lexBound{}, false, false
}

func parseLexRange(min, max string) (lexRangeSpec, bool) {
	var r lexRangeSpec
	var ok1, ok2 bool
	r.min, r.minex, ok1 = parseLexBound(min)
	r.max, r.maxex, ok2 = parseLexBound(max)
	return r, ok1 && ok2
}

// cmplex is sdscmplex between two bounds.
func cmplex(a, b lexBound) int {
	if a.inf != 0 && a.inf == b.inf {
		return 0
	}
	if a.inf < 0 || b.inf > 0 {
		return -1
	}
	if a.inf > 0 || b.inf < 0 {
		return 1
	}
	return strings.Compare(a.s, b.s)
}

// rangeSpec is a score or lex range as the range walks use it: two
// predicates, whether the range is empty by construction, and whether the
// predicates are monotone along the order (a lex range is only when every
// member has the same score).
type rangeSpec struct {
	gteMin, lteMax func(ZMember) bool
	empty          bool
	lex            bool
}

func (r scoreRangeSpec) spec() rangeSpec {
	return rangeSpec{
		gteMin: func(m ZMember) bool {
			if r.minex {
				return m.Score > r.min
			}
			return m.Score >= r.min
		},
		lteMax: func(m ZMember) bool {
			if r.maxex {
				return m.Score < r.max
			}
			return m.Score <= r.max
		},
		empty: r.min > r.max || (r.min == r.max && (r.minex || r.maxex)),
	}
}

func (r lexRangeSpec) spec() rangeSpec {
	cmp := cmplex(r.min, r.max)
	return rangeSpec{
		gteMin: func(m ZMember) bool {
			c := cmplex(lexBound{s: m.Member}, r.min)
			return c > 0 || (c == 0 && !r.minex)
		},
		lteMax: func(m ZMember) bool {
			c := cmplex(lexBound{s: m.Member}, r.max)
			return c < 0 || (c == 0 && !r.maxex)
		},
		empty: cmp > 0 || (cmp == 0 && (r.minex || r.maxex)),
		lex:   true,
	}
}

// monotone reports whether r's predicates can be searched in O(log n):
// always for scores, for lex ranges when every member has the same score.
// Otherwise Redis walks a listpack linearly (done here too) and a skiplist
// in a way that depends on its random levels (warned).
func (r rangeSpec) monotone(e *Server, z *zset, cmd string) bool {
	if !r.lex || z.len() == 0 || z.first().Score == z.last().Score {
		return true
	}
	if z.big {
		e.warn("%s over a skiplist-encoded sorted set whose members have different scores: Redis's answer depends on its skiplist's random levels; offline walks the members in order as a listpack does", strings.ToUpper(cmd))
	}
	return false
}

// isIn is zslIsInRange / zzlIsInLexRange: can any member be in range?
func (r rangeSpec) isIn(z *zset) bool {
	return !r.empty && z.len() > 0 && r.gteMin(z.last().ZMember) && r.lteMax(z.first().ZMember)
}

// firstIn is zslFirstInRange: the first member >= min, if it is <= max.
func (r rangeSpec) firstIn(z *zset, mono bool) *znode {
	if !r.isIn(z) {
		return nil
	}
	var n *znode
	if mono {
		_, n = z.seek(func(m ZMember) bool { return !r.gteMin(m) })
	} else {
		for n = z.first(); n != nil && !r.gteMin(n.ZMember); n = n.following() {
		}
	}
	if n == nil || !r.lteMax(n.ZMember) {
		return nil
	}
	return n
}

// lastIn is zslLastInRange: the last member <= max, if it is >= min.
func (r rangeSpec) lastIn(z *zset, mono bool) *znode {
	if !r.isIn(z) {
		return nil
	}
	var n *znode
	if mono {
		_, n = z.seek(r.lteMax)
		if n == nil {
			n = z.last()
		} else {
			n = n.preceding()
		}
	} else {
		for n = z.last(); n != nil && !r.lteMax(n.ZMember); n = n.preceding() {
		}
	}
	if n == nil || !r.gteMin(n.ZMember) {
		return nil
	}
	return n
}

// walk is genericZrangebyscoreCommand's loop: from the first member in
// range (the last when rev), skip offset members (a negative offset skips
// everything), then take up to limit (negative: no limit) while in range.
func (r rangeSpec) walk(z *zset, mono, rev bool, offset, limit int64) []ZMember {
	var n *znode
	if rev {
		n = r.lastIn(z, mono)
	} else {
		n = r.firstIn(z, mono)
	}
	step := (*znode).following
	inRange := r.lteMax
	if rev {
		step, inRange = (*znode).preceding, r.gteMin
	}
	for ; n != nil && offset != 0; offset-- {
		n = step(n)
	}
	var out []ZMember
	for ; n != nil && limit != 0; limit-- {
		if !inRange(n.ZMember) {
			break
		}
		out = append(out, n.ZMember)
		n = step(n)
	}
	return out
}

// count is ZCOUNT / ZLEXCOUNT.
func (r rangeSpec) count(z *zset, mono bool) int64 {
	n := r.firstIn(z, mono)
	if n == nil {
		return 0
	}
	if mono {
		start, _ := z.seek(func(m ZMember) bool { return !r.gteMin(m) })
		end, _ := z.seek(r.lteMax)
		return int64(end - start)
	}
	var c int64
	for ; n != nil && r.lteMax(n.ZMember); n = n.following() {
		c++
	}
	return c
}

// rankBounds sanitizes start and end like Redis: negative from the end,
// then clamped; ok is false for an empty range.
func rankBounds(start, end int64, llen int) (int, int, bool) {
	l := int64(llen)
	if start < 0 {
		start += l
	}
	if end < 0 {
		end += l
	}
	if start < 0 {
		start = 0
	}
	if start > end || start >= l {
		return 0, 0, false
	}
	if end >= l {
		end = l - 1
	}
	return int(start), int(end), true
}

// byRank returns the members of ranks start..end (sanitized), reversed
// order when rev.
func byRank(z *zset, start, end int, rev bool) []ZMember {
	out := make([]ZMember, 0, end-start+1)
	if rev {
		for n := z.node(z.len() - 1 - start); len(out) < end-start+1; n = n.preceding() {
			out = append(out, n.ZMember)
		}
		return out
	}
	for n := z.node(start); len(out) < end-start+1; n = n.following() {
		out = append(out, n.ZMember)
	}
	return out
}

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

type zrangeType int

const (
	zrangeAuto zrangeType = iota
	zrangeRank
	zrangeScore
	zrangeLex
)

type zrangeDir int

const (
	dirAuto zrangeDir = iota
	dirForward
	dirReverse
)

// zrangeQuery is a parsed range: ranks start..end, or a score or lex
// spec walked from offset for limit members (-1: all).
type zrangeQuery struct {
	t             zrangeType
	rev           bool
	start, end    int64
	spec          rangeSpec
	offset, limit int64
}

// parseRangeBounds parses min and max for a range of type t, with Redis's
// error for each type.
func parseRangeBounds(e *Server, t zrangeType, min, max string) (zrangeQuery, *Reply) {
	q := zrangeQuery{t: t, limit: -1}
	fail := func(r Reply) (zrangeQuery, *Reply) { return q, &r }
	switch t {
	case zrangeRank:
		var ok bool
		if q.start, ok = parseLong(min); !ok {
			return fail(errNotInt)
		}
		if q.end, ok = parseLong(max); !ok {
			return fail(errNotInt)
		}
	case zrangeScore:
		r, ok := parseScoreRange(e, min, max)
		if !ok {
			return fail(errMinMaxFloat)
		}
		q.spec = r.spec()
	default:
		r, ok := parseLexRange(min, max)
		if !ok {
			return fail(errMinMaxLex)
		}
		q.spec = r.spec()
	}
	return q, nil
}

// members returns the members q selects in z, in reply order.
func (q zrangeQuery) members(e *Server, z *zset, cmd string) []ZMember {
	if q.t == zrangeRank {
		if s, en, ok := rankBounds(q.start, q.end, z.len()); ok {
			return byRank(z, s, en, q.rev)
		}
		return nil
	}
	// An offset past the end answers at once (Redis checks it for score
	// ranges only; a lex walk ends the same way).
	if q.offset > 0 && q.offset >= int64(z.len()) {
		return nil
	}
	return q.spec.walk(z, q.spec.monotone(e, z, cmd), q.rev, q.offset, q.limit)
}

// zremrangeGeneric is ZREMRANGEBYRANK, ZREMRANGEBYSCORE, ZREMRANGEBYLEX.
func zremrangeGeneric(e *Server, a []string, t zrangeType) Reply {
	q, errr := parseRangeBounds(e, t, a[2], a[3])
	if errr != nil {
		return *errr
	}
	z, errr := getZSet(e, a[1])
	if errr != nil {
		return *errr
	}
	if z == nil {
		return IntReply(0)
	}
	doomed := q.members(e, z, a[0])
	for _, m := range doomed {
		z.rem(m.Member)
	}
	dropIfEmpty(e, a[1], z)
	return IntReply(int64(len(doomed)))
}

// zrangeGeneric is zrangeGenericCommand: ZRANGE, ZRANGESTORE (store, the
// source key at a[2]) and the older Z[REV]RANGE[BYSCORE|BYLEX] forms.
func zrangeGeneric(e *Server, a []string, src int, store bool, t zrangeType, dir zrangeDir) Reply {
	withScores := false
	var offset, limit int64 = 0, -1
	for j := src + 3; j < len(a); j++ {
		left := len(a) - j - 1
		opt := strings.ToLower(a[j])
		switch {
		case !store && opt == "withscores":
			withScores = true
		case opt == "limit" && left >= 2:
			var ok bool
			if offset, ok = parseLong(a[j+1]); !ok {
				return errNotInt
			}
			if limit, ok = parseLong(a[j+2]); !ok {
				return errNotInt
			}
			j += 2
		case dir == dirAuto && opt == "rev":
			dir = dirReverse
		case t == zrangeAuto && opt == "bylex":
			t = zrangeLex
		case t == zrangeAuto && opt == "byscore":
			t = zrangeScore
		default:
			return errSyntax
		}
	}
	if t == zrangeAuto {
		t = zrangeRank
	}
	if limit != -1 && t == zrangeRank {
		return ErrorReply("ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX")
	}
	if withScores && t == zrangeLex {
		return ErrorReply("ERR syntax error, WITHSCORES not supported in combination with BYLEX")
	}
	rev := dir == dirReverse
	minArg, maxArg := a[src+1], a[src+2]
	if rev && t != zrangeRank {
		minArg, maxArg = maxArg, minArg
	}
	q, errr := parseRangeBounds(e, t, minArg, maxArg)
	if errr != nil {
		return *errr
	}
	q.rev, q.offset, q.limit = rev, offset, limit
	z, errr := getZSet(e, a[src])
	if errr != nil {
		return *errr
	}
	var res []ZMember
	if z != nil {
		res = q.members(e, z, a[0])
	}
	if !store {
		return zmembersReply(e, res, withScores)
	}
	dst := newZSet()
	if t == zrangeRank && len(res) > zsetMaxListpackEntries {
		dst = newZSetSkiplist()
	}
	for _, m := range res {
		dst.set(m.Member, m.Score)
	}
	storeZSet(e, a[1], dst)
	return IntReply(int64(len(res)))
}

// zpopFrom pops up to count members of z (from the top when max) and
// deletes key when it empties.
func zpopFrom(e *Server, key string, z *zset, count int64, max bool) []ZMember {
	var out []ZMember
	for ; count > 0 && z.len() > 0; count-- {
		n := z.first()
		if max {
			n = z.last()
		}
		m := n.ZMember
		z.rem(m.Member)
		out = append(out, m)
	}
	dropIfEmpty(e, key, z)
	return out
}

// zpopMinMax is ZPOPMIN / ZPOPMAX key [count].
func zpopMinMax(e *Server, a []string, max bool) Reply {
	if len(a) > 3 {
		return errSyntax
	}
	count := int64(1)
	if len(a) == 3 {
		n, ok := parseLong(a[2])
		if !ok || n < 0 {
			return errNotPositive
		}
		count = n
	}
	z, errr := getZSet(e, a[1])
	if errr != nil {
		return *errr
	}
	if z == nil || count == 0 {
		return ArrayReply()
	}
	return zmembersReply(e, zpopFrom(e, a[1], z, count, max), true)
}

// firstZSet is genericZpopCommand's pick: the first existing key, which
// must hold a sorted set.
func firstZSet(e *Server, keys []string) (string, *zset, *Reply) {
	for _, k := range keys {
		z, errr := getZSet(e, k)
		if errr != nil {
			return "", nil, errr
		}
		if z != nil {
			return k, z, nil
		}
	}
	return "", nil, nil
}

// errWouldBlock is the RunError of a blocking pop a client would wait on:
// offline there is no other client to feed it.
func errWouldBlock(name string) error {
	return NotImplemented("%s blocking on empty keys (no other client can serve it offline)", strings.ToUpper(name))
}

// bzpopGeneric is BZPOPMIN / BZPOPMAX key... timeout (never run in a
// script: both are noscript).
func bzpopGeneric(e *Server, a []string, max bool, inScript bool) (Reply, error) {
	if errr := parseTimeout(e, a[len(a)-1]); errr != nil {
		return *errr, nil
	}
	key, z, errr := firstZSet(e, a[1:len(a)-1])
	if errr != nil {
		return *errr, nil
	}
	if z == nil {
		if inScript {
			return NilReply(), nil
		}
		return Reply{}, errWouldBlock(a[0])
	}
	m := zpopFrom(e, key, z, 1, max)[0]
	return ArrayReply(BulkReply(key), BulkReply(m.Member), scoreReply(e, m.Score)), nil
}

// zmpopGeneric is ZMPOP (numkeys at a[1]) and BZMPOP (timeout at a[1],
// numkeys at a[2]). A script never blocks: with nothing to pop BZMPOP
// answers nil at once, as Redis does for a client that cannot block.
func zmpopGeneric(e *Server, a []string, nkIdx int, block bool, inScript bool) (Reply, error) {
	n, ok := parseLong(a[nkIdx])
	if !ok || n < 1 {
		return ErrorReply("ERR numkeys should be greater than 0"), nil
	}
	if n > int64(len(a)) {
		return errSyntax, nil
	}
	whereIdx := nkIdx + int(n) + 1
	if whereIdx >= len(a) {
		return errSyntax, nil
	}
	var max bool
	switch strings.ToLower(a[whereIdx]) {
	case "min":
	case "max":
		max = true
	default:
		return errSyntax, nil
	}
	count := int64(-1)
	for j := whereIdx + 1; j < len(a); j++ {
		if count == -1 && strings.EqualFold(a[j], "count") && j < len(a)-1 {
			j++
			c, ok := parseLong(a[j])
			if !ok || c < 1 {
				return ErrorReply("ERR count should be greater than 0"), nil
			}
			count = c
			continue
		}
		return errSyntax, nil
	}
	if count == -1 {
		count = 1
	}
	if block {
		if errr := parseTimeout(e, a[1]); errr != nil {
			return *errr, nil
		}
	}
	key, z, errr := firstZSet(e, a[nkIdx+1:whereIdx])
	if errr != nil {
		return *errr, nil
	}
	if z == nil {
		if block && !inScript {
			return Reply{}, errWouldBlock(a[0])
		}
		return NilReply(), nil
	}
	popped := zpopFrom(e, key, z, count, max)
	pairs := make([]Reply, len(popped))
	for i, m := range popped {
		pairs[i] = ArrayReply(BulkReply(m.Member), scoreReply(e, m.Score))
	}
	return ArrayReply(BulkReply(key), ArrayReply(pairs...)), nil
}

type zsetOp int

const (
	opUnion zsetOp = iota
	opInter
	opDiff
)

// zsetOpSrc is one input of ZUNION/ZINTER/ZDIFF: a sorted set, a set
// (every member scores 1) or nothing.
type zsetOpSrc struct {
	z      *zset
	s      *set
	weight float64
}

func (o zsetOpSrc) len() int {
	switch {
	case o.z != nil:
		return o.z.len()
	case o.s != nil:
		return o.s.len()
	}
	return 0
}

func (o zsetOpSrc) members() []ZMember {
	switch {
	case o.z != nil:
		return o.z.all()
	case o.s != nil:
		ms := o.s.members()
		out := make([]ZMember, len(ms))
		for i, m := range ms {
			out[i] = ZMember{m, 1}
		}
		return out
	}
	return nil
}

func (o zsetOpSrc) find(member string) (float64, bool) {
	switch {
	case o.z != nil:
		return o.z.score(member)
	case o.s != nil && o.s.has(member):
		return 1, true
	}
	return 0, false
}

const (
	aggrSum = iota
	aggrMin
	aggrMax
)

// aggregate is zunionInterAggregate: a sum that is NaN (inf + -inf) is 0.
func aggregate(target *float64, v float64, aggr int) {
	switch aggr {
	case aggrSum:
		*target += v
		if math.IsNaN(*target) {
			*target = 0
		}
	case aggrMin:
		if v < *target {
			*target = v
		}
	case aggrMax:
		if v > *target {
			*target = v
		}
	}
}

// zsetOpArgs is a parsed ZUNION/ZINTER/ZDIFF/ZINTERCARD command.
type zsetOpArgs struct {
	src        []zsetOpSrc
	aggr       int
	withScores bool
	limit      int64 // ZINTERCARD's LIMIT; 0 is none
}

// parseZsetOp reads numkeys, looks the inputs up (a wrong type fails
// before any option is read, as in Redis) and parses the options.
func parseZsetOp(e *Server, a []string, nkIdx int, op zsetOp, store, card bool) (zsetOpArgs, *Reply) {
	var p zsetOpArgs
	fail := func(r Reply) (zsetOpArgs, *Reply) { return p, &r }
	setnum, ok := parseLong(a[nkIdx])
	if !ok {
		return fail(errNotInt)
	}
	if setnum < 1 {
		return fail(ErrorReply(fmt.Sprintf("ERR at least 1 input key is needed for '%s' command", a[0])))
	}
	if setnum > int64(len(a)-nkIdx-1) {
		return fail(errSyntax)
	}
	p.src = make([]zsetOpSrc, setnum)
	j := nkIdx + 1
	for i := range p.src {
		p.src[i].weight = 1
		if v := e.db.get(a[j]); v != nil {
			switch v.kind {
			case kindZSet:
				p.src[i].z = v.zset
			case kindSet:
				p.src[i].s = v.set
			default:
				return fail(errWrongType)
			}
		}
		j++
	}
	for j < len(a) {
		remaining := len(a) - j
		opt := strings.ToLower(a[j])
		switch {
		case op != opDiff && !card && remaining >= len(p.src)+1 && opt == "weights":
			j++
			for i := range p.src {
				w, ok := string2d(a[j])
				if !ok {
					return fail(ErrorReply("ERR weight value is not a float"))
				}
				p.src[i].weight = w
				j++
			}
		case op != opDiff && !card && remaining >= 2 && opt == "aggregate":
			switch strings.ToLower(a[j+1]) {
			case "sum":
				p.aggr = aggrSum
			case "min":
				p.aggr = aggrMin
			case "max":
				p.aggr = aggrMax
			default:
				return fail(errSyntax)
			}
			j += 2
		case !store && !card && opt == "withscores":
			p.withScores = true
			j++
		case card && remaining >= 2 && opt == "limit":
			l, ok := parseLong(a[j+1])
			if !ok || l < 0 {
				return fail(ErrorReply("ERR LIMIT can't be negative"))
			}
			p.limit = l
			j += 2
		default:
			return fail(errSyntax)
		}
	}
	return p, nil
}

// zsetOpGeneric is zunionInterDiffGenericCommand: ZUNION ZINTER ZDIFF
// ZINTERCARD (card) at nkIdx 1, the STORE forms (destination a[1]) at 2.
func zsetOpGeneric(e *Server, a []string, nkIdx int, op zsetOp, card bool) Reply {
	store := nkIdx == 2
	p, errr := parseZsetOp(e, a, nkIdx, op, store, card)
	if errr != nil {
		return *errr
	}
	if op != opDiff {
		// Redis sorts the inputs by size (glibc's qsort is a stable merge
		// sort here); the order of a sum's additions follows.
		sort.SliceStable(p.src, func(x, y int) bool { return p.src[x].len() < p.src[y].len() })
	}
	// The result is a skiplist, as Redis builds it: a reply keeps -0.
	dst := newZSetSkiplist()
	switch op {
	case opInter:
		n := zinter(p, dst, card)
		if card {
			return IntReply(n)
		}
	case opUnion:
		zunion(p, dst)
	case opDiff:
		zdiff(p.src, dst)
	}
	if store {
		storeZSet(e, a[1], compactZSet(dst))
		return IntReply(int64(dst.len()))
	}
	return zmembersReply(e, dst.all(), p.withScores)
}

// zinter adds to dst the members of every input, walking the smallest;
// with card it only counts them (up to the limit) and returns the count.
func zinter(p zsetOpArgs, dst *zset, card bool) int64 {
	var n int64
	if p.src[0].len() == 0 {
		return 0
	}
	for _, m := range p.src[0].members() {
		score := p.src[0].weight * m.Score
		if math.IsNaN(score) {
			score = 0
		}
		in := true
		for _, o := range p.src[1:] {
			v, found := o.find(m.Member)
			if !found {
				in = false
				break
			}
			aggregate(&score, v*o.weight, p.aggr)
		}
		switch {
		case !in:
		case card:
			n++
			if p.limit > 0 && n >= p.limit {
				return n
			}
		default:
			dst.set(m.Member, score)
		}
	}
	return n
}

// zunion aggregates every input's weighted scores into dst, inputs in
// order (a weighted score that is NaN counts as 0).
func zunion(p zsetOpArgs, dst *zset) {
	acc := map[string]float64{}
	var order []string
	for _, o := range p.src {
		for _, m := range o.members() {
			score := o.weight * m.Score
			if math.IsNaN(score) {
				score = 0
			}
			if cur, seen := acc[m.Member]; seen {
				aggregate(&cur, score, p.aggr)
				acc[m.Member] = cur
				continue
			}
			acc[m.Member] = score
			order = append(order, m.Member)
		}
	}
	for _, m := range order {
		dst.set(m, acc[m])
	}
}

// zdiff adds to dst the members of the first input found in no other.
func zdiff(src []zsetOpSrc, dst *zset) {
	for _, m := range src[0].members() {
		in := false
		for _, o := range src[1:] {
			if _, found := o.find(m.Member); found {
				in = true
				break
			}
		}
		if !in {
			dst.set(m.Member, m.Score)
		}
	}
}

// compactZSet is zsetConvertToListpackIfNeeded for a computed skiplist:
// small results become listpacks (which store -0 as 0).
func compactZSet(z *zset) *zset {
	if z.len() > zsetMaxListpackEntries {
		return z
	}
	for n := z.first(); n != nil; n = n.following() {
		if len(n.Member) > zsetMaxListpackValue {
			return z
		}
	}
	c := newZSet()
	for n := z.first(); n != nil; n = n.following() {
		c.set(n.Member, n.Score)
	}
	return c
}

// cmdZrandmember is ZRANDMEMBER key [count [WITHSCORES]]. Redis picks at
// random; offline the pick is deterministic and warned about whenever
// Redis's could differ: without count the first member; a positive count
// below the size the first count members in order; a negative count the
// members in order, cycling. A positive count at least the size answers
// the whole set in descending order, exactly as Redis does.
func cmdZrandmember(e *Server, a []string, _ bool) (Reply, error) {
	if len(a) == 2 {
		z, errr := getZSet(e, a[1])
		if errr != nil {
			return *errr, nil
		}
		if z == nil {
			return NilReply(), nil
		}
		if z.len() > 1 {
			e.warn("ZRANDMEMBER picks a random member on Redis; offline it answers the first (lowest) one")
		}
		return BulkReply(z.first().Member), nil
	}
	return zrandmemberCount(e, a)
}

// zrandmemberMax bounds a negative count's reply: Redis would build it
// until memory runs out.
const zrandmemberMax = 1 << 22

func zrandmemberCount(e *Server, a []string) (Reply, error) {
	l, ok := parseLong(a[2])
	if !ok {
		return errNotInt, nil
	}
	if l == math.MinInt64 {
		return ErrorReply("ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807"), nil
	}
	if len(a) > 4 || (len(a) == 4 && !strings.EqualFold(a[3], "withscores")) {
		return errSyntax, nil
	}
	withScores := len(a) == 4
	if withScores && (l < -math.MaxInt64/2 || l > math.MaxInt64/2) {
		return errOutOfRange, nil
	}
	z, errr := getZSet(e, a[1])
	if errr != nil {
		return *errr, nil
	}
	if z == nil || l == 0 {
		return ArrayReply(), nil
	}
	size := int64(z.len())
	all := z.all()
	switch {
	case l < 0:
		if -l > zrandmemberMax {
			return Reply{}, &RunError{Code: CodeMemory, Msg: fmt.Sprintf("ZRANDMEMBER count %d: Redis would build the reply until memory runs out", l)}
		}
		if size > 1 {
			e.warn("ZRANDMEMBER with a negative count picks random members on Redis; offline it cycles through the members in order")
		}
		out := make([]ZMember, 0, -l)
		for i := int64(0); i < -l; i++ {
			out = append(out, all[i%size])
		}
		return zmembersReply(e, out, withScores), nil
	case l >= size && l != 1:
		for i, k := 0, len(all)-1; i < k; i, k = i+1, k-1 {
			all[i], all[k] = all[k], all[i]
		}
		return zmembersReply(e, all, withScores), nil
	}
	if l >= size {
		l = size
	}
	if size > 1 {
		e.warn("ZRANDMEMBER with a count below the size picks random members on Redis; offline it answers the first ones in order")
	}
	return zmembersReply(e, all[:l], withScores), nil
}

// scanCursorOK reports whether s is a cursor (parseScanCursor).
func scanCursorOK(e *Server, s string) bool {
	_, ok := parseScanCursor(e, s)
	return ok
}

// listpackScoreText is how a listpack stores a score (zzlInsertAt): an
// integer when double2ll succeeds, else d2string's %.17g. ZSCAN of a
// listpack answers these bytes.
func listpackScoreText(e *Server, f float64) string {
	if f >= -4611686018427387904.0 && f <= 4611686018427387904.0 && f == math.Trunc(f) {
		return strconv.FormatInt(int64(f), 10)
	}
	return scoreText(e, f)
}

// cmdZscan is ZSCAN key cursor [MATCH pattern] [COUNT count]. A listpack
// answers everything with cursor 0, as Redis does. A skiplist is a hash
// table on Redis, scanned in an order seeded at server start: offline it
// answers everything at once, in score order, with a warning.
func cmdZscan(e *Server, a []string) Reply {
	if !scanCursorOK(e, a[2]) {
		return ErrorReply("ERR invalid cursor")
	}
	z, errr := getZSet(e, a[1])
	if errr != nil {
		return *errr
	}
	if z == nil {
		return ArrayReply(BulkReply("0"), ArrayReply())
	}
	pat, usePat := "", false
	for i := 3; i < len(a); {
		left := len(a) - i
		switch opt := strings.ToLower(a[i]); {
		case opt == "count" && left >= 2:
			n, ok := parseLong(a[i+1])
			if !ok {
				return errNotInt
			}
			if n < 1 {
				return errSyntax
			}
			i += 2
		case opt == "match" && left >= 2:
			pat = a[i+1]
			usePat = pat != "*"
			i += 2
		default:
			return errSyntax
		}
	}
	text := listpackScoreText
	if z.big {
		// scanCallback writes a hashtable's scores with ld2string's
		// "%.17Lg" on every version.
		text = func(_ *Server, f float64) string { return replyDouble70(f) }
		if z.len() > 1 {
			e.warn("ZSCAN of a skiplist-encoded sorted set: Redis scans its hash table in an order seeded at server start, over several calls; offline every member comes at once in score order with cursor 0")
		}
	}
	out := []Reply{}
	for n := z.first(); n != nil; n = n.following() {
		if usePat && !stringMatch(pat, n.Member, false) {
			continue
		}
		out = append(out, BulkReply(n.Member), BulkReply(text(e, n.Score)))
	}
	return ArrayReply(BulkReply("0"), ArrayReply(out...))
}
