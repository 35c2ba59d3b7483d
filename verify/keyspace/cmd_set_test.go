package keyspace

import (
	"context"
	"fmt"
	"math/rand"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/redis/rueidis"

	"github.com/scriptctl/scriptctl/internal/redistest"
)

// setState is a set key's expected state: members in the engine's order,
// encoding, and PTTL (-1: none). A nil *setState means the key must not exist.
type setState struct {
	members  []string
	encoding string
	pttl     int64
}

func iset(ms ...string) *setState { return &setState{members: ms, encoding: "intset", pttl: -1} }
func hset(ms ...string) *setState { return &setState{members: ms, encoding: "hashtable", pttl: -1} }
func withTTL(s *setState, pttl int64) *setState {
	s.pttl = pttl
	return s
}

// setCase is a cmdCase with set state checks and the warnings expected
// from the command (substrings, in order; nil: none).
type setCase struct {
	name  string
	setup [][]string
	cmd   []string
	want  Reply
	sets  map[string]*setState
	warns []string
}

func runSetCases(t *testing.T, cases []setCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			e := New(Options{Now: 1_000_000})
			for _, s := range tc.setup {
				if r, err := e.Do(ctx, s...); err != nil || r.Kind == Error {
					t.Fatalf("setup %q: %s %v", s, r, err)
				}
			}
			e.warnings = nil // Do keeps them; Eval would reset them
			got, err := e.Do(ctx, tc.cmd...)
			if err != nil {
				t.Fatalf("%q: %v", tc.cmd, err)
			}
			if !got.Equal(tc.want) {
				t.Errorf("%q: reply %s, want %s", tc.cmd, got, tc.want)
			}
			checkWarnings(t, e.Warnings(), tc.warns)
			for k, want := range tc.sets {
				checkSet(t, e, k, want)
			}
		})
	}
}

func checkWarnings(t *testing.T, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("warnings %q, want %d containing %q", got, len(want), want)
		return
	}
	for i, w := range want {
		if !strings.Contains(got[i], w) {
			t.Errorf("warning %q does not contain %q", got[i], w)
		}
	}
}

func checkSet(t *testing.T, e *testServer, key string, want *setState) {
	t.Helper()
	v := e.db.get(key)
	if want == nil {
		if v != nil {
			t.Errorf("key %q exists: %+v", key, v)
		}
		return
	}
	if v == nil || v.kind != kindSet {
		t.Errorf("key %q = %+v, want a set", key, v)
		return
	}
	pttl := int64(-1)
	if v.expireAt > 0 {
		pttl = v.expireAt - e.now
	}
	if got := v.set.members(); !slices.Equal(got, want.members) || v.set.encoding() != want.encoding || pttl != want.pttl {
		t.Errorf("key %q = %q %s pttl %d, want %q %s pttl %d", key, got, v.set.encoding(), pttl, want.members, want.encoding, want.pttl)
	}
	if v.set.len() != len(want.members) {
		t.Errorf("key %q: len %d, want %d", key, v.set.len(), len(want.members))
	}
}

// seq returns the decimal strings lo..hi.
func seq(lo, hi int) []string {
	var out []string
	for i := lo; i <= hi; i++ {
		out = append(out, strconv.Itoa(i))
	}
	return out
}

const (
	wOrder  = "order Redis does not fix"
	wRandom = "picks at random"
	wCursor = "cursors and pages"
)

func TestSetEncoding(t *testing.T) {
	intsHT := [][]string{{"SADD", "h", "x", "3", "1", "2"}, {"SREM", "h", "x"}}
	runSetCases(t, []setCase{
		{name: "integers make an intset", cmd: a("SADD", "s", "10", "-3", "7", "-3"), want: IntReply(3), sets: map[string]*setState{"s": iset("-3", "7", "10")}},
		{name: "int64 bounds", cmd: a("SADD", "s", "9223372036854775807", "-9223372036854775808"), want: IntReply(2), sets: map[string]*setState{"s": iset("-9223372036854775808", "9223372036854775807")}},
		{name: "first string makes a hashtable", cmd: a("SADD", "s", "b", "1", "a"), want: IntReply(3), sets: map[string]*setState{"s": hset("b", "1", "a")}},
		{name: "string converts in ascending order", setup: [][]string{{"SADD", "s", "3", "1", "2"}}, cmd: a("SADD", "s", "z"), want: IntReply(1), sets: map[string]*setState{"s": hset("1", "2", "3", "z")}},
		{name: "non-canonical integers are strings", setup: [][]string{{"SADD", "s", "1"}}, cmd: a("SADD", "s", "01"), want: IntReply(1), sets: map[string]*setState{"s": hset("1", "01")}},
		{name: "plus sign is a string", setup: [][]string{{"SADD", "s", "1"}}, cmd: a("SADD", "s", "+1"), want: IntReply(1), sets: map[string]*setState{"s": hset("1", "+1")}},
		{name: "overflow is a string", setup: [][]string{{"SADD", "s", "1"}}, cmd: a("SADD", "s", "9223372036854775808"), want: IntReply(1), sets: map[string]*setState{"s": hset("1", "9223372036854775808")}},
		{name: "512 integers stay", cmd: append(a("SADD", "s"), seq(1, 512)...), want: IntReply(512), sets: map[string]*setState{"s": iset(seq(1, 512)...)}},
		{name: "513th integer converts", setup: [][]string{append(a("SADD", "s"), seq(2, 513)...)}, cmd: a("SADD", "s", "1"), want: IntReply(1), sets: map[string]*setState{"s": hset(seq(1, 513)...)}},
		{name: "duplicate does not convert", setup: [][]string{append(a("SADD", "s"), seq(1, 512)...)}, cmd: a("SADD", "s", "7"), want: IntReply(0), sets: map[string]*setState{"s": iset(seq(1, 512)...)}},
		{name: "never converts back", setup: intsHT, cmd: a("SCARD", "h"), want: IntReply(3), sets: map[string]*setState{"h": hset("3", "1", "2")}},
		{name: "intset removal keeps order", setup: [][]string{{"SADD", "s", "5", "1", "3"}}, cmd: a("SREM", "s", "3", "01", "x"), want: IntReply(1), sets: map[string]*setState{"s": iset("1", "5")}},
		{name: "hashtable removal closes the gap", setup: [][]string{{"SADD", "s", "a", "b", "c"}}, cmd: a("SREM", "s", "b"), want: IntReply(1), sets: map[string]*setState{"s": hset("a", "c")}},
	})
}

func TestSetBasicCommands(t *testing.T) {
	s123 := []string{"SADD", "s", "1", "2", "3"}
	runSetCases(t, []setCase{
		{name: "sadd wrongtype", setup: [][]string{{"SET", "s", "v"}}, cmd: a("SADD", "s", "1"), want: errWrongType},
		{name: "sadd arity", cmd: a("SADD", "s"), want: errArity("sadd"), sets: map[string]*setState{"s": nil}},
		{name: "sadd keeps ttl", setup: [][]string{s123, {"PEXPIRE", "s", "500"}}, cmd: a("SADD", "s", "4"), want: IntReply(1), sets: map[string]*setState{"s": withTTL(iset("1", "2", "3", "4"), 500)}},
		{name: "sadd binary", cmd: a("SADD", "s", "\x00\xff", ""), want: IntReply(2), sets: map[string]*setState{"s": hset("\x00\xff", "")}},
		{name: "srem missing key", cmd: a("SREM", "s", "1"), want: IntReply(0)},
		{name: "srem last deletes", setup: [][]string{s123}, cmd: a("SREM", "s", "1", "2", "3", "4"), want: IntReply(3), sets: map[string]*setState{"s": nil}},
		{name: "srem wrongtype", setup: [][]string{{"HSET", "s", "f", "v"}}, cmd: a("SREM", "s", "f"), want: errWrongType},
		{name: "scard", setup: [][]string{s123}, cmd: a("SCARD", "s"), want: IntReply(3)},
		{name: "scard missing", cmd: a("SCARD", "s"), want: IntReply(0)},
		{name: "scard wrongtype", setup: [][]string{{"SET", "s", "v"}}, cmd: a("SCARD", "s"), want: errWrongType},
		{name: "sismember intset forms", setup: [][]string{s123}, cmd: a("SISMEMBER", "s", "02"), want: IntReply(0)},
		{name: "sismember", setup: [][]string{s123}, cmd: a("SISMEMBER", "s", "2"), want: IntReply(1)},
		{name: "sismember hashtable", setup: [][]string{{"SADD", "s", "a", "2"}}, cmd: a("SISMEMBER", "s", "2"), want: IntReply(1)},
		{name: "sismember missing", cmd: a("SISMEMBER", "s", "2"), want: IntReply(0)},
		{name: "sismember wrongtype", setup: [][]string{{"SET", "s", "v"}}, cmd: a("SISMEMBER", "s", "v"), want: errWrongType},
		{name: "smismember", setup: [][]string{s123}, cmd: a("SMISMEMBER", "s", "3", "x", "1"), want: ints(1, 0, 1)},
		{name: "smismember missing", cmd: a("SMISMEMBER", "s", "3", "x"), want: ints(0, 0)},
		{name: "smismember wrongtype", setup: [][]string{{"SET", "s", "v"}}, cmd: a("SMISMEMBER", "s", "v"), want: errWrongType},
		{name: "smembers intset", setup: [][]string{{"SADD", "s", "3", "-1", "2"}}, cmd: a("SMEMBERS", "s"), want: bulks("-1", "2", "3")},
		{name: "smembers one string", setup: [][]string{{"SADD", "s", "x"}}, cmd: a("SMEMBERS", "s"), want: bulks("x")},
		{name: "smembers hashtable warns", setup: [][]string{{"SADD", "s", "x", "y"}}, cmd: a("SMEMBERS", "s"), want: bulks("x", "y"), warns: []string{"SMEMBERS: the reply lists a hashtable"}},
		{name: "smembers missing", cmd: a("SMEMBERS", "s"), want: ArrayReply()},
		{name: "smembers wrongtype", setup: [][]string{{"SET", "s", "v"}}, cmd: a("SMEMBERS", "s"), want: errWrongType},
		{name: "smembers arity", cmd: a("SMEMBERS", "s", "t"), want: errArity("smembers")},
	})
}

func TestSetExpiry(t *testing.T) {
	ctx := context.Background()
	e := New(Options{Now: 1_000_000})
	for _, c := range [][]string{{"SADD", "s", "1", "2"}, {"PEXPIRE", "s", "100"}, {"SADD", "t", "2"}} {
		if _, err := e.Do(ctx, c...); err != nil {
			t.Fatal(err)
		}
	}
	e.Advance(100) // at its expiry time the key still exists, as in Redis
	if r, _ := e.Do(ctx, "SINTER", "s", "t"); !r.Equal(bulks("2")) {
		t.Fatalf("at expiry: %s", r)
	}
	e.Advance(1)
	if r, _ := e.Do(ctx, "SINTER", "s", "t"); !r.Equal(ArrayReply()) {
		t.Errorf("past expiry SINTER = %s, want empty", r)
	}
	if r, _ := e.Do(ctx, "SADD", "s", "9"); !r.Equal(IntReply(1)) {
		t.Errorf("SADD on an expired key = %s", r)
	}
	checkSet(t, e, "s", iset("9"))
}

func TestSetAlgebra(t *testing.T) {
	ab := [][]string{{"SADD", "a", "5", "3", "1", "9"}, {"SADD", "b", "9", "1", "2"}}
	// h is a hashtable of integers (10..1 inserted after a string), i the
	// same members as an intset.
	hi := [][]string{{"SADD", "h", "x", "10", "9", "8", "7", "6", "5", "4", "3", "2", "1"}, {"SREM", "h", "x"}, append(a("SADD", "i"), seq(1, 10)...)}
	runSetCases(t, []setCase{
		{name: "sinter", setup: ab, cmd: a("SINTER", "a", "b"), want: bulks("1", "9")},
		{name: "sinter missing key", setup: ab, cmd: a("SINTER", "a", "zz"), want: ArrayReply()},
		{name: "sinter wrongtype after missing", setup: [][]string{{"SET", "b", "v"}}, cmd: a("SINTER", "zz", "b"), want: errWrongType},
		{name: "sinter stable by size: intset first", setup: hi, cmd: a("SINTER", "i", "h"), want: bulks(seq(1, 10)...)},
		{name: "sinter stable by size: hashtable first", setup: hi, cmd: a("SINTER", "h", "i"), want: bulks("10", "9", "8", "7", "6", "5", "4", "3", "2", "1"), warns: []string{"SINTER: " + "the reply lists"}},
		{name: "sinter smallest iterated", setup: [][]string{{"SADD", "h", "b", "40", "30", "a", "20"}, {"SADD", "i", "30", "20"}}, cmd: a("SINTER", "h", "i"), want: bulks("20", "30")},
		{name: "sinterstore", setup: ab, cmd: a("SINTERSTORE", "d", "a", "b"), want: IntReply(2), sets: map[string]*setState{"d": iset("1", "9")}},
		{name: "sinterstore from hashtables makes intset", setup: [][]string{{"SADD", "a", "x", "3", "1"}, {"SADD", "b", "y", "1", "3"}}, cmd: a("SINTERSTORE", "d", "a", "b"), want: IntReply(2), sets: map[string]*setState{"d": iset("1", "3")}},
		{name: "sinterstore drops ttl", setup: append(ab, []string{"SET", "d", "v", "PX", "900"}), cmd: a("SINTERSTORE", "d", "a"), want: IntReply(4), sets: map[string]*setState{"d": iset("1", "3", "5", "9")}},
		{name: "sinterstore empty deletes", setup: append(ab, []string{"SET", "d", "v"}), cmd: a("SINTERSTORE", "d", "a", "zz"), want: IntReply(0), sets: map[string]*setState{"d": nil}},
		{name: "sinterstore no common deletes", setup: append(ab, []string{"SADD", "d", "1"}, []string{"SADD", "c", "77"}), cmd: a("SINTERSTORE", "d", "a", "c"), want: IntReply(0), sets: map[string]*setState{"d": nil}},
		{name: "sinterstore empty-key destination", setup: ab, cmd: a("SINTERSTORE", "", "a", "b"), want: IntReply(2), sets: map[string]*setState{"": iset("1", "9")}},
		{name: "sinterstore wrongtype keeps destination", setup: append(ab, []string{"SET", "c", "v"}, []string{"SADD", "d", "7"}), cmd: a("SINTERSTORE", "d", "a", "c"), want: errWrongType, sets: map[string]*setState{"d": iset("7")}},
		{name: "sintercard", setup: ab, cmd: a("SINTERCARD", "2", "a", "b"), want: IntReply(2)},
		{name: "sintercard limit", setup: ab, cmd: a("SINTERCARD", "1", "a", "LIMIT", "3"), want: IntReply(3)},
		{name: "sintercard limit zero", setup: ab, cmd: a("SINTERCARD", "1", "a", "limit", "0"), want: IntReply(4)},
		{name: "sintercard last limit wins", setup: ab, cmd: a("SINTERCARD", "1", "a", "LIMIT", "1", "LIMIT", "2"), want: IntReply(2)},
		{name: "sintercard missing", setup: ab, cmd: a("SINTERCARD", "2", "a", "zz"), want: IntReply(0)},
		{name: "sintercard numkeys zero", cmd: a("SINTERCARD", "0", "a"), want: errNumkeys},
		{name: "sintercard numkeys text", cmd: a("SINTERCARD", "x", "a"), want: errNumkeys},
		{name: "sintercard numkeys too many", cmd: a("SINTERCARD", "2", "a"), want: errNumkeysTooMany},
		{name: "sintercard limit negative", cmd: a("SINTERCARD", "1", "a", "LIMIT", "-1"), want: errLimitNegative},
		{name: "sintercard limit text", cmd: a("SINTERCARD", "1", "a", "LIMIT", "x"), want: errLimitNegative},
		{name: "sintercard limit no value", cmd: a("SINTERCARD", "1", "a", "LIMIT"), want: errSyntax},
		{name: "sintercard other option", cmd: a("SINTERCARD", "1", "a", "X"), want: errSyntax},
		{name: "sintercard options before type", setup: [][]string{{"SET", "a", "v"}}, cmd: a("SINTERCARD", "1", "a", "X"), want: errSyntax},
		{name: "sintercard wrongtype", setup: [][]string{{"SET", "a", "v"}}, cmd: a("SINTERCARD", "1", "a"), want: errWrongType},
		{name: "sunion", setup: ab, cmd: a("SUNION", "a", "zz", "b"), want: bulks("1", "2", "3", "5", "9")},
		{name: "sunion of hashtable integers is sorted", setup: hi, cmd: a("SUNION", "h"), want: bulks(seq(1, 10)...)},
		{name: "sunion strings warns", setup: [][]string{{"SADD", "a", "x", "1"}}, cmd: a("SUNION", "a"), want: bulks("x", "1"), warns: []string{"SUNION: the reply lists"}},
		{name: "sunion wrongtype", setup: [][]string{{"SET", "b", "v"}}, cmd: a("SUNION", "zz", "b"), want: errWrongType},
		{name: "sunionstore", setup: append(ab, []string{"SET", "d", "v", "PX", "900"}), cmd: a("SUNIONSTORE", "d", "a", "b"), want: IntReply(5), sets: map[string]*setState{"d": iset("1", "2", "3", "5", "9")}},
		{name: "sunionstore over 512 converts", setup: [][]string{append(a("SADD", "a"), seq(1, 300)...), append(a("SADD", "b"), seq(200, 513)...)}, cmd: a("SUNIONSTORE", "d", "a", "b"), want: IntReply(513), sets: map[string]*setState{"d": hset(seq(1, 513)...)}},
		{name: "sunionstore empty deletes", setup: [][]string{{"SADD", "d", "1"}}, cmd: a("SUNIONSTORE", "d", "zz"), want: IntReply(0), sets: map[string]*setState{"d": nil}},
		{name: "sdiff", setup: ab, cmd: a("SDIFF", "a", "b"), want: bulks("3", "5")},
		{name: "sdiff first missing", setup: ab, cmd: a("SDIFF", "zz", "a"), want: ArrayReply()},
		{name: "sdiff same key", setup: ab, cmd: a("SDIFF", "a", "b", "a"), want: ArrayReply()},
		{name: "sdiff missing later keys", setup: ab, cmd: a("SDIFF", "a", "zz"), want: bulks("1", "3", "5", "9")},
		{name: "sdiff wrongtype", setup: append(ab, []string{"SET", "c", "v"}), cmd: a("SDIFF", "zz", "c"), want: errWrongType},
		// Algorithm 1 adds only the survivors: the integers make an intset.
		{name: "sdiff algorithm 1 result is intset", setup: [][]string{{"SADD", "a", "z", "3", "2", "1", "y"}, {"SADD", "b", "z", "y", "w", "v", "u", "t"}}, cmd: a("SDIFF", "a", "b"), want: bulks("1", "2", "3")},
		// Algorithm 2 (first set much larger than the others together)
		// copies the first set: a hashtable, whatever is left.
		{name: "sdiff algorithm 2 result stays hashtable", setup: [][]string{{"SADD", "a", "z", "3", "2", "1", "y", "x", "w"}, {"SADD", "b", "z"}, {"SADD", "c", "q"}},
			cmd: a("SDIFFSTORE", "d", "a", "b", "c"), want: IntReply(6), sets: map[string]*setState{"d": hset("3", "2", "1", "y", "x", "w")}},
		{name: "sdiff two sets is algorithm 1", setup: [][]string{{"SADD", "a", "z", "3", "2", "1", "y", "x", "w"}, {"SADD", "b", "z"}},
			cmd: a("SDIFFSTORE", "d", "a", "b"), want: IntReply(6), sets: map[string]*setState{"d": hset("1", "2", "3", "y", "x", "w")}},
		{name: "sdiff algorithm 2 of integers", setup: [][]string{{"SADD", "a", "z", "5", "4", "3", "2", "1"}, {"SADD", "b", "z"}, {"SADD", "c", "q"}},
			cmd: a("SDIFFSTORE", "d", "a", "b", "c"), want: IntReply(5), sets: map[string]*setState{"d": hset("5", "4", "3", "2", "1")}},
		{name: "sdiff at equal cost is algorithm 1", setup: [][]string{{"SADD", "a", "z", "3", "2", "1"}, {"SADD", "b", "z"}, {"SADD", "c", "q"}},
			cmd: a("SDIFFSTORE", "d", "a", "b", "c"), want: IntReply(3), sets: map[string]*setState{"d": iset("1", "2", "3")}},
		{name: "sdiffstore algorithm 1 intset", setup: [][]string{{"SADD", "a", "z", "3", "2", "1", "y"}, {"SADD", "b", "z", "y", "w", "v", "u", "t"}},
			cmd: a("SDIFFSTORE", "d", "a", "b"), want: IntReply(3), sets: map[string]*setState{"d": iset("1", "2", "3")}},
		{name: "sdiffstore into source", setup: ab, cmd: a("SDIFFSTORE", "a", "a", "b"), want: IntReply(2), sets: map[string]*setState{"a": iset("3", "5")}},
		{name: "sdiffstore same key deletes", setup: append(ab, []string{"SET", "d", "v"}), cmd: a("SDIFFSTORE", "d", "a", "a"), want: IntReply(0), sets: map[string]*setState{"d": nil}},
	})
}

func TestSetMoveAndPop(t *testing.T) {
	ab := [][]string{{"SADD", "a", "1", "2"}, {"SADD", "b", "3"}}
	runSetCases(t, []setCase{
		{name: "smove", setup: ab, cmd: a("SMOVE", "a", "b", "2"), want: IntReply(1), sets: map[string]*setState{"a": iset("1"), "b": iset("2", "3")}},
		{name: "smove creates", setup: ab, cmd: a("SMOVE", "a", "c", "x"), want: IntReply(0), sets: map[string]*setState{"c": nil}},
		{name: "smove creates intset", setup: ab, cmd: a("SMOVE", "a", "c", "1"), want: IntReply(1), sets: map[string]*setState{"c": iset("1"), "a": iset("2")}},
		{name: "smove last deletes source", setup: [][]string{{"SADD", "a", "x"}}, cmd: a("SMOVE", "a", "c", "x"), want: IntReply(1), sets: map[string]*setState{"a": nil, "c": hset("x")}},
		{name: "smove already in destination", setup: append(ab, []string{"SADD", "b", "1"}), cmd: a("SMOVE", "a", "b", "1"), want: IntReply(1), sets: map[string]*setState{"a": iset("2"), "b": iset("1", "3")}},
		{name: "smove converts destination", setup: append(ab, []string{"SADD", "a", "s"}), cmd: a("SMOVE", "a", "b", "s"), want: IntReply(1), sets: map[string]*setState{"b": hset("3", "s")}},
		{name: "smove same key member", setup: ab, cmd: a("SMOVE", "a", "a", "1"), want: IntReply(1), sets: map[string]*setState{"a": iset("1", "2")}},
		{name: "smove same key non-member", setup: ab, cmd: a("SMOVE", "a", "a", "7"), want: IntReply(0)},
		{name: "smove missing source ignores destination type", setup: [][]string{{"SET", "b", "v"}}, cmd: a("SMOVE", "a", "b", "1"), want: IntReply(0)},
		{name: "smove wrongtype destination", setup: append(ab, []string{"SET", "c", "v"}), cmd: a("SMOVE", "a", "c", "1"), want: errWrongType, sets: map[string]*setState{"a": iset("1", "2")}},
		{name: "smove wrongtype source", setup: [][]string{{"SET", "a", "v"}}, cmd: a("SMOVE", "a", "b", "1"), want: errWrongType},
		{name: "smove keeps destination ttl", setup: append(ab, []string{"PEXPIRE", "b", "700"}), cmd: a("SMOVE", "a", "b", "1"), want: IntReply(1), sets: map[string]*setState{"b": withTTL(iset("1", "3"), 700)}},
		{name: "spop picks the first", setup: [][]string{{"SADD", "s", "3", "1", "2"}}, cmd: a("SPOP", "s"), want: BulkReply("1"), sets: map[string]*setState{"s": iset("2", "3")}, warns: []string{"SPOP: the reply depends on members Redis " + wRandom}},
		{name: "spop only member", setup: [][]string{{"SADD", "s", "x"}}, cmd: a("SPOP", "s"), want: BulkReply("x"), sets: map[string]*setState{"s": nil}},
		{name: "spop missing", cmd: a("SPOP", "s"), want: NilReply()},
		{name: "spop wrongtype", setup: [][]string{{"SET", "s", "v"}}, cmd: a("SPOP", "s"), want: errWrongType},
		{name: "spop syntax", cmd: a("SPOP", "s", "1", "2"), want: errSyntax},
		{name: "spop count covers", setup: [][]string{{"SADD", "s", "3", "1", "2"}}, cmd: a("SPOP", "s", "3"), want: bulks("1", "2", "3"), sets: map[string]*setState{"s": nil}},
		{name: "spop count hashtable of integers sorted", setup: [][]string{{"SADD", "s", "x", "3", "1", "2"}, {"SREM", "s", "x"}}, cmd: a("SPOP", "s", "9"), want: bulks("1", "2", "3")},
		{name: "spop count strings warns", setup: [][]string{{"SADD", "s", "x", "y"}}, cmd: a("SPOP", "s", "2"), want: bulks("x", "y"), warns: []string{"SPOP: the reply lists"}},
		{name: "spop count few", setup: [][]string{append(a("SADD", "s"), seq(1, 10)...), {"PEXPIRE", "s", "300"}}, cmd: a("SPOP", "s", "2"), want: bulks("1", "2"),
			sets: map[string]*setState{"s": withTTL(iset(seq(3, 10)...), 300)}, warns: []string{wRandom}},
		// Few left: Redis builds a new set of the remaining members, here
		// all integers, so the hashtable becomes an intset.
		{name: "spop count most rebuilds", setup: [][]string{{"SADD", "s", "x", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10"}, {"SREM", "s", "x"}, {"PEXPIRE", "s", "300"}},
			cmd: a("SPOP", "s", "9"), want: bulks(seq(1, 9)...), sets: map[string]*setState{"s": withTTL(iset("10"), 300)}, warns: []string{wRandom}},
		{name: "spop count zero", setup: [][]string{{"SADD", "s", "1"}}, cmd: a("SPOP", "s", "0"), want: ArrayReply(), sets: map[string]*setState{"s": iset("1")}},
		{name: "spop count missing", cmd: a("SPOP", "s", "3"), want: ArrayReply()},
		{name: "spop count negative", cmd: a("SPOP", "s", "-1"), want: errNotPositive},
		{name: "spop count text before type", setup: [][]string{{"SET", "s", "v"}}, cmd: a("SPOP", "s", "x"), want: errNotPositive},
		{name: "spop count wrongtype", setup: [][]string{{"SET", "s", "v"}}, cmd: a("SPOP", "s", "0"), want: errWrongType},
	})
}

func TestSetRandmember(t *testing.T) {
	s := [][]string{{"SADD", "s", "3", "1", "2"}}
	runSetCases(t, []setCase{
		{name: "one", setup: s, cmd: a("SRANDMEMBER", "s"), want: BulkReply("1"), warns: []string{"SRANDMEMBER: the reply depends on members Redis " + wRandom}},
		{name: "one of one", setup: [][]string{{"SADD", "s", "x"}}, cmd: a("SRANDMEMBER", "s"), want: BulkReply("x")},
		{name: "missing", cmd: a("SRANDMEMBER", "s"), want: NilReply()},
		{name: "missing with count", cmd: a("SRANDMEMBER", "s", "-3"), want: ArrayReply()},
		{name: "wrongtype", setup: [][]string{{"SET", "s", "v"}}, cmd: a("SRANDMEMBER", "s"), want: errWrongType},
		{name: "syntax", cmd: a("SRANDMEMBER", "s", "1", "2"), want: errSyntax},
		{name: "count zero", setup: s, cmd: a("SRANDMEMBER", "s", "0"), want: ArrayReply()},
		{name: "count one", setup: s, cmd: a("SRANDMEMBER", "s", "1"), want: bulks("1"), warns: []string{wRandom}},
		{name: "count covers", setup: s, cmd: a("SRANDMEMBER", "s", "5"), want: bulks("1", "2", "3"), sets: map[string]*setState{"s": iset("1", "2", "3")}},
		{name: "count covers hashtable warns", setup: [][]string{{"SADD", "s", "a", "b"}}, cmd: a("SRANDMEMBER", "s", "2"), want: bulks("a", "b"), warns: []string{"SRANDMEMBER: the reply lists"}},
		{name: "count some", setup: s, cmd: a("SRANDMEMBER", "s", "2"), want: bulks("1", "2"), warns: []string{wRandom}},
		{name: "negative cycles", setup: s, cmd: a("SRANDMEMBER", "s", "-5"), want: bulks("1", "2", "3", "1", "2"), warns: []string{wRandom}},
		{name: "negative of one member", setup: [][]string{{"SADD", "s", "x"}}, cmd: a("SRANDMEMBER", "s", "-3"), want: bulks("x", "x", "x")},
		{name: "count text", cmd: a("SRANDMEMBER", "s", "x"), want: errNotInt},
		{name: "count min int64", setup: s, cmd: a("SRANDMEMBER", "s", "-9223372036854775808"), want: errSrandRange},
		{name: "count max negative on missing key", cmd: a("SRANDMEMBER", "s", "-9223372036854775807"), want: ArrayReply()},
		{name: "count wrongtype", setup: [][]string{{"SET", "s", "v"}}, cmd: a("SRANDMEMBER", "s", "3"), want: errWrongType},
	})
	e := New(Options{})
	ctx := context.Background()
	e.Do(ctx, "SADD", "s", "a")
	_, err := e.Do(ctx, "SRANDMEMBER", "s", "-9223372036854775807")
	if re, ok := err.(*RunError); !ok || re.Code != CodeMemory {
		t.Errorf("huge negative count: %v, want a memory RunError", err)
	}
}

func TestSetScan(t *testing.T) {
	s := [][]string{{"SADD", "s", "9", "-1", "4", "10"}}
	h := [][]string{{"SADD", "h", "a", "b", "c", "d", "e"}}
	page := func(cur string, ms ...string) Reply { return ArrayReply(BulkReply(cur), bulks(ms...)) }
	runSetCases(t, []setCase{
		{name: "intset whole", setup: s, cmd: a("SSCAN", "s", "0"), want: page("0", "-1", "4", "9", "10")},
		{name: "intset ignores cursor and count", setup: s, cmd: a("SSCAN", "s", "5", "COUNT", "1"), want: page("0", "-1", "4", "9", "10")},
		{name: "intset match", setup: s, cmd: a("SSCAN", "s", "0", "MATCH", "*1*"), want: page("0", "-1", "10")},
		{name: "match star is everything", setup: s, cmd: a("SSCAN", "s", "0", "match", "*"), want: page("0", "-1", "4", "9", "10")},
		{name: "missing key", cmd: a("SSCAN", "s", "0"), want: page("0")},
		{name: "missing key skips options", cmd: a("SSCAN", "s", "0", "COUNT", "0"), want: page("0")},
		{name: "invalid cursor", cmd: a("SSCAN", "s", "x"), want: errInvalidCursor},
		{name: "invalid cursor before type", setup: [][]string{{"SET", "s", "v"}}, cmd: a("SSCAN", "s", " 0"), want: errInvalidCursor},
		{name: "wrongtype", setup: [][]string{{"SET", "s", "v"}}, cmd: a("SSCAN", "s", "0"), want: errWrongType},
		{name: "count zero", setup: s, cmd: a("SSCAN", "s", "0", "COUNT", "0"), want: errSyntax},
		{name: "count text", setup: s, cmd: a("SSCAN", "s", "0", "COUNT", "1x"), want: errNotInt},
		{name: "type is not an sscan option", setup: s, cmd: a("SSCAN", "s", "0", "TYPE", "set"), want: errSyntax},
		{name: "option without value", setup: s, cmd: a("SSCAN", "s", "0", "MATCH"), want: errSyntax},
		{name: "hashtable under count", setup: h, cmd: a("SSCAN", "h", "0"), want: page("0", "a", "b", "c", "d", "e"), warns: []string{"SSCAN: the reply lists"}},
		{name: "hashtable one member", setup: [][]string{{"SADD", "h", "a"}}, cmd: a("SSCAN", "h", "0"), want: page("0", "a")},
		{name: "hashtable first page", setup: h, cmd: a("SSCAN", "h", "0", "COUNT", "2"), want: page("2", "a", "b"), warns: []string{wCursor, wOrder}},
		{name: "hashtable last page", setup: h, cmd: a("SSCAN", "h", "4", "COUNT", "2"), want: page("0", "e"), warns: []string{wCursor}},
		{name: "hashtable past the end", setup: h, cmd: a("SSCAN", "h", "-1"), want: page("0"), warns: []string{wCursor}},
		{name: "hashtable match", setup: h, cmd: a("SSCAN", "h", "0", "MATCH", "[bd]"), want: page("0", "b", "d"), warns: []string{wOrder}},
	})
}

func TestParseScanCursorSet(t *testing.T) {
	for _, c := range []struct {
		in   string
		want uint64
		ok   bool
	}{
		{"0", 0, true}, {"", 0, true}, {"42", 42, true}, {"+7", 7, true}, {"-0", 0, true},
		{"-1", 1<<64 - 1, true}, {"18446744073709551615", 1<<64 - 1, true}, {"007", 7, true},
		{"5\x00junk", 5, true}, {"\x00", 0, true},
		{"18446744073709551616", 0, false}, {" 1", 0, false}, {"\t1", 0, false}, {"1 ", 0, false},
		{"+", 0, false}, {"-", 0, false}, {"0x1", 0, false}, {"1.0", 0, false}, {"abc", 0, false},
	} {
		got, ok := parseScanCursor(New(Options{}).Server, c.in)
		if got != c.want || ok != c.ok {
			t.Errorf("parseScanCursor(%q) = %d %v, want %d %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

func TestGlobMatch(t *testing.T) {
	for _, c := range []struct {
		pat, s string
		want   bool
	}{
		{"*", "", false}, {"**", "", false}, {"", "", true}, {"", "a", false}, {"a*", "abc", true}, {"*c", "abc", true},
		{"a?c", "abc", true}, {"a?c", "ac", false}, {"**b", "ab", true}, {"a*", "", false},
		{"[abc]", "b", true}, {"[^abc]", "b", false}, {"[^abc]", "d", true}, {"[a-c]x", "bx", true},
		{"[c-a]", "b", true}, {"[a-]", "-", false}, {"[a-]", "a", true}, {"[]", "a", false},
		{"[", "a", false}, {"[a", "a", true}, {"[^", "a", true}, {`\*`, "*", true}, {`\*`, "a", false},
		{`\`, `\`, true}, {`[\]]`, "]", true}, {"a*b*c", "aXbYc", true}, {"a*b*c", "aXbY", false},
		{"*a", "bbbb", false}, {"a*", "a", true}, {"a**", "a", true},
		// Ranges compare signed chars: [a-\xff] is [\xff-a], so 'b' is out.
		{"[a-\xff]", "b", false}, {"[a-\xff]", "\x80", false}, {"[a-\xff]", "\xff", true}, {"[a-\xff]", "0", true},
		{"x\x00y", "x\x00y", true}, {"h?llo", "h\xffllo", true},
	} {
		if got := globMatch(c.pat, c.s); got != c.want {
			t.Errorf("globMatch(%q, %q) = %v, want %v", c.pat, c.s, got, c.want)
		}
	}
}

// sameReply compares replies exactly when the engine did not warn; after
// an order warning, with the members sorted; after a cursor warning, not
// at all (Redis's pages of a hashtable cannot be predicted).
func sameReply(got, want Reply, warns []string) bool {
	if len(warns) == 0 || got.Kind != Array || want.Kind != Array {
		return got.Equal(want)
	}
	for _, w := range warns {
		if strings.Contains(w, wCursor) {
			return true
		}
	}
	if len(got.Elems) == 2 && got.Elems[0].Kind == Bulk && got.Elems[1].Kind == Array { // SSCAN
		return got.Elems[0].Equal(want.Elems[0]) && sameReply(got.Elems[1], want.Elems[1], warns)
	}
	sorted := func(r Reply) []string {
		var out []string
		for _, x := range r.Elems {
			out = append(out, x.String())
		}
		slices.Sort(out)
		return out
	}
	return slices.Equal(sorted(got), sorted(want))
}

// TestSetClone checks the contract COPY relies on: the copy keeps the
// encoding and order, and is independent of the original.
func TestSetClone(t *testing.T) {
	s := newSet()
	for _, m := range []string{"x", "3", "1", "2"} {
		s.add(m)
	}
	s.rem("x")
	c := s.clone()
	if c.encoding() != "hashtable" || !slices.Equal(c.members(), []string{"3", "1", "2"}) {
		t.Fatalf("clone %s %q", c.encoding(), c.members())
	}
	c.rem("1")
	c.add("9")
	if !slices.Equal(s.members(), []string{"3", "1", "2"}) || !slices.Equal(c.members(), []string{"3", "2", "9"}) {
		t.Errorf("after changing the clone: original %q, clone %q", s.members(), c.members())
	}
	i := newSet()
	i.add("5")
	i.add("-5")
	ic := i.clone()
	ic.add("0")
	if ic.encoding() != "intset" || !slices.Equal(ic.members(), []string{"-5", "0", "5"}) || i.len() != 2 {
		t.Errorf("intset clone %s %q, original %q", ic.encoding(), ic.members(), i.members())
	}
}

// TestGlobMatchLive compares MATCH on random patterns and members with
// Redis's stringmatchlen, through SSCAN of a hashtable smaller than COUNT
// (one call returns every match).
func TestGlobMatchLive(t *testing.T) {
	if testing.Short() {
		t.Skip("live: needs redis-server")
	}
	live := redistest.Standalone(t).Client()
	ctx := context.Background()
	rng := rand.New(rand.NewSource(11))
	const alphabet = "ab1*?[]^-\\\xff\x80"
	word := func(max int) string {
		b := make([]byte, rng.Intn(max+1))
		for i := range b {
			b[i] = alphabet[rng.Intn(len(alphabet))]
		}
		return string(b)
	}
	add := []string{"SADD", "s", "x"}
	for i := 0; i < 400; i++ {
		add = append(add, word(4))
	}
	e := New(Options{Target: liveTarget(t), Topology: TopologyStandalone})
	liveDo(t, live, add...)
	if _, err := e.Do(ctx, add...); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 600; i++ {
		c := []string{"SSCAN", "s", "0", "COUNT", "1000", "MATCH", word(6)}
		got, err := e.Do(ctx, c...)
		if err != nil {
			t.Fatal(err)
		}
		if want := liveDo(t, live, c...); !sameReply(got, want, []string{wOrder}) {
			t.Fatalf("%q:\noffline %s\nlive    %s", c, got, want)
		}
	}
}

// TestSetEncodingLive runs random set commands on the engine and on a real
// server and compares every reply, the encodings, and the order of every
// reply the engine did not warn about: where it claims to be exact, it is.
func TestSetEncodingLive(t *testing.T) {
	if testing.Short() {
		t.Skip("live: needs redis-server")
	}
	live := redistest.Standalone(t).Client()
	ctx := context.Background()
	rng := rand.New(rand.NewSource(7))
	keys := []string{"{k}a", "{k}b", "{k}c"}
	member := func() string {
		switch n := rng.Intn(20); {
		case n < 14:
			return strconv.Itoa(rng.Intn(40) - 10)
		case n < 16:
			return []string{"x", "y", "01", "-0", ""}[rng.Intn(5)]
		default:
			return strconv.Itoa(rng.Intn(2000))
		}
	}
	gen := func() []string {
		k := func() string { return keys[rng.Intn(len(keys))] }
		switch rng.Intn(15) {
		case 0, 1, 2:
			c := []string{"SADD", k()}
			for n := rng.Intn(40) + 1; n > 0; n-- {
				c = append(c, member())
			}
			return c
		case 3:
			return []string{"SREM", k(), member(), member(), member()}
		case 4:
			return []string{"SINTER", k(), k()}
		case 5:
			return []string{"SUNION", k(), k()}
		case 6:
			return []string{"SDIFF", k(), k(), k()}
		case 7:
			return []string{"SINTERSTORE", k(), k(), k()}
		case 8:
			return []string{"SUNIONSTORE", k(), k(), k()}
		case 9:
			return []string{"SDIFFSTORE", k(), k(), k()}
		case 10:
			return []string{"SMOVE", k(), k(), member()}
		case 11:
			return []string{"SINTERCARD", "2", k(), k(), "LIMIT", strconv.Itoa(rng.Intn(5))}
		case 12:
			return []string{"SPOP", k(), "count"} // count: the live size or more
		case 13:
			return []string{"SRANDMEMBER", k(), "count"} // count: the live size or more
		default:
			return []string{"SSCAN", k(), "0", "MATCH", "*1*"}
		}
	}
	for round := 0; round < 16; round++ {
		liveDo(t, live, "FLUSHALL")
		e := New(Options{Target: liveTarget(t), Topology: TopologyStandalone})
		for step := 0; step < 300; step++ {
			c := gen()
			if c[0] == "SPOP" || c[0] == "SRANDMEMBER" {
				// A smaller count pops different members on each side.
				c[2] = strconv.FormatInt(liveDo(t, live, "SCARD", c[1]).Int+int64(rng.Intn(3)), 10)
			}
			e.warnings = nil
			got, err := e.Do(ctx, c...)
			if err != nil {
				t.Fatalf("%q: %v", c, err)
			}
			want := liveDo(t, live, c...)
			warns := e.Warnings()
			if !sameReply(got, want, warns) {
				t.Fatalf("round %d step %d %q:\noffline %s\nlive    %s (warnings: %q)", round, step, c, got, want, warns)
			}
			for _, k := range keys {
				wantEnc := liveDo(t, live, "OBJECT", "ENCODING", k)
				gotEnc := NilReply()
				if v := e.db.get(k); v != nil {
					gotEnc = BulkReply(v.set.encoding())
				}
				if !gotEnc.Equal(wantEnc) {
					t.Fatalf("round %d step %d %q: %s encoding %s, live %s", round, step, c, k, gotEnc, wantEnc)
				}
				if g, w := e.db.get(k), liveDo(t, live, "SCARD", k); g != nil && int64(g.set.len()) != w.Int {
					t.Fatalf("round %d step %d %q: %s size %d, live %s", round, step, c, k, g.set.len(), w)
				}
				if gotEnc.Kind == Bulk && gotEnc.Str == "intset" {
					if g, w := e.db.get(k).set.members(), liveDo(t, live, "SMEMBERS", k); !membersReply(g).Equal(w) {
						t.Fatalf("round %d step %d %q: %s members %q, live %s", round, step, c, k, g, w)
					}
				}
			}
		}
	}
}

// liveDo runs a command on a real server and converts the reply exactly.
func liveDo(t *testing.T, c rueidis.Client, args ...string) Reply {
	t.Helper()
	msg, err := c.Do(context.Background(), c.B().Arbitrary(args...).Build()).ToMessage()
	if _, isReply := rueidis.IsRedisErr(err); err != nil && !isReply && !rueidis.IsRedisNil(err) {
		t.Fatalf("live %q: %v", args, err)
	}
	r, err := FromMessage(msg)
	if err != nil {
		t.Fatalf("live %q: %v", args, err)
	}
	return r
}

// TestSetScriptOrderLive shows on redis-server 7.0.15 that a script gets
// SMEMBERS, SUNION, SINTER, SDIFF, HKEYS, HVALS, HGETALL and KEYS in the same
// order as a client (7.0 removed Redis 6's sorting of "sort_for_script"
// commands, removed by redis#9812), and that the order of a hashtable set or
// hash changes from one server start to the next: it cannot be reproduced,
// only warned about.
func TestSetScriptOrderLive(t *testing.T) {
	if testing.Short() {
		t.Skip("live: needs redis-server")
	}
	srv := redistest.Standalone(t)
	fruit := []string{"apple", "banana", "cherry", "date", "elder", "fig", "grape", "honeydew", "kiwi", "lemon", "mango", "nut"}
	for i := 0; i < 120; i++ {
		fruit = append(fruit, fmt.Sprintf("m%d", i)) // past 128 members: a hashtable from 7.2 too
	}
	long := strings.Repeat("v", 65) // a value over 64 bytes makes a hashtable hash
	var smembers, hkeys []string
	for round := 0; round < 4; round++ {
		if round > 0 {
			srv.Stop()
			srv.Restart()
		}
		live := srv.Client()
		liveDo(t, live, "FLUSHALL")
		liveDo(t, live, append([]string{"SADD", "s"}, fruit...)...)
		h := []string{"HSET", "h"}
		for _, f := range fruit {
			h = append(h, f, long+f)
		}
		liveDo(t, live, h...)
		if enc := liveDo(t, live, "OBJECT", "ENCODING", "s"); enc.Str != "hashtable" {
			t.Fatalf("set encoding %s", enc)
		}
		for _, c := range [][]string{{"SMEMBERS", "s"}, {"SUNION", "s"}, {"SINTER", "s"}, {"SDIFF", "s"}, {"HKEYS", "h"}, {"HVALS", "h"}, {"HGETALL", "h"}, {"KEYS", "*"}} {
			client := liveDo(t, live, c...)
			script := liveDo(t, live, "EVAL", fmt.Sprintf("return redis.call('%s', '%s')", c[0], c[1]), "0")
			if !script.Equal(client) {
				t.Errorf("round %d %s: script %s, client %s", round, c[0], script, client)
			}
		}
		smembers = append(smembers, liveDo(t, live, "SMEMBERS", "s").String())
		hkeys = append(hkeys, liveDo(t, live, "HKEYS", "h").String())
	}
	for name, orders := range map[string][]string{"SMEMBERS": smembers, "HKEYS": hkeys} {
		slices.Sort(orders)
		if len(slices.Compact(orders)) < 2 {
			t.Errorf("%s of a hashtable gave one order over 4 server starts: %s", name, orders[0])
		}
	}
}
