package keyspace

import (
	"math"
	"strconv"
	"strings"
)

// Stream commands: XADD XLEN XRANGE XREVRANGE XDEL XTRIM XSETID XGROUP
// XREAD XREADGROUP XACK XPENDING XCLAIM XAUTOCLAIM XINFO, as t_stream.c of
// redis-server 7.0.15 runs them; every time (IDs from *, delivery and seen
// times, idle) is the virtual clock.

func init() {
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

// lookupConsumer is streamLookupConsumer; refresh updates its seen-time.
func lookupConsumer(e *Server, g *streamGroup, name string, refresh bool) *streamConsumer {
	c := g.consumers[name]
	if c != nil && refresh {
		c.seenTime = e.now
	}
	return c
}

// createConsumer is streamCreateConsumer: nil when it exists.
func createConsumer(e *Server, g *streamGroup, name string) *streamConsumer {
	if _, ok := g.consumers[name]; ok {
		return nil
	}
	c := &streamConsumer{name: name, seenTime: e.now, activeTime: -1, pel: map[streamID]*streamNACK{}}
	g.consumers[name] = c
	return c
}

func consumerFor(e *Server, g *streamGroup, name string) *streamConsumer {
	if c := lookupConsumer(e, g, name, true); c != nil {
		return c
	}
	return createConsumer(e, g, name)
}

// xgroupHelp is XGROUP HELP's text.
var xgroupHelp = []string{
	"CREATE <key> <groupname> <id|$> [option]",
	"    Create a new consumer group. Options are:",
	"    * MKSTREAM",
	"      Create the empty stream if it does not exist.",
	"    * ENTRIESREAD entries_read",
	"      Set the group's entries_read counter (internal use).",
	"CREATECONSUMER <key> <groupname> <consumer>",
	"    Create a new consumer in the specified group.",
	"DELCONSUMER <key> <groupname> <consumer>",
	"    Remove the specified consumer.",
	"DESTROY <key> <groupname>",
	"    Remove the specified group.",
	"SETID <key> <groupname> <id|$> [ENTRIESREAD entries_read]",
	"    Set the current group ID and entries_read counter.",
}

var xinfoHelp = []string{
	"CONSUMERS <key> <groupname>",
	"    Show consumers of <groupname>.",
	"GROUPS <key>",
	"    Show the stream consumer groups.",
	"STREAM <key> [FULL [COUNT <count>]",
	"    Show information about the stream.",
}

// helpReply is addReplyHelp ("Prints this help." until 7.2).
func helpReply(e *Server, cmd string, lines []string) Reply {
	out := []Reply{StatusReply(strings.ToUpper(cTrunc(cmd)) + " <subcommand> [<arg> [value] [opt] ...]. Subcommands are:")}
	for _, l := range lines {
		out = append(out, StatusReply(l))
	}
	last := "    Prints this help."
	if e.t.data.printHelp {
		last = "    Print this help."
	}
	return ArrayReply(append(out, StatusReply("HELP"), StatusReply(last))...)
}

// subSyntaxError is addReplySubcommandSyntaxError.
func subSyntaxError(c cmdCtx, a []string) Reply {
	return errorf("unknown subcommand or wrong number of arguments for '%s'. Try %s HELP.", cArg(a[1], 128), strings.ToUpper(cTrunc(c.name)))
}

func cmdXgroup(e *Server, c cmdCtx, a []string) (Reply, error) {
	opt := strings.ToLower(a[1])
	mkstream := false
	entriesRead := int64(-1)
	var s *stream
	var g *streamGroup
	if len(a) >= 4 {
		for i := 5; i < len(a); {
			switch {
			case opt == "create" && strings.EqualFold(a[i], "mkstream"):
				mkstream = true
				i++
			case (opt == "create" || opt == "setid") && strings.EqualFold(a[i], "entriesread") && i+1 < len(a):
				n, ok := parseInt(a[i+1])
				if !ok {
					return errNotInt, nil
				}
				if n < 0 && n != -1 {
					return ErrorReply("ERR value for ENTRIESREAD must be positive or -1"), nil
				}
				entriesRead = n
				i += 2
			default:
				return subSyntaxError(c, a), nil
			}
		}
		var errr *Reply
		if s, errr = getStream(e, a[2]); errr != nil {
			return *errr, nil
		}
		if !mkstream {
			if s == nil {
				return ErrorReply("ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you may want to use the MKSTREAM option to create an empty stream automatically."), nil
			}
			g = s.groups[a[3]]
			if g == nil && (opt == "setid" || opt == "createconsumer" || opt == "delconsumer") {
				return errorf("-NOGROUP No such consumer group '%s' for key name '%s'", cTrunc(a[3]), cTrunc(a[2])), nil
			}
		}
	}
	switch {
	case len(a) == 2 && opt == "help":
		return helpReply(e, c.name, xgroupHelp), nil
	case opt == "create" && len(a) >= 5 && len(a) <= 8:
		var id streamID
		if a[4] == "$" {
			if s != nil {
				id = s.lastID
			}
		} else {
			var ok bool
			if id, ok = parseStrictID(a[4]); !ok {
				return errInvalidStreamID, nil
			}
		}
		if s == nil {
			s = createStream(e, a[2])
		}
		if s.addGroup(a[3], id, entriesRead) == nil {
			return ErrorReply("BUSYGROUP Consumer Group name already exists"), nil
		}
		return okReply, nil
	case opt == "setid" && (len(a) == 5 || len(a) == 7):
		id := s.lastID
		if a[4] != "$" {
			var ok bool
			if id, _, ok = parseStreamID(a[4], 0, false, false); !ok {
				return errInvalidStreamID, nil
			}
		}
		g.lastID, g.entriesRead = id, entriesRead
		return okReply, nil
	case opt == "destroy" && len(a) == 4:
		if g == nil {
			return IntReply(0), nil
		}
		delete(s.groups, a[3])
		return IntReply(1), nil
	case opt == "createconsumer" && len(a) == 5:
		if createConsumer(e, g, a[4]) == nil {
			return IntReply(0), nil
		}
		return IntReply(1), nil
	case opt == "delconsumer" && len(a) == 5:
		cn := lookupConsumer(e, g, a[4], false)
		if cn == nil {
			return IntReply(0), nil
		}
		pending := len(cn.pel)
		g.delConsumer(cn)
		return IntReply(int64(pending)), nil
	}
	return subSyntaxError(c, a), nil
}

// xreadUnbalanced is XREAD's error for an odd list of streams and IDs.
func xreadUnbalanced(e *Server, group bool) Reply {
	switch {
	case !e.t.data.xreadUnbalancedName:
		return ErrorReply("ERR Unbalanced XREAD list of streams: for each stream key an ID or '$' must be specified.")
	case group:
		return ErrorReply("ERR Unbalanced 'xreadgroup' list of streams: for each stream key an ID or '>' must be specified.")
	case e.t.data.xreadPlusText:
		return ErrorReply("ERR Unbalanced 'xread' list of streams: for each stream key an ID, '+', or '$' must be specified.")
	}
	return ErrorReply("ERR Unbalanced 'xread' list of streams: for each stream key an ID or '$' must be specified.")
}

// cmdXread is XREAD and XREADGROUP (xreadCommand).
func cmdXread(e *Server, c cmdCtx, a []string) (Reply, error) {
	group := a[0] == "xreadgroup"
	count := int64(0)
	block := false
	noack := false
	streamsArg, nstreams := 0, 0
	var groupName, consumerName string
	haveGroup := false
	for i := 1; i < len(a); i++ {
		more := len(a) - i - 1
		switch o := strings.ToLower(a[i]); {
		case o == "block" && more > 0:
			if c.script && !e.t.data.xreadBlockScript {
				return errorf("%s command is not allowed with BLOCK option from scripts", cTrunc(c.name)), nil
			}
			i++
			t, ok := parseInt(a[i])
			if !ok {
				return ErrorReply("ERR timeout is not an integer or out of range"), nil
			}
			if t < 0 {
				return ErrorReply("ERR timeout is negative"), nil
			}
			if errr := timeoutDeadline(e, t); errr != nil {
				return *errr, nil
			}
			// A script cannot block (CLIENT_DENY_BLOCKING): it is answered
			// at once, as without BLOCK.
			block = !c.script
		case o == "count" && more > 0:
			i++
			n, ok := parseInt(a[i])
			if !ok {
				return errNotInt, nil
			}
			count = max(n, 0)
		case o == "streams" && more > 0:
			streamsArg = i + 1
			if n := len(a) - streamsArg; n%2 != 0 {
				return xreadUnbalanced(e, group), nil
			} else {
				nstreams = n / 2
			}
			i = len(a)
		case o == "group" && more >= 2:
			if !group {
				return ErrorReply("ERR The GROUP option is only supported by XREADGROUP. You called XREAD instead."), nil
			}
			groupName, consumerName, haveGroup = a[i+1], a[i+2], true
			i += 2
		case o == "noack":
			if !group {
				return ErrorReply("ERR The NOACK option is only supported by XREADGROUP. You called XREAD instead."), nil
			}
			noack = true
		default:
			return errSyntax, nil
		}
	}
	if streamsArg == 0 {
		return errSyntax, nil
	}
	if group && !haveGroup {
		return ErrorReply("ERR Missing GROUP option for XREADGROUP"), nil
	}
	keys := a[streamsArg : streamsArg+nstreams]
	ids := make([]streamID, nstreams)
	groups := make([]*streamGroup, nstreams)
	for k, key := range keys {
		arg := a[streamsArg+nstreams+k]
		s, errr := getStream(e, key)
		if errr != nil {
			return *errr, nil
		}
		if haveGroup {
			if s != nil {
				groups[k] = s.groups[groupName]
			}
			if groups[k] == nil {
				return errorf("-NOGROUP No such key '%s' or consumer group '%s' in XREADGROUP with GROUP option", cTrunc(key), cTrunc(groupName)), nil
			}
		}
		switch arg {
		case "$":
			if group {
				return ErrorReply("ERR The $ ID is meaningless in the context of XREADGROUP: you want to read the history of this consumer by specifying a proper ID, or use the > ID to get new messages. The $ ID would just return an empty result set."), nil
			}
			if s != nil {
				ids[k] = s.lastID
			}
			continue
		case ">":
			if !group {
				return ErrorReply("ERR The > ID can be specified only when calling XREADGROUP using the GROUP <group> <consumer> option."), nil
			}
			ids[k] = maxStreamID
			continue
		case "+":
			if group || !e.t.data.xreadPlus {
				break
			}
			// Redis 8.0, Valkey 8.0: the stream's last entry.
			if s != nil && s.length > 0 {
				last := s.edge(false)
				if last.seq > 0 {
					last.seq--
				} else {
					last = streamID{last.ms - 1, math.MaxUint64}
				}
				ids[k] = last
			} else if s != nil {
				ids[k] = s.lastID
			}
			continue
		}
		id, ok := parseStrictID(arg)
		if !ok {
			return errInvalidStreamID, nil
		}
		ids[k] = id
	}
	var out []Reply
	for k, key := range keys {
		s, _ := getStream(e, key)
		if s == nil {
			continue
		}
		gt := ids[k]
		serve, history := false, false
		if haveGroup {
			if gt != maxStreamID {
				serve, history = true, true
			} else if s.length > 0 && s.edge(false).cmp(groups[k].lastID) > 0 {
				serve, gt = true, groups[k].lastID
			}
		} else if s.length > 0 && s.edge(false).cmp(gt) > 0 {
			serve = true
		}
		if !serve {
			continue
		}
		start, _ := gt.incr()
		var entries Reply
		if haveGroup {
			cons := consumerFor(e, groups[k], consumerName)
			if history {
				entries = replyFromPEL(e, s, start, count, cons)
			} else {
				entries = readGroup(e, s, start, count, groups[k], cons, noack)
			}
		} else {
			entries = entriesReply(s.rangeEntries(start, maxStreamID, false, int(count)))
		}
		out = append(out, ArrayReply(BulkReply(key), entries))
	}
	if len(out) > 0 {
		return ArrayReply(out...), nil
	}
	if block {
		return Reply{}, NotImplemented("%s with BLOCK from a client when nothing can be served (it would block)", strings.ToUpper(a[0]))
	}
	return NilReply(), nil
}

// readGroup is streamReplyWithRange with a group: it serves new entries,
// moves the group's last ID and read counter, and records pending entries.
func readGroup(e *Server, s *stream, start streamID, count int64, g *streamGroup, cons *streamConsumer, noack bool) Reply {
	es := s.rangeEntries(start, maxStreamID, false, int(count))
	for _, en := range es {
		if en.id.cmp(g.lastID) > 0 {
			if g.entriesRead != -1 && !s.rangeHasTombstones(en.id) {
				g.entriesRead++
			} else if s.entriesAdded > 0 {
				g.entriesRead = s.estimateDistance(en.id)
			}
			g.lastID = en.id
		}
		if noack {
			continue
		}
		cons.activeTime = e.now
		if nack, ok := g.pel[en.id]; ok {
			// Delivered before (XGROUP SETID moved the group back): the
			// entry changes hands and starts over.
			delete(nack.consumer.pel, en.id)
			nack.consumer, nack.deliveryTime, nack.deliveryCount = cons, e.now, 1
			cons.pel[en.id] = nack
			continue
		}
		nack := &streamNACK{deliveryTime: e.now, deliveryCount: 1, consumer: cons}
		g.pel[en.id] = nack
		cons.pel[en.id] = nack
	}
	return entriesReply(es)
}

// replyFromPEL is streamReplyWithRangeFromConsumerPEL: the consumer's own
// pending entries from start; a deleted entry shows as [id, nil].
func replyFromPEL(e *Server, s *stream, start streamID, count int64, cons *streamConsumer) Reply {
	out := []Reply{}
	for _, id := range sortedPEL(cons.pel) {
		if id.cmp(start) < 0 {
			continue
		}
		if count > 0 && int64(len(out)) >= count {
			break
		}
		en := s.find(id)
		if en == nil {
			out = append(out, ArrayReply(BulkReply(id.String()), NilReply()))
			continue
		}
		nack := cons.pel[id]
		nack.deliveryTime = e.now
		nack.deliveryCount++
		out = append(out, entryReply(en))
	}
	return ArrayReply(out...)
}

// getGroup looks up key's stream and group for XCLAIM and XAUTOCLAIM.
func getGroup(e *Server, key, name string) (*stream, *streamGroup, *Reply) {
	s, errr := getStream(e, key)
	if errr != nil {
		return nil, nil, errr
	}
	var g *streamGroup
	if s != nil {
		g = s.groups[name]
	}
	if g == nil {
		r := errorf("-NOGROUP No such key '%s' or consumer group '%s'", cTrunc(key), cTrunc(name))
		return nil, nil, &r
	}
	return s, g, nil
}

func cmdXack(e *Server, a []string) Reply {
	s, errr := getStream(e, a[1])
	if errr != nil {
		return *errr
	}
	if s == nil || s.groups[a[2]] == nil {
		return IntReply(0)
	}
	g := s.groups[a[2]]
	ids := make([]streamID, 0, len(a)-3)
	for _, arg := range a[3:] {
		id, ok := parseStrictID(arg)
		if !ok {
			return errInvalidStreamID
		}
		ids = append(ids, id)
	}
	var n int64
	for _, id := range ids {
		if nack, ok := g.pel[id]; ok {
			delete(g.pel, id)
			delete(nack.consumer.pel, id)
			n++
		}
	}
	return IntReply(n)
}

func cmdXpending(e *Server, a []string) Reply {
	justInfo := len(a) == 3
	if len(a) != 3 && (len(a) < 6 || len(a) > 9) {
		return errSyntax
	}
	var start, end streamID
	var count, minIdle int64
	var consumerName string
	haveConsumer := false
	if len(a) >= 6 {
		si := 3
		if strings.EqualFold(a[3], "idle") {
			n, ok := parseInt(a[4])
			if !ok {
				return errNotInt
			}
			minIdle = n
			if len(a) < 8 {
				return errSyntax
			}
			si += 2
		}
		n, ok := parseInt(a[si+2])
		if !ok {
			return errNotInt
		}
		count = max(n, 0)
		var errr *Reply
		if start, errr = parseRangeStart(a[si]); errr != nil {
			return *errr
		}
		if end, errr = parseRangeEnd(a[si+1]); errr != nil {
			return *errr
		}
		if si+3 < len(a) {
			consumerName, haveConsumer = a[si+3], true
		}
	}
	s, errr := getStream(e, a[1])
	if errr != nil {
		return *errr
	}
	var g *streamGroup
	if s != nil {
		g = s.groups[a[2]]
	}
	if g == nil {
		return errorf("-NOGROUP No such key '%s' or consumer group '%s'", cTrunc(a[1]), cTrunc(a[2]))
	}
	if justInfo {
		if len(g.pel) == 0 {
			return ArrayReply(IntReply(0), NilReply(), NilReply(), NilReply())
		}
		ids := sortedPEL(g.pel)
		cons := []Reply{}
		for _, name := range g.consumerNames() {
			if n := len(g.consumers[name].pel); n > 0 {
				cons = append(cons, ArrayReply(BulkReply(name), BulkReply(strconv.Itoa(n))))
			}
		}
		return ArrayReply(IntReply(int64(len(ids))), BulkReply(ids[0].String()), BulkReply(ids[len(ids)-1].String()), ArrayReply(cons...))
	}
	pel := g.pel
	if haveConsumer {
		cn := lookupConsumer(e, g, consumerName, false)
		if cn == nil {
			return ArrayReply()
		}
		pel = cn.pel
	}
	out := []Reply{}
	for _, id := range sortedPEL(pel) {
		if count == 0 || id.cmp(end) > 0 {
			break
		}
		if id.cmp(start) < 0 {
			continue
		}
		nack := pel[id]
		if minIdle != 0 && e.now-nack.deliveryTime < minIdle {
			continue
		}
		count--
		out = append(out, ArrayReply(BulkReply(id.String()), BulkReply(nack.consumer.name),
			IntReply(max(e.now-nack.deliveryTime, 0)), IntReply(int64(nack.deliveryCount))))
	}
	return ArrayReply(out...)
}

// claim gives one pending entry to cons (XCLAIM, XAUTOCLAIM).
func claim(g *streamGroup, id streamID, nack *streamNACK, cons *streamConsumer, when int64) {
	if nack.consumer != cons && nack.consumer != nil {
		delete(nack.consumer.pel, id)
	}
	nack.deliveryTime = when
	if nack.consumer != cons {
		cons.pel[id] = nack
		nack.consumer = cons
	}
}

func cmdXclaim(e *Server, a []string) Reply {
	s, g, errr := getGroup(e, a[1], a[2])
	if errr != nil {
		return *errr
	}
	minIdle, ok := parseInt(a[4])
	if !ok {
		return ErrorReply("ERR Invalid min-idle-time argument for XCLAIM")
	}
	minIdle = max(minIdle, 0)
	var ids []streamID
	j := 5
	for ; j < len(a); j++ {
		id, ok := parseStrictID(a[j])
		if !ok {
			break
		}
		ids = append(ids, id)
	}
	retry, delivery := int64(-1), int64(-1)
	force, justID := false, false
	var lastID streamID
	for ; j < len(a); j++ {
		more := len(a) - 1 - j
		switch opt := strings.ToLower(a[j]); {
		case opt == "force":
			force = true
		case opt == "justid":
			justID = true
		case opt == "idle" && more > 0:
			j++
			n, ok := parseInt(a[j])
			if !ok {
				return ErrorReply("ERR Invalid IDLE option argument for XCLAIM")
			}
			delivery = e.now - n
		case opt == "time" && more > 0:
			j++
			n, ok := parseInt(a[j])
			if !ok {
				return ErrorReply("ERR Invalid TIME option argument for XCLAIM")
			}
			delivery = n
		case opt == "retrycount" && more > 0:
			j++
			n, ok := parseInt(a[j])
			if !ok {
				return ErrorReply("ERR Invalid RETRYCOUNT option argument for XCLAIM")
			}
			retry = n
		case opt == "lastid" && more > 0:
			j++
			if lastID, ok = parseStrictID(a[j]); !ok {
				return errInvalidStreamID
			}
		default:
			return errorf("Unrecognized XCLAIM option '%s'", cTrunc(a[j]))
		}
	}
	if lastID.cmp(g.lastID) > 0 {
		g.lastID = lastID
	}
	if delivery < 0 || delivery > e.now {
		delivery = e.now
	}
	var cons *streamConsumer
	if e.t.data.xinfoActiveTime {
		cons = consumerFor(e, g, a[3]) // 7.2: even when nothing is claimed
	}
	out := []Reply{}
	for _, id := range ids {
		nack := g.pel[id]
		en := s.find(id)
		if en == nil {
			if nack != nil {
				delete(g.pel, id)
				delete(nack.consumer.pel, id)
			}
			continue
		}
		if force && nack == nil {
			nack = &streamNACK{deliveryTime: e.now, deliveryCount: 1}
			g.pel[id] = nack
		}
		if nack == nil {
			continue
		}
		if nack.consumer != nil && minIdle != 0 && e.now-nack.deliveryTime < minIdle {
			continue
		}
		if cons == nil {
			cons = consumerFor(e, g, a[3])
		}
		claim(g, id, nack, cons, delivery)
		cons.activeTime = e.now
		if retry >= 0 {
			nack.deliveryCount = uint64(retry)
		} else if !justID {
			nack.deliveryCount++
		}
		if justID {
			out = append(out, BulkReply(id.String()))
		} else {
			out = append(out, entryReply(en))
		}
	}
	return ArrayReply(out...)
}

// xautoclaimMaxBytes stands for the server failing to allocate COUNT
// stream IDs (16 bytes each); where exactly that happens depends on the
// machine (on a 64-bit Linux somewhere around 10^14 bytes).
const xautoclaimMaxBytes = 100_000_000_000_000

func cmdXautoclaim(e *Server, a []string) Reply {
	minIdle, ok := parseInt(a[4])
	if !ok {
		return ErrorReply("ERR Invalid min-idle-time argument for XAUTOCLAIM")
	}
	minIdle = max(minIdle, 0)
	start, errr := parseRangeStart(a[5])
	if errr != nil {
		return *errr
	}
	count := int64(100)
	justID := false
	for j := 6; j < len(a); j++ {
		more := len(a) - 1 - j
		switch opt := strings.ToLower(a[j]); {
		case opt == "count" && more > 0:
			n, ok := parseInt(a[j+1])
			if !ok || n < 1 || n > math.MaxInt64/16 {
				return ErrorReply("ERR COUNT must be > 0")
			}
			count = n
			j++
		case opt == "justid":
			justID = true
		default:
			return errSyntax
		}
	}
	s, g, errr := getGroup(e, a[1], a[2])
	if errr != nil {
		return *errr
	}
	if count > xautoclaimMaxBytes/16 {
		return ErrorReply("ERR Insufficient memory, failed allocating transient memory, COUNT too high.")
	}
	attempts := count * 10
	var cons *streamConsumer
	if e.t.data.xinfoActiveTime {
		cons = consumerFor(e, g, a[3]) // 7.2: even when nothing is claimed
	}
	claimed, deleted := []Reply{}, []Reply{}
	ids := sortedPEL(g.pel)
	i := 0
	for ; i < len(ids) && ids[i].cmp(start) < 0; i++ {
	}
	for ; attempts > 0 && count > 0 && i < len(ids); i++ {
		attempts--
		id := ids[i]
		nack := g.pel[id]
		en := s.find(id)
		if en == nil {
			delete(g.pel, id)
			delete(nack.consumer.pel, id)
			deleted = append(deleted, BulkReply(id.String()))
			count--
			continue
		}
		if minIdle != 0 && e.now-nack.deliveryTime < minIdle {
			continue
		}
		if cons == nil {
			cons = consumerFor(e, g, a[3])
		}
		claim(g, id, nack, cons, e.now)
		cons.activeTime = e.now
		if !justID {
			nack.deliveryCount++
		}
		if justID {
			claimed = append(claimed, BulkReply(id.String()))
		} else {
			claimed = append(claimed, entryReply(en))
		}
		count--
	}
	cursor := streamID{}
	if i < len(ids) {
		cursor = ids[i]
	}
	return ArrayReply(BulkReply(cursor.String()), ArrayReply(claimed...), ArrayReply(deleted...))
}

func cmdXinfo(e *Server, c cmdCtx, a []string) (Reply, error) {
	opt := strings.ToLower(a[1])
	if opt == "help" {
		return helpReply(e, c.name, xinfoHelp), nil
	}
	s, errr := getStream(e, a[2])
	if errr != nil {
		return *errr, nil
	}
	if s == nil {
		return errNoSuchKey, nil
	}
	switch {
	case opt == "consumers":
		g := s.groups[a[3]]
		if g == nil {
			return errorf("-NOGROUP No such consumer group '%s' for key name '%s'", cTrunc(a[3]), cTrunc(a[2])), nil
		}
		out := []Reply{}
		for _, name := range g.consumerNames() {
			cn := g.consumers[name]
			row := []Reply{BulkReply("name"), BulkReply(name), BulkReply("pending"), IntReply(int64(len(cn.pel))),
				BulkReply("idle"), IntReply(max(e.now-cn.seenTime, 0))}
			if e.t.data.xinfoActiveTime {
				inactive := cn.activeTime
				if inactive != -1 {
					inactive = e.now - cn.activeTime
				}
				row = append(row, BulkReply("inactive"), IntReply(inactive))
			}
			out = append(out, ArrayReply(row...))
		}
		return ArrayReply(out...), nil
	case opt == "groups":
		out := []Reply{}
		for _, name := range s.groupNames() {
			g := s.groups[name]
			out = append(out, ArrayReply(BulkReply("name"), BulkReply(name), BulkReply("consumers"), IntReply(int64(len(g.consumers))),
				BulkReply("pending"), IntReply(int64(len(g.pel))), BulkReply("last-delivered-id"), BulkReply(g.lastID.String()),
				BulkReply("entries-read"), entriesReadReply(g), BulkReply("lag"), lagReply(s, g)))
		}
		return ArrayReply(out...), nil
	}
	return xinfoStream(e, c, s, a), nil
}

func entriesReadReply(g *streamGroup) Reply {
	if g.entriesRead == -1 {
		return NilReply()
	}
	return IntReply(g.entriesRead)
}

func lagReply(s *stream, g *streamGroup) Reply {
	if n, ok := s.lag(g); ok {
		return IntReply(n)
	}
	return NilReply()
}

// xinfoStream is XINFO STREAM key [FULL [COUNT n]].
func xinfoStream(e *Server, c cmdCtx, s *stream, a []string) Reply {
	opts := a[3:]
	full := len(opts) > 0
	count := int64(10)
	if full {
		if (len(opts) != 1 && len(opts) != 3) || !strings.EqualFold(opts[0], "full") {
			return subSyntaxError(c, a)
		}
		if len(opts) == 3 {
			if !strings.EqualFold(opts[1], "count") {
				return subSyntaxError(c, a)
			}
			n, ok := parseInt(opts[2])
			if !ok {
				return errNotInt
			}
			count = n
			if count < 0 {
				count = 10
			}
		}
	}
	out := []Reply{
		BulkReply("length"), IntReply(int64(s.length)),
		BulkReply("radix-tree-keys"), IntReply(int64(len(s.nodes))),
		BulkReply("radix-tree-nodes"), IntReply(s.raxNodes()),
		BulkReply("last-generated-id"), BulkReply(s.lastID.String()),
		BulkReply("max-deleted-entry-id"), BulkReply(s.maxDeleted.String()),
		BulkReply("entries-added"), IntReply(int64(s.entriesAdded)),
		BulkReply("recorded-first-entry-id"), BulkReply(s.firstID.String()),
	}
	if !full {
		edge := func(rev bool) Reply {
			if es := s.rangeEntries(streamID{}, maxStreamID, rev, 1); len(es) > 0 {
				return entryReply(es[0])
			}
			return NilReply()
		}
		return ArrayReply(append(out, BulkReply("groups"), IntReply(int64(len(s.groups))),
			BulkReply("first-entry"), edge(false), BulkReply("last-entry"), edge(true))...)
	}
	out = append(out, BulkReply("entries"), entriesReply(s.rangeEntries(streamID{}, maxStreamID, false, int(count))))
	groups := []Reply{}
	for _, name := range s.groupNames() {
		groups = append(groups, groupFullReply(e, s, name, count))
	}
	return ArrayReply(append(out, BulkReply("groups"), ArrayReply(groups...))...)
}

// groupFullReply is one group of XINFO STREAM FULL; count (0: all) caps
// each pending list.
func groupFullReply(e *Server, s *stream, name string, count int64) Reply {
	g := s.groups[name]
	pending := []Reply{}
	for _, id := range sortedPEL(g.pel) {
		if count > 0 && int64(len(pending)) >= count {
			break
		}
		n := g.pel[id]
		pending = append(pending, ArrayReply(BulkReply(id.String()), BulkReply(n.consumer.name),
			IntReply(n.deliveryTime), IntReply(int64(n.deliveryCount))))
	}
	consumers := []Reply{}
	for _, cname := range g.consumerNames() {
		cn := g.consumers[cname]
		cp := []Reply{}
		for _, id := range sortedPEL(cn.pel) {
			if count > 0 && int64(len(cp)) >= count {
				break
			}
			n := cn.pel[id]
			cp = append(cp, ArrayReply(BulkReply(id.String()), IntReply(n.deliveryTime), IntReply(int64(n.deliveryCount))))
		}
		row := []Reply{BulkReply("name"), BulkReply(cname), BulkReply("seen-time"), IntReply(cn.seenTime)}
		if e.t.data.xinfoActiveTime {
			row = append(row, BulkReply("active-time"), IntReply(cn.activeTime))
		}
		consumers = append(consumers, ArrayReply(append(row,
			BulkReply("pel-count"), IntReply(int64(len(cn.pel))), BulkReply("pending"), ArrayReply(cp...))...))
	}
	return ArrayReply(BulkReply("name"), BulkReply(name), BulkReply("last-delivered-id"), BulkReply(g.lastID.String()),
		BulkReply("entries-read"), entriesReadReply(g), BulkReply("lag"), lagReply(s, g),
		BulkReply("pel-count"), IntReply(int64(len(g.pel))), BulkReply("pending"), ArrayReply(pending...),
		BulkReply("consumers"), ArrayReply(consumers...))
}
