package keyspace

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Sorted set pops and picks, after t_zset.c: ZPOPMIN/ZPOPMAX, the blocking
// BZPOPMIN/BZPOPMAX/BZMPOP (which never block in a script), ZMPOP,
// ZRANDMEMBER and ZSCAN.

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
