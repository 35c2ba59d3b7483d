package keyspace

import (
	"math"
	"strings"
)

// Stream commands: XADD XLEN XRANGE XREVRANGE XDEL XTRIM XSETID XGROUP
// XREAD XREADGROUP XACK XPENDING XCLAIM XAUTOCLAIM XINFO, as t_stream.c of
// redis-server 7.0.15 runs them; every time (IDs from *, delivery and seen
// times, idle) is the virtual clock.

func registerStream() {
	register("xadd", firstKey, cmdXadd)
	register("xlen", firstKey, cmdXlen)
	register("xrange", firstKey, func(e *Server, a []string) Reply { return xrangeGeneric(e, a, false) })
	register("xrevrange", firstKey, func(e *Server, a []string) Reply { return xrangeGeneric(e, a, true) })
	register("xdel", firstKey, cmdXdel)
	register("xtrim", firstKey, cmdXtrim)
	register("xsetid", firstKey, cmdXsetid)
	register("xack", firstKey, cmdXack)
	register("xpending", firstKey, cmdXpending)
	register("xclaim", firstKey, cmdXclaim)
	register("xautoclaim", firstKey, cmdXautoclaim)
	registerCtx("xread", xreadKeys, cmdXread)
	registerCtx("xreadgroup", xreadKeys, cmdXread)
	registerCtx("xgroup", subcommandKey, cmdXgroup)
	registerCtx("xinfo", subcommandKey, cmdXinfo)
}

// subcommandKey: XGROUP and XINFO subcommands name their key third.
func subcommandKey(args []string) []string {
	if len(args) >= 3 {
		return args[2:3]
	}
	return nil
}

// xreadKeys is xreadGetKeys: the first half of the arguments after the
// STREAMS option (none on a syntax error).
func xreadKeys(args []string) []string {
	pos := -1
loop:
	for i := 1; i < len(args); i++ {
		switch strings.ToLower(args[i]) {
		case "block", "count":
			i++
		case "group":
			i += 2
		case "noack":
		case "streams":
			pos = i
			break loop
		default:
			break loop
		}
	}
	if pos == -1 {
		return nil
	}
	num := len(args) - pos - 1
	if num == 0 || num%2 != 0 {
		return nil
	}
	return args[pos+1 : pos+1+num/2]
}

var (
	errInvalidStreamID = ErrorReply("ERR Invalid stream ID specified as stream command argument")
)

// getStream looks key up: (stream or nil when missing, error reply).
func getStream(e *Server, key string) (*stream, *Reply) {
	v := e.db.get(key)
	if v == nil {
		return nil, nil
	}
	if v.kind != kindStream {
		return nil, &errWrongType
	}
	return v.stream, nil
}

func createStream(e *Server, key string) *stream {
	s := newStream()
	e.db.keys[key] = &value{kind: kindStream, stream: s}
	return s
}

// string2ull is Redis's string2ull: string2ll when that succeeds with a
// non-negative value, else C's strtoull (spaces, a sign, leading zeros,
// values up to 2^64-1; a minus negates modulo 2^64).
func string2ull(s string) (uint64, bool) {
	if v, ok := parseInt(s); ok {
		return uint64(v), v >= 0
	}
	i := 0
	for i < len(s) && (s[i] == ' ' || (s[i] >= '\t' && s[i] <= '\r')) {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	if i == len(s) {
		return 0, false
	}
	var v uint64
	for ; i < len(s); i++ {
		c := s[i]
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

// parseStreamID is streamGenericParseIDOrReply. strict refuses "-" and
// "+"; seqStar accepts <ms>-* (XADD), reported by seqGiven false.
func parseStreamID(arg string, missingSeq uint64, strict, seqStar bool) (id streamID, seqGiven, ok bool) {
	if len(arg) > 127 {
		return id, false, false
	}
	buf := cTrunc(arg) // Redis parses a C string
	if strict && (buf == "-" || buf == "+") {
		return id, false, false
	}
	switch buf {
	case "-":
		return streamID{}, true, true
	case "+":
		return maxStreamID, true, true
	}
	msPart, seqPart, dot := strings.Cut(buf, "-")
	ms, ok := string2ull(msPart)
	if !ok {
		return id, false, false
	}
	seq, seqGiven := missingSeq, true
	if dot {
		if seqStar && seqPart == "*" {
			seq, seqGiven = 0, false
		} else if seq, ok = string2ull(seqPart); !ok {
			return id, false, false
		}
	}
	return streamID{ms, seq}, seqGiven, true
}

// parseStrictID parses an ID that may not be "-" or "+".
func parseStrictID(arg string) (streamID, bool) {
	id, _, ok := parseStreamID(arg, 0, true, false)
	return id, ok
}

// parseRangeStart and parseRangeEnd are streamParseIntervalIDOrReply plus
// the exclusive '(' adjustment, with their error replies.
func parseRangeStart(arg string) (streamID, *Reply) {
	id, excl, ok := parseInterval(arg, 0)
	if !ok {
		return id, &errInvalidStreamID
	}
	if excl {
		if id, ok = id.incr(); !ok {
			r := ErrorReply("ERR invalid start ID for the interval")
			return id, &r
		}
	}
	return id, nil
}

func parseRangeEnd(arg string) (streamID, *Reply) {
	id, excl, ok := parseInterval(arg, math.MaxUint64)
	if !ok {
		return id, &errInvalidStreamID
	}
	if excl {
		if id, ok = id.decr(); !ok {
			r := ErrorReply("ERR invalid end ID for the interval")
			return id, &r
		}
	}
	return id, nil
}

func parseInterval(arg string, missingSeq uint64) (id streamID, exclude, ok bool) {
	if len(arg) > 1 && arg[0] == '(' {
		id, _, ok = parseStreamID(arg[1:], missingSeq, true, false)
		return id, true, ok
	}
	id, _, ok = parseStreamID(arg, missingSeq, false, false)
	return id, false, ok
}

// entryReply is one entry: [id, [field, value, ...]].
func entryReply(en *streamEntry) Reply {
	fv := make([]Reply, len(en.fields))
	for i, f := range en.fields {
		fv[i] = BulkReply(f)
	}
	return ArrayReply(BulkReply(en.id.String()), ArrayReply(fv...))
}

func entriesReply(es []*streamEntry) Reply {
	out := make([]Reply, len(es))
	for i, en := range es {
		out[i] = entryReply(en)
	}
	return ArrayReply(out...)
}

// xaddArgs are XADD's parsed options (streamAddTrimArgs).
type xaddArgs struct {
	trimArgs
	id         streamID
	idGiven    bool
	seqGiven   bool
	noMkStream bool
}

// parseAddTrimArgs is streamParseAddOrTrimArgsOrReply: it returns the
// position of XADD's ID argument (len(a) when there is none).
func parseAddTrimArgs(a []string, xadd bool) (xaddArgs, int, *Reply) {
	var p xaddArgs
	fail := func(r Reply) (xaddArgs, int, *Reply) { return p, -1, &r }
	limitGiven := false
	i := 2
	for ; i < len(a); i++ {
		more := len(a) - 1 - i
		opt := strings.ToLower(a[i])
		switch {
		case xadd && a[i] == "*":
			return p, i, finishTrimArgs(&p, limitGiven, xadd)
		case (opt == "maxlen" || opt == "minid") && more > 0:
			if p.strategy != trimNone {
				return fail(ErrorReply("ERR syntax error, MAXLEN and MINID options at the same time are not compatible"))
			}
			p.approx = false
			if next := a[i+1]; more >= 2 && (next == "~" || next == "=") {
				p.approx = next == "~"
				i++
			}
			if opt == "maxlen" {
				n, ok := parseInt(a[i+1])
				if !ok {
					return fail(errNotInt)
				}
				if n < 0 {
					return fail(ErrorReply("ERR The MAXLEN argument must be >= 0."))
				}
				p.maxLen, p.strategy = n, trimMaxLen
			} else {
				id, ok := parseStrictID(a[i+1])
				if !ok {
					return fail(errInvalidStreamID)
				}
				p.minID, p.strategy = id, trimMinID
			}
			i++
		case opt == "limit" && more > 0:
			n, ok := parseInt(a[i+1])
			if !ok {
				return fail(errNotInt)
			}
			if n < 0 {
				return fail(ErrorReply("ERR The LIMIT argument must be >= 0."))
			}
			p.limit, limitGiven = n, true
			i++
		case xadd && opt == "nomkstream":
			p.noMkStream = true
		case xadd:
			id, seqGiven, ok := parseStreamID(a[i], 0, true, true)
			if !ok {
				return fail(errInvalidStreamID)
			}
			p.id, p.seqGiven, p.idGiven = id, seqGiven, true
			return p, i, finishTrimArgs(&p, limitGiven, xadd)
		default:
			return fail(errSyntax)
		}
	}
	return p, i, finishTrimArgs(&p, limitGiven, xadd)
}

// finishTrimArgs checks the options together and sets the default LIMIT
// of approximate trimming (100 * stream-node-max-entries).
func finishTrimArgs(p *xaddArgs, limitGiven, xadd bool) *Reply {
	var r Reply
	switch {
	case p.limit != 0 && p.strategy == trimNone:
		r = ErrorReply("ERR syntax error, LIMIT cannot be used without specifying a trimming strategy")
	case !xadd && p.strategy == trimNone:
		r = ErrorReply("ERR syntax error, XTRIM must be called with a trimming strategy")
	case limitGiven && !p.approx:
		r = ErrorReply("ERR syntax error, LIMIT cannot be used without the special ~ option")
	default:
		if !limitGiven {
			p.limit = 0
			if p.approx {
				p.limit = 100 * streamNodeMaxEntries
			}
		}
		return nil
	}
	return &r
}

func cmdXadd(e *Server, a []string) Reply {
	p, idpos, errr := parseAddTrimArgs(a, true)
	if errr != nil {
		return *errr
	}
	fieldPos := idpos + 1
	if n := len(a) - fieldPos; n < 2 || n%2 == 1 {
		return errArity("xadd")
	}
	if p.idGiven && p.seqGiven && p.id.isZero() {
		return ErrorReply("ERR The ID specified in XADD must be greater than 0-0")
	}
	s, errr := getStream(e, a[1])
	if errr != nil {
		return *errr
	}
	if s == nil {
		if p.noMkStream {
			return NilReply()
		}
		s = createStream(e, a[1])
	}
	if s.lastID == maxStreamID {
		return ErrorReply("ERR The stream has exhausted the last possible ID, unable to add more items")
	}
	id, errr := nextAddID(e, s, p)
	if errr != nil {
		return *errr
	}
	fv := a[fieldPos:]
	var tot int
	for _, x := range fv {
		tot += len(x)
	}
	if tot > streamListpackMaxSize {
		return ErrorReply("ERR Elements are too large to be stored")
	}
	s.append(id, fv)
	if p.strategy != trimNone {
		s.trim(p.trimArgs)
	}
	return BulkReply(id.String())
}

// nextAddID is the ID part of streamAppendItem.
func nextAddID(e *Server, s *stream, p xaddArgs) (streamID, *Reply) {
	var id streamID
	switch {
	case !p.idGiven:
		if ms := uint64(e.now); ms > s.lastID.ms {
			id = streamID{ms, 0}
		} else {
			id, _ = s.lastID.incr()
		}
	case p.seqGiven:
		id = p.id
	case s.lastID.ms == p.id.ms:
		if s.lastID.seq == math.MaxUint64 {
			// Redis 7.0 fails here without setting errno, so the reply is
			// the "too large" one rather than the ID one; 7.2 sets EDOM.
			r := ErrorReply("ERR Elements are too large to be stored")
			if e.t.data.xaddSeqEDOM {
				r = ErrorReply("ERR The ID specified in XADD is equal or smaller than the target stream top item")
			}
			return id, &r
		}
		id = streamID{s.lastID.ms, s.lastID.seq + 1}
	default:
		id = p.id
	}
	if id.cmp(s.lastID) <= 0 {
		r := ErrorReply("ERR The ID specified in XADD is equal or smaller than the target stream top item")
		return id, &r
	}
	return id, nil
}

func cmdXlen(e *Server, a []string) Reply {
	s, errr := getStream(e, a[1])
	if errr != nil {
		return *errr
	}
	if s == nil {
		return IntReply(0)
	}
	return IntReply(int64(s.length))
}

// xrangeGeneric is XRANGE key start end [COUNT n] and XREVRANGE key end
// start [COUNT n].
func xrangeGeneric(e *Server, a []string, rev bool) Reply {
	startArg, endArg := a[2], a[3]
	if rev {
		startArg, endArg = a[3], a[2]
	}
	start, errr := parseRangeStart(startArg)
	if errr != nil {
		return *errr
	}
	end, errr := parseRangeEnd(endArg)
	if errr != nil {
		return *errr
	}
	count := int64(-1)
	for j := 4; j < len(a); j++ {
		if strings.EqualFold(a[j], "count") && j+1 < len(a) {
			n, ok := parseInt(a[j+1])
			if !ok {
				return errNotInt
			}
			count = max(n, 0)
			j++
		} else {
			return errSyntax
		}
	}
	s, errr := getStream(e, a[1])
	if errr != nil {
		return *errr
	}
	if s == nil {
		return ArrayReply()
	}
	if count == 0 {
		return NilReply()
	}
	return entriesReply(s.rangeEntries(start, end, rev, int(max(count, 0))))
}

func cmdXdel(e *Server, a []string) Reply {
	s, errr := getStream(e, a[1])
	if errr != nil {
		return *errr
	}
	if s == nil {
		return IntReply(0)
	}
	ids := make([]streamID, 0, len(a)-2)
	for _, arg := range a[2:] {
		id, ok := parseStrictID(arg)
		if !ok {
			return errInvalidStreamID
		}
		ids = append(ids, id)
	}
	var deleted int64
	firstEntry := false
	for _, id := range ids {
		if !s.remove(id) {
			continue
		}
		if id == s.firstID {
			firstEntry = true
		}
		if id.cmp(s.maxDeleted) > 0 {
			s.maxDeleted = id
		}
		deleted++
	}
	if deleted > 0 {
		if s.length == 0 {
			s.firstID = streamID{}
		} else if firstEntry {
			s.firstID = s.edge(true)
		}
	}
	return IntReply(deleted)
}

func cmdXtrim(e *Server, a []string) Reply {
	p, _, errr := parseAddTrimArgs(a, false)
	if errr != nil {
		return *errr
	}
	s, errr := getStream(e, a[1])
	if errr != nil {
		return *errr
	}
	if s == nil {
		return IntReply(0)
	}
	return IntReply(s.trim(p.trimArgs))
}

func cmdXsetid(e *Server, a []string) Reply {
	id, ok := parseStrictID(a[2])
	if !ok {
		return errInvalidStreamID
	}
	entriesAdded := int64(-1)
	var maxDel streamID
	for i := 3; i < len(a); i += 2 {
		more := len(a) - 1 - i
		switch opt := strings.ToLower(a[i]); {
		case opt == "entriesadded" && more > 0:
			n, ok := parseInt(a[i+1])
			if !ok {
				return errNotInt
			}
			if n < 0 {
				return ErrorReply("ERR entries_added must be positive")
			}
			entriesAdded = n
		case opt == "maxdeletedid" && more > 0:
			if maxDel, ok = parseStrictID(a[i+1]); !ok {
				return errInvalidStreamID
			}
			if id.cmp(maxDel) < 0 {
				return ErrorReply("ERR The ID specified in XSETID is smaller than the provided max_deleted_entry_id")
			}
		default:
			return errSyntax
		}
	}
	s, errr := getStream(e, a[1])
	if errr != nil {
		return *errr
	}
	if s == nil {
		return errNoSuchKey
	}
	if e.t.data.xsetidDeleted && id.cmp(s.maxDeleted) < 0 {
		return ErrorReply("ERR The ID specified in XSETID is smaller than current max_deleted_entry_id")
	}
	if s.length > 0 {
		if id.cmp(s.edge(false)) < 0 {
			return ErrorReply("ERR The ID specified in XSETID is smaller than the target stream top item")
		}
		if entriesAdded != -1 && s.length > uint64(entriesAdded) {
			return ErrorReply("ERR The entries_added specified in XSETID is smaller than the target stream length")
		}
	}
	s.lastID = id
	if entriesAdded != -1 {
		s.entriesAdded = uint64(entriesAdded)
	}
	if !maxDel.isZero() {
		s.maxDeleted = maxDel
	}
	return okReply
}
