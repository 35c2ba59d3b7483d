package keyspace

import (
	"math"
	"strings"
)

// String commands: GET SET SETNX SETEX PSETEX GETDEL GETEX GETSET MGET MSET
// MSETNX INCR INCRBY DECR DECRBY INCRBYFLOAT APPEND STRLEN GETRANGE SUBSTR
// SETRANGE LCS, with Redis 7.0's argument checks (t_string.c).

func registerString() {
	register("get", firstKey, cmdGet)
	register("set", firstKey, cmdSet)
	register("setnx", firstKey, cmdSetnx)
	register("setex", firstKey, func(e *Server, a []string) Reply { return setexGeneric(e, a, 1000) })
	register("psetex", firstKey, func(e *Server, a []string) Reply { return setexGeneric(e, a, 1) })
	register("getdel", firstKey, cmdGetdel)
	register("getex", firstKey, cmdGetex)
	register("mget", allKeys, cmdMget)
	register("mset", everyOtherKey, cmdMset)
	register("incr", firstKey, func(e *Server, a []string) Reply { return incrBy(e, a[1], 1) })
	register("decr", firstKey, func(e *Server, a []string) Reply { return incrBy(e, a[1], -1) })
	register("incrby", firstKey, cmdIncrby)
	register("decrby", firstKey, cmdDecrby)
	register("append", firstKey, cmdAppend)
	register("strlen", firstKey, cmdStrlen)
	register("getset", firstKey, cmdGetset)
	register("msetnx", everyOtherKey, cmdMsetnx)
	register("incrbyfloat", firstKey, cmdIncrbyfloat)
	register("getrange", firstKey, cmdGetrange)
	register("substr", firstKey, cmdGetrange)
	registerErr("setrange", firstKey, cmdSetrange)
	registerErr("lcs", func(a []string) []string { return a[1:3] }, cmdLcs)
}

// Errors of the float and range commands; the texts are Redis 7.0.15's.
var (
	errNotFloat    = ErrorReply("ERR value is not a valid float")
	errNaNOrInf    = ErrorReply("ERR increment would produce NaN or Infinity")
	errStringLimit = ErrorReply("ERR string exceeds maximum allowed size (proto-max-bulk-len)")
)

// protoMaxBulkLen is proto-max-bulk-len's default (512 MB): no string may
// grow past it.
const protoMaxBulkLen = 512 << 20

// parseInt is Redis's string2ll: an optional '-', no '+', no spaces, no
// leading zeros, at most 20 characters, within int64.
func parseInt(s string) (int64, bool) {
	if s == "" || len(s) >= 21 {
		return 0, false
	}
	if s == "0" {
		return 0, true
	}
	p := s
	neg := false
	if p[0] == '-' {
		neg = true
		p = p[1:]
		if p == "" {
			return 0, false
		}
	}
	if p[0] < '1' || p[0] > '9' {
		return 0, false
	}
	var v uint64
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		if v > math.MaxUint64/10 {
			return 0, false
		}
		v *= 10
		if v > math.MaxUint64-uint64(c-'0') {
			return 0, false
		}
		v += uint64(c - '0')
	}
	if neg {
		if v > uint64(math.MaxInt64)+1 {
			return 0, false
		}
		return int64(-v), true
	}
	if v > math.MaxInt64 {
		return 0, false
	}
	return int64(v), true
}

// getString looks key up for a read: (value, found, error reply).
func getString(e *Server, key string) (string, bool, *Reply) {
	v := e.db.get(key)
	if v == nil {
		return "", false, nil
	}
	if v.kind != kindString {
		return "", false, &errWrongType
	}
	return v.str, true, nil
}

func cmdGet(e *Server, a []string) Reply {
	s, ok, errr := getString(e, a[1])
	if errr != nil {
		return *errr
	}
	if !ok {
		return NilReply()
	}
	return BulkReply(s)
}

// Flags of SET and GETEX (parseExtendedStringArgumentsOrReply).
const (
	setNX = 1 << iota
	setXX
	setGet
	setKeepTTL
	setPersist
	setEX
	setPX
	setEXAT
	setPXAT
)

const anyExpire = setEX | setPX | setEXAT | setPXAT

// parseSetOptions parses SET's (isSet) or GETEX's options from args[3:] or
// args[2:]. It returns the flags and the expire argument.
func parseSetOptions(opts []string, isSet bool) (flags int, expire string, hasExpire bool, bad bool) {
	for j := 0; j < len(opts); j++ {
		opt := strings.ToLower(opts[j])
		hasNext := j+1 < len(opts)
		switch {
		case opt == "nx" && flags&setXX == 0 && isSet:
			flags |= setNX
		case opt == "xx" && flags&setNX == 0 && isSet:
			flags |= setXX
		case opt == "get" && isSet:
			flags |= setGet
		case opt == "keepttl" && flags&(setPersist|anyExpire) == 0 && isSet:
			flags |= setKeepTTL
		case opt == "persist" && !isSet && flags&(anyExpire|setKeepTTL) == 0:
			flags |= setPersist
		case opt == "ex" && flags&(setKeepTTL|setPersist|setEXAT|setPX|setPXAT) == 0 && hasNext:
			flags |= setEX
			expire, hasExpire = opts[j+1], true
			j++
		case opt == "px" && flags&(setKeepTTL|setPersist|setEX|setEXAT|setPXAT) == 0 && hasNext:
			flags |= setPX
			expire, hasExpire = opts[j+1], true
			j++
		case opt == "exat" && flags&(setKeepTTL|setPersist|setEX|setPX|setPXAT) == 0 && hasNext:
			flags |= setEXAT
			expire, hasExpire = opts[j+1], true
			j++
		case opt == "pxat" && flags&(setKeepTTL|setPersist|setEX|setEXAT|setPX) == 0 && hasNext:
			flags |= setPXAT
			expire, hasExpire = opts[j+1], true
			j++
		default:
			return 0, "", false, true
		}
	}
	return flags, expire, hasExpire, false
}

// expireAt turns an EX/PX/EXAT/PXAT argument into an absolute Unix ms, or the
// error Redis gives for it.
func expireAt(e *Server, flags int, arg, cmd string) (int64, *Reply) {
	ms, ok := parseInt(arg)
	if !ok {
		return 0, &errNotInt
	}
	seconds := flags&(setEX|setEXAT) != 0
	if ms <= 0 || (seconds && ms > math.MaxInt64/1000) {
		r := errExpire(cmd)
		return 0, &r
	}
	if seconds {
		ms *= 1000
	}
	if flags&(setEX|setPX) != 0 {
		ms += e.now // wraps like C on overflow, caught below
	}
	if ms <= 0 {
		r := errExpire(cmd)
		return 0, &r
	}
	return ms, nil
}

func cmdSet(e *Server, a []string) Reply {
	flags, exp, hasExp, bad := parseSetOptions(a[3:], true)
	if bad {
		return errSyntax
	}
	var when int64
	if hasExp {
		w, errr := expireAt(e, flags, exp, "set")
		if errr != nil {
			return *errr
		}
		when = w
	}
	return setGeneric(e, flags, a[1], a[2], hasExp, when)
}

func setGeneric(e *Server, flags int, key, val string, hasExp bool, when int64) Reply {
	var old Reply
	if flags&setGet != 0 {
		old = cmdGet(e, []string{"get", key})
		if old.Kind == Error {
			return old
		}
	}
	found := e.db.get(key) != nil
	if (flags&setNX != 0 && found) || (flags&setXX != 0 && !found) {
		if flags&setGet != 0 {
			return old
		}
		return NilReply()
	}
	e.db.setString(key, val, flags&setKeepTTL != 0)
	if hasExp {
		e.db.keys[key].expireAt = when
		if when <= e.now {
			delete(e.db.keys, key)
		}
	}
	if flags&setGet != 0 {
		return old
	}
	return okReply
}

func cmdSetnx(e *Server, a []string) Reply {
	if e.db.get(a[1]) != nil {
		return IntReply(0)
	}
	e.db.setString(a[1], a[2], false)
	return IntReply(1)
}

func setexGeneric(e *Server, a []string, unit int64) Reply {
	flags := setPX
	if unit == 1000 {
		flags = setEX
	}
	when, errr := expireAt(e, flags, a[2], a[0])
	if errr != nil {
		return *errr
	}
	return setGeneric(e, 0, a[1], a[3], true, when)
}

func cmdGetdel(e *Server, a []string) Reply {
	s, ok, errr := getString(e, a[1])
	if errr != nil {
		return *errr
	}
	if !ok {
		return NilReply()
	}
	e.db.del(a[1])
	return BulkReply(s)
}

func cmdGetex(e *Server, a []string) Reply {
	flags, exp, hasExp, bad := parseSetOptions(a[2:], false)
	if bad {
		return errSyntax
	}
	var when int64
	if hasExp && e.t.data.getexExpireFirst {
		w, errr := expireAt(e, flags, exp, "getex")
		if errr != nil {
			return *errr
		}
		when = w
	}
	s, ok, errr := getString(e, a[1])
	if errr != nil {
		return *errr
	}
	if !ok {
		return NilReply()
	}
	if hasExp {
		if !e.t.data.getexExpireFirst {
			w, errr := expireAt(e, flags, exp, "getex")
			if errr != nil {
				return *errr
			}
			when = w
		}
		if flags&(setEXAT|setPXAT) != 0 && when <= e.now {
			e.db.del(a[1])
		} else {
			e.db.keys[a[1]].expireAt = when
		}
	} else if flags&setPersist != 0 {
		e.db.keys[a[1]].expireAt = 0
	}
	return BulkReply(s)
}

func cmdMget(e *Server, a []string) Reply {
	out := make([]Reply, 0, len(a)-1)
	for _, k := range a[1:] {
		v := e.db.get(k)
		if v == nil || v.kind != kindString {
			out = append(out, NilReply())
			continue
		}
		out = append(out, BulkReply(v.str))
	}
	return ArrayReply(out...)
}

func cmdMset(e *Server, a []string) Reply {
	if len(a)%2 == 0 {
		return errArity("mset")
	}
	for i := 1; i < len(a); i += 2 {
		e.db.setString(a[i], a[i+1], false)
	}
	return okReply
}

func cmdIncrby(e *Server, a []string) Reply {
	n, ok := parseInt(a[2])
	if !ok {
		return errNotInt
	}
	return incrBy(e, a[1], n)
}

func cmdDecrby(e *Server, a []string) Reply {
	n, ok := parseInt(a[2])
	if !ok {
		return errNotInt
	}
	if n == math.MinInt64 {
		return errDecOverflow
	}
	return incrBy(e, a[1], -n)
}

func incrBy(e *Server, key string, by int64) Reply {
	v := e.db.get(key)
	var cur int64
	if v != nil {
		if v.kind != kindString {
			return errWrongType
		}
		n, ok := parseInt(v.str)
		if !ok {
			return errNotInt
		}
		cur = n
	}
	if (by < 0 && cur < 0 && by < math.MinInt64-cur) || (by > 0 && cur > 0 && by > math.MaxInt64-cur) {
		return errOverflow
	}
	cur += by
	e.db.setInt(key, cur, true)
	return IntReply(cur)
}

func cmdAppend(e *Server, a []string) Reply {
	v := e.db.get(a[1])
	if v == nil {
		e.db.setString(a[1], a[2], false)
		return IntReply(int64(len(a[2])))
	}
	if v.kind != kindString {
		return errWrongType
	}
	if !checkStringLength(int64(len(v.str)), int64(len(a[2]))) {
		return errStringLimit
	}
	v.str += a[2]
	return IntReply(int64(len(v.str)))
}

func cmdStrlen(e *Server, a []string) Reply {
	s, _, errr := getString(e, a[1])
	if errr != nil {
		return *errr
	}
	return IntReply(int64(len(s)))
}

func cmdGetset(e *Server, a []string) Reply {
	old := cmdGet(e, a[:2])
	if old.Kind == Error {
		return old
	}
	e.db.setString(a[1], a[2], false)
	return old
}

// cmdMsetnx is msetGenericCommand with nx: nothing is set when any key
// exists.
func cmdMsetnx(e *Server, a []string) Reply {
	if len(a)%2 == 0 {
		return errArity("msetnx")
	}
	for i := 1; i < len(a); i += 2 {
		if e.db.get(a[i]) != nil {
			return IntReply(0)
		}
	}
	for i := 1; i < len(a); i += 2 {
		e.db.setString(a[i], a[i+1], false)
	}
	return IntReply(1)
}

// cmdIncrbyfloat is incrbyfloatCommand: long double arithmetic; the result
// replaces the value and keeps its TTL.
func cmdIncrbyfloat(e *Server, a []string) Reply {
	s, found, errr := getString(e, a[1])
	if errr != nil {
		return *errr
	}
	cur := newLongDouble()
	if found {
		var ok bool
		if cur, ok = parseLongDouble(s); !ok {
			return errNotFloat
		}
	}
	incr, ok := parseLongDouble(a[2])
	if !ok {
		return errNotFloat
	}
	sum, ok := addLongDouble(cur, incr)
	if !ok {
		return errNaNOrInf
	}
	out := formatLongDouble(sum)
	e.db.setString(a[1], out, true)
	return BulkReply(out)
}

// cmdGetrange is getrangeCommand (and SUBSTR): the indexes are parsed
// before the key is looked up; a missing key is an empty string.
func cmdGetrange(e *Server, a []string) Reply {
	start, ok := parseInt(a[2])
	if !ok {
		return errNotInt
	}
	end, ok := parseInt(a[3])
	if !ok {
		return errNotInt
	}
	s, _, errr := getString(e, a[1])
	if errr != nil {
		return *errr
	}
	n := int64(len(s))
	if start < 0 && end < 0 && start > end {
		return BulkReply("")
	}
	if start < 0 {
		start += n
	}
	if end < 0 {
		end += n
	}
	start, end = max(start, 0), max(end, 0)
	if end >= n {
		end = n - 1
	}
	if start > end || n == 0 {
		return BulkReply("")
	}
	return BulkReply(s[start : end+1])
}

// checkStringLength is t_string.c's: size+add must stay within
// proto-max-bulk-len, overflow included.
func checkStringLength(size, add int64) bool {
	total := size + add
	return !(total > protoMaxBulkLen || total < size || total < add)
}

// cmdSetrange is setrangeCommand: an empty value changes nothing (and
// creates no key), a gap is padded with zero bytes.
func cmdSetrange(e *Server, a []string) (Reply, error) {
	offset, ok := parseInt(a[2])
	if !ok {
		return errNotInt, nil
	}
	if offset < 0 {
		return ErrorReply("ERR offset is out of range"), nil
	}
	val := a[3]
	v := e.db.get(a[1])
	if v != nil && v.kind != kindString {
		return errWrongType, nil
	}
	if val == "" {
		if v == nil {
			return IntReply(0), nil
		}
		return IntReply(int64(len(v.str))), nil
	}
	if !checkStringLength(offset, int64(len(val))) {
		return errStringLimit, nil
	}
	need := offset + int64(len(val))
	var b []byte
	if v != nil {
		b = []byte(v.str)
	}
	if int64(len(b)) < need {
		if err := e.grow(need - int64(len(b))); err != nil {
			return Reply{}, err
		}
		b = append(b, make([]byte, need-int64(len(b)))...)
	}
	copy(b[offset:], val)
	if v == nil {
		e.db.setString(a[1], string(b), false)
	} else {
		v.str = string(b)
	}
	return IntReply(int64(len(b))), nil
}

// cmdLcs is lcsCommand: the dynamic-programming table, then a walk back from
// its end that emits the matching ranges, last first.
func cmdLcs(e *Server, a []string) (Reply, error) {
	va, vb := e.db.get(a[1]), e.db.get(a[2])
	if (va != nil && va.kind != kindString) || (vb != nil && vb.kind != kindString) {
		return ErrorReply("ERR The specified keys must contain string values"), nil
	}
	var sa, sb string
	if va != nil {
		sa = va.str
	}
	if vb != nil {
		sb = vb.str
	}
	var getLen, getIdx, withMatchLen bool
	var minMatchLen int64
	for j := 3; j < len(a); j++ {
		switch opt := strings.ToLower(a[j]); {
		case opt == "idx":
			getIdx = true
		case opt == "len":
			getLen = true
		case opt == "withmatchlen":
			withMatchLen = true
		case opt == "minmatchlen" && j+1 < len(a):
			n, ok := parseInt(a[j+1])
			if !ok {
				return errNotInt, nil
			}
			minMatchLen = max(n, 0)
			j++
		default:
			return errSyntax, nil
		}
	}
	if getLen && getIdx {
		return ErrorReply("ERR If you want both the length and indexes, please just use IDX."), nil
	}
	cells := (uint64(len(sa)) + 1) * (uint64(len(sb)) + 1) * 4
	if cells > protoMaxBulkLen {
		return ErrorReply("ERR Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len"), nil
	}
	if err := e.grow(int64(cells)); err != nil {
		return Reply{}, err // the table is transient, but as large as that
	}
	return lcsReply(sa, sb, getLen, getIdx, withMatchLen, minMatchLen), nil
}

func lcsReply(sa, sb string, getLen, getIdx, withMatchLen bool, minMatchLen int64) Reply {
	alen, blen := len(sa), len(sb)
	w := blen + 1
	lcs := make([]uint32, (alen+1)*w)
	for i := 1; i <= alen; i++ {
		for j := 1; j <= blen; j++ {
			if sa[i-1] == sb[j-1] {
				lcs[i*w+j] = lcs[(i-1)*w+j-1] + 1
			} else {
				lcs[i*w+j] = max(lcs[(i-1)*w+j], lcs[i*w+j-1])
			}
		}
	}
	total := lcs[alen*w+blen]
	if getLen {
		return IntReply(int64(total))
	}
	result := make([]byte, total)
	idx := total
	matches := []Reply{}
	// aStart == alen means no range is open, as in Redis.
	aStart, aEnd, bStart, bEnd := alen, 0, 0, 0
	i, j := alen, blen
	for i > 0 && j > 0 {
		emit := false
		if sa[i-1] == sb[j-1] {
			result[idx-1] = sa[i-1]
			if aStart == alen {
				aStart, aEnd, bStart, bEnd = i-1, i-1, j-1, j-1
			} else if aStart == i && bStart == j {
				aStart--
				bStart--
			} else {
				emit = true
			}
			if aStart == 0 || bStart == 0 {
				emit = true
			}
			idx--
			i--
			j--
		} else {
			if lcs[(i-1)*w+j] > lcs[i*w+j-1] {
				i--
			} else {
				j--
			}
			if aStart != alen {
				emit = true
			}
		}
		if emit {
			matchLen := int64(aEnd - aStart + 1)
			if minMatchLen == 0 || matchLen >= minMatchLen {
				m := []Reply{
					ArrayReply(IntReply(int64(aStart)), IntReply(int64(aEnd))),
					ArrayReply(IntReply(int64(bStart)), IntReply(int64(bEnd))),
				}
				if withMatchLen {
					m = append(m, IntReply(matchLen))
				}
				matches = append(matches, ArrayReply(m...))
			}
			aStart = alen
		}
	}
	if getIdx {
		return ArrayReply(BulkReply("matches"), ArrayReply(matches...), BulkReply("len"), IntReply(int64(total)))
	}
	return BulkReply(string(result))
}
