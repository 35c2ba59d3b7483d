package keyspace

import (
	"math"
	"strings"

	"github.com/scriptctl/scriptctl/internal/cnum"
)

// Sorted set ranges, after t_zset.c: score and lex bounds as Redis reads
// them (zslParseRange, zslParseLexRange), the walk over a range, and the
// ZRANGE family (ZRANGE, ZRANGESTORE, ZRANGEBYSCORE, ZRANGEBYLEX, their REV
// forms, ZREMRANGEBY*).

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
