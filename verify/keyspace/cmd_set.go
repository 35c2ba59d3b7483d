package keyspace

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Set commands (t_set.c): SADD SREM SCARD SISMEMBER SMISMEMBER SMEMBERS
// SINTER SUNION SDIFF SINTERSTORE SUNIONSTORE SDIFFSTORE SINTERCARD SMOVE
// SPOP SRANDMEMBER SSCAN.
//
// Replies follow the set's order (set.go): exact for intsets. Where Redis's
// answer depends on something no engine can know, the command warns:
// a hashtable's member order (a hash seed chosen at server start) and the
// members SPOP and SRANDMEMBER pick at random. The engine picks from the
// start of the set's order instead (SRANDMEMBER with a negative count
// cycles through it). Redis 7.0 does not sort these replies for scripts
// (the "sort_for_script" flag is gone since 7.0.0), so scripts see the same
// order as clients.

func registerSet() {
	register("sadd", firstKey, cmdSadd)
	register("srem", firstKey, cmdSrem)
	register("scard", firstKey, cmdScard)
	register("sismember", firstKey, cmdSismember)
	register("smismember", firstKey, cmdSmismember)
	register("smembers", firstKey, cmdSinter)
	register("sinter", allKeys, cmdSinter)
	register("sinterstore", allKeys, cmdSinterstore)
	register("sintercard", sintercardKeys, cmdSintercard)
	register("sunion", allKeys, func(e *Server, a []string) Reply { return unionDiffReply(e, a[0], a[1:], false) })
	register("sunionstore", allKeys, func(e *Server, a []string) Reply { return unionDiffStore(e, a, false) })
	register("sdiff", allKeys, func(e *Server, a []string) Reply { return unionDiffReply(e, a[0], a[1:], true) })
	register("sdiffstore", allKeys, func(e *Server, a []string) Reply { return unionDiffStore(e, a, true) })
	register("smove", func(a []string) []string { return a[1:3] }, cmdSmove)
	register("spop", firstKey, cmdSpop)
	registerErr("srandmember", firstKey, cmdSrandmember)
	register("sscan", firstKey, cmdSscan)
}

// Error texts of the set commands (Redis 7.0.15).
var (
	errNumkeysTooMany = ErrorReply("ERR Number of keys can't be greater than number of args")
	errLimitNegative  = ErrorReply("ERR LIMIT can't be negative")
	errInvalidCursor  = ErrorReply("ERR invalid cursor")
	// errSrandRange names -math.MaxInt64 and math.MaxInt64.
	errSrandRange = ErrorReply("ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807")
)

// maxRandomReply caps SRANDMEMBER's negative count: Redis would build the
// reply until memory runs out, the engine refuses beyond this many elements.
const maxRandomReply = 1 << 20

// getSet looks key up: (set or nil when missing, error reply).
func getSet(e *Server, key string) (*set, *Reply) {
	v := e.db.get(key)
	if v == nil {
		return nil, nil
	}
	if v.kind != kindSet {
		return nil, &errWrongType
	}
	return v.set, nil
}

// storeSet is setKey: the destination is replaced, its TTL dropped; an empty
// result deletes it instead. The reply is the stored size.
func storeSet(e *Server, key string, s *set) Reply {
	if s.len() == 0 {
		e.db.del(key)
		return IntReply(0)
	}
	e.db.keys[key] = &value{kind: kindSet, set: s}
	return IntReply(int64(s.len()))
}

func membersReply(ms []string) Reply {
	out := make([]Reply, len(ms))
	for i, m := range ms {
		out[i] = BulkReply(m)
	}
	return ArrayReply(out...)
}

// noteOrder warns when a reply lists n members in a hashtable's order.
func noteOrder(e *Server, cmd string, s *set, n int) {
	if s.hashtable() && n >= 2 {
		e.warn("%s: the reply lists a hashtable-encoded set's members in an order Redis does not fix (its dict order depends on a hash seed chosen at server start); the engine answers in insertion order", strings.ToUpper(cmd))
	}
}

// noteRandom warns that Redis would pick members at random.
func noteRandom(e *Server, cmd string) {
	e.warn("%s: the reply depends on members Redis picks at random; the engine takes them from the start of the set's order", strings.ToUpper(cmd))
}

func cmdSadd(e *Server, a []string) Reply {
	s, errr := getSet(e, a[1])
	if errr != nil {
		return *errr
	}
	if s == nil {
		s = createSet(e, a[2], len(a)-2)
		e.db.keys[a[1]] = &value{kind: kindSet, set: s}
	} else {
		s.maybeConvert(len(a) - 2)
	}
	var added int64
	for _, m := range a[2:] {
		if s.add(m) {
			added++
		}
	}
	return IntReply(added)
}

func cmdSrem(e *Server, a []string) Reply {
	s, errr := getSet(e, a[1])
	if errr != nil {
		return *errr
	}
	if s == nil {
		return IntReply(0)
	}
	var n int64
	for _, m := range a[2:] {
		if s.rem(m) {
			n++
			if s.len() == 0 {
				e.db.del(a[1])
				break
			}
		}
	}
	return IntReply(n)
}

func cmdScard(e *Server, a []string) Reply {
	s, errr := getSet(e, a[1])
	if errr != nil {
		return *errr
	}
	if s == nil {
		return IntReply(0)
	}
	return IntReply(int64(s.len()))
}

func boolReply(b bool) Reply {
	if b {
		return IntReply(1)
	}
	return IntReply(0)
}

func cmdSismember(e *Server, a []string) Reply {
	s, errr := getSet(e, a[1])
	if errr != nil {
		return *errr
	}
	return boolReply(s != nil && s.has(a[2]))
}

func cmdSmismember(e *Server, a []string) Reply {
	s, errr := getSet(e, a[1])
	if errr != nil {
		return *errr
	}
	out := make([]Reply, 0, len(a)-2)
	for _, m := range a[2:] {
		out = append(out, boolReply(s != nil && s.has(m)))
	}
	return ArrayReply(out...)
}

// lookupSets reads every key first, as Redis does before computing: a
// WRONGTYPE anywhere wins; a missing key is a nil set.
func lookupSets(e *Server, keys []string) ([]*set, *Reply) {
	sets := make([]*set, len(keys))
	for i, k := range keys {
		s, errr := getSet(e, k)
		if errr != nil {
			return nil, errr
		}
		sets[i] = s
	}
	return sets, nil
}

// intersect is sinterGenericCommand's core: the members of every set in
// keys (at most limit of them, 0: all), in the order of the set Redis
// iterates, returned as first: the smallest, the earliest of equally small
// ones. A missing key makes the intersection empty (first is nil).
func intersect(e *Server, keys []string, limit int64) (first *set, found []string, errr *Reply) {
	sets, errr := lookupSets(e, keys)
	if errr != nil || slices.Contains(sets, nil) {
		return nil, nil, errr
	}
	// Redis qsorts the sets by size; glibc's qsort is a stable merge sort,
	// which decides which of two equally large sets is iterated.
	slices.SortStableFunc(sets, func(x, y *set) int { return x.len() - y.len() })
	for _, m := range sets[0].members() {
		if inAll(m, sets[1:]) {
			found = append(found, m)
			if limit > 0 && int64(len(found)) >= limit {
				break
			}
		}
	}
	return sets[0], found, nil
}

// cmdSinter is SINTER and SMEMBERS (SINTER of one key in Redis 7.0).
func cmdSinter(e *Server, a []string) Reply {
	first, found, errr := intersect(e, a[1:], 0)
	if errr != nil {
		return *errr
	}
	if first != nil {
		noteOrder(e, a[0], first, len(found))
	}
	return membersReply(found)
}

func cmdSinterstore(e *Server, a []string) Reply {
	_, found, errr := intersect(e, a[2:], 0)
	if errr != nil {
		return *errr
	}
	out := newSetFor(e)
	for _, m := range found {
		out.add(m)
	}
	return storeSet(e, a[1], out)
}

func inAll(m string, sets []*set) bool {
	for _, s := range sets {
		if !s.has(m) {
			return false
		}
	}
	return true
}

// sintercardKeys are the numkeys keys after the count; none when the count
// is invalid (the command then fails before touching a key).
func sintercardKeys(a []string) []string {
	n, ok := parseInt(a[1])
	if !ok || n < 1 || n > int64(len(a)-2) {
		return nil
	}
	return a[2 : 2+n]
}

func cmdSintercard(e *Server, a []string) Reply {
	n, ok := parseInt(a[1])
	if !ok || n < 1 {
		return errNumkeys
	}
	if n > int64(len(a)-2) {
		return errNumkeysTooMany
	}
	var limit int64
	for j := 2 + int(n); j < len(a); j++ {
		if !strings.EqualFold(a[j], "limit") || j == len(a)-1 {
			return errSyntax
		}
		j++
		l, ok := parseInt(a[j])
		if !ok || l < 0 {
			return errLimitNegative
		}
		limit = l
	}
	_, found, errr := intersect(e, a[2:2+n], limit)
	if errr != nil {
		return *errr
	}
	return IntReply(int64(len(found)))
}

// unionDiff is sunionDiffGenericCommand's core: the union (or difference)
// of the sets in keys, built as a new set that starts as an intset, so its
// encoding, hence its order, is Redis's.
//
// From Redis 8.0 and Valkey 8.0 (tempSetHT) a reply (not a store) is built
// in a hashtable as soon as one input is not an intset.
func unionDiff(e *Server, keys []string, diff, store bool) (*set, *Reply) {
	sets, errr := lookupSets(e, keys)
	if errr != nil {
		return nil, errr
	}
	out := newSetFor(e)
	if e.t.data.tempSetHT && !store {
		for _, s := range sets {
			if s != nil && s.ht {
				out = createHashtable(e)
				break
			}
		}
	}
	switch {
	case !diff:
		for _, s := range sets {
			if s != nil {
				addAll(out, s)
			}
		}
	case sets[0] == nil || sameSet(sets):
		// Nothing is left: no first set, or the first set is subtracted.
	case diffAlgorithm(sets) == 1:
		for _, m := range sets[0].members() {
			if !inAny(m, sets[1:]) {
				out.add(m)
			}
		}
	default:
		// Algorithm 2 adds the whole first set before removing, so a large
		// first set makes the result a hashtable even when little remains.
		addAll(out, sets[0])
		for _, s := range sets[1:] {
			if s == nil {
				continue
			}
			for _, m := range s.members() {
				out.rem(m)
			}
			if out.len() == 0 {
				break
			}
		}
	}
	return out, nil
}

func addAll(dst, src *set) {
	for _, m := range src.members() {
		dst.add(m)
	}
}

// unionDiffReply answers the result of SUNION, SDIFF (and SPOP of the
// whole set, which Redis serves with SUNION).
func unionDiffReply(e *Server, cmd string, keys []string, diff bool) Reply {
	out, errr := unionDiff(e, keys, diff, false)
	if errr != nil {
		return *errr
	}
	noteOrder(e, cmd, out, out.len())
	return membersReply(out.members())
}

// unionDiffStore is SUNIONSTORE and SDIFFSTORE.
func unionDiffStore(e *Server, a []string, diff bool) Reply {
	out, errr := unionDiff(e, a[2:], diff, true)
	if errr != nil {
		return *errr
	}
	return storeSet(e, a[1], out)
}

// sameSet reports whether a later key names the first set.
func sameSet(sets []*set) bool {
	return sets[0] != nil && slices.Contains(sets[1:], sets[0])
}

// diffAlgorithm is SDIFF's choice between iterating the first set (1) and
// subtracting every set from a copy of it (2), Redis's cost estimate.
func diffAlgorithm(sets []*set) int {
	var one, two int64
	for _, s := range sets {
		if s != nil {
			one += int64(sets[0].len())
			two += int64(s.len())
		}
	}
	if one/2 <= two {
		return 1
	}
	return 2
}

func inAny(m string, sets []*set) bool {
	for _, s := range sets {
		if s != nil && s.has(m) {
			return true
		}
	}
	return false
}

func cmdSmove(e *Server, a []string) Reply {
	srcv, dstv := e.db.get(a[1]), e.db.get(a[2])
	if srcv == nil {
		return IntReply(0)
	}
	if srcv.kind != kindSet || (dstv != nil && dstv.kind != kindSet) {
		return errWrongType
	}
	src, m := srcv.set, a[3]
	if srcv == dstv {
		return boolReply(src.has(m))
	}
	if !src.rem(m) {
		return IntReply(0)
	}
	if src.len() == 0 {
		e.db.del(a[1])
	}
	if dstv == nil {
		dstv = &value{kind: kindSet, set: createSet(e, m, 1)}
		e.db.keys[a[2]] = dstv
	}
	dstv.set.add(m)
	return IntReply(1)
}

func cmdSpop(e *Server, a []string) Reply {
	if len(a) == 3 {
		return spopCount(e, a)
	}
	if len(a) > 3 {
		return errSyntax
	}
	s, errr := getSet(e, a[1])
	if errr != nil {
		return *errr
	}
	if s == nil {
		return NilReply()
	}
	if s.len() > 1 {
		noteRandom(e, "spop")
	}
	m := s.first()
	s.rem(m)
	if s.len() == 0 {
		e.db.del(a[1])
	}
	return BulkReply(m)
}

// spopCount is SPOP key count. Redis answers the whole set as SUNION does
// when count covers it; otherwise it pops random members, and when few are
// left it builds a new set of the remaining ones (whose encoding can differ
// from the old one's). The engine pops from the start of the set's order.
func spopCount(e *Server, a []string) Reply {
	count, ok := parseInt(a[2])
	if !ok || count < 0 {
		return errNotPositive
	}
	v := e.db.get(a[1])
	if v == nil {
		return ArrayReply()
	}
	if v.kind != kindSet {
		return errWrongType
	}
	if count == 0 {
		return ArrayReply()
	}
	s := v.set
	size := int64(s.len())
	if count >= size {
		r := unionDiffReply(e, "spop", a[1:2], false)
		e.db.del(a[1])
		return r
	}
	noteRandom(e, "spop")
	all := s.members()
	popped, remaining := all[:count], all[count:]
	if int64(len(remaining))*5 > count {
		for _, m := range popped {
			s.rem(m)
		}
	} else {
		fresh := newSetFor(e)
		for _, m := range remaining {
			fresh.add(m)
		}
		v.set = fresh
	}
	return membersReply(popped)
}

func cmdSrandmember(e *Server, a []string) (Reply, error) {
	if len(a) == 3 {
		return srandmemberCount(e, a)
	}
	if len(a) > 3 {
		return errSyntax, nil
	}
	s, errr := getSet(e, a[1])
	if errr != nil {
		return *errr, nil
	}
	if s == nil {
		return NilReply(), nil
	}
	if s.len() > 1 {
		noteRandom(e, "srandmember")
	}
	return BulkReply(s.first()), nil
}

// srandmemberCount is SRANDMEMBER key count: a negative count may repeat
// members, a positive one answers distinct members (the whole set, in its
// order, when count covers it).
func srandmemberCount(e *Server, a []string) (Reply, error) {
	l, ok := parseInt(a[2])
	if !ok {
		return errNotInt, nil
	}
	if l == math.MinInt64 {
		return errSrandRange, nil
	}
	count, uniq := l, true
	if l < 0 {
		count, uniq = -l, false
	}
	s, errr := getSet(e, a[1])
	if errr != nil {
		return *errr, nil
	}
	if s == nil || count == 0 {
		return ArrayReply(), nil
	}
	size := int64(s.len())
	switch {
	case !uniq || count == 1:
		if count > maxRandomReply {
			return Reply{}, &RunError{Code: CodeMemory, Msg: fmt.Sprintf("SRANDMEMBER with count %d: a reply over %d elements exceeds the offline limit", l, maxRandomReply)}
		}
		if size > 1 {
			noteRandom(e, "srandmember")
		}
		ms := s.members()
		out := make([]Reply, count)
		for i := range out {
			out[i] = BulkReply(ms[i%len(ms)])
		}
		return ArrayReply(out...), nil
	case count >= size:
		noteOrder(e, "srandmember", s, int(size))
		return membersReply(s.members()), nil
	}
	noteRandom(e, "srandmember")
	return membersReply(s.members()[:count]), nil
}

// cmdSscan is SSCAN key cursor [MATCH pattern] [COUNT count]. The cursor is
// checked first, then the key, then the options. An intset answers whole
// with cursor 0. A hashtable's cursors come from Redis's dict layout; the
// engine pages through its insertion order, the cursor being the position,
// which matches Redis only when one call returns everything (cursor 0 and
// fewer members than COUNT).
func cmdSscan(e *Server, a []string) Reply {
	cursor, ok := parseScanCursor(e, a[2])
	if !ok {
		return errInvalidCursor
	}
	s, errr := getSet(e, a[1])
	if errr != nil {
		return *errr
	}
	if s == nil {
		return ArrayReply(BulkReply("0"), ArrayReply())
	}
	count := int64(10)
	pattern, usePattern := "", false
	for i := 3; i < len(a); i += 2 {
		switch {
		case strings.EqualFold(a[i], "count") && i+1 < len(a):
			n, ok := parseInt(a[i+1])
			if !ok {
				return errNotInt
			}
			if n < 1 {
				return errSyntax
			}
			count = n
		case strings.EqualFold(a[i], "match") && i+1 < len(a):
			pattern, usePattern = a[i+1], a[i+1] != "*"
		default:
			return errSyntax
		}
	}
	ms, next := s.members(), uint64(0)
	if s.hashtable() {
		ms, next = scanPage(ms, cursor, count)
		if cursor != 0 || int64(s.len()) >= count {
			e.warn("SSCAN: the cursors and pages of a hashtable-encoded set depend on Redis's dict layout, which Redis does not fix; the engine pages through insertion order")
		}
	}
	out := []Reply{}
	for _, m := range ms {
		if !usePattern || globMatch(pattern, m) {
			out = append(out, BulkReply(m))
		}
	}
	noteOrder(e, "sscan", s, len(out))
	return ArrayReply(BulkReply(strconv.FormatInt(int64(next), 10)), ArrayReply(out...))
}

// scanPage returns count members from position cursor and the next cursor
// (0 at the end).
func scanPage(ms []string, cursor uint64, count int64) ([]string, uint64) {
	if cursor >= uint64(len(ms)) {
		return nil, 0
	}
	rest := ms[cursor:]
	if uint64(count) >= uint64(len(rest)) {
		return rest, 0
	}
	return rest[:count], cursor + uint64(count)
}

// globMatch is Redis's stringmatchlen (util.c), case-sensitive: SSCAN's
// MATCH (one implementation for every SCAN family: stringMatch).
func globMatch(pattern, str string) bool { return stringMatch(pattern, str, false) }
