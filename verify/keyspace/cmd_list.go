package keyspace

import (
	"math"
	"math/big"
	"strings"
)

// List commands: LPUSH RPUSH LPUSHX RPUSHX LPOP RPOP LLEN LRANGE LINDEX LSET
// LINSERT LREM LTRIM LPOS RPOPLPUSH LMOVE LMPOP, and the blocking BLPOP
// BRPOP BRPOPLPUSH BLMOVE BLMPOP, ported from Redis 7.0.15's t_list.c: each
// command parses its arguments and looks its keys up in the same order as
// Redis, so the first failing check gives the same error.

func registerList() {
	register("lpush", firstKey, func(e *Server, a []string) Reply { return pushGeneric(e, a, true, false) })
	register("rpush", firstKey, func(e *Server, a []string) Reply { return pushGeneric(e, a, false, false) })
	register("lpushx", firstKey, func(e *Server, a []string) Reply { return pushGeneric(e, a, true, true) })
	register("rpushx", firstKey, func(e *Server, a []string) Reply { return pushGeneric(e, a, false, true) })
	register("lpop", firstKey, func(e *Server, a []string) Reply { return popGeneric(e, a, true) })
	register("rpop", firstKey, func(e *Server, a []string) Reply { return popGeneric(e, a, false) })
	register("llen", firstKey, cmdLlen)
	register("lrange", firstKey, cmdLrange)
	register("lindex", firstKey, cmdLindex)
	register("lset", firstKey, cmdLset)
	register("linsert", firstKey, cmdLinsert)
	register("lrem", firstKey, cmdLrem)
	register("ltrim", firstKey, cmdLtrim)
	register("lpos", firstKey, cmdLpos)
	register("rpoplpush", twoKeys, func(e *Server, a []string) Reply { return lmoveGeneric(e, a, false, true) })
	register("lmove", twoKeys, cmdLmove)
	register("lmpop", func(a []string) []string { return numKeys(a, 1) }, cmdLmpop)
	registerBlocking("blpop", allButLastKey, func(e *Server, a []string) (Reply, bool) { return blockingPop(e, a, true) })
	registerBlocking("brpop", allButLastKey, func(e *Server, a []string) (Reply, bool) { return blockingPop(e, a, false) })
	registerBlocking("brpoplpush", twoKeys, cmdBrpoplpush)
	registerBlocking("blmove", twoKeys, cmdBlmove)
	registerBlocking("blmpop", func(a []string) []string { return numKeys(a, 2) }, cmdBlmpop)
}

// Key positions of the list commands (their key specs in Redis 7.0.15).
func twoKeys(a []string) []string       { return a[1:3] }
func allButLastKey(a []string) []string { return a[1 : len(a)-1] }

// numKeys reads the keys of LMPOP/BLMPOP: a count at a[idx], the keys
// after it. An unparsable or out-of-bounds count gives no keys, as Redis's
// key extraction does; the command itself then reports the error.
func numKeys(a []string, idx int) []string {
	n, ok := parseInt(a[idx])
	if !ok || n < 1 || n > int64(len(a)-idx-1) {
		return nil
	}
	return a[idx+1 : idx+1+int(n)]
}

var (
	errIndexRange    = ErrorReply("ERR index out of range")
	errTimeoutFloat  = ErrorReply("ERR timeout is not a float or out of range")
	errTimeoutNeg    = ErrorReply("ERR timeout is negative")
	errTimeoutRange  = ErrorReply("ERR timeout is out of range")
	errNumkeys       = ErrorReply("ERR numkeys should be greater than 0")
	errMpopCount     = ErrorReply("ERR count should be greater than 0")
	errLposRankZero  = ErrorReply("ERR RANK can't be zero: use 1 to start from the first match, 2 from the second ... or use negative to start from the end of the list")
	errLposCountNeg  = ErrorReply("ERR COUNT can't be negative")
	errLposMaxlenNeg = ErrorReply("ERR MAXLEN can't be negative")
)

// getList looks key up: (list or nil when missing, error reply).
func getList(e *Server, key string) (*list, *Reply) {
	v := e.db.get(key)
	if v == nil {
		return nil, nil
	}
	if v.kind != kindList {
		return nil, &errWrongType
	}
	return v.list, nil
}

// createList stores a new empty list at key (known to be missing).
func createList(e *Server, key string) *list {
	l := newListFor(e)
	e.db.keys[key] = &value{kind: kindList, list: l}
	return l
}

// deleteIfEmpty removes key once its list has no element left: Redis never
// keeps an empty list.
//
// Every removal ends here, so it is also where a quicklist that shrank
// turns back into a listpack (listTypeTryConversion, LIST_CONV_SHRINKING).
func deleteIfEmpty(e *Server, key string, l *list) {
	if l.len() == 0 {
		e.db.del(key)
		return
	}
	l.shrinking(true)
}

// positiveLong is getPositiveLongFromObjectOrReply: any failure, a
// non-integer included, answers with msg.
func positiveLong(s string, msg Reply) (int64, *Reply) {
	n, ok := parseInt(s)
	if !ok || n < 0 {
		return 0, &msg
	}
	return n, nil
}

// parseWhere is getListPositionFromObjectOrReply: LEFT is the head.
func parseWhere(s string) (head bool, ok bool) {
	switch strings.ToLower(s) {
	case "left":
		return true, true
	case "right":
		return false, true
	}
	return false, false
}

func pushGeneric(e *Server, a []string, head, xx bool) Reply {
	l, errr := getList(e, a[1])
	if errr != nil {
		return *errr
	}
	if l == nil {
		if xx {
			return IntReply(0)
		}
		l = createList(e, a[1])
	}
	l.growing(a[2:]...)
	for _, s := range a[2:] {
		if head {
			l.pushFront(s)
		} else {
			l.pushBack(s)
		}
	}
	return IntReply(int64(l.len()))
}

func cmdLinsert(e *Server, a []string) Reply {
	var after bool
	switch strings.ToLower(a[2]) {
	case "after":
		after = true
	case "before":
	default:
		return errSyntax
	}
	l, errr := getList(e, a[1])
	if errr != nil {
		return *errr
	}
	if l == nil {
		return IntReply(0)
	}
	elems := l.items()
	for i, s := range elems {
		if s != a[3] {
			continue
		}
		at := i
		if after {
			at++
		}
		l.growing(a[4])
		grown := make([]string, 0, len(elems)+1)
		grown = append(append(append(grown, elems[:at]...), a[4]), elems[at:]...)
		l.reset(grown)
		return IntReply(int64(l.len()))
	}
	return IntReply(-1)
}

func cmdLlen(e *Server, a []string) Reply {
	l, errr := getList(e, a[1])
	if errr != nil {
		return *errr
	}
	if l == nil {
		return IntReply(0)
	}
	return IntReply(int64(l.len()))
}

// elemIndex is quicklist's index lookup: a negative index counts from the
// tail (-1 is the last element); ok is false out of range.
func elemIndex(l *list, idx int64) (int, bool) {
	if idx < 0 {
		idx = -idx - 1 // wraps for math.MinInt64 to MaxInt64, out of range as in C
		if idx >= int64(l.len()) {
			return 0, false
		}
		return l.len() - 1 - int(idx), true
	}
	if idx >= int64(l.len()) {
		return 0, false
	}
	return int(idx), true
}

func cmdLindex(e *Server, a []string) Reply {
	// LINDEX looks the key up before it parses the index.
	l, errr := getList(e, a[1])
	if errr != nil {
		return *errr
	}
	if l == nil {
		return NilReply()
	}
	idx, ok := parseInt(a[2])
	if !ok {
		return errNotInt
	}
	i, ok := elemIndex(l, idx)
	if !ok {
		return NilReply()
	}
	return BulkReply(l.index(i))
}

func cmdLset(e *Server, a []string) Reply {
	l, errr := getList(e, a[1])
	if errr != nil {
		return *errr
	}
	if l == nil {
		return errNoSuchKey
	}
	idx, ok := parseInt(a[2])
	if !ok {
		return errNotInt
	}
	i, ok := elemIndex(l, idx)
	if !ok {
		return errIndexRange
	}
	l.growing(a[3])
	l.set(i, a[3])
	l.shrinking(true)
	return okReply
}

// clampRange is the index arithmetic of addListRangeReply and LTRIM:
// negative indexes count from the tail; empty is true when nothing is in
// range, otherwise 0 <= start <= end < n.
func clampRange(start, end int64, n int) (int, int, bool) {
	llen := int64(n)
	if start < 0 {
		start += llen
	}
	if end < 0 {
		end += llen
	}
	if start < 0 {
		start = 0
	}
	if start > end || start >= llen {
		return 0, 0, true
	}
	if end >= llen {
		end = llen - 1
	}
	return int(start), int(end), false
}

// rangeReply is addListRangeReply: elements start..end, tail first when
// reverse.
func rangeReply(l *list, start, end int64, reverse bool) Reply {
	s, t, empty := clampRange(start, end, l.len())
	if empty {
		return ArrayReply()
	}
	out := make([]Reply, 0, t-s+1)
	for i := s; i <= t; i++ {
		out = append(out, BulkReply(l.index(i)))
	}
	if reverse {
		for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
			out[i], out[j] = out[j], out[i]
		}
	}
	return ArrayReply(out...)
}

// popRange pops up to count (> 0) elements from one end, in popping order,
// and deletes the key when the list is left empty.
func popRange(e *Server, key string, l *list, head bool, count int64) Reply {
	n := int64(l.len())
	if count > n {
		count = n
	}
	out := make([]Reply, 0, count)
	for ; count > 0; count-- {
		if head {
			out = append(out, BulkReply(l.popFront()))
		} else {
			out = append(out, BulkReply(l.popBack()))
		}
	}
	deleteIfEmpty(e, key, l)
	return ArrayReply(out...)
}

// popOne pops a single element from a non-empty list.
func popOne(e *Server, key string, l *list, head bool) string {
	var s string
	if head {
		s = l.popFront()
	} else {
		s = l.popBack()
	}
	deleteIfEmpty(e, key, l)
	return s
}

// popGeneric is LPOP/RPOP key [count]. With a count the reply is an array
// (nil for a missing key, empty for a count of 0); without, a bulk string.
func popGeneric(e *Server, a []string, head bool) Reply {
	if len(a) > 3 {
		return errArity(a[0])
	}
	hasCount := len(a) == 3
	var count int64
	if hasCount {
		var errr *Reply
		if count, errr = positiveLong(a[2], errNotPositive); errr != nil {
			return *errr
		}
	}
	l, errr := getList(e, a[1])
	if errr != nil {
		return *errr
	}
	if l == nil {
		return NilReply()
	}
	if !hasCount {
		return BulkReply(popOne(e, a[1], l, head))
	}
	if count == 0 {
		return ArrayReply()
	}
	return popRange(e, a[1], l, head, count)
}

func cmdLrange(e *Server, a []string) Reply {
	start, ok1 := parseInt(a[2])
	end, ok2 := parseInt(a[3])
	if !ok1 || !ok2 {
		return errNotInt
	}
	l, errr := getList(e, a[1])
	if errr != nil {
		return *errr
	}
	if l == nil {
		return ArrayReply()
	}
	return rangeReply(l, start, end, false)
}

func cmdLtrim(e *Server, a []string) Reply {
	start, ok1 := parseInt(a[2])
	end, ok2 := parseInt(a[3])
	if !ok1 || !ok2 {
		return errNotInt
	}
	l, errr := getList(e, a[1])
	if errr != nil {
		return *errr
	}
	if l == nil {
		return okReply
	}
	s, t, empty := clampRange(start, end, l.len())
	if empty {
		l.reset(nil)
	} else if s > 0 || t < l.len()-1 {
		elems := l.items()
		l.reset(elems[s : t+1])
	}
	deleteIfEmpty(e, a[1], l)
	return okReply
}

// lposOptions are LPOS's RANK, COUNT (-1: not given) and MAXLEN.
type lposOptions struct {
	rank, count, maxlen int64
}

// parseLpos reads LPOS's options left to right, stopping at the first bad
// one, as Redis does.
func parseLpos(e *Server, opts []string) (lposOptions, *Reply) {
	o := lposOptions{rank: 1, count: -1}
	for j := 0; j < len(opts); j++ {
		more := j+1 < len(opts)
		var errr *Reply
		switch opt := strings.ToLower(opts[j]); {
		case opt == "rank" && more:
			j++
			r, errr := listLong(opts[j], e.t.data.lposRankRange)
			if errr != nil {
				return o, errr
			}
			if r == 0 {
				return o, &errLposRankZero
			}
			o.rank = r
		case opt == "count" && more:
			j++
			o.count, errr = positiveLong(opts[j], errLposCountNeg)
		case opt == "maxlen" && more:
			j++
			o.maxlen, errr = positiveLong(opts[j], errLposMaxlenNeg)
		default:
			return o, &errSyntax
		}
		if errr != nil {
			return o, errr
		}
	}
	return o, nil
}

func cmdLpos(e *Server, a []string) Reply {
	o, errr := parseLpos(e, a[3:])
	if errr != nil {
		return *errr
	}
	fromTail := o.rank < 0
	rank := o.rank
	if fromTail {
		rank = -rank // math.MinInt64 stays negative, as in C: every match ranks
	}
	l, errr := getList(e, a[1])
	if errr != nil {
		return *errr
	}
	if l == nil {
		if o.count != -1 {
			return ArrayReply()
		}
		return NilReply()
	}
	llen := int64(l.len())
	var matches int64
	out := []Reply{}
	for index := int64(0); index < llen && (o.maxlen == 0 || index < o.maxlen); index++ {
		pos := index
		if fromTail {
			pos = llen - index - 1
		}
		if l.index(int(pos)) != a[2] {
			continue
		}
		matches++
		if matches < rank {
			continue
		}
		if o.count == -1 {
			return IntReply(pos)
		}
		out = append(out, IntReply(pos))
		// Wraps like C's long when rank is math.MinInt64: then no break.
		if o.count != 0 && matches-rank+1 >= o.count {
			break
		}
	}
	if o.count == -1 {
		return NilReply()
	}
	return ArrayReply(out...)
}

// errLongRange is getRangeLongFromObjectOrReply's error for -LONG_MAX..LONG_MAX.
var errLongRange = ErrorReply("ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807")

// listLong reads LREM's count and LPOS's RANK: a long long, and not
// LLONG_MIN, whose negation overflows, where limited (LPOS from 7.2, LREM
// from 7.4).
func listLong(s string, limited bool) (int64, *Reply) {
	n, ok := parseInt(s)
	if !ok {
		return 0, &errNotInt
	}
	if limited && n == math.MinInt64 {
		return 0, &errLongRange
	}
	return n, nil
}

func cmdLrem(e *Server, a []string) Reply {
	toRemove, errr := listLong(a[2], e.t.data.rangeLong)
	if errr != nil {
		return *errr
	}
	l, errr := getList(e, a[1])
	if errr != nil {
		return *errr
	}
	if l == nil {
		return IntReply(0)
	}
	fromTail := toRemove < 0
	if fromTail {
		toRemove = -toRemove // math.MinInt64 stays negative: removes every match
	}
	elems := l.items()
	n := len(elems)
	drop := make([]bool, n)
	var removed int64
	for k := 0; k < n; k++ {
		i := k
		if fromTail {
			i = n - 1 - k
		}
		if elems[i] != a[3] {
			continue
		}
		drop[i] = true
		removed++
		if toRemove != 0 && removed == toRemove {
			break
		}
	}
	if removed > 0 {
		kept := elems[:0]
		for i, s := range elems {
			if !drop[i] {
				kept = append(kept, s)
			}
		}
		l.reset(kept)
	}
	deleteIfEmpty(e, a[1], l)
	return IntReply(removed)
}

func cmdLmove(e *Server, a []string) Reply {
	fromHead, ok := parseWhere(a[3])
	if !ok {
		return errSyntax
	}
	toHead, ok := parseWhere(a[4])
	if !ok {
		return errSyntax
	}
	return lmoveGeneric(e, a, fromHead, toHead)
}

// lmoveGeneric moves one element from a[1] to a[2] (which may be the same
// list: a rotation). The destination's type is checked only when the
// source has an element.
func lmoveGeneric(e *Server, a []string, fromHead, toHead bool) Reply {
	src, errr := getList(e, a[1])
	if errr != nil {
		return *errr
	}
	if src == nil {
		return NilReply()
	}
	dst, errr := getList(e, a[2])
	if errr != nil {
		return *errr
	}
	var s string
	if fromHead {
		s = src.popFront()
	} else {
		s = src.popBack()
	}
	if dst == nil {
		dst = createList(e, a[2])
	}
	dst.growing(s)
	if toHead {
		dst.pushFront(s)
	} else {
		dst.pushBack(s)
	}
	deleteIfEmpty(e, a[1], src)
	return BulkReply(s)
}

// mpopArgs are the parsed arguments of LMPOP/BLMPOP.
type mpopArgs struct {
	keys  []string
	head  bool
	count int64
}

// parseMpop is lmpopGenericCommand's parsing: numkeys at a[idx], the keys,
// LEFT|RIGHT, then an optional COUNT given once.
func parseMpop(a []string, idx int) (mpopArgs, *Reply) {
	var m mpopArgs
	numkeys, ok := parseInt(a[idx])
	if !ok || numkeys < 1 {
		return m, &errNumkeys
	}
	// where's index is idx+numkeys+1; compared without overflowing.
	if numkeys >= int64(len(a)-idx-1) {
		return m, &errSyntax
	}
	whereIdx := idx + int(numkeys) + 1
	m.keys = a[idx+1 : whereIdx]
	if m.head, ok = parseWhere(a[whereIdx]); !ok {
		return m, &errSyntax
	}
	m.count = -1
	for j := whereIdx + 1; j < len(a); j++ {
		if m.count != -1 || !strings.EqualFold(a[j], "count") || j+1 >= len(a) {
			return m, &errSyntax
		}
		j++
		n, ok := parseInt(a[j])
		if !ok || n < 1 {
			return m, &errMpopCount
		}
		m.count = n
	}
	if m.count == -1 {
		m.count = 1
	}
	return m, nil
}

// mpop pops from the first non-empty list of keys: [key, [elements]]. A
// wrong type stops the search; found is false when every list is empty.
func mpop(e *Server, m mpopArgs) (r Reply, found bool) {
	for _, k := range m.keys {
		l, errr := getList(e, k)
		if errr != nil {
			return *errr, true
		}
		if l == nil {
			continue
		}
		return ArrayReply(BulkReply(k), popRange(e, k, l, m.head, m.count)), true
	}
	return NilReply(), false
}

func cmdLmpop(e *Server, a []string) Reply {
	m, errr := parseMpop(a, 1)
	if errr != nil {
		return *errr
	}
	r, _ := mpop(e, m)
	return r
}

// parseTimeout is getTimeoutFromObjectOrReply in seconds: the number is
// read as a C long double (string2ld), and (long long)ceill(t*1000) must
// not be negative. On 7.0 out-of-range values, infinities included,
// convert to LLONG_MIN on x86-64 and so are "negative" too; from 7.2
// (timeoutRange) more than LLONG_MAX ms, or a deadline past it, is "out
// of range".
func parseTimeout(e *Server, s string) *Reply {
	t, ok := parseLongDouble(s)
	if !ok {
		return &errTimeoutFloat
	}
	ms := new(big.Float).SetPrec(64).Mul(t, big.NewFloat(1000))
	if e.t.data.timeoutRange && ms.Cmp(new(big.Float).SetInt64(math.MaxInt64)) > 0 {
		return &errTimeoutRange
	}
	if t.IsInf() {
		return &errTimeoutNeg
	}
	ceil, _ := ms.Int(nil) // truncates toward zero
	if ms.Sign() > 0 && !ms.IsInt() {
		ceil.Add(ceil, big.NewInt(1))
	}
	if !ceil.IsInt64() || ceil.Sign() < 0 {
		return &errTimeoutNeg
	}
	return timeoutDeadline(e, ceil.Int64())
}

// timeoutDeadline is getTimeoutFromObjectOrReply's last check from 7.2:
// the deadline, now plus ms, must fit in a long long.
func timeoutDeadline(e *Server, ms int64) *Reply {
	if e.t.data.timeoutRange && ms > 0 && ms > math.MaxInt64-e.now {
		return &errTimeoutRange
	}
	return nil
}

// blockingPop is BLPOP/BRPOP key... timeout: [key, element] from the first
// non-empty list.
func blockingPop(e *Server, a []string, head bool) (Reply, bool) {
	if errr := parseTimeout(e, a[len(a)-1]); errr != nil {
		return *errr, false
	}
	for _, k := range a[1 : len(a)-1] {
		l, errr := getList(e, k)
		if errr != nil {
			return *errr, false
		}
		if l == nil {
			continue
		}
		return ArrayReply(BulkReply(k), BulkReply(popOne(e, k, l, head))), false
	}
	return Reply{}, true
}

func cmdBlmpop(e *Server, a []string) (Reply, bool) {
	m, errr := parseMpop(a, 2)
	if errr != nil {
		return *errr, false
	}
	if errr := parseTimeout(e, a[1]); errr != nil {
		return *errr, false
	}
	r, found := mpop(e, m)
	return r, !found
}

func cmdBlmove(e *Server, a []string) (Reply, bool) {
	fromHead, ok := parseWhere(a[3])
	if !ok {
		return errSyntax, false
	}
	toHead, ok := parseWhere(a[4])
	if !ok {
		return errSyntax, false
	}
	if errr := parseTimeout(e, a[5]); errr != nil {
		return *errr, false
	}
	return blmoveGeneric(e, a, fromHead, toHead)
}

func cmdBrpoplpush(e *Server, a []string) (Reply, bool) {
	if errr := parseTimeout(e, a[3]); errr != nil {
		return *errr, false
	}
	return blmoveGeneric(e, a, false, true)
}

// blmoveGeneric blocks only when the source is missing; otherwise it is
// LMOVE.
func blmoveGeneric(e *Server, a []string, fromHead, toHead bool) (Reply, bool) {
	src, errr := getList(e, a[1])
	if errr != nil {
		return *errr, false
	}
	if src == nil {
		return Reply{}, true
	}
	return lmoveGeneric(e, a, fromHead, toHead), false
}
