package verify

import (
	"context"
	"fmt"
	"math/rand"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// streamLiveCase is a sequence of commands whose every reply must be the
// same offline and on redis-server. Only explicit IDs are used where a
// reply shows one, since the two clocks differ by a few ms.
type streamLiveCase struct {
	name string
	cmds [][]string
}

// runStreamLive runs each case on a fresh engine and a flushed server.
func runStreamLive(t *testing.T, cases []streamLiveCase) {
	t.Helper()
	if testing.Short() {
		t.Skip("live differential: needs redis-server")
	}
	live := liveServer(t)
	ctx := context.Background()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			live("FLUSHALL")
			e := New(Options{Target: liveTarget(t), Topology: TopologyStandalone})
			for _, cmd := range c.cmds {
				want := live(cmd...)
				e.Advance(time.Now().UnixMilli() - e.Now())
				got, err := e.Do(ctx, cmd...)
				if err != nil {
					t.Fatalf("%q: %v (live %s)", cmd, err, want)
				}
				got, want = maskTimes(cmd, got), maskTimes(cmd, want)
				if !got.Equal(want) {
					t.Fatalf("%q:\noffline %s\nlive    %s", cmd, got, want)
				}
			}
		})
	}
}

// maskTimes zeroes what depends on the clock in a reply: XPENDING's idle
// times, XINFO's idle, seen and delivery times, IDs XADD generated.
func maskTimes(cmd []string, r Reply) Reply {
	name := strings.ToUpper(cmd[0])
	switch {
	case name == "XADD" && r.Kind == Bulk && slices.ContainsFunc(cmd, func(a string) bool { return strings.HasSuffix(a, "*") }):
		return BulkReply("<id>")
	case name == "XPENDING" && len(cmd) >= 6 && r.Kind == Array:
		for _, row := range r.Elems {
			if len(row.Elems) == 4 {
				row.Elems[2] = IntReply(0)
			}
		}
	case name == "XINFO" && r.Kind == Array:
		maskInfo(r)
	}
	return r
}

// maskInfo zeroes the values of idle, seen-time, inactive, active-time and
// the delivery times in pending lists, wherever they are nested.
func maskInfo(r Reply) {
	for i := 0; i+1 < len(r.Elems); i++ {
		k := r.Elems[i]
		if k.Kind == Bulk && (k.Str == "idle" || k.Str == "seen-time") {
			r.Elems[i+1] = IntReply(0)
		}
		// 7.2's active times: -1 (never active) is kept.
		if k.Kind == Bulk && (k.Str == "inactive" || k.Str == "active-time") && r.Elems[i+1].Int != -1 {
			r.Elems[i+1] = IntReply(0)
		}
		if k.Kind == Bulk && k.Str == "pending" && r.Elems[i+1].Kind == Array {
			for _, row := range r.Elems[i+1].Elems {
				if n := len(row.Elems); n == 4 || n == 3 {
					row.Elems[n-2] = IntReply(0)
				}
			}
		}
	}
	for _, el := range r.Elems {
		if el.Kind == Array {
			maskInfo(el)
		}
	}
}

func cmdsOf(lines ...string) [][]string {
	out := make([][]string, len(lines))
	for i, l := range lines {
		out[i] = strings.Fields(l)
	}
	return out
}

// TestStreamLiveNodes fills streams with entries of varied sizes and
// field layouts, so that listpack nodes close on stream-node-max-bytes
// and on stream-node-max-entries (seeds 7 and 8), and checks node counts (XINFO STREAM's
// radix-tree-keys and radix-tree-nodes), approximate and exact trimming,
// deletions and appends after trimming against the live server.
func TestStreamLiveNodes(t *testing.T) {
	var cases []streamLiveCase
	for seed := int64(1); seed <= 8; seed++ {
		cases = append(cases, streamLiveCase{name: "seed" + strconv.FormatInt(seed, 10), cmds: nodeWorkload(seed)})
	}
	runStreamLive(t, cases)
}

// nodeWorkload XADDs entries with deterministic pseudo-random IDs and
// sizes (short, integer-encoded, 64+ and 4096+ byte values; same or new
// field names), deleting and trimming in between.
func nodeWorkload(seed int64) [][]string {
	r := rand.New(rand.NewSource(seed))
	var cmds [][]string
	ms, seq := uint64(1000+r.Intn(100)), uint64(0)
	info := func() {
		cmds = append(cmds, []string{"XINFO", "STREAM", "s"}, []string{"XLEN", "s"}, []string{"XRANGE", "s", "-", "+", "COUNT", "1"})
	}
	var added []string
	for round := 0; round < 6; round++ {
		n := 150 + r.Intn(400)
		for i := 0; i < n; i++ {
			if r.Intn(3) == 0 {
				ms += uint64(r.Intn(5000))
				seq = uint64(r.Intn(3))
			} else {
				seq++
			}
			id := fmt.Sprintf("%d-%d", ms, seq)
			cmd := []string{"XADD", "s", id}
			nf := 1 + r.Intn(3)
			for f := 0; f < nf; f++ {
				field := "f" + strconv.Itoa(f)
				if r.Intn(6) == 0 {
					field = "g" + strconv.Itoa(r.Intn(200))
				}
				var val string
				kind := r.Intn(6)
				if seed > 6 {
					kind = 0 // small entries: nodes close on stream-node-max-entries
				}
				switch kind {
				case 0:
					val = strconv.Itoa(r.Intn(100000) - 50000)
				case 1:
					val = strings.Repeat("v", 60+r.Intn(200))
				case 2:
					if r.Intn(8) == 0 {
						val = strings.Repeat("w", 4000+r.Intn(200))
					} else {
						val = "x"
					}
				default:
					val = strings.Repeat("y", r.Intn(40))
				}
				cmd = append(cmd, field, val)
			}
			cmds = append(cmds, cmd)
			added = append(added, id)
		}
		info()
		for d := 0; d < 20; d++ {
			cmds = append(cmds, []string{"XDEL", "s", added[r.Intn(len(added))]})
		}
		info()
		switch round % 3 {
		case 0:
			cmds = append(cmds, []string{"XTRIM", "s", "MAXLEN", "~", strconv.Itoa(r.Intn(300))})
		case 1:
			cmds = append(cmds, []string{"XTRIM", "s", "MINID", "~", added[r.Intn(len(added))]})
		case 2:
			cmds = append(cmds, []string{"XTRIM", "s", "MAXLEN", strconv.Itoa(50 + r.Intn(300))})
		}
		info()
		cmds = append(cmds, []string{"XADD", "s", "MAXLEN", "~", strconv.Itoa(100 + r.Intn(300)), fmt.Sprintf("%d-0", ms+1), "a", "1"})
		ms++
		info()
	}
	cmds = append(cmds, []string{"XTRIM", "s", "MINID", "~", "0", "LIMIT", "150"}, []string{"XINFO", "STREAM", "s", "FULL", "COUNT", "0"})
	return cmds
}

// TestStreamLiveCommands compares command sequences covering every stream
// command's replies and errors, consumer groups included (with times kept
// out of the replies compared).
func TestStreamLiveCommands(t *testing.T) {
	runStreamLive(t, []streamLiveCase{
		{"xadd-ids", cmdsOf("XADD s 1-1 a 1", "XADD s 1-1 a 1", "XADD s 1 a 1", "XADD s 1-* a 2", "XADD s 2-* a 3", "XADD s 0-0 a 1",
			"XADD s 0 a 1", "XADD t 0-* a 1", "XADD s 18446744073709551615-18446744073709551615 a 1", "XADD s 5-1 a 1", "XLEN s",
			"XADD u 5-18446744073709551615 f v", "XADD u 5-* f v", "XADD u 6-* f v")},
		{"xadd-parse", cmdsOf("XADD s", "XADD s 1-1", "XADD s 1-1 a", "XADD s NOMKSTREAM 1-1 a b", "EXISTS s", "XADD s MAXLEN 1-1 a b",
			"XADD s MAXLEN -1 1-1 a b", "XADD s MAXLEN 1 MINID 1 1-1 a b", "XADD s LIMIT 5 1-1 a b", "XADD s LIMIT 0 1-1 a b",
			"XADD s MAXLEN 5 LIMIT 5 2-1 a b", "XADD s MAXLEN ~ 5 LIMIT 5 3-1 a b", "XADD s MAXLEN ~ 5 LIMIT -1 3-1 a b", "XADD s MINID + 4-1 a b",
			"XADD s MINID - 4-1 a b", "XADD s x-1 a b", "XADD s 1-x a b", "XADD s + a b", "XADD s MAXLEN = 1 9-1 a b", "XRANGE s - +",
			"XADD s maxlen ~ 1 10-1 a b", "XADD s 00011-00 a b", "XADD s 12-01 a b", "XADD s MAXLEN", "XADD s MAXLEN 5",
			"XADD s MAXLEN ~", "XADD s NOMKSTREAM", "XRANGE s - +")},
		{"xadd-wrongtype", cmdsOf("SET k v", "XADD k 1-1 a b", "XLEN k", "XRANGE k - +", "XDEL k 1", "XTRIM k MAXLEN 1", "XSETID k 1",
			"XGROUP CREATE k g 0", "XREAD STREAMS k 0", "XACK k g 1", "XPENDING k g", "XCLAIM k g c 0 1", "XAUTOCLAIM k g c 0 0", "XINFO STREAM k")},
		{"xrange", cmdsOf("XADD s 1-1 a 1", "XADD s 1-2 b 2 c 3", "XADD s 2-0 a 3", "XADD s 3-5 a 4", "XRANGE s - +", "XREVRANGE s + -",
			"XRANGE s 1 1", "XRANGE s (1-1 +", "XRANGE s - (3-5", "XRANGE s (1 +", "XREVRANGE s (3-5 (1-1", "XRANGE s - + COUNT 2",
			"XRANGE s - + COUNT 0", "XRANGE s - + COUNT -1", "XRANGE s - + COUNT x", "XRANGE s - + LIMIT 1", "XRANGE s - + COUNT",
			"XRANGE s 3 1", "XRANGE s ( +", "XRANGE s (- +", "XRANGE s - (+", "XRANGE s (18446744073709551615-18446744073709551615 +",
			"XRANGE s - (0-0", "XRANGE s -1 +", "XRANGE nokey - + COUNT 0", "XREVRANGE s 2 1 COUNT 1 COUNT 5", "XRANGE s 1-1-1 +")},
		{"xdel", cmdsOf("XADD s 1-1 a 1", "XADD s 1-2 a 2", "XADD s 1-3 a 3", "XDEL s 1-2 9-9 1-2", "XDEL s x", "XDEL s 1-1 x",
			"XDEL nokey x", "XLEN s", "XINFO STREAM s", "XDEL s 1-1 1-3", "XINFO STREAM s", "EXISTS s", "XADD s 1-3 a 1", "XADD s 1-4 a 1", "XINFO STREAM s")},
		{"xtrim", cmdsOf("XADD s 1-1 a 1", "XADD s 1-2 a 2", "XADD s 1-3 a 3", "XADD s 1-4 a 4", "XTRIM s", "XTRIM s FOO 1",
			"XTRIM s MAXLEN x", "XTRIM s LIMIT 10", "XTRIM s MAXLEN 2 LIMIT 10", "XTRIM s MAXLEN ~ 0 LIMIT 1", "XTRIM s MAXLEN 3", "XRANGE s - +",
			"XTRIM s MINID 1-3", "XRANGE s - +", "XTRIM s MINID ~ 9", "XINFO STREAM s", "XTRIM s MAXLEN 0", "XINFO STREAM s", "XTRIM nokey MAXLEN 0",
			"XTRIM s MINID", "XTRIM s MINID -", "XTRIM s MAXLEN 1 NOMKSTREAM")},
		{"xsetid", cmdsOf("XSETID nokey 1", "XADD s 5-5 a 1", "XSETID s 5-4", "XSETID s 5-5", "XSETID s 9 ENTRIESADDED 0", "XSETID s 9 ENTRIESADDED -1",
			"XSETID s 9 ENTRIESADDED 7 MAXDELETEDID 3", "XSETID s 9 MAXDELETEDID 10", "XSETID s 9 FOO 1", "XSETID s - ", "XSETID s 9 ENTRIESADDED",
			"XINFO STREAM s", "XDEL s 5-5", "XSETID s 1", "XINFO STREAM s", "XADD s * a b", "XSETID s 18446744073709551615-18446744073709551615",
			"XADD s * a b")},
		{"groups", cmdsOf("XGROUP CREATE s g $", "XGROUP CREATE s g $ MKSTREAM", "XGROUP CREATE s g 0", "XGROUP CREATE s g2 0 ENTRIESREAD -2",
			"XGROUP CREATE s g2 0 ENTRIESREAD x", "XGROUP CREATE s g2 + ", "XGROUP CREATE s g2 0 FOO", "XGROUP CREATE s g2 0 ENTRIESREAD 3",
			"XGROUP SETID s nog 0", "XGROUP SETID s g 5 ENTRIESREAD 2", "XGROUP SETID s g + ", "XGROUP SETID s g $ MKSTREAM",
			"XGROUP CREATECONSUMER s g c1", "XGROUP CREATECONSUMER s g c1", "XGROUP CREATECONSUMER s nog c1", "XGROUP DELCONSUMER s g c9",
			"XGROUP DELCONSUMER s g c1", "XGROUP DESTROY s nog", "XGROUP DESTROY s g2", "XGROUP DESTROY nokey g", "XGROUP FOO s g",
			"XGROUP", "XGROUP HELP", "XGROUP HELP x", "XGROUP CREATE s", "XGROUP DESTROY s g x", "XINFO GROUPS s", "XINFO HELP", "XINFO FOO",
			"XINFO STREAM nokey", "XINFO CONSUMERS s nog", "XINFO GROUPS s x", "XINFO STREAM s FULL COUNT", "XINFO STREAM s FOO", "XINFO STREAM s FULL COUNT x",
			"XGROUP CREATE s g3 0 ENTRIESREAD 1 MKSTREAM ENTRIESREAD 2", "XGROUP SETID s g 0 ENTRIESREAD 1 ENTRIESREAD 2")},
		{"readgroup", cmdsOf("XADD s 1-1 a 1", "XADD s 1-2 b 2", "XADD s 1-3 c 3", "XGROUP CREATE s g 0", "XREADGROUP GROUP g c1 COUNT 1 STREAMS s >",
			"XREADGROUP GROUP g c2 STREAMS s >", "XREADGROUP GROUP g c2 STREAMS s >", "XREADGROUP GROUP g c1 STREAMS s 0", "XREADGROUP GROUP g c2 COUNT 1 STREAMS s 1-2",
			"XPENDING s g", "XPENDING s g - + 10", "XPENDING s g - + 10 c2", "XPENDING s g - + 10 nobody", "XPENDING s g (1-1 + 1", "XACK s g 1-1 1-1 9-9",
			"XACK s g x", "XACK s nog x", "XPENDING s g", "XDEL s 1-2", "XREADGROUP GROUP g c2 STREAMS s 0", "XINFO GROUPS s", "XADD s 1-4 d 4",
			"XINFO GROUPS s", "XREADGROUP GROUP g c3 NOACK STREAMS s >", "XINFO GROUPS s", "XPENDING s g", "XGROUP SETID s g 0",
			"XREADGROUP GROUP g c3 STREAMS s >", "XPENDING s g", "XGROUP DELCONSUMER s g c3", "XPENDING s g", "XREADGROUP GROUP nog c STREAMS s >",
			"XREADGROUP GROUP g c STREAMS s $", "XREADGROUP GROUP g c STREAMS s", "XREADGROUP GROUP g STREAMS s >", "XREADGROUP STREAMS s >",
			"XREADGROUP GROUP g c STREAMS s x", "XREADGROUP GROUP g c COUNT x STREAMS s >", "XREADGROUP GROUP g c FOO STREAMS s >",
			"XREADGROUP GROUP g c STREAMS s 18446744073709551615-18446744073709551615", "XREADGROUP GROUP g c STREAMS s nokey > >")},
		{"xread", cmdsOf("XADD s 1-1 a 1", "XADD s 1-2 b 2", "XADD t 5-1 x y", "XREAD STREAMS s 0", "XREAD COUNT 1 STREAMS s t 0 0", "XREAD STREAMS s t $ 5",
			"XREAD STREAMS s nokey 1-1 0", "XREAD STREAMS s >", "XREAD GROUP g c STREAMS s 0", "XREAD NOACK STREAMS s 0", "XREAD STREAMS s",
			"XREAD COUNT -5 STREAMS s 0", "XREAD STREAMS s -", "XREAD STREAMS s +", "XREAD BLOCK x STREAMS s 0", "XREAD BLOCK -1 STREAMS s 0",
			"XREAD BLOCK 10 STREAMS s 0", "XREAD FOO STREAMS s 0", "XREAD COUNT 1")},
		{"claim", cmdsOf("XADD s 1-1 a 1", "XADD s 1-2 b 2", "XADD s 1-3 c 3", "XGROUP CREATE s g 0", "XREADGROUP GROUP g c1 STREAMS s >",
			"XCLAIM s g c2 0 1-1 1-9", "XCLAIM s g c2 0 1-2 JUSTID", "XCLAIM s g c2 0 1-3 RETRYCOUNT 7 JUSTID", "XPENDING s g - + 10",
			"XCLAIM s g c3 0 1-1 FORCE", "XCLAIM s g c3 0 1-9 FORCE", "XDEL s 1-1", "XCLAIM s g c3 0 1-1", "XPENDING s g", "XCLAIM s nog c 0 1-1",
			"XCLAIM s g c x 1-1", "XCLAIM s g c 0 1-1 IDLE x", "XCLAIM s g c 0 1-1 TIME x", "XCLAIM s g c 0 1-1 RETRYCOUNT x", "XCLAIM s g c 0 1-1 LASTID x",
			"XCLAIM s g c 0 1-1 FOO", "XCLAIM s g c 0 1-1 IDLE", "XCLAIM s g c 0 FORCE", "XCLAIM s g c 0 1-2 LASTID 9-9 JUSTID", "XINFO GROUPS s",
			"XCLAIM s g c 1000000 1-2 JUSTID", "XAUTOCLAIM s g c4 0 0 COUNT 1", "XAUTOCLAIM s g c4 0 0 JUSTID", "XAUTOCLAIM s g c4 0 (1-2",
			"XAUTOCLAIM s g c4 x 0", "XAUTOCLAIM s g c4 0 x", "XAUTOCLAIM s g c4 0 0 COUNT 0", "XAUTOCLAIM s g c4 0 0 COUNT x", "XAUTOCLAIM s g c4 0 0 FOO",
			"XAUTOCLAIM s nog c 0 0", "XAUTOCLAIM s g c4 0 0 COUNT 576460752303423488", "XAUTOCLAIM s g c4 0 0 COUNT 576460752303423487",
			"XDEL s 1-2", "XAUTOCLAIM s g c4 0 - JUSTID", "XPENDING s g", "XAUTOCLAIM s g c4 100000 0", "XPENDING s g IDLE 100000 - + 10",
			"XPENDING s g IDLE x - + 10", "XPENDING s g IDLE 5 - +", "XPENDING s g - + x", "XPENDING s g x + 1", "XPENDING s g - x 1", "XPENDING s g -",
			"XPENDING s g - + 10 c4 extra", "XPENDING nokey g", "XINFO CONSUMERS s g")},
		{"autoclaim-deleted", cmdsOf("XADD s 1-1 a 1", "XADD s 1-2 b 2", "XADD s 1-3 c 3", "XADD s 1-4 c 3", "XGROUP CREATE s g 0",
			"XREADGROUP GROUP g c1 STREAMS s >", "XDEL s 1-1 1-3", "XAUTOCLAIM s g c2 0 0 COUNT 1", "XAUTOCLAIM s g c2 0 0 COUNT 1",
			"XAUTOCLAIM s g c2 0 0 COUNT 1", "XAUTOCLAIM s g c2 0 0 COUNT 1", "XPENDING s g")},
		{"lag", cmdsOf("XGROUP CREATE s g $ MKSTREAM", "XINFO GROUPS s", "XADD s 1-1 a 1", "XADD s 1-2 a 1", "XADD s 1-3 a 1", "XINFO GROUPS s",
			"XREADGROUP GROUP g c COUNT 1 STREAMS s >", "XINFO GROUPS s", "XDEL s 1-3", "XINFO GROUPS s", "XREADGROUP GROUP g c STREAMS s >",
			"XINFO GROUPS s", "XGROUP CREATE s g2 0", "XINFO GROUPS s", "XGROUP SETID s g2 1-2 ENTRIESREAD 2", "XINFO GROUPS s", "XDEL s 1-1",
			"XGROUP CREATE s g3 0", "XINFO GROUPS s", "XREADGROUP GROUP g3 c STREAMS s >", "XINFO GROUPS s")},
		{"info-full", cmdsOf("XADD s 1-1 a 1 b 2", "XADD s 1-2 a 3 b 4", "XADD s 1-3 c 5", "XINFO STREAM s FULL", "XINFO STREAM s FULL COUNT 1",
			"XINFO STREAM s FULL COUNT -3", "XGROUP CREATE s g1 0", "XGROUP CREATE s g0 $", "XINFO STREAM s", "XINFO GROUPS s")},
	})
}
