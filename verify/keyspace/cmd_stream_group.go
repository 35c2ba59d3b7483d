package keyspace

import (
	"math"
	"strconv"
	"strings"
)

// Stream consumer groups, after t_stream.c: XGROUP, XACK, XPENDING,
// XCLAIM, XAUTOCLAIM and XINFO, over the groups, consumers and pending
// entries of stream.go.

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
