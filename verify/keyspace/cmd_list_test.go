package keyspace

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"testing"
)

// listCase is a list-command test: set-up commands, one client command, its
// reply, and afterwards the lists (a nil slice: the key must not exist),
// string values and PTTLs of some keys.
type listCase struct {
	name  string
	setup [][]string
	cmd   []string
	want  Reply
	lists map[string][]string
	strs  map[string]string
	pttl  map[string]int64
}

func runListCases(t *testing.T, cases []listCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := New(Options{Now: 1_000_000})
			mustDoAll(t, e, tc.setup...)
			got, err := e.Do(context.Background(), tc.cmd...)
			if err != nil {
				t.Fatalf("%q: %v", tc.cmd, err)
			}
			if !got.Equal(tc.want) {
				t.Errorf("%q: reply %s, want %s", tc.cmd, got, tc.want)
			}
			checkLists(t, e, tc.lists)
			for k, want := range tc.strs {
				if en, ok := e.Entry(k); !ok || en.Type != "string" || en.Value != want {
					t.Errorf("key %q = %+v (exists %v), want string %q", k, en, ok, want)
				}
			}
			for k, want := range tc.pttl {
				if en, _ := e.Entry(k); en.PTTL != want {
					t.Errorf("key %q PTTL %d, want %d", k, en.PTTL, want)
				}
			}
		})
	}
}

func mustDoAll(t *testing.T, e *testServer, cmds ...[]string) {
	t.Helper()
	for _, c := range cmds {
		if r, err := e.Do(context.Background(), c...); err != nil || r.Kind == Error {
			t.Fatalf("setup %q: %s %v", c, r, err)
		}
	}
}

// checkLists compares stored lists; a nil want means the key is gone.
func checkLists(t *testing.T, e *testServer, lists map[string][]string) {
	t.Helper()
	for k, want := range lists {
		v := e.db.get(k)
		if want == nil {
			if v != nil {
				t.Errorf("key %q exists (kind %s), want it gone", k, v.kind)
			}
			continue
		}
		if v == nil || v.kind != kindList {
			t.Errorf("key %q is not a list: %+v, want %q", k, v, want)
			continue
		}
		if got := v.list.items(); !slices.Equal(got, want) {
			t.Errorf("list %q = %q, want %q", k, got, want)
		}
	}
}

// bulks is an array reply of bulk strings.
func bulks(ss ...string) Reply {
	out := make([]Reply, len(ss))
	for i, s := range ss {
		out[i] = BulkReply(s)
	}
	return ArrayReply(out...)
}

func ints(ns ...int64) Reply {
	out := make([]Reply, len(ns))
	for i, n := range ns {
		out[i] = IntReply(n)
	}
	return ArrayReply(out...)
}

var (
	abc      = []string{"RPUSH", "l", "a", "b", "c"}
	strL     = []string{"SET", "l", "v"}
	strD     = []string{"SET", "d", "v"}
	none     = []string(nil)
	wantAbc  = map[string][]string{"l": {"a", "b", "c"}}
	wantGone = map[string][]string{"l": none}
	wantStrL = map[string]string{"l": "v"}
)

func TestListPush(t *testing.T) {
	runListCases(t, []listCase{
		{name: "lpush new", cmd: a("LPUSH", "l", "a", "b", "c"), want: IntReply(3), lists: map[string][]string{"l": {"c", "b", "a"}}},
		{name: "rpush new", cmd: a("RPUSH", "l", "a", "b"), want: IntReply(2), lists: map[string][]string{"l": {"a", "b"}}},
		{name: "lpush existing", setup: [][]string{abc}, cmd: a("LPUSH", "l", "x"), want: IntReply(4), lists: map[string][]string{"l": {"x", "a", "b", "c"}}},
		{name: "rpush binary", cmd: a("RPUSH", "l", "\x00\xff", ""), want: IntReply(2), lists: map[string][]string{"l": {"\x00\xff", ""}}},
		{name: "lpush wrongtype", setup: [][]string{strL}, cmd: a("LPUSH", "l", "x"), want: errWrongType, strs: wantStrL},
		{name: "rpush arity", cmd: a("RPUSH", "l"), want: errArity("rpush"), lists: wantGone},
		{name: "lpushx missing", cmd: a("LPUSHX", "l", "x"), want: IntReply(0), lists: wantGone},
		{name: "lpushx existing", setup: [][]string{abc}, cmd: a("LPUSHX", "l", "x", "y"), want: IntReply(5), lists: map[string][]string{"l": {"y", "x", "a", "b", "c"}}},
		{name: "rpushx missing", cmd: a("RPUSHX", "l", "x"), want: IntReply(0), lists: wantGone},
		{name: "rpushx existing", setup: [][]string{abc}, cmd: a("RPUSHX", "l", "x"), want: IntReply(4), lists: map[string][]string{"l": {"a", "b", "c", "x"}}},
		{name: "rpushx wrongtype", setup: [][]string{strL}, cmd: a("RPUSHX", "l", "x"), want: errWrongType, strs: wantStrL},
		{name: "push keeps ttl", setup: [][]string{abc, {"PEXPIRE", "l", "500"}}, cmd: a("RPUSH", "l", "x"), want: IntReply(4), pttl: map[string]int64{"l": 500}},
	})
}

func TestListPop(t *testing.T) {
	errPositive := ErrorReply("ERR value is out of range, must be positive")
	runListCases(t, []listCase{
		{name: "lpop", setup: [][]string{abc}, cmd: a("LPOP", "l"), want: BulkReply("a"), lists: map[string][]string{"l": {"b", "c"}}},
		{name: "rpop", setup: [][]string{abc}, cmd: a("RPOP", "l"), want: BulkReply("c"), lists: map[string][]string{"l": {"a", "b"}}},
		{name: "lpop missing", cmd: a("LPOP", "l"), want: NilReply()},
		{name: "lpop count", setup: [][]string{abc}, cmd: a("LPOP", "l", "2"), want: bulks("a", "b"), lists: map[string][]string{"l": {"c"}}},
		{name: "rpop count tail first", setup: [][]string{abc}, cmd: a("RPOP", "l", "2"), want: bulks("c", "b"), lists: map[string][]string{"l": {"a"}}},
		{name: "lpop count 0", setup: [][]string{abc}, cmd: a("LPOP", "l", "0"), want: ArrayReply(), lists: wantAbc},
		{name: "lpop count 0 missing", cmd: a("LPOP", "l", "0"), want: NilReply()},
		{name: "lpop count 0 wrongtype", setup: [][]string{strL}, cmd: a("LPOP", "l", "0"), want: errWrongType},
		{name: "rpop count missing", cmd: a("RPOP", "l", "3"), want: NilReply()},
		{name: "lpop count negative", setup: [][]string{abc}, cmd: a("LPOP", "l", "-1"), want: errPositive, lists: wantAbc},
		{name: "lpop count not integer", setup: [][]string{strL}, cmd: a("LPOP", "l", "x"), want: errPositive},
		{name: "lpop count beyond deletes", setup: [][]string{abc}, cmd: a("LPOP", "l", "9223372036854775807"), want: bulks("a", "b", "c"), lists: wantGone},
		{name: "pop last deletes", setup: [][]string{{"RPUSH", "l", "a"}}, cmd: a("RPOP", "l"), want: BulkReply("a"), lists: wantGone},
		{name: "pop extra argument", setup: [][]string{abc}, cmd: a("LPOP", "l", "1", "2"), want: errArity("lpop"), lists: wantAbc},
		{name: "pop wrongtype", setup: [][]string{strL}, cmd: a("RPOP", "l"), want: errWrongType, strs: wantStrL},
		{name: "pop keeps ttl", setup: [][]string{abc, {"PEXPIRE", "l", "500"}}, cmd: a("LPOP", "l"), want: BulkReply("a"), pttl: map[string]int64{"l": 500}},
	})
}

func TestListLlen(t *testing.T) {
	runListCases(t, []listCase{
		{name: "llen", setup: [][]string{abc}, cmd: a("LLEN", "l"), want: IntReply(3)},
		{name: "llen missing", cmd: a("LLEN", "l"), want: IntReply(0)},
		{name: "llen wrongtype", setup: [][]string{strL}, cmd: a("LLEN", "l"), want: errWrongType},
	})
}

func TestListLrange(t *testing.T) {
	runListCases(t, []listCase{
		{name: "all", setup: [][]string{abc}, cmd: a("LRANGE", "l", "0", "-1"), want: bulks("a", "b", "c")},
		{name: "negative", setup: [][]string{abc}, cmd: a("LRANGE", "l", "-2", "-1"), want: bulks("b", "c")},
		{name: "start after end", setup: [][]string{abc}, cmd: a("LRANGE", "l", "2", "1"), want: ArrayReply()},
		{name: "start past end", setup: [][]string{abc}, cmd: a("LRANGE", "l", "3", "9"), want: ArrayReply()},
		{name: "clamped", setup: [][]string{abc}, cmd: a("LRANGE", "l", "-9223372036854775808", "9223372036854775807"), want: bulks("a", "b", "c")},
		{name: "missing", cmd: a("LRANGE", "l", "0", "-1"), want: ArrayReply()},
		{name: "index parsed before type", setup: [][]string{strL}, cmd: a("LRANGE", "l", "0", "1.0"), want: errNotInt},
		{name: "wrongtype", setup: [][]string{strL}, cmd: a("LRANGE", "l", "0", "1"), want: errWrongType},
	})
}

func TestListLindex(t *testing.T) {
	runListCases(t, []listCase{
		{name: "first", setup: [][]string{abc}, cmd: a("LINDEX", "l", "0"), want: BulkReply("a")},
		{name: "last", setup: [][]string{abc}, cmd: a("LINDEX", "l", "-1"), want: BulkReply("c")},
		{name: "negative first", setup: [][]string{abc}, cmd: a("LINDEX", "l", "-3"), want: BulkReply("a")},
		{name: "out of range", setup: [][]string{abc}, cmd: a("LINDEX", "l", "3"), want: NilReply()},
		{name: "out of range negative", setup: [][]string{abc}, cmd: a("LINDEX", "l", "-4"), want: NilReply()},
		{name: "min int", setup: [][]string{abc}, cmd: a("LINDEX", "l", "-9223372036854775808"), want: NilReply()},
		{name: "missing before index parse", cmd: a("LINDEX", "l", "x"), want: NilReply()},
		{name: "not integer", setup: [][]string{abc}, cmd: a("LINDEX", "l", "x"), want: errNotInt},
		{name: "wrongtype", setup: [][]string{strL}, cmd: a("LINDEX", "l", "x"), want: errWrongType},
	})
}

func TestListLset(t *testing.T) {
	runListCases(t, []listCase{
		{name: "set", setup: [][]string{abc}, cmd: a("LSET", "l", "1", "B"), want: okReply, lists: map[string][]string{"l": {"a", "B", "c"}}},
		{name: "negative", setup: [][]string{abc}, cmd: a("LSET", "l", "-1", "C"), want: okReply, lists: map[string][]string{"l": {"a", "b", "C"}}},
		{name: "out of range", setup: [][]string{abc}, cmd: a("LSET", "l", "3", "x"), want: errIndexRange, lists: wantAbc},
		{name: "out of range negative", setup: [][]string{abc}, cmd: a("LSET", "l", "-4", "x"), want: errIndexRange, lists: wantAbc},
		{name: "missing before index parse", cmd: a("LSET", "l", "x", "x"), want: errNoSuchKey, lists: wantGone},
		{name: "not integer", setup: [][]string{abc}, cmd: a("LSET", "l", "x", "x"), want: errNotInt, lists: wantAbc},
		{name: "wrongtype", setup: [][]string{strL}, cmd: a("LSET", "l", "0", "x"), want: errWrongType, strs: wantStrL},
	})
}

func TestListLinsert(t *testing.T) {
	runListCases(t, []listCase{
		{name: "before", setup: [][]string{abc}, cmd: a("LINSERT", "l", "BEFORE", "b", "x"), want: IntReply(4), lists: map[string][]string{"l": {"a", "x", "b", "c"}}},
		{name: "after last", setup: [][]string{abc}, cmd: a("LINSERT", "l", "aFtEr", "c", "x"), want: IntReply(4), lists: map[string][]string{"l": {"a", "b", "c", "x"}}},
		{name: "first match only", setup: [][]string{{"RPUSH", "l", "b", "a", "a"}}, cmd: a("LINSERT", "l", "before", "a", "x"), want: IntReply(4), lists: map[string][]string{"l": {"b", "x", "a", "a"}}},
		{name: "no pivot", setup: [][]string{abc}, cmd: a("LINSERT", "l", "BEFORE", "z", "x"), want: IntReply(-1), lists: wantAbc},
		{name: "missing", cmd: a("LINSERT", "l", "AFTER", "a", "x"), want: IntReply(0), lists: wantGone},
		{name: "syntax before type", setup: [][]string{strL}, cmd: a("LINSERT", "l", "MIDDLE", "a", "x"), want: errSyntax},
		{name: "wrongtype", setup: [][]string{strL}, cmd: a("LINSERT", "l", "AFTER", "a", "x"), want: errWrongType},
	})
}

func TestListLrem(t *testing.T) {
	five := []string{"RPUSH", "l", "a", "b", "a", "c", "a"}
	runListCases(t, []listCase{
		{name: "all", setup: [][]string{five}, cmd: a("LREM", "l", "0", "a"), want: IntReply(3), lists: map[string][]string{"l": {"b", "c"}}},
		{name: "from head", setup: [][]string{five}, cmd: a("LREM", "l", "2", "a"), want: IntReply(2), lists: map[string][]string{"l": {"b", "c", "a"}}},
		{name: "from tail", setup: [][]string{five}, cmd: a("LREM", "l", "-2", "a"), want: IntReply(2), lists: map[string][]string{"l": {"a", "b", "c"}}},
		{name: "min int removes all", setup: [][]string{five}, cmd: a("LREM", "l", "-9223372036854775808", "a"), want: IntReply(3), lists: map[string][]string{"l": {"b", "c"}}},
		{name: "deletes key", setup: [][]string{{"RPUSH", "l", "a", "a"}}, cmd: a("LREM", "l", "0", "a"), want: IntReply(2), lists: wantGone},
		{name: "no match", setup: [][]string{abc}, cmd: a("LREM", "l", "0", "z"), want: IntReply(0), lists: wantAbc},
		{name: "missing", cmd: a("LREM", "l", "0", "a"), want: IntReply(0)},
		{name: "count parsed before type", setup: [][]string{strL}, cmd: a("LREM", "l", "x", "a"), want: errNotInt},
		{name: "wrongtype", setup: [][]string{strL}, cmd: a("LREM", "l", "0", "a"), want: errWrongType, strs: wantStrL},
	})
}

func TestListLtrim(t *testing.T) {
	runListCases(t, []listCase{
		{name: "trim", setup: [][]string{abc}, cmd: a("LTRIM", "l", "1", "-1"), want: okReply, lists: map[string][]string{"l": {"b", "c"}}},
		{name: "negative", setup: [][]string{abc}, cmd: a("LTRIM", "l", "-2", "-2"), want: okReply, lists: map[string][]string{"l": {"b"}}},
		{name: "beyond", setup: [][]string{abc}, cmd: a("LTRIM", "l", "-100", "100"), want: okReply, lists: wantAbc},
		{name: "empty deletes", setup: [][]string{abc}, cmd: a("LTRIM", "l", "2", "1"), want: okReply, lists: wantGone},
		{name: "past end deletes", setup: [][]string{abc}, cmd: a("LTRIM", "l", "3", "9"), want: okReply, lists: wantGone},
		{name: "missing", cmd: a("LTRIM", "l", "0", "1"), want: okReply, lists: wantGone},
		{name: "index parsed before type", setup: [][]string{strL}, cmd: a("LTRIM", "l", "0", "end"), want: errNotInt},
		{name: "wrongtype", setup: [][]string{strL}, cmd: a("LTRIM", "l", "0", "1"), want: errWrongType, strs: wantStrL},
		{name: "keeps ttl", setup: [][]string{abc, {"PEXPIRE", "l", "500"}}, cmd: a("LTRIM", "l", "0", "0"), want: okReply, lists: map[string][]string{"l": {"a"}}, pttl: map[string]int64{"l": 500}},
	})
}

func TestListLpos(t *testing.T) {
	lp := []string{"RPUSH", "l", "a", "b", "c", "a", "b", "a"}
	s := [][]string{lp}
	runListCases(t, []listCase{
		{name: "first", setup: s, cmd: a("LPOS", "l", "b"), want: IntReply(1)},
		{name: "rank", setup: s, cmd: a("LPOS", "l", "a", "RANK", "2"), want: IntReply(3)},
		{name: "rank negative", setup: s, cmd: a("LPOS", "l", "a", "rank", "-2"), want: IntReply(3)},
		{name: "rank past matches", setup: s, cmd: a("LPOS", "l", "a", "RANK", "4"), want: NilReply()},
		{name: "count", setup: s, cmd: a("LPOS", "l", "a", "COUNT", "2"), want: ints(0, 3)},
		{name: "count 0 all", setup: s, cmd: a("LPOS", "l", "a", "COUNT", "0"), want: ints(0, 3, 5)},
		{name: "count rank negative", setup: s, cmd: a("LPOS", "l", "a", "COUNT", "0", "RANK", "-1"), want: ints(5, 3, 0)},
		{name: "maxlen", setup: s, cmd: a("LPOS", "l", "c", "MAXLEN", "2"), want: NilReply()},
		{name: "maxlen reaches", setup: s, cmd: a("LPOS", "l", "c", "MAXLEN", "3"), want: IntReply(2)},
		{name: "all options", setup: s, cmd: a("LPOS", "l", "a", "RANK", "-2", "COUNT", "5", "MAXLEN", "5"), want: ints(3)},
		{name: "no match", setup: s, cmd: a("LPOS", "l", "z"), want: NilReply()},
		{name: "no match count", setup: s, cmd: a("LPOS", "l", "z", "COUNT", "1"), want: ArrayReply()},
		{name: "missing", cmd: a("LPOS", "l", "a"), want: NilReply()},
		{name: "missing count", cmd: a("LPOS", "l", "a", "COUNT", "1"), want: ArrayReply()},
		{name: "rank zero", setup: s, cmd: a("LPOS", "l", "a", "RANK", "0"), want: errLposRankZero},
		{name: "rank not integer", setup: s, cmd: a("LPOS", "l", "a", "RANK", "x"), want: errNotInt},
		{name: "count negative", setup: s, cmd: a("LPOS", "l", "a", "COUNT", "-1"), want: errLposCountNeg},
		{name: "count not integer", setup: s, cmd: a("LPOS", "l", "a", "COUNT", "x"), want: errLposCountNeg},
		{name: "maxlen negative", setup: s, cmd: a("LPOS", "l", "a", "MAXLEN", "-1"), want: errLposMaxlenNeg},
		{name: "unknown option", setup: s, cmd: a("LPOS", "l", "a", "FIRST", "1"), want: errSyntax},
		{name: "option without value", setup: s, cmd: a("LPOS", "l", "a", "RANK"), want: errSyntax},
		{name: "errors in order", setup: s, cmd: a("LPOS", "l", "a", "RANK", "0", "BOGUS"), want: errLposRankZero},
		{name: "syntax before type", setup: [][]string{strL}, cmd: a("LPOS", "l", "a", "BOGUS"), want: errSyntax},
		{name: "wrongtype", setup: [][]string{strL}, cmd: a("LPOS", "l", "a"), want: errWrongType},
		{name: "rank min int", setup: s, cmd: a("LPOS", "l", "a", "RANK", "-9223372036854775808"), want: IntReply(5)},
		{name: "rank min int count", setup: s, cmd: a("LPOS", "l", "a", "RANK", "-9223372036854775808", "COUNT", "1"), want: ints(5, 3, 0)},
		{name: "rank max int", setup: s, cmd: a("LPOS", "l", "a", "RANK", "9223372036854775807", "COUNT", "0"), want: ArrayReply()},
	})
}

func TestListMove(t *testing.T) {
	dx := []string{"RPUSH", "d", "x"}
	runListCases(t, []listCase{
		{name: "rpoplpush", setup: [][]string{abc, dx}, cmd: a("RPOPLPUSH", "l", "d"), want: BulkReply("c"), lists: map[string][]string{"l": {"a", "b"}, "d": {"c", "x"}}},
		{name: "rpoplpush rotate", setup: [][]string{abc}, cmd: a("RPOPLPUSH", "l", "l"), want: BulkReply("c"), lists: map[string][]string{"l": {"c", "a", "b"}}},
		{name: "rpoplpush missing source", setup: [][]string{strD}, cmd: a("RPOPLPUSH", "l", "d"), want: NilReply(), strs: map[string]string{"d": "v"}},
		{name: "rpoplpush wrongtype destination", setup: [][]string{abc, strD}, cmd: a("RPOPLPUSH", "l", "d"), want: errWrongType, lists: wantAbc},
		{name: "rpoplpush wrongtype source", setup: [][]string{strL}, cmd: a("RPOPLPUSH", "l", "d"), want: errWrongType, lists: map[string][]string{"d": none}},
		{name: "rpoplpush last element", setup: [][]string{{"RPUSH", "l", "a"}, {"PEXPIRE", "l", "500"}}, cmd: a("RPOPLPUSH", "l", "d"), want: BulkReply("a"), lists: map[string][]string{"l": none, "d": {"a"}}, pttl: map[string]int64{"d": -1}},
		{name: "lmove left right", setup: [][]string{abc, dx}, cmd: a("LMOVE", "l", "d", "LEFT", "RIGHT"), want: BulkReply("a"), lists: map[string][]string{"l": {"b", "c"}, "d": {"x", "a"}}},
		{name: "lmove right left", setup: [][]string{abc, dx}, cmd: a("LMOVE", "l", "d", "right", "left"), want: BulkReply("c"), lists: map[string][]string{"l": {"a", "b"}, "d": {"c", "x"}}},
		{name: "lmove rotate single", setup: [][]string{{"RPUSH", "l", "a"}}, cmd: a("LMOVE", "l", "l", "LEFT", "RIGHT"), want: BulkReply("a"), lists: map[string][]string{"l": {"a"}}},
		{name: "lmove bad from", cmd: a("LMOVE", "l", "d", "UP", "LEFT"), want: errSyntax},
		{name: "lmove bad to before type", setup: [][]string{strL}, cmd: a("LMOVE", "l", "d", "LEFT", "DOWN"), want: errSyntax},
		{name: "lmove wrongtype destination", setup: [][]string{abc, strD}, cmd: a("LMOVE", "l", "d", "LEFT", "LEFT"), want: errWrongType, lists: wantAbc},
	})
}

func TestListLmpop(t *testing.T) {
	runListCases(t, []listCase{
		{name: "left", setup: [][]string{abc}, cmd: a("LMPOP", "1", "l", "LEFT"), want: ArrayReply(BulkReply("l"), bulks("a")), lists: map[string][]string{"l": {"b", "c"}}},
		{name: "right count", setup: [][]string{abc}, cmd: a("LMPOP", "1", "l", "RIGHT", "COUNT", "2"), want: ArrayReply(BulkReply("l"), bulks("c", "b")), lists: map[string][]string{"l": {"a"}}},
		{name: "skips missing", setup: [][]string{{"RPUSH", "d", "x"}}, cmd: a("LMPOP", "2", "l", "d", "left", "count", "9"), want: ArrayReply(BulkReply("d"), bulks("x")), lists: map[string][]string{"d": none}},
		{name: "none", cmd: a("LMPOP", "2", "l", "d", "LEFT"), want: NilReply()},
		{name: "numkeys zero", cmd: a("LMPOP", "0", "l", "LEFT"), want: errNumkeys},
		{name: "numkeys not integer", cmd: a("LMPOP", "x", "l", "LEFT"), want: errNumkeys},
		{name: "numkeys too big", cmd: a("LMPOP", "2", "l", "LEFT"), want: errSyntax},
		{name: "numkeys max", cmd: a("LMPOP", "9223372036854775807", "l", "LEFT"), want: errSyntax},
		{name: "bad where", setup: [][]string{abc}, cmd: a("LMPOP", "1", "l", "UP"), want: errSyntax, lists: wantAbc},
		{name: "count zero", setup: [][]string{abc}, cmd: a("LMPOP", "1", "l", "LEFT", "COUNT", "0"), want: errMpopCount, lists: wantAbc},
		{name: "count twice", setup: [][]string{abc}, cmd: a("LMPOP", "1", "l", "LEFT", "COUNT", "1", "COUNT", "1"), want: errSyntax, lists: wantAbc},
		{name: "count without value", setup: [][]string{abc}, cmd: a("LMPOP", "1", "l", "LEFT", "COUNT"), want: errSyntax},
		{name: "wrongtype stops", setup: [][]string{strL, {"RPUSH", "d", "x"}}, cmd: a("LMPOP", "2", "l", "d", "LEFT"), want: errWrongType, lists: map[string][]string{"d": {"x"}}},
		{name: "deletes key", setup: [][]string{abc}, cmd: a("LMPOP", "1", "l", "RIGHT", "COUNT", "3"), want: ArrayReply(BulkReply("l"), bulks("c", "b", "a")), lists: wantGone},
	})
}

// TestListBlockingServes covers the blocking commands as client commands
// when there is something to serve: they act like their non-blocking forms.
func TestListBlockingServes(t *testing.T) {
	runListCases(t, []listCase{
		{name: "blpop", setup: [][]string{abc}, cmd: a("BLPOP", "d", "l", "0"), want: bulks("l", "a"), lists: map[string][]string{"l": {"b", "c"}}},
		{name: "brpop last deletes", setup: [][]string{{"RPUSH", "l", "a"}}, cmd: a("BRPOP", "l", "1.5"), want: bulks("l", "a"), lists: wantGone},
		{name: "blpop timeout first", setup: [][]string{abc}, cmd: a("BLPOP", "l", "-1"), want: errTimeoutNeg, lists: wantAbc},
		{name: "blpop wrongtype", setup: [][]string{strD}, cmd: a("BLPOP", "l", "d", "0"), want: errWrongType},
		{name: "brpoplpush", setup: [][]string{abc}, cmd: a("BRPOPLPUSH", "l", "d", "0"), want: BulkReply("c"), lists: map[string][]string{"l": {"a", "b"}, "d": {"c"}}},
		{name: "brpoplpush timeout", setup: [][]string{abc}, cmd: a("BRPOPLPUSH", "l", "d", "x"), want: errTimeoutFloat, lists: wantAbc},
		{name: "blmove", setup: [][]string{abc}, cmd: a("BLMOVE", "l", "d", "LEFT", "RIGHT", "0.1"), want: BulkReply("a"), lists: map[string][]string{"l": {"b", "c"}, "d": {"a"}}},
		{name: "blmove where before timeout", cmd: a("BLMOVE", "l", "d", "LEFT", "UP", "-1"), want: errSyntax},
		{name: "blmove wrongtype source", setup: [][]string{strL}, cmd: a("BLMOVE", "l", "d", "LEFT", "LEFT", "0"), want: errWrongType},
		{name: "blmpop", setup: [][]string{abc}, cmd: a("BLMPOP", "0", "1", "l", "RIGHT", "COUNT", "5"), want: ArrayReply(BulkReply("l"), bulks("c", "b", "a")), lists: wantGone},
		{name: "blmpop numkeys before timeout", cmd: a("BLMPOP", "-1", "0", "l", "LEFT"), want: errNumkeys},
		{name: "blmpop timeout", cmd: a("BLMPOP", "-1", "1", "l", "LEFT"), want: errTimeoutNeg},
	})
}

// TestListBlockingWouldBlock: a client command that would wait for another
// client's push cannot be judged offline.
func TestListBlockingWouldBlock(t *testing.T) {
	for _, cmd := range [][]string{
		{"BLPOP", "l", "d", "0"},
		{"BRPOP", "l", "1"},
		{"BRPOPLPUSH", "l", "d", "0"},
		{"BLMOVE", "l", "d", "LEFT", "LEFT", "0"},
		{"BLMPOP", "0", "1", "l", "LEFT"},
	} {
		e := New(Options{})
		_, err := e.Do(context.Background(), cmd...)
		var re *RunError
		if !errors.As(err, &re) || re.Code != CodeNotImplemented {
			t.Errorf("%q: err %v, want a not-implemented RunError", cmd, err)
		}
	}
}

// TestParseTimeout checks the long double arithmetic of
// getTimeoutFromObjectOrReply against what redis-server 7.0.15 answered.
func TestParseTimeout(t *testing.T) {
	cases := map[string]*Reply{
		"0": nil, "1.5": nil, "0x10": nil, "+1": nil, "1.": nil, ".5": nil, "1e+2": nil, "0x1p-2": nil, "-0": nil,
		"-0.001":                 nil, // rounds to -0.99999... ms in a long double: ceil is 0
		"-0.0009":                nil,
		"-0.0010000000000000001": &errTimeoutNeg,
		"-0.003":                 &errTimeoutNeg,
		"-1":                     &errTimeoutNeg,
		"inf":                    &errTimeoutNeg,
		"-Infinity":              &errTimeoutNeg,
		"1e20":                   &errTimeoutNeg, // beyond long long: LLONG_MIN
		"1e400":                  &errTimeoutNeg, // finite in a long double
		"9223372036854775.807":   nil,
		"9223372036854775.808":   &errTimeoutNeg, // 2^63 ms after rounding
		"0x1p16383":              &errTimeoutNeg,
		"0x1p16384":              &errTimeoutFloat, // overflows a long double
		"1e-4940":                nil,              // a long double subnormal
		"1e-4960":                &errTimeoutFloat, // underflows to zero
		"1e5000":                 &errTimeoutFloat,
		"nan":                    &errTimeoutFloat,
		".":                      &errTimeoutFloat,
		"0x":                     &errTimeoutFloat,
		"1e":                     &errTimeoutFloat,
		"1_0":                    &errTimeoutFloat,
		" 1":                     &errTimeoutFloat,
		"1 ":                     &errTimeoutFloat,
		"":                       &errTimeoutFloat,
		"0b1":                    &errTimeoutFloat,
	}
	for s, want := range cases {
		got := parseTimeout(New(Options{}).Server, s)
		if (got == nil) != (want == nil) || (got != nil && !got.Equal(*want)) {
			t.Errorf("parseTimeout(%q) = %v, want %v", s, got, want)
		}
	}
}

// TestListRing exercises the ring buffer across wrap-arounds and growth
// against a plain slice model.
func TestListRing(t *testing.T) {
	l := newList()
	var model []string
	for i := 0; i < 200; i++ {
		s := strconv.Itoa(i)
		switch i % 5 {
		case 0, 1:
			l.pushFront(s)
			model = append([]string{s}, model...)
		case 2, 3:
			l.pushBack(s)
			model = append(model, s)
		case 4:
			if got := l.popFront(); got != model[0] {
				t.Fatalf("step %d: popFront %q, want %q", i, got, model[0])
			}
			model = model[1:]
			if got := l.popBack(); got != model[len(model)-1] {
				t.Fatalf("step %d: popBack %q, want %q", i, got, model[len(model)-1])
			}
			model = model[:len(model)-1]
		}
		if l.len() != len(model) {
			t.Fatalf("step %d: len %d, want %d", i, l.len(), len(model))
		}
		for j := range model {
			if l.index(j) != model[j] {
				t.Fatalf("step %d: index(%d) = %q, want %q", i, j, l.index(j), model[j])
			}
		}
	}
	c := l.clone()
	c.set(0, "changed")
	items := l.items()
	items[1] = "changed too"
	if !slices.Equal(l.items(), model) {
		t.Errorf("clone or items shares storage: %q", l.items())
	}
	if c.index(0) != "changed" || c.len() != l.len() {
		t.Errorf("clone = %q", c.items())
	}
	if l.encoding() != "quicklist" {
		t.Errorf("encoding %q", l.encoding())
	}
}

// TestListKeyPositions: the undeclared-key check sees every key a list
// command touches, LMPOP/BLMPOP's through numkeys.
func TestListKeyPositions(t *testing.T) {
	cases := []struct {
		args []string
		want []string
	}{
		{a("rpoplpush", "s", "d"), a("s", "d")},
		{a("lmove", "s", "d", "left", "right"), a("s", "d")},
		{a("blpop", "a", "b", "0"), a("a", "b")},
		{a("blmove", "s", "d", "left", "right", "0"), a("s", "d")},
		{a("lmpop", "2", "a", "b", "left"), a("a", "b")},
		{a("lmpop", "2", "a", "left"), a("a", "left")},
		{a("lmpop", "3", "a", "left"), nil},
		{a("lmpop", "0", "a", "left"), nil},
		{a("lmpop", "x", "a", "left"), nil},
		{a("blmpop", "0", "2", "a", "b", "left"), a("a", "b")},
	}
	for _, tc := range cases {
		if got := handlers.Get()[tc.args[0]].keys(tc.args); !slices.Equal(got, tc.want) {
			t.Errorf("%q: keys %q, want %q", tc.args, got, tc.want)
		}
	}
}
