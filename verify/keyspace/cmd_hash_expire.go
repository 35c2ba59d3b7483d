package keyspace

import (
	"math"
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

// hashExpireHandlers are the commands of Redis 7.4, and with v80 those
// Redis 8.0 added (HGETDEL, HGETEX, HSETEX).
func hashExpireHandlers(v80 bool) map[string]handler {
	expire := func(base bool, unitMS int64) func(*Server, []string) Reply {
		return func(e *Server, a []string) Reply { return cmdHexpire(e, a, base, unitMS) }
	}
	ttl := func(base bool, unitMS int64) func(*Server, []string) Reply {
		return func(e *Server, a []string) Reply { return cmdHttl(e, a, base, unitMS) }
	}
	hs := map[string]handler{
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
	if v80 {
		hs["hgetdel"] = handler{keys: firstKey, run: cmdHgetdel}
		hs["hgetex"] = handler{keys: firstKey, run: cmdHgetex}
		hs["hsetex"] = handler{keys: firstKey, run: cmdHsetex}
	}
	return hs
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
func cmdHexpire(e *Server, a []string, base bool, unitMS int64) Reply {
	h, errr := getHash(e, a[1])
	if errr != nil {
		return *errr
	}
	at, errr := parseHfeTime(e, a[0], a[2], base, unitMS)
	if errr != nil {
		return *errr
	}
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

// parseHfeTime is t_hash.c's parseExpireTime: arg in seconds (unitMS
// 1000) or ms, from now (base) or the epoch, as a Unix ms time.
func parseHfeTime(e *Server, cmd, arg string, base bool, unitMS int64) (int64, *Reply) {
	t, ok := parseInt(arg)
	if !ok {
		return 0, &errNotInt
	}
	if t < 0 {
		r := ErrorReply("ERR invalid expire time, must be >= 0")
		return 0, &r
	}
	if unitMS == 1000 {
		if t > hfeMaxAbsTimeMS/1000 {
			r := errExpire(cmd)
			return 0, &r
		}
		t *= 1000
	}
	var basetime int64
	if base {
		basetime = e.now
	}
	if t > hfeMaxAbsTimeMS-basetime {
		r := errExpire(cmd)
		return 0, &r
	}
	return t + basetime, nil
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

// hashAndFields reads "key FIELDS numfields field ..." (HTTL, HPERSIST,
// HGETDEL): the hash (nil when missing) and the fields.
func hashAndFields(e *Server, a []string) (*hash, []string, *Reply) {
	h, errr := getHash(e, a[1])
	if errr != nil {
		return nil, nil, errr
	}
	fields, errr := hfeFields(a, 2, "Number of fields must be a positive integer")
	return h, fields, errr
}

// hfeFieldReplies is what HTTL and HPERSIST share: the hash at a[1],
// "FIELDS numfields field ...", -2 for a field not there, -1 for one
// without a TTL, and reply's answer for one with (at: its expiry).
func hfeFieldReplies(e *Server, a []string, reply func(h *hash, f string, at int64) int64) Reply {
	h, fields, errr := hashAndFields(e, a)
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
		default:
			out[i] = IntReply(reply(h, f, at))
		}
	}
	return ArrayReply(out...)
}

// cmdHttl is httlGenericCommand: the time left (base) or the expiry time,
// in seconds (rounded up from ms) or ms.
func cmdHttl(e *Server, a []string, base bool, unitMS int64) Reply {
	var basetime int64
	if base {
		basetime = e.now
	}
	return hfeFieldReplies(e, a, func(h *hash, _ string, at int64) int64 {
		switch {
		case at < e.now || (!h.ht && at == e.now):
			// A listpackex answers -2 at the expiry ms itself (<=), a
			// hashtable only after it (<).
			return hfeNoField
		case unitMS == 1000:
			return (at + 999 - basetime) / 1000
		}
		return at - basetime
	})
}

// cmdHpersist is hpersistCommand: a field that expired is not there.
func cmdHpersist(e *Server, a []string) Reply {
	return hfeFieldReplies(e, a, func(h *hash, f string, at int64) int64 {
		if at < e.now {
			return hfeNoField
		}
		h.setTTL(f, 0)
		return hfeOK
	})
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

// hfeFieldValues answers HMGET-like with the values of fields (nil for a
// missing one).
func hfeFieldValues(h *hash, fields []string) []Reply {
	out := make([]Reply, len(fields))
	for i, f := range fields {
		out[i] = NilReply()
		if h == nil {
			continue
		}
		if v, ok := h.get(f); ok {
			out[i] = BulkReply(v)
		}
	}
	return out
}

// cmdHgetdel is hgetdelCommand (Redis 8.0): the values, then the fields
// deleted; the hash goes with its last field.
func cmdHgetdel(e *Server, a []string) Reply {
	h, fields, errr := hashAndFields(e, a)
	if errr != nil {
		return *errr
	}
	return hgetdel(e, a[1], h, fields)
}

// hgetdel answers the values of fields of key's hash h (nil when
// missing) and deletes them.
func hgetdel(e *Server, key string, h *hash, fields []string) Reply {
	if h == nil {
		return ArrayReply(hfeFieldValues(nil, fields)...)
	}
	out := make([]Reply, len(fields))
	for i, f := range fields {
		// Each field is read, then deleted: a field named twice answers
		// nil the second time.
		out[i] = hfeFieldValues(h, fields[i:i+1])[0]
		h.del(f)
	}
	if h.len() == 0 {
		delete(e.db.keys, key)
	}
	return ArrayReply(out...)
}

// cmdHgetex is hgetexCommand (Redis 8.0): the values, and with EX, PX,
// EXAT or PXAT the fields found get that expiry (a time not in the future
// deletes them), with PERSIST they lose theirs.
func cmdHgetex(e *Server, a []string) Reply {
	h, errr := getHash(e, a[1])
	if errr != nil {
		return *errr
	}
	opt, at, fieldsAt := strings.ToLower(a[2]), int64(0), 3
	switch opt {
	case "ex", "px", "exat", "pxat":
		var unit int64 = 1
		if opt == "ex" || opt == "exat" {
			unit = 1000
		}
		if at, errr = parseHfeTime(e, a[0], a[3], opt == "ex" || opt == "px", unit); errr != nil {
			return *errr
		}
		fieldsAt = 5
	case "persist":
		fieldsAt = 4
	default:
		opt = ""
	}
	if fieldsAt >= len(a) {
		// numfields would be past the arguments (Redis reads a NULL one).
		if !strings.EqualFold(a[fieldsAt-1], "fields") {
			return errHfeFields
		}
		return ErrorReply("ERR Number of fields must be a positive integer")
	}
	fields, errr := hfeFields(a, fieldsAt-1, "Number of fields must be a positive integer")
	if errr != nil {
		return *errr
	}
	out := hfeFieldValues(h, fields)
	if h == nil || opt == "" {
		return ArrayReply(out...)
	}
	if !h.ht {
		h.ex = true
	}
	for i, f := range fields {
		if out[i].Kind == Nil {
			continue
		}
		if opt == "persist" {
			if _, has := h.ttl[f]; has {
				h.setTTL(f, 0)
			}
			continue
		}
		h.expireField(f, at, "", e.now)
	}
	if h.len() == 0 {
		delete(e.db.keys, a[1])
	}
	return ArrayReply(out...)
}

// cmdHsetex is hsetexCommand (Redis 8.0): its options are parsed before
// the key is looked up; FNX or FXX may refuse the whole set (0), else
// every field is set (1), keeping its TTL with KEEPTTL, taking the new
// one with EX, PX, EXAT or PXAT, losing it otherwise.
func cmdHsetex(e *Server, a []string) Reply {
	var cond, exp string
	var at int64
	first := -1
	for i := 2; i < len(a) && first < 0; i++ {
		o := strings.ToLower(a[i])
		switch o {
		case "fields":
			if i >= len(a)-3 {
				return errArity(a[0])
			}
			n, ok := parseInt(a[i+1])
			if !ok || n < 1 || n > math.MaxInt32 {
				return ErrorReply("ERR invalid number of fields")
			}
			if rest := len(a) - i - 2; rest%2 != 0 || n != int64(rest/2) {
				return errArity(a[0])
			}
			first = i + 2
		case "ex", "px", "exat", "pxat", "keepttl":
			if exp != "" {
				return ErrorReply("ERR Only one of EX, PX, EXAT, PXAT or KEEPTTL arguments can be specified")
			}
			exp = o
			if o == "keepttl" {
				continue
			}
			if i >= len(a)-1 {
				return ErrorReply("ERR missing expire time")
			}
			i++
			var unit int64 = 1
			if o == "ex" || o == "exat" {
				unit = 1000
			}
			var errr *Reply
			if at, errr = parseHfeTime(e, a[0], a[i], o == "ex" || o == "px", unit); errr != nil {
				return *errr
			}
		case "fxx", "fnx":
			if cond != "" {
				return ErrorReply("ERR Only one of FXX or FNX arguments can be specified")
			}
			cond = o
		default:
			return ErrorReply("ERR unknown argument: " + cTrunc(a[i]))
		}
	}
	if first < 0 {
		return errSyntax // not reached: the arity leaves no way to it
	}
	h, errr := getHash(e, a[1])
	if errr != nil {
		return *errr
	}
	if h == nil && cond == "fxx" {
		return IntReply(0)
	}
	if h != nil && cond != "" {
		for i := first; i < len(a); i += 2 {
			_, exists := h.vals[a[i]]
			if exists != (cond == "fxx") {
				return IntReply(0)
			}
		}
	}
	if h == nil {
		h, _ = hashForWrite(e, a[1])
	}
	for i := first; i < len(a); i += 2 {
		if len(a[i]) > hashMaxListpackValue || len(a[i+1]) > hashMaxListpackValue {
			h.ht = true // hashTypeTryConversion, before the fields are set
		}
	}
	setExpiry := exp != "" && exp != "keepttl"
	if setExpiry && !h.ht {
		h.ex = true
	}
	for i := first; i < len(a); i += 2 {
		if exp != "" {
			h.update(a[i], a[i+1])
		} else {
			h.set(a[i], a[i+1])
		}
		if setExpiry {
			h.expireField(a[i], at, "", e.now)
		}
	}
	if h.len() == 0 {
		delete(e.db.keys, a[1])
	}
	return IntReply(1)
}
