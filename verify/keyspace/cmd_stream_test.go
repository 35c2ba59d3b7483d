package keyspace

import (
	"context"
	"reflect"
	"strings"
	"testing"
)

func streamBulks(ss ...string) []Reply {
	out := make([]Reply, len(ss))
	for i, s := range ss {
		out[i] = BulkReply(s)
	}
	return out
}

// ent is an entry reply: [id, [field, value, ...]].
func ent(id string, fv ...string) Reply {
	return ArrayReply(BulkReply(id), ArrayReply(streamBulks(fv...)...))
}

func TestStreamCommands(t *testing.T) {
	three := [][]string{{"XADD", "s", "1-1", "a", "1"}, {"XADD", "s", "1-2", "b", "2"}, {"XADD", "s", "2-0", "a", "3"}}
	// plus copies, so that cases never share a setup's backing array.
	plus := func(base [][]string, more ...[]string) [][]string {
		return append(append([][]string{}, base...), more...)
	}
	grp := plus(three, []string{"XGROUP", "CREATE", "s", "g", "0"})
	read := plus(grp, []string{"XREADGROUP", "GROUP", "g", "c1", "STREAMS", "s", ">"})
	runCmdCases(t, []cmdCase{
		// XADD IDs come from the virtual clock (1_000_000 in these tests).
		{name: "xadd star", cmd: a("XADD", "s", "*", "f", "v"), want: BulkReply("1000000-0")},
		{name: "xadd star same ms", setup: [][]string{{"XADD", "s", "*", "f", "v"}}, cmd: a("XADD", "s", "*", "f", "v"), want: BulkReply("1000000-1")},
		{name: "xadd star later ms", setup: [][]string{{"XADD", "s", "*", "f", "v"}}, advance: 5, cmd: a("XADD", "s", "*", "f", "v"), want: BulkReply("1000005-0")},
		{name: "xadd star clock behind", setup: [][]string{{"XADD", "s", "2000000-7", "f", "v"}}, cmd: a("XADD", "s", "*", "f", "v"), want: BulkReply("2000000-8")},
		{name: "xadd ms star", setup: three, cmd: a("XADD", "s", "2-*", "f", "v"), want: BulkReply("2-1")},
		{name: "xadd ms star new ms", setup: three, cmd: a("XADD", "s", "3-*", "f", "v"), want: BulkReply("3-0")},
		{name: "xadd ms star seq overflow", setup: [][]string{{"XADD", "s", "5-18446744073709551615", "f", "v"}}, cmd: a("XADD", "s", "5-*", "f", "v"), want: ErrorReply("ERR Elements are too large to be stored")},
		{name: "xadd equal", setup: three, cmd: a("XADD", "s", "2-0", "f", "v"), want: ErrorReply("ERR The ID specified in XADD is equal or smaller than the target stream top item")},
		{name: "xadd zero", cmd: a("XADD", "s", "0-0", "f", "v"), want: ErrorReply("ERR The ID specified in XADD must be greater than 0-0"), keys: map[string]*Entry{"s": gone()}},
		{name: "xadd zero star", cmd: a("XADD", "s", "0-*", "f", "v"), want: BulkReply("0-1")},
		{name: "xadd exhausted", setup: [][]string{{"XADD", "s", "18446744073709551615-18446744073709551615", "f", "v"}}, cmd: a("XADD", "s", "*", "f", "v"), want: ErrorReply("ERR The stream has exhausted the last possible ID, unable to add more items")},
		{name: "xadd nomkstream", cmd: a("XADD", "s", "NOMKSTREAM", "*", "f", "v"), want: NilReply(), keys: map[string]*Entry{"s": gone()}},
		{name: "xadd odd", cmd: a("XADD", "s", "*", "f"), want: errArity("xadd")},
		{name: "xadd no id", cmd: a("XADD", "s", "MAXLEN", "1"), want: errArity("xadd")},
		{name: "xadd bad id", cmd: a("XADD", "s", "1-x", "f", "v"), want: errInvalidStreamID},
		{name: "xadd wrongtype", setup: [][]string{{"SET", "s", "v"}}, cmd: a("XADD", "s", "*", "f", "v"), want: errWrongType, keys: map[string]*Entry{"s": str("v", -1)}},
		{name: "xadd both strategies", cmd: a("XADD", "s", "MAXLEN", "1", "MINID", "1", "*", "f", "v"), want: ErrorReply("ERR syntax error, MAXLEN and MINID options at the same time are not compatible")},
		{name: "xadd limit without tilde", cmd: a("XADD", "s", "MAXLEN", "1", "LIMIT", "1", "*", "f", "v"), want: ErrorReply("ERR syntax error, LIMIT cannot be used without the special ~ option")},
		{name: "xadd maxlen trims", setup: three, cmd: a("XADD", "s", "MAXLEN", "2", "3-0", "f", "v"), want: BulkReply("3-0")},
		// XRANGE, XREVRANGE.
		{name: "xrange", setup: three, cmd: a("XRANGE", "s", "(1-1", "+"), want: ArrayReply(ent("1-2", "b", "2"), ent("2-0", "a", "3"))},
		{name: "xrange incomplete end", setup: three, cmd: a("XRANGE", "s", "-", "1"), want: ArrayReply(ent("1-1", "a", "1"), ent("1-2", "b", "2"))},
		{name: "xrange count 0", setup: three, cmd: a("XRANGE", "s", "-", "+", "COUNT", "0"), want: NilReply()},
		{name: "xrange missing count 0", cmd: a("XRANGE", "s", "-", "+", "COUNT", "0"), want: ArrayReply()},
		{name: "xrange bad start", setup: three, cmd: a("XRANGE", "s", "(18446744073709551615-18446744073709551615", "+"), want: ErrorReply("ERR invalid start ID for the interval")},
		{name: "xrange bad end", setup: three, cmd: a("XRANGE", "s", "-", "(0-0"), want: ErrorReply("ERR invalid end ID for the interval")},
		{name: "xrevrange count", setup: three, cmd: a("XREVRANGE", "s", "+", "-", "COUNT", "1"), want: ArrayReply(ent("2-0", "a", "3"))},
		{name: "xrange id with spaces", setup: [][]string{{"XADD", "s", " 7-+3", "f", "v"}}, cmd: a("XRANGE", "s", "-", "+"), want: ArrayReply(ent("7-3", "f", "v"))},
		// XDEL, XLEN, XTRIM, XSETID.
		{name: "xdel", setup: three, cmd: a("XDEL", "s", "1-1", "1-1", "9-9"), want: IntReply(1)},
		{name: "xdel bad id", setup: three, cmd: a("XDEL", "s", "1-2", "x"), want: errInvalidStreamID},
		{name: "xlen", setup: plus(three, []string{"XDEL", "s", "1-2"}), cmd: a("XLEN", "s"), want: IntReply(2)},
		{name: "xtrim maxlen", setup: three, cmd: a("XTRIM", "s", "MAXLEN", "1"), want: IntReply(2)},
		{name: "xtrim minid", setup: three, cmd: a("XTRIM", "s", "MINID", "1-2"), want: IntReply(1)},
		{name: "xtrim approx keeps node", setup: three, cmd: a("XTRIM", "s", "MAXLEN", "~", "1"), want: IntReply(0)},
		{name: "xtrim no strategy", setup: three, cmd: a("XTRIM", "s", "LIMIT", "0"), want: ErrorReply("ERR syntax error, XTRIM must be called with a trimming strategy")},
		{name: "xsetid smaller", setup: three, cmd: a("XSETID", "s", "1-5"), want: ErrorReply("ERR The ID specified in XSETID is smaller than the target stream top item")},
		{name: "xsetid missing", cmd: a("XSETID", "s", "1"), want: ErrorReply("ERR no such key")},
		// Groups.
		{name: "xgroup busy", setup: grp, cmd: a("XGROUP", "CREATE", "s", "g", "$"), want: ErrorReply("BUSYGROUP Consumer Group name already exists")},
		{name: "xgroup nokey", cmd: a("XGROUP", "CREATE", "s", "g", "$"), want: ErrorReply("ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you may want to use the MKSTREAM option to create an empty stream automatically.")},
		{name: "xgroup nogroup", setup: three, cmd: a("XGROUP", "SETID", "s", "x\ny", "$"), want: ErrorReply("NOGROUP No such consumer group 'x y' for key name 's'")},
		{name: "xgroup unknown sub", cmd: a("XGROUP", "bad\r", "s"), want: ErrorReply("ERR unknown subcommand 'bad '. Try XGROUP HELP.")},
		{name: "xgroup sub arity", cmd: a("XGROUP", "DESTROY", "s"), want: errArity("xgroup|destroy")},
		{name: "xgroup syntax", setup: grp, cmd: a("xgroup", "create", "s", "h", "0", "BAD"), want: ErrorReply("ERR unknown subcommand or wrong number of arguments for 'create'. Try XGROUP HELP.")},
		{name: "xgroup delconsumer", setup: read, cmd: a("XGROUP", "DELCONSUMER", "s", "g", "c1"), want: IntReply(3)},
		{name: "xreadgroup", setup: grp, cmd: a("XREADGROUP", "GROUP", "g", "c", "COUNT", "1", "STREAMS", "s", ">"), want: ArrayReply(ArrayReply(BulkReply("s"), ArrayReply(ent("1-1", "a", "1"))))},
		{name: "xreadgroup nothing", setup: read, cmd: a("XREADGROUP", "GROUP", "g", "c", "STREAMS", "s", ">"), want: NilReply()},
		{name: "xreadgroup history deleted", setup: plus(read, []string{"XDEL", "s", "1-2"}), cmd: a("XREADGROUP", "GROUP", "g", "c1", "COUNT", "2", "STREAMS", "s", "0"),
			want: ArrayReply(ArrayReply(BulkReply("s"), ArrayReply(ent("1-1", "a", "1"), ArrayReply(BulkReply("1-2"), NilReply()))))},
		{name: "xreadgroup nogroup", setup: three, cmd: a("XREADGROUP", "GROUP", "g", "c", "STREAMS", "s", ">"), want: ErrorReply("NOGROUP No such key 's' or consumer group 'g' in XREADGROUP with GROUP option")},
		{name: "xread", setup: three, cmd: a("XREAD", "COUNT", "1", "STREAMS", "s", "1-1"), want: ArrayReply(ArrayReply(BulkReply("s"), ArrayReply(ent("1-2", "b", "2"))))},
		{name: "xread block served", setup: three, cmd: a("XREAD", "BLOCK", "0", "STREAMS", "s", "1-2"), want: ArrayReply(ArrayReply(BulkReply("s"), ArrayReply(ent("2-0", "a", "3"))))},
		{name: "xread none", setup: three, cmd: a("XREAD", "STREAMS", "s", "$"), want: NilReply()},
		{name: "xack", setup: read, cmd: a("XACK", "s", "g", "1-1", "1-1", "2-0"), want: IntReply(2)},
		// Times come from the virtual clock.
		{name: "xpending idle", setup: read, advance: 250, cmd: a("XPENDING", "s", "g", "IDLE", "250", "-", "+", "1"),
			want: ArrayReply(ArrayReply(BulkReply("1-1"), BulkReply("c1"), IntReply(250), IntReply(1)))},
		{name: "xpending idle not yet", setup: read, advance: 249, cmd: a("XPENDING", "s", "g", "IDLE", "250", "-", "+", "1"), want: ArrayReply()},
		{name: "xpending summary", setup: plus(read, []string{"XCLAIM", "s", "g", "c0", "0", "2-0"}), cmd: a("XPENDING", "s", "g"),
			want: ArrayReply(IntReply(3), BulkReply("1-1"), BulkReply("2-0"), ArrayReply(ArrayReply(BulkReply("c0"), BulkReply("1")), ArrayReply(BulkReply("c1"), BulkReply("2"))))},
		{name: "xclaim idle", setup: plus(read, []string{"XCLAIM", "s", "g", "c2", "0", "1-1", "IDLE", "70", "JUSTID"}), advance: 5, cmd: a("XPENDING", "s", "g", "-", "1-1", "5"),
			want: ArrayReply(ArrayReply(BulkReply("1-1"), BulkReply("c2"), IntReply(75), IntReply(1)))},
		{name: "xclaim time future", setup: plus(read, []string{"XCLAIM", "s", "g", "c2", "0", "1-1", "TIME", "99999999", "RETRYCOUNT", "9"}), advance: 5, cmd: a("XPENDING", "s", "g", "-", "1-1", "5"),
			want: ArrayReply(ArrayReply(BulkReply("1-1"), BulkReply("c2"), IntReply(5), IntReply(9)))},
		{name: "xclaim min idle", setup: read, advance: 99, cmd: a("XCLAIM", "s", "g", "c2", "100", "1-1", "1-2", "JUSTID"), want: ArrayReply()},
		{name: "xclaim min idle met", setup: read, advance: 100, cmd: a("XCLAIM", "s", "g", "c2", "100", "1-1"), want: ArrayReply(ent("1-1", "a", "1"))},
		{name: "xclaim bad option", setup: read, cmd: a("XCLAIM", "s", "g", "c2", "0", "1-1", "BAD\x00x"), want: ErrorReply("ERR Unrecognized XCLAIM option 'BAD'")},
		{name: "xautoclaim cursor", setup: read, advance: 10, cmd: a("XAUTOCLAIM", "s", "g", "c2", "10", "-", "COUNT", "2", "JUSTID"),
			want: ArrayReply(BulkReply("2-0"), ArrayReply(streamBulks("1-1", "1-2")...), ArrayReply())},
		{name: "xautoclaim deleted", setup: plus(read, []string{"XDEL", "s", "1-1", "2-0"}), cmd: a("XAUTOCLAIM", "s", "g", "c2", "0", "-"),
			want: ArrayReply(BulkReply("0-0"), ArrayReply(ent("1-2", "b", "2")), ArrayReply(streamBulks("1-1", "2-0")...))},
		{name: "xautoclaim huge count", setup: read, cmd: a("XAUTOCLAIM", "s", "g", "c2", "0", "-", "COUNT", "576460752303423487"),
			want: ErrorReply("ERR Insufficient memory, failed allocating transient memory, COUNT too high.")},
		{name: "xinfo consumers idle", setup: plus(read, []string{"XGROUP", "CREATECONSUMER", "s", "g", "c0"}), advance: 42, cmd: a("XINFO", "CONSUMERS", "s", "g"),
			want: ArrayReply(
				ArrayReply(BulkReply("name"), BulkReply("c0"), BulkReply("pending"), IntReply(0), BulkReply("idle"), IntReply(42)),
				ArrayReply(BulkReply("name"), BulkReply("c1"), BulkReply("pending"), IntReply(3), BulkReply("idle"), IntReply(42)))},
		{name: "xinfo stream", setup: three, cmd: a("XINFO", "STREAM", "s"), want: ArrayReply(
			BulkReply("length"), IntReply(3), BulkReply("radix-tree-keys"), IntReply(1), BulkReply("radix-tree-nodes"), IntReply(2),
			BulkReply("last-generated-id"), BulkReply("2-0"), BulkReply("max-deleted-entry-id"), BulkReply("0-0"),
			BulkReply("entries-added"), IntReply(3), BulkReply("recorded-first-entry-id"), BulkReply("1-1"), BulkReply("groups"), IntReply(0),
			BulkReply("first-entry"), ent("1-1", "a", "1"), BulkReply("last-entry"), ent("2-0", "a", "3"))},
		{name: "xinfo full pending times", setup: read, advance: 3, cmd: a("XINFO", "STREAM", "s", "FULL", "COUNT", "1"), want: ArrayReply(
			BulkReply("length"), IntReply(3), BulkReply("radix-tree-keys"), IntReply(1), BulkReply("radix-tree-nodes"), IntReply(2),
			BulkReply("last-generated-id"), BulkReply("2-0"), BulkReply("max-deleted-entry-id"), BulkReply("0-0"),
			BulkReply("entries-added"), IntReply(3), BulkReply("recorded-first-entry-id"), BulkReply("1-1"),
			BulkReply("entries"), ArrayReply(ent("1-1", "a", "1")),
			BulkReply("groups"), ArrayReply(ArrayReply(
				BulkReply("name"), BulkReply("g"), BulkReply("last-delivered-id"), BulkReply("2-0"), BulkReply("entries-read"), IntReply(3),
				BulkReply("lag"), IntReply(0), BulkReply("pel-count"), IntReply(3),
				BulkReply("pending"), ArrayReply(ArrayReply(BulkReply("1-1"), BulkReply("c1"), IntReply(1_000_000), IntReply(1))),
				BulkReply("consumers"), ArrayReply(ArrayReply(BulkReply("name"), BulkReply("c1"), BulkReply("seen-time"), IntReply(1_000_000),
					BulkReply("pel-count"), IntReply(3), BulkReply("pending"), ArrayReply(ArrayReply(BulkReply("1-1"), IntReply(1_000_000), IntReply(1))))))))},
		{name: "xinfo lag unknown", setup: plus(grp, []string{"XDEL", "s", "1-2"}), cmd: a("XINFO", "GROUPS", "s"), want: ArrayReply(ArrayReply(
			BulkReply("name"), BulkReply("g"), BulkReply("consumers"), IntReply(0), BulkReply("pending"), IntReply(0),
			BulkReply("last-delivered-id"), BulkReply("0-0"), BulkReply("entries-read"), NilReply(), BulkReply("lag"), NilReply()))},
		{name: "xinfo help", cmd: a("xinfo", "help"), want: ArrayReply(StatusReply("XINFO <subcommand> [<arg> [value] [opt] ...]. Subcommands are:"),
			StatusReply("CONSUMERS <key> <groupname>"), StatusReply("    Show consumers of <groupname>."), StatusReply("GROUPS <key>"),
			StatusReply("    Show the stream consumer groups."), StatusReply("STREAM <key> [FULL [COUNT <count>]"),
			StatusReply("    Show information about the stream."), StatusReply("HELP"), StatusReply("    Prints this help."))},
	})
}

func TestStreamIDParsing(t *testing.T) {
	tests := []struct {
		in       string
		strict   bool
		want     streamID
		seqGiven bool
		ok       bool
	}{
		{"1-2", true, streamID{1, 2}, true, true},
		{"5", false, streamID{5, 0}, true, true},
		{"-", false, streamID{}, true, true},
		{"+", false, maxStreamID, true, true},
		{"-", true, streamID{}, false, false},
		{"7-*", true, streamID{7, 0}, false, true},
		{" 7-+3", true, streamID{7, 3}, true, true},
		{"007-010", true, streamID{7, 10}, true, true},
		{"1- -1", true, streamID{1, 1<<64 - 1}, true, true},
		{"1--1", true, streamID{}, false, false},
		{"18446744073709551615-18446744073709551615", true, maxStreamID, true, true},
		{"18446744073709551616", true, streamID{}, false, false},
		{"1\x00junk", true, streamID{1, 0}, true, true},
		{"1-", true, streamID{}, false, false},
		{"", true, streamID{}, false, false},
		{strings.Repeat("1", 128), true, streamID{}, false, false},
	}
	for _, tt := range tests {
		id, seqGiven, ok := parseStreamID(tt.in, 0, tt.strict, true)
		if ok != tt.ok || (ok && (id != tt.want || seqGiven != tt.seqGiven)) {
			t.Errorf("parseStreamID(%q) = %v %v %v, want %v %v %v", tt.in, id, seqGiven, ok, tt.want, tt.seqGiven, tt.ok)
		}
	}
}

// TestStreamSizes pins the listpack sizes the node model counts with.
func TestStreamSizes(t *testing.T) {
	for _, tt := range []struct {
		s    string
		want int64
	}{{"0", 2}, {"127", 2}, {"128", 3}, {"-1", 3}, {"4096", 4}, {"-9223372036854775808", 10}, {"x", 3}, {"01", 4},
		{strings.Repeat("a", 63), 65}, {strings.Repeat("a", 64), 67}, {strings.Repeat("a", 126), 130}, {strings.Repeat("a", 4096), 4103}} {
		if got := lpStrSize(tt.s); got != tt.want {
			t.Errorf("lpStrSize(%.10q) = %d, want %d", tt.s, got, tt.want)
		}
	}
	// One entry a with "f" "v": header 7, count, deleted, 1 field, "f",
	// terminator; flags, 0, 0, "v", lp-count.
	s := newStream()
	s.append(streamID{1, 1}, []string{"f", "v"})
	if n := s.nodes[0]; n.lpBytes() != 7+2+2+2+3+2+2+2+2+3+2 {
		t.Errorf("lpBytes = %d", n.lpBytes())
	}
	if got := s.raxNodes(); got != 2 {
		t.Errorf("raxNodes of one key = %d, want 2", got)
	}
	// Two keys differing in the last byte: a 15-byte compressed node, a
	// branching node, two leaves.
	s.nodes = append(s.nodes, &streamNode{master: streamID{1, 2}})
	if got := s.raxNodes(); got != 4 {
		t.Errorf("raxNodes = %d, want 4", got)
	}
}

// TestStreamExportClone: Export shows entries, counters, groups,
// consumers and pending entries; streamFromState rebuilds the same stream;
// clone is independent of its source.
func TestStreamExportClone(t *testing.T) {
	ctx := context.Background()
	e := New(Options{Now: 5000})
	for _, c := range [][]string{{"XADD", "s", "1-1", "a", "1"}, {"XADD", "s", "1-2", "b", "2"}, {"XGROUP", "CREATE", "s", "g", "0"},
		{"XREADGROUP", "GROUP", "g", "c", "COUNT", "1", "STREAMS", "s", ">"}, {"XDEL", "s", "1-2"}} {
		if r, err := e.Do(ctx, c...); err != nil || r.IsError() {
			t.Fatalf("%q: %s %v", c, r, err)
		}
	}
	s := e.db.get("s").stream
	want := StreamState{
		Entries:      []StreamEntry{{ID: StreamID{1, 1}, Fields: []string{"a", "1"}}},
		LastID:       StreamID{1, 2},
		MaxDeletedID: StreamID{1, 2},
		EntriesAdded: 2,
		Groups: []StreamGroup{{Name: "g", LastID: StreamID{1, 1}, EntriesRead: 1,
			Consumers: []StreamConsumer{{Name: "c", SeenTime: 5000}},
			Pending:   []StreamPending{{ID: StreamID{1, 1}, Consumer: "c", DeliveryTime: 5000, DeliveryCount: 1}}}},
	}
	got := s.Export()
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Export = %+v\nwant %+v", got, want)
	}
	back, err := streamFromState(got)
	if err != nil || !reflect.DeepEqual(back.Export(), want) {
		t.Errorf("streamFromState: %+v %v", back, err)
	}
	c := s.clone()
	e.Do(ctx, "XACK", "s", "g", "1-1")
	e.Do(ctx, "XADD", "s", "2-0", "x", "y")
	if !reflect.DeepEqual(c.Export(), want) {
		t.Errorf("clone changed with its source: %+v", c.Export())
	}
	bad := []StreamState{
		{Entries: []StreamEntry{{ID: StreamID{0, 0}, Fields: []string{"a", "1"}}}},
		{Entries: []StreamEntry{{ID: StreamID{1, 0}, Fields: []string{"a"}}}},
		{Groups: []StreamGroup{{Name: "g", Pending: []StreamPending{{Consumer: "nobody"}}}}},
		{Groups: []StreamGroup{{Name: "g"}, {Name: "g"}}},
		{Entries: []StreamEntry{{ID: StreamID{5, 0}, Fields: []string{"a", "1"}}}, LastID: StreamID{4, 0}},
	}
	// Zero LastID and EntriesAdded default to the last entry and the count.
	def, err := streamFromState(StreamState{Entries: []StreamEntry{{ID: StreamID{5, 0}, Fields: []string{"a", "1"}}}})
	if err != nil || def.lastID != (streamID{5, 0}) || def.entriesAdded != 1 {
		t.Errorf("defaults: %+v %v", def, err)
	}
	for _, st := range bad {
		if _, err := streamFromState(st); err == nil {
			t.Errorf("streamFromState(%+v) accepted", st)
		}
	}
}
