package verify

import (
	"strings"
)

// Hash-field expiry (Redis 7.4's HEXPIRE family; t_hash.c of 7.4.1, the
// same in 8.0.2), registered for the targets whose command table has it
// (serverFacts.handlers, hashExpireHandlers).
//
// A field's expiry is a Unix ms time on the engine's virtual clock. A
// field is live while its time is >= now (hashTypeGetValue); the engine
// removes expired fields whenever their key is looked up, which is what a
// real server shows once its active expiry ran (up to a cycle later, its
// HLEN, HRANDFIELD and DBSIZE still count a field that expired: see
// verify/README.md). A hash whose last field expires is deleted.

// hashExpireHandlers are the commands of Redis 7.4 and 8.0.
func hashExpireHandlers() map[string]handler {
	expire := func(base bool, unitMS int64) func(*Engine, []string) Reply {
		return func(e *Engine, a []string) Reply { return cmdHexpire(e, a, base, unitMS) }
	}
	ttl := func(base bool, unitMS int64) func(*Engine, []string) Reply {
		return func(e *Engine, a []string) Reply { return cmdHttl(e, a, base, unitMS) }
	}
	return map[string]handler{
		"hexpire":      {keys: firstKey, run: expire(true, 1000)},
		"hpexpire":     {keys: firstKey, run: expire(true, 1)},
		"hexpireat":    {keys: firstKey, run: expire(false, 1000)},
		"hpexpireat":   {keys: firstKey, run: expire(false, 1)},
		"httl":         {keys: firstKey, run: ttl(true, 1000)},
		"hpttl":        {keys: firstKey, run: ttl(true, 1)},
		"hexpiretime":  {keys: firstKey, run: ttl(false, 1000)},
		"hpexpiretime": {keys: firstKey, run: ttl(false, 1)},
		"hpersist":     {keys: firstKey, run: cmdHpersist},
	}
}

// hfeMaxAbsTimeMS is HFE_MAX_ABS_TIME_MSEC: EB_EXPIRE_TIME_MAX >> 2.
const hfeMaxAbsTimeMS = (1<<48 - 1) >> 2

// The replies of the HFE commands, per field (t_hash.c SetExRes,
// GetExpireTimeRes, and HPERSIST's).
const (
	hfeNoField = -2 // no such field (or it expired)
	hfeNoTTL   = -1 // HTTL, HPERSIST: the field has no TTL
	hfeNotMet  = 0  // HEXPIRE: NX/XX/GT/LT not met
	hfeOK      = 1  // HEXPIRE set it, HPERSIST removed it
	hfeDeleted = 2  // HEXPIRE: a time not in the future deleted the field
)

var (
	errHfeFields   = ErrorReply("ERR Mandatory argument FIELDS is missing or not at the right position")
	errHfeNumMatch = ErrorReply("ERR The `numfields` parameter must match the number of arguments")
)

// hfeFields reads "FIELDS numfields field..." at a[at:] the way t_hash.c
// does (FIELDS, then numfields in 1..LONG_MAX with numMsg, then the count).
func hfeFields(a []string, at int, numMsg string) ([]string, *Reply) {
	if !strings.EqualFold(a[at], "fields") {
		return nil, &errHfeFields
	}
	n, ok := parseInt(a[at+1])
	if !ok || n < 1 {
		r := ErrorReply("ERR " + numMsg)
		return nil, &r
	}
	if n != int64(len(a)-at-2) {
		return nil, &errHfeNumMatch
	}
	return a[at+2:], nil
}

// hfeInts answers n copies of v.
func hfeInts(n int, v int64) Reply {
	out := make([]Reply, n)
	for i := range out {
		out[i] = IntReply(v)
	}
	return ArrayReply(out...)
}

// cmdHexpire is hexpireGenericCommand: relative (base: now) or absolute
// times, in seconds (unitMS 1000) or ms.
func cmdHexpire(e *Engine, a []string, base bool, unitMS int64) Reply {
	h, errr := getHash(e, a[1])
	if errr != nil {
		return *errr
	}
	t, ok := parseInt(a[2])
	if !ok {
		return errNotInt
	}
	if t < 0 {
		return ErrorReply("ERR invalid expire time, must be >= 0")
	}
	if unitMS == 1000 {
		if t > hfeMaxAbsTimeMS/1000 {
			return errExpire(a[0])
		}
		t *= 1000
	}
	var basetime int64
	if base {
		basetime = e.now
	}
	if t > hfeMaxAbsTimeMS-basetime {
		return errExpire(a[0])
	}
	at := t + basetime
	cond, fieldsAt := "", 3
	switch c := strings.ToLower(a[3]); c {
	case "nx", "xx", "gt", "lt":
		cond, fieldsAt = c, 4
	}
	fields, errr := hfeFields(a, fieldsAt, "Parameter `numFields` should be greater than 0")
	if errr != nil {
		return *errr
	}
	if h == nil {
		return hfeInts(len(fields), hfeNoField)
	}
	if !h.ht {
		h.ex = true // hashTypeSetExInit: listpack becomes listpackex
	}
	out := make([]Reply, len(fields))
	deleted := false
	for i, f := range fields {
		out[i] = IntReply(h.expireField(f, at, cond, e.now))
		deleted = deleted || out[i].Int == hfeDeleted
	}
	if deleted && h.len() == 0 {
		delete(e.db.keys, a[1])
	}
	return ArrayReply(out...)
}

// expireField is hashTypeSetEx for one field.
func (h *hash) expireField(f string, at int64, cond string, now int64) int64 {
	if _, ok := h.vals[f]; !ok {
		return hfeNoField
	}
	prev, has := h.ttl[f]
	if !has {
		// For fields without expiry, LT condition is considered valid.
		if cond == "xx" || cond == "gt" {
			return hfeNotMet
		}
	} else if cond == "nx" || (cond == "gt" && prev >= at) || (cond == "lt" && prev <= at) {
		return hfeNotMet
	}
	if at <= now { // checkAlreadyExpired
		h.del(f)
		return hfeDeleted
	}
	h.setTTL(f, at)
	return hfeOK
}

// cmdHttl is httlGenericCommand: the time left (base) or the expiry time,
// in seconds (rounded up from ms) or ms.
func cmdHttl(e *Engine, a []string, base bool, unitMS int64) Reply {
	h, errr := getHash(e, a[1])
	if errr != nil {
		return *errr
	}
	fields, errr := hfeFields(a, 2, "Number of fields must be a positive integer")
	if errr != nil {
		return *errr
	}
	if h == nil {
		return hfeInts(len(fields), hfeNoField)
	}
	var basetime int64
	if base {
		basetime = e.now
	}
	out := make([]Reply, len(fields))
	for i, f := range fields {
		at, has := h.ttl[f]
		_, exists := h.vals[f]
		switch {
		case !exists:
			out[i] = IntReply(hfeNoField)
		case !has:
			out[i] = IntReply(hfeNoTTL)
		case at < e.now || (!h.ht && at == e.now):
			// A listpackex answers -2 at the expiry ms itself (<=), a
			// hashtable only after it (<).
			out[i] = IntReply(hfeNoField)
		case unitMS == 1000:
			out[i] = IntReply((at + 999 - basetime) / 1000)
		default:
			out[i] = IntReply(at - basetime)
		}
	}
	return ArrayReply(out...)
}

// cmdHpersist is hpersistCommand.
func cmdHpersist(e *Engine, a []string) Reply {
	h, errr := getHash(e, a[1])
	if errr != nil {
		return *errr
	}
	fields, errr := hfeFields(a, 2, "Number of fields must be a positive integer")
	if errr != nil {
		return *errr
	}
	if h == nil {
		return hfeInts(len(fields), hfeNoField)
	}
	out := make([]Reply, len(fields))
	for i, f := range fields {
		at, has := h.ttl[f]
		_, exists := h.vals[f]
		switch {
		case !exists:
			out[i] = IntReply(hfeNoField)
		case !has:
			out[i] = IntReply(hfeNoTTL)
		case at < e.now:
			out[i] = IntReply(hfeNoField)
		default:
			h.setTTL(f, 0)
			out[i] = IntReply(hfeOK)
		}
	}
	return ArrayReply(out...)
}

// setTTL gives field f the expiry at (0: none). A listpackex keeps its
// fields ordered by expiry (listpackExUpdateExpiry): the field moves before
// the first field whose expiry is >= at or that has none; without one, to
// the end.
func (h *hash) setTTL(f string, at int64) {
	if at == 0 {
		delete(h.ttl, f)
	} else {
		if h.ttl == nil {
			h.ttl = map[string]int64{}
		}
		h.ttl[f] = at
	}
	if h.ht || !h.ex {
		return
	}
	for i, g := range h.order {
		if g == f {
			h.order = append(h.order[:i], h.order[i+1:]...)
			break
		}
	}
	pos := len(h.order)
	if at != 0 {
		for i, g := range h.order {
			if t, ok := h.ttl[g]; !ok || t >= at {
				pos = i
				break
			}
		}
	}
	h.order = append(h.order[:pos], append([]string{f}, h.order[pos:]...)...)
}

// update stores a new value for field keeping its TTL (HASH_SET_KEEP_TTL:
// HINCRBY, HINCRBYFLOAT).
func (h *hash) update(field, val string) {
	if _, ok := h.ttl[field]; !ok {
		h.set(field, val)
		return
	}
	if len(val) > hashMaxListpackValue {
		h.ht = true
	}
	h.vals[field] = val // the field keeps its place
}

// expireFields deletes the fields expired at now and reports whether the
// hash is left empty.
func (h *hash) expireFields(now int64) bool {
	for f, at := range h.ttl {
		if at < now {
			h.del(f)
		}
	}
	return h.len() == 0
}

// allExpired reports whether every field of h has expired at now.
func (h *hash) allExpired(now int64) bool {
	if len(h.ttl) < h.len() {
		return false
	}
	for _, at := range h.ttl {
		if at >= now {
			return false
		}
	}
	return true
}

// putTTLs gives the fields of a hash being put (Engine.Put) their
// remaining ms from ttl, in field order, as one HPEXPIRE per field would; a
// ttl not above 0 or for a field not there is left out.
func (h *hash) putTTLs(fields []Field, ttl map[string]int64, now int64) {
	if len(ttl) == 0 {
		return
	}
	for _, f := range fields {
		if ms, ok := ttl[f.Name]; ok && ms > 0 {
			if _, isTTL := h.ttl[f.Name]; !isTTL {
				h.ex = !h.ht
				h.setTTL(f.Name, now+ms)
			}
		}
	}
}
