package verify

import (
	"math"
	"strconv"
)

// Hash commands: HGET HSET HDEL HGETALL HMGET HINCRBY HEXISTS.

func init() {
	register("hget", firstKey, cmdHget)
	register("hset", firstKey, cmdHset)
	register("hdel", firstKey, cmdHdel)
	register("hgetall", firstKey, cmdHgetall)
	register("hmget", firstKey, cmdHmget)
	register("hincrby", firstKey, cmdHincrby)
	register("hexists", firstKey, cmdHexists)
}

// getHash looks key up: (hash or nil when missing, error reply).
func getHash(e *Engine, key string) (*hash, *Reply) {
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
func hashForWrite(e *Engine, key string) (*hash, *Reply) {
	h, errr := getHash(e, key)
	if errr != nil || h != nil {
		return h, errr
	}
	h = newHash()
	e.db.keys[key] = &value{kind: kindHash, hash: h}
	return h, nil
}

func cmdHget(e *Engine, a []string) Reply {
	h, errr := getHash(e, a[1])
	if errr != nil {
		return *errr
	}
	if h == nil {
		return NilReply()
	}
	if v, ok := h.vals[a[2]]; ok {
		return BulkReply(v)
	}
	return NilReply()
}

func cmdHset(e *Engine, a []string) Reply {
	if len(a)%2 == 1 {
		return errArity("hset")
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
	return IntReply(created)
}

func cmdHdel(e *Engine, a []string) Reply {
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

func cmdHgetall(e *Engine, a []string) Reply {
	h, errr := getHash(e, a[1])
	if errr != nil {
		return *errr
	}
	out := []Reply{}
	if h != nil {
		for _, f := range h.order {
			out = append(out, BulkReply(f), BulkReply(h.vals[f]))
		}
	}
	return ArrayReply(out...)
}

func cmdHmget(e *Engine, a []string) Reply {
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

func cmdHincrby(e *Engine, a []string) Reply {
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
	h.set(a[2], strconv.FormatInt(cur, 10))
	return IntReply(cur)
}

func cmdHexists(e *Engine, a []string) Reply {
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
