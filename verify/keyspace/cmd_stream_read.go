package keyspace

import (
	"math"
	"strings"
)

// XREAD and XREADGROUP, after t_stream.c's xreadCommand: the STREAMS
// arguments, COUNT, BLOCK (which never blocks in a script, nor offline
// when entries are there), NOACK, and the group reads from the pending
// entries list.

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
