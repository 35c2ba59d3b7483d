package verify

import "strings"

// Commands and options only some targets have (serverFacts.handlers).

// cmdSetIfeq is SET on Valkey 8.1, whose IFEQ comparison-value option sets
// the key only when it holds exactly that string. IFEQ takes the next
// argument and excludes NX, XX and a second IFEQ (a syntax error); the
// other options parse as in Redis 7.0. The checks then run in Valkey's
// order: expire argument, GET's reply (WRONGTYPE included), then the
// comparison: a missing key or a different value leaves the key alone and
// replies nil (the old value, or nil, with GET); a key of another type is
// WRONGTYPE.
func cmdSetIfeq(e *Engine, a []string) Reply {
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
