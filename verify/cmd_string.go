package verify

import (
	"math"
	"strconv"
	"strings"
)

// String commands: GET SET SETNX SETEX PSETEX GETDEL GETEX MGET MSET INCR
// INCRBY DECR DECRBY APPEND STRLEN, with Redis 7.0's argument checks.

func init() {
	register("get", firstKey, cmdGet)
	register("set", firstKey, cmdSet)
	register("setnx", firstKey, cmdSetnx)
	register("setex", firstKey, func(e *Engine, a []string) Reply { return setexGeneric(e, a, 1000) })
	register("psetex", firstKey, func(e *Engine, a []string) Reply { return setexGeneric(e, a, 1) })
	register("getdel", firstKey, cmdGetdel)
	register("getex", firstKey, cmdGetex)
	register("mget", allKeys, cmdMget)
	register("mset", everyOtherKey, cmdMset)
	register("incr", firstKey, func(e *Engine, a []string) Reply { return incrBy(e, a[1], 1) })
	register("decr", firstKey, func(e *Engine, a []string) Reply { return incrBy(e, a[1], -1) })
	register("incrby", firstKey, cmdIncrby)
	register("decrby", firstKey, cmdDecrby)
	register("append", firstKey, cmdAppend)
	register("strlen", firstKey, cmdStrlen)
}

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
func getString(e *Engine, key string) (string, bool, *Reply) {
	v := e.db.get(key)
	if v == nil {
		return "", false, nil
	}
	if v.kind != kindString {
		return "", false, &errWrongType
	}
	return v.str, true, nil
}

func cmdGet(e *Engine, a []string) Reply {
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
func expireAt(e *Engine, flags int, arg, cmd string) (int64, *Reply) {
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

func cmdSet(e *Engine, a []string) Reply {
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

func setGeneric(e *Engine, flags int, key, val string, hasExp bool, when int64) Reply {
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

func cmdSetnx(e *Engine, a []string) Reply {
	if e.db.get(a[1]) != nil {
		return IntReply(0)
	}
	e.db.setString(a[1], a[2], false)
	return IntReply(1)
}

func setexGeneric(e *Engine, a []string, unit int64) Reply {
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

func cmdGetdel(e *Engine, a []string) Reply {
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

func cmdGetex(e *Engine, a []string) Reply {
	flags, exp, hasExp, bad := parseSetOptions(a[2:], false)
	if bad {
		return errSyntax
	}
	s, ok, errr := getString(e, a[1])
	if errr != nil {
		return *errr
	}
	if !ok {
		return NilReply()
	}
	if hasExp {
		when, errr := expireAt(e, flags, exp, "getex")
		if errr != nil {
			return *errr
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

func cmdMget(e *Engine, a []string) Reply {
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

func cmdMset(e *Engine, a []string) Reply {
	if len(a)%2 == 0 {
		return errArity("mset")
	}
	for i := 1; i < len(a); i += 2 {
		e.db.setString(a[i], a[i+1], false)
	}
	return okReply
}

func cmdIncrby(e *Engine, a []string) Reply {
	n, ok := parseInt(a[2])
	if !ok {
		return errNotInt
	}
	return incrBy(e, a[1], n)
}

func cmdDecrby(e *Engine, a []string) Reply {
	n, ok := parseInt(a[2])
	if !ok {
		return errNotInt
	}
	if n == math.MinInt64 {
		return errDecOverflow
	}
	return incrBy(e, a[1], -n)
}

func incrBy(e *Engine, key string, by int64) Reply {
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
	e.db.setString(key, strconv.FormatInt(cur, 10), true)
	return IntReply(cur)
}

func cmdAppend(e *Engine, a []string) Reply {
	v := e.db.get(a[1])
	if v == nil {
		e.db.setString(a[1], a[2], false)
		return IntReply(int64(len(a[2])))
	}
	if v.kind != kindString {
		return errWrongType
	}
	v.str += a[2]
	return IntReply(int64(len(v.str)))
}

func cmdStrlen(e *Engine, a []string) Reply {
	s, _, errr := getString(e, a[1])
	if errr != nil {
		return *errr
	}
	return IntReply(int64(len(s)))
}
