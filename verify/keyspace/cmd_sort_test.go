package keyspace

import (
	"context"
	"testing"

	"github.com/scriptctl/scriptctl/slot"
)

func putList(e *testServer, key string, elems ...string) {
	l := newList()
	for _, x := range elems {
		l.pushBack(x)
	}
	e.db.keys[key] = &value{kind: kindList, list: l}
}

func putSet(e *testServer, key string, members ...string) {
	s := newSet()
	for _, m := range members {
		s.add(m)
	}
	e.db.keys[key] = &value{kind: kindSet, set: s}
}

func putZSet(e *testServer, key string, ms ...ZMember) {
	z := newZSet()
	for _, m := range ms {
		z.set(m.Member, m.Score)
	}
	e.db.keys[key] = &value{kind: kindZSet, zset: z}
}

func TestSortCommand(t *testing.T) {
	fill := func(t *testing.T, e *testServer) {
		putList(e, "l", "3", "1", "2", "10")
		putList(e, "words", "b", "a", "C", "a\x00z", "")
		putList(e, "bad", "1", "x")
		putList(e, "ids", "1", "2", "3")
		putSet(e, "s", "c", "a", "b")
		putZSet(e, "z", ZMember{"a", 3}, ZMember{"b", 1}, ZMember{"c", 2})
		mustDo(t, e, "SET", "w_1", "30")
		mustDo(t, e, "SET", "w_2", "10")
		mustDo(t, e, "HSET", "h_1", "f", "x")
		mustDo(t, e, "HSET", "h_3", "f", "z")
		mustDo(t, e, "SET", "str", "v")
	}
	for _, tc := range []struct {
		name string
		cmd  []string
		want Reply
	}{
		{"numeric", a("SORT", "l"), bulks("1", "2", "3", "10")},
		{"desc", a("SORT", "l", "DESC"), bulks("10", "3", "2", "1")},
		{"alpha", a("SORT", "l", "ALPHA"), bulks("1", "10", "2", "3")},
		{"alpha c strings tie keeps input order", a("SORT", "words", "ALPHA"), bulks("", "C", "a", "a\x00z", "b")},
		{"limit", a("SORT", "l", "LIMIT", "1", "2"), bulks("2", "3")},
		{"limit negative start", a("SORT", "l", "LIMIT", "-3", "1"), bulks("1")},
		{"limit past end", a("SORT", "l", "LIMIT", "9", "1"), bulks()},
		{"limit zero", a("SORT", "l", "LIMIT", "0", "0"), bulks()},
		{"limit negative count", a("SORT", "l", "LIMIT", "2", "-5"), bulks("3", "10")},
		{"nosort", a("SORT", "l", "BY", "nosort"), bulks("3", "1", "2", "10")},
		{"nosort desc limit", a("SORT", "l", "BY", "nosort", "DESC", "LIMIT", "1", "2"), bulks("2", "1")},
		{"nosort zset", a("SORT", "z", "BY", "x"), bulks("b", "c", "a")},
		{"nosort zset desc", a("SORT", "z", "BY", "x", "DESC", "LIMIT", "1", "5"), bulks("c", "b")},
		{"zset alpha", a("SORT", "z", "ALPHA"), bulks("a", "b", "c")},
		{"set alpha", a("SORT", "s", "ALPHA", "DESC"), bulks("c", "b", "a")},
		{"by pattern", a("SORT", "ids", "BY", "w_*"), bulks("3", "2", "1")},
		{"by hash field alpha", a("SORT", "ids", "BY", "h_*->f", "ALPHA"), bulks("2", "1", "3")},
		{"get", a("SORT", "ids", "GET", "#", "GET", "w_*", "GET", "h_*->f", "GET", "const"), ArrayReply(
			BulkReply("1"), BulkReply("30"), BulkReply("x"), NilReply(),
			BulkReply("2"), BulkReply("10"), NilReply(), NilReply(),
			BulkReply("3"), NilReply(), BulkReply("z"), NilReply())},
		{"missing key", a("SORT", "nokey"), bulks()},
		{"not numbers", a("SORT", "bad"), ErrorReply("ERR One or more scores can't be converted into double")},
		{"wrongtype", a("SORT", "str"), errWrongType},
		{"syntax", a("SORT", "l", "FOO"), errSyntax},
		{"limit not int", a("SORT", "l", "LIMIT", "a", "1"), errNotInt},
		{"limit missing", a("SORT", "l", "LIMIT", "1"), errSyntax},
		{"store", a("SORT", "l", "STORE", "dst"), IntReply(4)},
		{"store empty", a("SORT", "nokey", "STORE", "str"), IntReply(0)},
		{"sort_ro", a("SORT_RO", "l", "DESC", "LIMIT", "0", "1"), bulks("10")},
		{"sort_ro store", a("SORT_RO", "l", "STORE", "dst"), errSyntax},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// BY and GET patterns as a standalone server takes them
			// (TestSortCluster has a cluster's rules).
			e := New(Options{Topology: TopologyStandalone})
			fill(t, e)
			got, err := e.Do(context.Background(), tc.cmd...)
			if err != nil || !got.Equal(tc.want) {
				t.Errorf("%q: %s %v, want %s", tc.cmd, got, err, tc.want)
			}
		})
	}
}

func TestSortStore(t *testing.T) {
	e := New(Options{Topology: TopologyStandalone})
	putList(e, "l", "2", "1")
	mustDo(t, e, "SET", "dst", "old", "PX", "100")
	if r := mustDo(t, e, "SORT", "l", "GET", "#", "GET", "v_*", "STORE", "dst"); !r.Equal(IntReply(4)) {
		t.Fatalf("SORT STORE: %s", r)
	}
	v := e.db.get("dst")
	if v == nil || v.kind != kindList || v.expireAt != 0 {
		t.Fatalf("dst = %+v", v)
	}
	if got := v.list.items(); len(got) != 4 || got[0] != "1" || got[1] != "" || got[2] != "2" || got[3] != "" {
		t.Errorf("stored %q", got)
	}
	// With STORE, ALPHA compares whole byte strings (memcmp), not C strings.
	putList(e, "w", "b", "a\x00z", "a")
	mustDo(t, e, "SORT", "w", "ALPHA", "STORE", "dst")
	if got := e.db.get("dst").list.items(); len(got) != 3 || got[0] != "a" || got[1] != "a\x00z" || got[2] != "b" {
		t.Errorf("SORT ALPHA STORE: %q", got)
	}
	putList(e, "w", "b", "a\x00z", "a")
	mustDo(t, e, "SORT", "w", "ALPHA", "DESC", "STORE", "dst")
	if got := e.db.get("dst").list.items(); len(got) != 3 || got[0] != "b" || got[1] != "a\x00z" || got[2] != "a" {
		t.Errorf("SORT ALPHA DESC STORE: %q", got)
	}
	mustDo(t, e, "SORT", "missing", "STORE", "dst")
	if e.db.get("dst") != nil {
		t.Errorf("an empty SORT STORE left dst")
	}
}

func TestSortStrtod(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want float64
		ok   bool
	}{
		{"", 0, true}, {"1", 1, true}, {" 5", 5, true}, {"5 ", 0, false}, {" ", 0, false},
		{"0x10", 16, true}, {"0x1p3", 8, true}, {"-1.5e2", -150, true}, {".5", 0.5, true},
		{"1e400", 0, false}, {"1e-400", 0, false}, {"4e-320", 0, false}, {"0e-999", 0, true},
		{"nan", 0, false}, {"1_0", 0, false}, {"0x", 0, false}, {"+-1", 0, false}, {"7\x00junk", 7, true},
	} {
		got, ok := sortStrtod(New(Options{}).Server, tc.in)
		if ok != tc.ok || (ok && got != tc.want) {
			t.Errorf("sortStrtod(%q) = %v, %v; want %v, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
	if f, ok := sortStrtod(New(Options{}).Server, "-inf"); !ok || f > -1e308 {
		t.Errorf("sortStrtod(-inf) = %v, %v", f, ok)
	}
}

func TestSortKeys(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{a("sort", "l"), []string{"l"}},
		{a("sort", "l", "STORE", "d"), []string{"l", "d"}},
		{a("sort", "l", "store", "d", "STORE", "e"), []string{"l", "e"}},
		{a("sort", "l", "GET", "store", "x"), []string{"l"}},
		{a("sort", "l", "LIMIT", "store", "y", "z"), []string{"l"}},
		{a("sort", "l", "STORE"), []string{"l"}},
	} {
		got := sortKeys(tc.args)
		if len(got) != len(tc.want) || got[0] != tc.want[0] || (len(got) > 1 && got[1] != tc.want[1]) {
			t.Errorf("sortKeys(%q) = %q, want %q", tc.args, got, tc.want)
		}
	}
}

// TestSortCluster: on a cluster Redis 7.0 refuses every GET and a BY with
// '*'; from 7.4 (Valkey 8.0) only a pattern whose keys may be in another
// slot than the sorted key's (sort.c, patternHashSlot), and from 8.0
// (Valkey 8.1) never GET "#".
func TestSortCluster(t *testing.T) {
	ctx := context.Background()
	const (
		by70   = "ERR BY option of SORT denied in Cluster mode."
		get70  = "ERR GET option of SORT denied in Cluster mode."
		get74  = "ERR GET option of SORT denied in Cluster mode when keys formed by the pattern may be in different slots."
		byNew  = "ERR BY option of SORT denied in Cluster mode when keys formed by the pattern may be in different slots."
		sorted = "sorted"
	)
	for _, tc := range []struct {
		target string
		args   []string
		want   string // an error text, or sorted
	}{
		{"redis-7.0", a("SORT", "{t}l", "BY", "{t}w_*"), by70},
		{"redis-7.0", a("SORT", "{t}l", "BY", "nosort"), sorted},
		{"redis-7.0", a("SORT", "{t}l", "GET", "#"), get70},
		{"valkey-7.2", a("SORT", "{t}l", "GET", "{t}w_*"), get70},
		{"redis-8.0", a("SORT", "{t}l", "BY", "{t}w_*"), sorted},
		{"redis-8.0", a("SORT", "{t}l", "BY", "w_*"), byNew},
		{"redis-8.0", a("SORT", "{t}l", "GET", "#"), sorted},
		{"redis-7.4", a("SORT", "{t}l", "GET", "#"), get74},
		{"valkey-8.0", a("SORT", "{t}l", "GET", "#"), get74},
		{"valkey-8.1", a("SORT", "{t}l", "GET", "#"), sorted},
		{"valkey-8.1", a("SORT", "{t}l", "GET", "{t}w_*"), sorted},
		{"valkey-8.1", a("SORT", "{t}l", "GET", "w_\\*"), get74},
		{"redis-7.4", a("SORT", "{t}l", "GET", "{t}w_*", "GET", "{u}x"), get74},
	} {
		e := New(Options{Target: tc.target})
		putList(e, "{t}l", "2", "1")
		r, err := e.Do(ctx, tc.args...)
		if err != nil {
			t.Fatalf("%s %q: %v", tc.target, tc.args, err)
		}
		if got := r.Kind == Error; got != (tc.want != sorted) || (got && r.Str != tc.want) {
			t.Errorf("%s %q: %s, want %s", tc.target, tc.args, r, tc.want)
		}
		e = New(Options{Target: tc.target, Topology: TopologyStandalone})
		putList(e, "{t}l", "2", "1")
		if r, err := e.Do(ctx, tc.args...); err != nil || r.Kind == Error {
			t.Errorf("%s %q standalone: %s %v", tc.target, tc.args, r, err)
		}
	}
	for p, want := range map[string]int{"a*": -1, "{t}a*": slot.Of("t"), "a{}b": slot.Of("a{}b"), "a?": -1, "[a]": -1, "a\\b": -1, "{x": slot.Of("{x"), "ab": slot.Of("ab")} {
		if got := patternHashSlot(p); got != want {
			t.Errorf("patternHashSlot(%q) = %d, want %d", p, got, want)
		}
	}
}

// TestSortSetOrderClient checks that a set sorted BY a constant is sorted
// (ALPHA) with STORE, and warns from a client (verify's TestSortSetOrder
// has a script's).
func TestSortSetOrderClient(t *testing.T) {
	e := New(Options{})
	putSet(e, "s", "c", "a", "10")
	e.warnings = nil
	mustDo(t, e, "SORT", "s", "BY", "nosort")
	if len(e.Warnings()) == 0 {
		t.Errorf("SORT of a hashtable set BY nosort from a client: no warning")
	}
	mustDo(t, e, "SORT", "s", "BY", "nosort", "STORE", "d")
	if got := e.db.get("d").list.items(); len(got) != 3 || got[0] != "10" || got[2] != "c" {
		t.Errorf("STORE of a set BY nosort: %q", got)
	}
}
