package keyspace

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Hash commands: HGET HSET HMSET HSETNX HDEL HLEN HSTRLEN HGETALL HKEYS HVALS
// HMGET HINCRBY HINCRBYFLOAT HEXISTS HRANDFIELD HSCAN (t_hash.c).

func registerHash() {
	register("hmset", firstKey, cmdHset)
	register("hsetnx", firstKey, cmdHsetnx)
	register("hlen", firstKey, cmdHlen)
	register("hstrlen", firstKey, cmdHstrlen)
	register("hkeys", firstKey, func(e *Server, a []string) Reply { return hashListing(e, a, true, false) })
	register("hvals", firstKey, func(e *Server, a []string) Reply { return hashListing(e, a, false, true) })
	register("hincrbyfloat", firstKey, cmdHincrbyfloat)
	registerErr("hrandfield", firstKey, cmdHrandfield)
	register("hscan", firstKey, cmdHscan)
	register("hget", firstKey, cmdHget)
	register("hset", firstKey, cmdHset)
	register("hdel", firstKey, cmdHdel)
	register("hgetall", firstKey, cmdHgetall)
	register("hmget", firstKey, cmdHmget)
	register("hincrby", firstKey, cmdHincrby)
	register("hexists", firstKey, cmdHexists)
}

// getHash looks key up: (hash or nil when missing, error reply).
func getHash(e *Server, key string) (*hash, *Reply) {
	v := e.db.get(key)
	if v == nil {
		return nil, nil
	}
	if v.kind != kindHash {
		return nil, &errWrongType
	}
	return v.hash, nil
}

// hashForWrite returns key's hash, creating it when missing.
func hashForWrite(e *Server, key string) (*hash, *Reply) {
	h, errr := getHash(e, key)
	if errr != nil || h != nil {
		return h, errr
	}
	h = newHash()
	e.db.keys[key] = &value{kind: kindHash, hash: h}
	return h, nil
}

func cmdHget(e *Server, a []string) Reply {
	h, errr := getHash(e, a[1])
	if errr != nil {
		return *errr
	}
	if h == nil {
		return NilReply()
	}
	if v, ok := h.get(a[2]); ok {
		return BulkReply(v)
	}
	return NilReply()
}

// cmdHset is HSET and HMSET (hsetCommand): the same work, HMSET answers OK.
func cmdHset(e *Server, a []string) Reply {
	if len(a)%2 == 1 {
		return errArity(a[0])
	}
	h, errr := hashForWrite(e, a[1])
	if errr != nil {
		return *errr
	}
	var created int64
	for i := 2; i < len(a); i += 2 {
		if h.set(a[i], a[i+1]) {
			created++
		}
	}
	if a[0] == "hmset" {
		return okReply
	}
	return IntReply(created)
}

func cmdHdel(e *Server, a []string) Reply {
	h, errr := getHash(e, a[1])
	if errr != nil {
		return *errr
	}
	if h == nil {
		return IntReply(0)
	}
	var n int64
	for _, f := range a[2:] {
		if h.del(f) {
			n++
			if len(h.vals) == 0 {
				e.db.del(a[1])
				break
			}
		}
	}
	return IntReply(n)
}

func cmdHgetall(e *Server, a []string) Reply { return hashListing(e, a, true, true) }

// hashListing is genericHgetallCommand: HKEYS (keys), HVALS (vals) and
// HGETALL (both, flat in RESP2).
func hashListing(e *Server, a []string, keys, vals bool) Reply {
	h, errr := getHash(e, a[1])
	if errr != nil {
		return *errr
	}
	out := []Reply{}
	if h != nil {
		warnHashOrder(e, a[0], h)
		for _, f := range h.fields() {
			if keys {
				out = append(out, BulkReply(f))
			}
			if vals {
				out = append(out, BulkReply(h.vals[f]))
			}
		}
	}
	return ArrayReply(out...)
}

// warnHashOrder notes that cmd lists a hashtable-encoded hash, whose order
// on a server depends on the seed it chose at start.
func warnHashOrder(e *Server, cmd string, h *hash) {
	if h.ht && h.len() > 1 {
		e.warn("%s: hash of %d fields is hashtable-encoded (over %d fields, or a field or value over %d bytes): listed in insertion order, Redis's order depends on a seed chosen at server start",
			strings.ToUpper(cmd), h.len(), hashMaxListpackEntries, hashMaxListpackValue)
	}
}

func cmdHmget(e *Server, a []string) Reply {
	h, errr := getHash(e, a[1])
	if errr != nil {
		return *errr
	}
	out := make([]Reply, 0, len(a)-2)
	for _, f := range a[2:] {
		if h != nil {
			if v, ok := h.vals[f]; ok {
				out = append(out, BulkReply(v))
				continue
			}
		}
		out = append(out, NilReply())
	}
	return ArrayReply(out...)
}

func cmdHincrby(e *Server, a []string) Reply {
	by, ok := parseInt(a[3])
	if !ok {
		return errNotInt
	}
	h, errr := hashForWrite(e, a[1])
	if errr != nil {
		return *errr
	}
	var cur int64
	if s, exists := h.vals[a[2]]; exists {
		n, ok := parseInt(s)
		if !ok {
			return errHashNotInt
		}
		cur = n
	}
	if (by < 0 && cur < 0 && by < math.MinInt64-cur) || (by > 0 && cur > 0 && by > math.MaxInt64-cur) {
		return errOverflow
	}
	cur += by
	h.update(a[2], strconv.FormatInt(cur, 10))
	return IntReply(cur)
}

func cmdHexists(e *Server, a []string) Reply {
	h, errr := getHash(e, a[1])
	if errr != nil {
		return *errr
	}
	if h == nil {
		return IntReply(0)
	}
	if _, ok := h.vals[a[2]]; ok {
		return IntReply(1)
	}
	return IntReply(0)
}

func cmdHsetnx(e *Server, a []string) Reply {
	h, errr := hashForWrite(e, a[1])
	if errr != nil {
		return *errr
	}
	if _, ok := h.get(a[2]); ok {
		return IntReply(0)
	}
	h.set(a[2], a[3])
	return IntReply(1)
}

func cmdHlen(e *Server, a []string) Reply {
	h, errr := getHash(e, a[1])
	if errr != nil {
		return *errr
	}
	if h == nil {
		return IntReply(0)
	}
	return IntReply(int64(h.len()))
}

func cmdHstrlen(e *Server, a []string) Reply {
	h, errr := getHash(e, a[1])
	if errr != nil {
		return *errr
	}
	if h == nil {
		return IntReply(0)
	}
	v, _ := h.get(a[2])
	return IntReply(int64(len(v)))
}

// cmdHincrbyfloat is hincrbyfloatCommand: long double arithmetic, the result
// stored and answered in ld2string's human form.
func cmdHincrbyfloat(e *Server, a []string) Reply {
	incr, ok := parseLongDouble(a[3])
	if !ok {
		return errNotFloat
	}
	if incr.IsInf() {
		return ErrorReply("ERR value is NaN or Infinity")
	}
	h, errr := hashForWrite(e, a[1])
	if errr != nil {
		return *errr
	}
	cur := newLongDouble()
	if s, exists := h.vals[a[2]]; exists {
		if cur, ok = parseLongDouble(s); !ok {
			return ErrorReply("ERR hash value is not a float")
		}
	}
	sum, ok := addLongDouble(cur, incr)
	if !ok {
		return errNaNOrInf
	}
	out := formatLongDouble(sum)
	h.update(a[2], out)
	return BulkReply(out)
}

// maxOfflineReplyElems bounds the replies the engine builds for a count
// argument (HRANDFIELD -n): Redis would try to send them all.
const maxOfflineReplyElems = 1 << 20

// cmdHrandfield is hrandfieldCommand. Redis picks at random; the engine
// answers with a fixed pick and a warning whenever Redis's pick could
// differ: without a count the first field; with a positive count below the
// hash's size the first count fields in hash order; with a negative count
// the fields in hash order, cycling. When count covers the whole hash
// Redis answers with every field in hash order, as the engine does.
func cmdHrandfield(e *Server, a []string) (Reply, error) {
	if len(a) < 3 {
		h, errr := getHash(e, a[1])
		if errr != nil {
			return *errr, nil
		}
		if h == nil {
			return NilReply(), nil
		}
		warnRandomPick(e, h, 1)
		return BulkReply(h.order[0]), nil
	}
	l, ok := parseInt(a[2])
	if !ok {
		return errNotInt, nil
	}
	if l == math.MinInt64 {
		return ErrorReply("ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807"), nil
	}
	withValues := false
	if len(a) > 4 || (len(a) == 4 && !strings.EqualFold(a[3], "withvalues")) {
		return errSyntax, nil
	}
	if len(a) == 4 {
		withValues = true
		if l < -math.MaxInt64/2 || l > math.MaxInt64/2 {
			return ErrorReply("ERR value is out of range"), nil
		}
	}
	h, errr := getHash(e, a[1])
	if errr != nil {
		return *errr, nil
	}
	if h == nil || l == 0 {
		return ArrayReply(), nil
	}
	size := int64(h.len())
	var pick []string
	switch {
	case l < 0 || l == 1:
		n := -l
		if l == 1 {
			n = 1
		}
		if n > maxOfflineReplyElems {
			return Reply{}, &RunError{Code: CodeMemory, Msg: fmt.Sprintf("HRANDFIELD reply of %d elements exceeds the offline limit of %d", n, maxOfflineReplyElems)}
		}
		warnRandomPick(e, h, n)
		for i := int64(0); i < n; i++ {
			pick = append(pick, h.order[i%size])
		}
	case l >= size:
		warnHashOrder(e, a[0], h)
		pick = h.order
	default:
		warnRandomPick(e, h, l)
		pick = h.order[:l]
	}
	out := make([]Reply, 0, len(pick)*2)
	for _, f := range pick {
		out = append(out, BulkReply(f))
		if withValues {
			out = append(out, BulkReply(h.vals[f]))
		}
	}
	return ArrayReply(out...), nil
}

// warnRandomPick notes that HRANDFIELD answered n picks from h where Redis
// picks at random: only a one-field hash leaves no choice.
func warnRandomPick(e *Server, h *hash, n int64) {
	if h.len() > 1 {
		e.warn("HRANDFIELD: Redis picks %d of %d fields at random; the engine answers with the first fields in hash order (cycling for a negative count)", n, h.len())
	}
}

// cmdHscan is hscanCommand and scanGenericCommand for a hash. A listpack
// hash is answered whole with cursor 0, whatever the cursor, as Redis does.
// A hashtable is answered whole too (cursor 0) with a warning: Redis walks
// its buckets COUNT at a time in an order that depends on its seed.
func cmdHscan(e *Server, a []string) Reply {
	if _, ok := parseScanCursor(e, a[2]); !ok {
		return ErrorReply("ERR invalid cursor")
	}
	h, errr := getHash(e, a[1])
	if errr != nil {
		return *errr
	}
	if h == nil {
		return ArrayReply(BulkReply("0"), ArrayReply())
	}
	pat, usePat := "", false
	for i := 3; i < len(a); i += 2 {
		more := i+1 < len(a)
		switch {
		case strings.EqualFold(a[i], "count") && more:
			n, ok := parseInt(a[i+1])
			if !ok {
				return errNotInt
			}
			if n < 1 {
				return errSyntax
			}
		case strings.EqualFold(a[i], "match") && more:
			pat = a[i+1]
			usePat = pat != "*"
		default:
			return errSyntax
		}
	}
	if h.ht && h.len() > 1 {
		e.warn("HSCAN: hash of %d fields is hashtable-encoded: answered whole with cursor 0 in insertion order; Redis walks its buckets COUNT at a time in a seed-dependent order", h.len())
	}
	out := []Reply{}
	for _, f := range h.fields() {
		if usePat && !stringMatch(pat, f, false) {
			continue
		}
		out = append(out, BulkReply(f), BulkReply(h.vals[f]))
	}
	return ArrayReply(BulkReply("0"), ArrayReply(out...))
}

// parseScanCursor is parseScanCursorOrReply: strtoul on the argument as a C
// string (up to its first NUL), so a sign is accepted ("-1" wraps), an empty
// string is cursor 0, and leading space, trailing bytes and overflow are
// errors.
//
// From 7.4 (scanCursorULL) it is string2ull: string2ll first (a negative
// value is an error), then strtoull, which takes leading space and a sign
// but not an empty string.
func parseScanCursor(e *Server, s string) (uint64, bool) {
	if i := strings.IndexByte(s, 0); i >= 0 {
		s = s[:i]
	}
	if e.t.data.scanCursorULL {
		if v, ok := parseInt(s); ok {
			if v < 0 {
				return 0, false
			}
			return uint64(v), true
		}
		s = strings.TrimLeftFunc(s, func(r rune) bool { return r < 0x80 && isCSpace(byte(r)) })
		if s == "" {
			return 0, false
		}
	}
	if s == "" {
		return 0, true
	}
	if isCSpace(s[0]) {
		return 0, false
	}
	p, neg := s, false
	if p[0] == '+' || p[0] == '-' {
		neg, p = p[0] == '-', p[1:]
	}
	if p == "" || p[0] < '0' || p[0] > '9' {
		return 0, false // no digits: strtoul stops at the first byte
	}
	var v uint64
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		if v > (math.MaxUint64-uint64(c-'0'))/10 {
			return 0, false // ERANGE
		}
		v = v*10 + uint64(c-'0')
	}
	if neg {
		v = -v
	}
	return v, true
}

// isCSpace is C's isspace in the "C" locale.
func isCSpace(c byte) bool {
	return c == ' ' || (c >= '\t' && c <= '\r')
}

// stringMatch is Redis's stringmatchlen (util.c), the glob matcher of
// SCAN's MATCH: *, ?, [...] with ^, ranges and \ escapes. It compares bytes
// as C's signed char, as the range test does on x86-64.
func stringMatch(pattern, str string, nocase bool) bool {
	skip := false
	return stringMatchImpl(pattern, str, nocase, &skip)
}

func stringMatchImpl(pat, str string, nocase bool, skipLonger *bool) bool {
	// at reads pattern[i] like C reads the NUL-terminated sds: 0 past the end.
	at := func(i int) byte {
		if i < len(pat) {
			return pat[i]
		}
		return 0
	}
	lower := func(c int) int {
		if c >= 'A' && c <= 'Z' {
			return c + 32
		}
		return c
	}
	p, s := 0, 0
	for p < len(pat) && s < len(str) {
		switch pat[p] {
		case '*':
			for p < len(pat) && at(p+1) == '*' {
				p++
			}
			if len(pat)-p == 1 {
				return true
			}
			for s < len(str) {
				if stringMatchImpl(pat[p+1:], str[s:], nocase, skipLonger) {
					return true
				}
				if *skipLonger {
					return false
				}
				s++
			}
			*skipLonger = true
			return false
		case '?':
			s++
		case '[':
			p++
			not := at(p) == '^'
			if not {
				p++
			}
			match := false
			for {
				if at(p) == '\\' && len(pat)-p >= 2 {
					p++
					if pat[p] == str[s] {
						match = true
					}
				} else if at(p) == ']' {
					break
				} else if p >= len(pat) {
					p--
					break
				} else if len(pat)-p >= 3 && pat[p+1] == '-' {
					start, end, c := int(int8(pat[p])), int(int8(pat[p+2])), int(int8(str[s]))
					if start > end {
						start, end = end, start
					}
					if nocase {
						start, end, c = lower(start), lower(end), lower(c)
					}
					p += 2
					if c >= start && c <= end {
						match = true
					}
				} else if nocase {
					if lower(int(pat[p])) == lower(int(str[s])) {
						match = true
					}
				} else if pat[p] == str[s] {
					match = true
				}
				p++
			}
			if not {
				match = !match
			}
			if !match {
				return false
			}
			s++
		case '\\':
			if len(pat)-p >= 2 {
				p++
			}
			fallthrough
		default:
			if nocase {
				if lower(int(pat[p])) != lower(int(str[s])) {
					return false
				}
			} else if pat[p] != str[s] {
				return false
			}
			s++
		}
		p++
		if s == len(str) {
			for at(p) == '*' {
				p++
			}
			break
		}
	}
	return p >= len(pat) && s == len(str)
}

// StringMatch is stringmatchlen for the engine's commands outside the
// keyspace (FUNCTION LIST's LIBRARYNAME).
func StringMatch(pattern, str string, nocase bool) bool { return stringMatch(pattern, str, nocase) }
