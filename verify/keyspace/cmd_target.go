package keyspace

import (
	"math"
	"strings"
)

// Commands and options only some targets have (serverFacts.handlers).

// cmdSetIfeq is SET on Valkey 8.1, whose IFEQ comparison-value option sets
// the key only when it holds exactly that string. IFEQ takes the next
// argument and excludes NX, XX and a second IFEQ (a syntax error); the
// other options parse as in Redis 7.0. The checks then run in Valkey's
// order: expire argument, GET's reply (WRONGTYPE included), then the
// comparison: a missing key or a different value leaves the key alone and
// replies nil (the old value, or nil, with GET); a key of another type is
// WRONGTYPE.
func cmdSetIfeq(e *Server, a []string) Reply {
	cmp, rest, has, bad := takeIfeq(a[3:])
	if !has {
		return cmdSet(e, a)
	}
	flags, exp, hasExp, bad2 := parseSetOptions(rest, true)
	if bad || bad2 || flags&(setNX|setXX) != 0 {
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
	old := NilReply()
	if flags&setGet != 0 {
		if old = cmdGet(e, []string{"get", a[1]}); old.Kind == Error {
			return old
		}
	}
	v := e.db.get(a[1])
	switch {
	case v == nil:
		return old
	case v.kind != kindString:
		return errWrongType
	case v.str != cmp:
		return old
	}
	return setGeneric(e, flags, a[1], a[2], hasExp, when)
}

// takeIfeq removes "IFEQ value" from SET's options, walking them as
// Valkey's parser does (EX, PX, EXAT and PXAT consume the next argument,
// whatever it is). bad reports a repeated IFEQ or one without a value.
func takeIfeq(opts []string) (cmp string, rest []string, has, bad bool) {
	for j := 0; j < len(opts); j++ {
		switch strings.ToLower(opts[j]) {
		case "ex", "px", "exat", "pxat":
			rest = append(rest, opts[j])
			if j+1 < len(opts) {
				rest = append(rest, opts[j+1])
				j++
			}
			continue
		case "ifeq":
			if has || j+1 == len(opts) {
				bad = true
			}
			has = true
			if j+1 < len(opts) {
				cmp = opts[j+1]
				j++
			}
			continue
		}
		rest = append(rest, opts[j])
	}
	return cmp, rest, has, bad
}

// cmdDelifeq is Valkey 9.0's DELIFEQ key value: deletes the key when it
// holds exactly that string (1), else 0; a key of another type is
// WRONGTYPE (checked live on 9.1.2).
func cmdDelifeq(e *Server, a []string) Reply {
	v := e.db.get(a[1])
	switch {
	case v == nil:
		return IntReply(0)
	case v.kind != kindString:
		return errWrongType
	case v.str != a[2]:
		return IntReply(0)
	}
	e.db.del(a[1])
	return IntReply(1)
}

// msetexKeys are the keys MSETEX sets: numkeys key/value pairs after it.
func msetexKeys(a []string) []string {
	n, ok := parseInt(a[1])
	if !ok || n <= 0 || n > int64(len(a)) || 2+2*n > int64(len(a)) {
		return nil
	}
	keys := make([]string, 0, n)
	for i := int64(0); i < n; i++ {
		keys = append(keys, a[2+2*i])
	}
	return keys
}

// cmdMsetex is Valkey 9.1's MSETEX numkeys key value [key value ...]
// [NX|XX] [EX|PX|EXAT|PXAT t|KEEPTTL]: sets every pair with the expiry,
// only when no key exists (NX) or every key exists (XX); 1 when it set
// them, else 0. In Valkey's order (checked live on 9.1.2): numkeys
// ("invalid numkeys value or out of range"), the pairs and options
// (syntax error), the expiry ("invalid expire time in 'msetex' command"),
// then the condition. A key of another type is overwritten.
func cmdMsetex(e *Server, a []string) Reply {
	n, ok := parseInt(a[1])
	if !ok || n <= 0 || n > math.MaxInt32 {
		return ErrorReply("ERR invalid numkeys value or out of range")
	}
	if 2+2*n > int64(len(a)) {
		return errSyntax
	}
	flags, exp, hasExp, bad := parseSetOptions(a[2+2*n:], true)
	if bad || flags&setGet != 0 {
		return errSyntax
	}
	var when int64
	if hasExp {
		w, errr := expireAt(e, flags, exp, "msetex")
		if errr != nil {
			return *errr
		}
		when = w
	}
	if flags&(setNX|setXX) != 0 {
		for i := int64(0); i < n; i++ {
			found := e.db.get(a[2+2*i]) != nil
			if (flags&setNX != 0 && found) || (flags&setXX != 0 && !found) {
				return IntReply(0)
			}
		}
	}
	for i := int64(0); i < n; i++ {
		key := a[2+2*i]
		e.db.setString(key, a[3+2*i], flags&setKeepTTL != 0)
		if hasExp {
			e.db.keys[key].expireAt = when
			if when <= e.now {
				delete(e.db.keys, key)
			}
		}
	}
	return IntReply(1)
}
