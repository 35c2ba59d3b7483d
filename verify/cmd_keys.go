package verify

import (
	"fmt"
	"math"
	"strings"
)

// Keyspace commands: DEL UNLINK EXISTS EXPIRE PEXPIRE EXPIREAT PEXPIREAT TTL
// PTTL PERSIST TYPE.

func init() {
	register("del", allKeys, cmdDel)
	register("unlink", allKeys, cmdDel)
	register("exists", allKeys, cmdExists)
	register("expire", firstKey, func(e *Engine, a []string) Reply { return expireGeneric(e, a, e.now, 1000) })
	register("pexpire", firstKey, func(e *Engine, a []string) Reply { return expireGeneric(e, a, e.now, 1) })
	register("expireat", firstKey, func(e *Engine, a []string) Reply { return expireGeneric(e, a, 0, 1000) })
	register("pexpireat", firstKey, func(e *Engine, a []string) Reply { return expireGeneric(e, a, 0, 1) })
	register("ttl", firstKey, func(e *Engine, a []string) Reply { return ttlGeneric(e, a[1], false) })
	register("pttl", firstKey, func(e *Engine, a []string) Reply { return ttlGeneric(e, a[1], true) })
	register("persist", firstKey, cmdPersist)
	register("type", firstKey, cmdType)
}

func cmdDel(e *Engine, a []string) Reply {
	var n int64
	for _, k := range a[1:] {
		if e.db.del(k) {
			n++
		}
	}
	return IntReply(n)
}

func cmdExists(e *Engine, a []string) Reply {
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
func expireGeneric(e *Engine, a []string, basetime, unit int64) Reply {
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

func ttlGeneric(e *Engine, key string, ms bool) Reply {
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

func cmdPersist(e *Engine, a []string) Reply {
	v := e.db.get(a[1])
	if v == nil || v.expireAt == 0 {
		return IntReply(0)
	}
	v.expireAt = 0
	return IntReply(1)
}

func cmdType(e *Engine, a []string) Reply {
	v := e.db.get(a[1])
	if v == nil {
		return StatusReply("none")
	}
	if v.kind == kindHash {
		return StatusReply("hash")
	}
	return StatusReply("string")
}
