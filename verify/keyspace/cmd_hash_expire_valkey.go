package keyspace

import (
	"math"
	"strings"
)

// Valkey 9.0's hash-field expiry (t_hash.c of 9.1.2), registered for the
// targets whose facts ask for it (valkeyHashExpireHandlers). The commands
// share Redis 7.4's names and reply codes, but little else:
//
//   - a field with a TTL lives in a hashtable: the first expiry a listpack
//     takes converts it (hashTypeSetExpire, hashTypeSet), and nothing
//     converts it back; there is no listpackex and no TTL order;
//   - HEXPIRE's conditions may repeat, an unknown one is "Unsupported
//     option X", and a missing or wrong FIELDS count is "numfields should
//     be greater than 0 and match the provided number of fields" (HTTL: a
//     syntax error); times are checked only against LLONG_MAX
//     (convertExpireArgumentToUnixTime), 0 is a time in the past;
//   - HTTL and HEXPIRETIME round seconds to the nearest (+500), not up;
//   - HGETEX and HSETEX read their options with SET's parser
//     (parseExtendedCommandArgumentsOrReply: a wrong one is a syntax
//     error), HSETEX takes the key conditions NX and XX besides FNX and
//     FXX, and their time is checked after the key's type.
//
// A field is live while its time is >= now (timestampIsExpired); a time
// <= now given to a command deletes the field (checkAlreadyExpired). The
// engine drops expired fields when their key is looked up, as for Redis
// (cmd_hash_expire.go).

// valkeyHashExpireHandlers are Valkey 9.0's HEXPIRE family, HGETEX,
// HSETEX and HGETDEL.
func valkeyHashExpireHandlers() map[string]handler {
	expire := func(base bool, unitMS int64) func(*Server, []string) Reply {
		return func(e *Server, a []string) Reply { return cmdVkHexpire(e, a, base, unitMS) }
	}
	ttl := func(base bool, unitMS int64) func(*Server, []string) Reply {
		return func(e *Server, a []string) Reply { return cmdVkHttl(e, a, base, unitMS) }
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
		"hpersist":     {keys: firstKey, run: cmdVkHpersist},
		"hgetdel":      {keys: firstKey, run: cmdVkHgetdel},
		"hgetex":       {keys: firstKey, run: cmdVkHgetex},
		"hsetex":       {keys: firstKey, run: cmdVkHsetex},
	}
}

var errVkNumFields = ErrorReply("ERR numfields should be greater than 0 and match the provided number of fields")

// The conditions of HEXPIRE (EXPIRE_NX ...).
const (
	vkNX = 1 << iota
	vkXX
	vkGT
	vkLT
)

// vkFindFields is the index of the first "FIELDS" in a[from:len(a)-1] (its
// count must follow), or -1.
func vkFindFields(a []string, from int) int {
	for i := from; i < len(a)-1; i++ {
		if strings.EqualFold(a[i], "fields") {
			return i
		}
	}
	return -1
}

// vkTime is convertExpireArgumentToUnixTime: arg in seconds (unitMS 1000)
// or ms, from base, as a Unix ms time.
func vkTime(cmd, arg string, base, unitMS int64) (int64, *Reply) {
	t, ok := parseInt(arg)
	if !ok {
		return 0, &errNotInt
	}
	if t < 0 || (unitMS == 1000 && t > math.MaxInt64/1000) {
		r := errExpire(cmd)
		return 0, &r
	}
	t *= unitMS
	if t > math.MaxInt64-base {
		r := errExpire(cmd)
		return 0, &r
	}
	return t + base, nil
}

// vkFixedFields reads "FIELDS numfields field..." at a[2:] (HTTL,
// HPERSIST, HGETDEL): FIELDS or a syntax error, numfields or the integer
// error, then a count that must match (else mismatch).
func vkFixedFields(a []string, mismatch Reply) ([]string, *Reply) {
	if !strings.EqualFold(a[2], "fields") {
		return nil, &errSyntax
	}
	n, ok := parseInt(a[3])
	if !ok {
		return nil, &errNotInt
	}
	if n == 0 || n != int64(len(a)-4) {
		return nil, &mismatch
	}
	return a[4:], nil
}

// cmdVkHexpire is hexpireGenericCommand: the conditions before FIELDS,
// the count, the time, then the key.
func cmdVkHexpire(e *Server, a []string, base bool, unitMS int64) Reply {
	fi, cond := vkFindFields(a, 3), 0
	var n int64
	first := len(a)
	if fi >= 0 {
		for _, o := range a[3:fi] {
			switch strings.ToLower(o) {
			case "nx":
				cond |= vkNX
			case "xx":
				cond |= vkXX
			case "gt":
				cond |= vkGT
			case "lt":
				cond |= vkLT
			default:
				return ErrorReply("ERR Unsupported option " + cTrunc(o))
			}
		}
		if cond&vkNX != 0 && cond&(vkXX|vkGT|vkLT) != 0 {
			return ErrorReply("ERR NX and XX, GT or LT options at the same time are not compatible")
		}
		if cond&vkGT != 0 && cond&vkLT != 0 {
			return ErrorReply("ERR GT and LT options at the same time are not compatible")
		}
		var ok bool
		if n, ok = parseInt(a[fi+1]); !ok {
			return errNotInt
		}
		first = fi + 2
	}
	if n == 0 || n != int64(len(a)-first) {
		return errVkNumFields
	}
	var basetime int64
	if base {
		basetime = e.now
	}
	at, errr := vkTime(a[0], a[2], basetime, unitMS)
	if errr != nil {
		return *errr
	}
	h, errr := getHash(e, a[1])
	if errr != nil {
		return *errr
	}
	fields := a[first:]
	if h == nil {
		return hfeInts(len(fields), hfeNoField)
	}
	out := make([]Reply, len(fields))
	for i, f := range fields {
		out[i] = IntReply(h.vkSetExpire(f, at, cond, e.now))
	}
	if h.len() == 0 {
		delete(e.db.keys, a[1])
	}
	return ArrayReply(out...)
}

// vkSetExpire is Valkey's hashTypeSetExpire for one field: a listpack has
// no TTLs, so XX and GT fail there; setting a TTL converts it.
func (h *hash) vkSetExpire(f string, at int64, cond int, now int64) int64 {
	if _, ok := h.vals[f]; !ok {
		return hfeNoField
	}
	past := at <= now
	if !h.ht {
		switch {
		case cond&(vkXX|vkGT) != 0:
			return hfeNotMet
		case past:
			h.del(f)
			return hfeDeleted
		}
		h.ht = true
	}
	cur, has := h.ttl[f]
	switch {
	case cond&vkNX != 0 && has,
		cond&vkXX != 0 && !has,
		cond&vkGT != 0 && (!has || at <= cur),
		cond&vkLT != 0 && has && at >= cur:
		return hfeNotMet
	}
	if past {
		h.del(f)
		return hfeDeleted
	}
	h.setTTL(f, at)
	return hfeOK
}

// vkPersist is Valkey's hashTypePersist: 1 when the field lost its TTL,
// -1 when it had none, -2 when it is not there.
func (h *hash) vkPersist(f string) int64 {
	if _, ok := h.vals[f]; !ok {
		return hfeNoField
	}
	if _, has := h.ttl[f]; !has {
		return hfeNoTTL
	}
	h.setTTL(f, 0)
	return hfeOK
}

// cmdVkHttl is httlGenericCommand: the time left (base) or the expiry
// time, in ms or in seconds rounded to the nearest; a count that does not
// match is a syntax error.
func cmdVkHttl(e *Server, a []string, base bool, unitMS int64) Reply {
	fields, errr := vkFixedFields(a, errSyntax)
	if errr != nil {
		return *errr
	}
	h, errr := getHash(e, a[1])
	if errr != nil {
		return *errr
	}
	var basetime int64
	if base {
		basetime = e.now
	}
	out := make([]Reply, len(fields))
	for i, f := range fields {
		var at int64
		exists, has := false, false
		if h != nil {
			_, exists = h.vals[f]
			at, has = h.ttl[f]
		}
		switch {
		case !exists:
			out[i] = IntReply(hfeNoField)
		case !has:
			out[i] = IntReply(hfeNoTTL)
		default:
			r := max(at-basetime, 0)
			if unitMS == 1000 {
				r = (r + 500) / 1000
			}
			out[i] = IntReply(r)
		}
	}
	return ArrayReply(out...)
}

// cmdVkHpersist is hpersistCommand.
func cmdVkHpersist(e *Server, a []string) Reply {
	fields, errr := vkFixedFields(a, errVkNumFields)
	if errr != nil {
		return *errr
	}
	h, errr := getHash(e, a[1])
	if errr != nil {
		return *errr
	}
	if h == nil {
		return hfeInts(len(fields), hfeNoField)
	}
	out := make([]Reply, len(fields))
	for i, f := range fields {
		out[i] = IntReply(h.vkPersist(f))
	}
	return ArrayReply(out...)
}

// cmdVkHgetdel is hgetdelCommand: Redis 8.0's, with Valkey's argument
// checks.
func cmdVkHgetdel(e *Server, a []string) Reply {
	fields, errr := vkFixedFields(a, errVkNumFields)
	if errr != nil {
		return *errr
	}
	h, errr := getHash(e, a[1])
	if errr != nil {
		return *errr
	}
	return hgetdel(e, a[1], h, fields)
}

// vkExtArgs are the options parseExtendedCommandArgumentsOrReply read for
// HGETEX (PERSIST) and HSETEX (NX XX FNX FXX KEEPTTL): the expiry is one
// of EX PX EXAT PXAT ("" when none), with its argument.
type vkExtArgs struct {
	nx, xx, fnx, fxx, keepTTL, persist bool
	unit, expire                       string
}

// vkParseExt is parseExtendedCommandArgumentsOrReply for COMMAND_HGET
// (hset false) or COMMAND_HSET over opts: false for a syntax error. An
// expiry may repeat (EX 1 EX 2), but not change unit.
func vkParseExt(opts []string, hset bool) (vkExtArgs, bool) {
	var x vkExtArgs
	for j := 0; j < len(opts); j++ {
		o := strings.ToLower(opts[j])
		next := j+1 < len(opts)
		switch {
		case o == "nx" && !x.xx && hset:
			x.nx = true
		case o == "xx" && !x.nx && hset:
			x.xx = true
		case o == "fnx" && !x.fxx && hset:
			x.fnx = true
		case o == "fxx" && !x.fnx && hset:
			x.fxx = true
		case o == "keepttl" && !x.persist && x.unit == "" && hset:
			x.keepTTL = true
		case o == "persist" && !hset && x.unit == "" && !x.keepTTL:
			x.persist = true
		case (o == "ex" || o == "px" || o == "exat" || o == "pxat") && !x.keepTTL && !x.persist && (x.unit == "" || x.unit == o) && next:
			x.unit, x.expire = o, opts[j+1]
			j++
		default:
			return x, false
		}
	}
	return x, true
}

// when is the option's expiry as a Unix ms time.
func (x vkExtArgs) when(e *Server, cmd string) (int64, *Reply) {
	var base, unit int64 = e.now, 1
	if x.unit == "exat" || x.unit == "pxat" {
		base = 0
	}
	if x.unit == "ex" || x.unit == "exat" {
		unit = 1000
	}
	return vkTime(cmd, x.expire, base, unit)
}

// vkExtFields reads "[options] FIELDS numfields ..." from a[2:] (the first
// FIELDS after the command's name: a key named fields is taken for it, as
// Valkey does), with want fields per count (1: HGETEX, 2: HSETEX): the
// options, the index of the first field.
func vkExtFields(a []string, hset bool, want int64) (vkExtArgs, int, *Reply) {
	fi := vkFindFields(a, 1)
	n, first := int64(0), len(a)-1 // no FIELDS: the count is wrong
	var x vkExtArgs
	if fi >= 0 {
		var ok bool
		if fi > 2 {
			if x, ok = vkParseExt(a[2:fi], hset); !ok {
				return x, 0, &errSyntax
			}
		}
		if n, ok = parseInt(a[fi+1]); !ok {
			return x, 0, &errNotInt
		}
		first = fi + 2
	}
	if n == 0 || n > math.MaxInt64/2 || n*want != int64(len(a)-first) {
		return x, 0, &errVkNumFields
	}
	return x, first, nil
}

// cmdVkHgetex is hgetexCommand: the values, and with PERSIST the fields
// lose their TTL, with an expiry they take it (a time not in the future
// deletes them); the time is checked after the key's type.
func cmdVkHgetex(e *Server, a []string) Reply {
	x, first, errr := vkExtFields(a, false, 1)
	if errr != nil {
		return *errr
	}
	h, errr := getHash(e, a[1])
	if errr != nil {
		return *errr
	}
	var at int64
	if x.unit != "" {
		if at, errr = x.when(e, a[0]); errr != nil {
			return *errr
		}
	}
	fields := a[first:]
	out := make([]Reply, len(fields))
	for i, f := range fields {
		out[i] = hfeFieldValues(h, fields[i:i+1])[0]
		switch {
		case h == nil:
		case x.persist:
			h.vkPersist(f)
		case x.unit != "":
			h.vkSetExpire(f, at, 0, e.now)
		}
	}
	if h != nil && h.len() == 0 {
		delete(e.db.keys, a[1])
	}
	return ArrayReply(out...)
}

// cmdVkHsetex is hsetexCommand: the options and count, the key's type,
// NX/XX on the key, the time, FNX/FXX on the fields; then every field is
// set (1), keeping its TTL with KEEPTTL, taking the new one with an
// expiry (a time not in the future deletes the fields), losing it
// otherwise.
func cmdVkHsetex(e *Server, a []string) Reply {
	x, first, errr := vkExtFields(a, true, 2)
	if errr != nil {
		return *errr
	}
	h, errr := getHash(e, a[1])
	if errr != nil {
		return *errr
	}
	if (x.nx && h != nil) || (x.xx && h == nil) {
		return IntReply(0)
	}
	var at int64
	if x.unit != "" {
		if at, errr = x.when(e, a[0]); errr != nil {
			return *errr
		}
	}
	if x.fnx || x.fxx {
		if h == nil && x.fxx {
			return IntReply(0)
		}
		for i := first; h != nil && i < len(a); i += 2 {
			if _, exists := h.vals[a[i]]; exists != x.fxx {
				return IntReply(0)
			}
		}
	}
	if h == nil {
		h, _ = hashForWrite(e, a[1])
	}
	for i := first; i < len(a); i += 2 {
		f, v := a[i], a[i+1]
		switch {
		case x.unit != "" && at <= e.now:
			h.del(f)
		case x.unit != "":
			h.ht = true // hashTypeSet converts for an expiry
			h.set(f, v)
			h.setTTL(f, at)
		case x.keepTTL:
			h.update(f, v)
		default:
			h.set(f, v)
		}
	}
	if h.len() == 0 {
		delete(e.db.keys, a[1])
	}
	return IntReply(1)
}
