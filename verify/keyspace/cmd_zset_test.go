package keyspace

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand"
	"sort"
	"strings"
	"testing"
)

// zcase is one sorted set command test: set-up commands, one command, its
// reply, and afterwards each listed key's members as ZRANGE key 0 -1
// WITHSCORES answers them (nil: the key must not exist) and, when given,
// its OBJECT ENCODING.
type zcase struct {
	name  string
	setup [][]string
	sets  map[string][]string // set keys created directly (SADD is another family's)
	cmd   []string
	want  Reply
	zsets map[string][]string
	enc   map[string]string
}

func runZCases(t *testing.T, cases []zcase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			e := New(Options{Now: 1_000_000})
			for k, ms := range tc.sets {
				s := newSet()
				for _, m := range ms {
					s.add(m)
				}
				e.db.keys[k] = &value{kind: kindSet, set: s}
			}
			for _, s := range tc.setup {
				if r, err := e.Do(ctx, s...); err != nil || r.Kind == Error {
					t.Fatalf("setup %q: %s %v", s, r, err)
				}
			}
			got, err := e.Do(ctx, tc.cmd...)
			if err != nil {
				t.Fatalf("%q: %v", tc.cmd, err)
			}
			if !got.Equal(tc.want) {
				t.Errorf("%q: reply %s, want %s", tc.cmd, got, tc.want)
			}
			for k, want := range tc.zsets {
				v := e.db.get(k)
				if want == nil {
					if v != nil {
						t.Errorf("key %q exists", k)
					}
					continue
				}
				if v == nil || v.kind != kindZSet {
					t.Errorf("key %q: no sorted set", k)
					continue
				}
				r, _ := e.Do(ctx, "ZRANGE", k, "0", "-1", "WITHSCORES")
				if w := bulks(want...); !r.Equal(w) {
					t.Errorf("key %q = %s, want %s", k, r, w)
				}
			}
			for k, want := range tc.enc {
				if v := e.db.get(k); v == nil || v.kind != kindZSet || v.zset.encoding() != want {
					t.Errorf("key %q: encoding is not %s", k, want)
				}
			}
		})
	}
}

var z3 = []string{"ZADD", "z", "1", "a", "2", "b", "3", "c"}

func TestZaddZincrby(t *testing.T) {
	runZCases(t, []zcase{
		{name: "zadd", cmd: a("ZADD", "z", "1", "a", "2", "b"), want: IntReply(2), zsets: map[string][]string{"z": {"a", "1", "b", "2"}}},
		{name: "zadd ch", setup: [][]string{z3}, cmd: a("ZADD", "z", "ch", "9", "a", "2", "b", "4", "d"), want: IntReply(2),
			zsets: map[string][]string{"z": {"b", "2", "c", "3", "d", "4", "a", "9"}}},
		{name: "zadd nx", setup: [][]string{z3}, cmd: a("ZADD", "z", "NX", "9", "a", "4", "d"), want: IntReply(1),
			zsets: map[string][]string{"z": {"a", "1", "b", "2", "c", "3", "d", "4"}}},
		{name: "zadd xx missing key", cmd: a("ZADD", "z", "XX", "1", "a"), want: IntReply(0), zsets: map[string][]string{"z": nil}},
		{name: "zadd xx incr missing key", cmd: a("ZADD", "z", "XX", "INCR", "1", "a"), want: NilReply(), zsets: map[string][]string{"z": nil}},
		{name: "zadd gt", setup: [][]string{z3}, cmd: a("ZADD", "z", "GT", "CH", "0", "a", "5", "b", "7", "n"), want: IntReply(2),
			zsets: map[string][]string{"z": {"a", "1", "c", "3", "b", "5", "n", "7"}}},
		{name: "zadd lt", setup: [][]string{z3}, cmd: a("ZADD", "z", "LT", "CH", "0", "a", "5", "b"), want: IntReply(1),
			zsets: map[string][]string{"z": {"a", "0", "b", "2", "c", "3"}}},
		{name: "zadd incr", setup: [][]string{z3}, cmd: a("ZADD", "z", "INCR", "0.5", "a"), want: BulkReply("1.5")},
		{name: "zadd incr blocked by gt", setup: [][]string{z3}, cmd: a("ZADD", "z", "GT", "INCR", "-1", "a"), want: NilReply()},
		{name: "zadd incr nan", setup: [][]string{{"ZADD", "z", "inf", "a"}}, cmd: a("ZADD", "z", "INCR", "-inf", "a"), want: errZsetNaN,
			zsets: map[string][]string{"z": {"a", "inf"}}},
		{name: "zadd nx xx", cmd: a("ZADD", "z", "NX", "XX", "1", "a"), want: ErrorReply("ERR XX and NX options at the same time are not compatible")},
		{name: "zadd gt lt", cmd: a("ZADD", "z", "GT", "LT", "1", "a"), want: ErrorReply("ERR GT, LT, and/or NX options at the same time are not compatible")},
		{name: "zadd incr pairs", cmd: a("ZADD", "z", "INCR", "1", "a", "2", "b"), want: ErrorReply("ERR INCR option supports a single increment-element pair")},
		{name: "zadd odd", cmd: a("ZADD", "z", "1", "a", "2"), want: errSyntax},
		{name: "zadd syntax before options", cmd: a("ZADD", "z", "NX", "XX", "1"), want: errSyntax},
		{name: "zadd bad score first", setup: [][]string{{"SET", "z", "v"}}, cmd: a("ZADD", "z", "x", "a"), want: errNotFloat},
		{name: "zadd atomic", cmd: a("ZADD", "z", "1", "a", "x", "b"), want: errNotFloat, zsets: map[string][]string{"z": nil}},
		{name: "zadd wrongtype", setup: [][]string{{"SET", "z", "v"}}, cmd: a("ZADD", "z", "1", "a"), want: errWrongType},
		{name: "zadd keeps ttl", setup: [][]string{z3, {"PEXPIRE", "z", "500"}}, cmd: a("PTTL", "z"), want: IntReply(500)},
		{name: "zincrby new", cmd: a("ZINCRBY", "z", "0.1", "a"), want: BulkReply("0.10000000000000001")},
		{name: "zincrby bad", cmd: a("ZINCRBY", "z", "1x", "a"), want: errNotFloat},
		{name: "zincrby -0 reply keeps sign", cmd: a("ZINCRBY", "z", "-0", "a"), want: BulkReply("-0"), zsets: map[string][]string{"z": {"a", "0"}}},
		{name: "listpack stores -0 as 0", setup: [][]string{{"ZADD", "z", "-0", "a"}}, cmd: a("ZSCORE", "z", "a"), want: BulkReply("0")},
		{name: "skiplist keeps -0", setup: [][]string{{"ZADD", "z", "-0", strings.Repeat("m", 65)}}, cmd: a("ZMSCORE", "z", strings.Repeat("m", 65)),
			want: bulks("-0"), enc: map[string]string{"z": "skiplist"}},
	})
}

func TestZsetEncoding(t *testing.T) {
	var add129 []string
	add129 = append(add129, "ZADD", "z")
	for i := 0; i < 129; i++ {
		add129 = append(add129, "1", fmt.Sprint("m", i))
	}
	runZCases(t, []zcase{
		{name: "small is listpack", setup: [][]string{z3}, cmd: a("ZCARD", "z"), want: IntReply(3), enc: map[string]string{"z": "listpack"}},
		{name: "129 members", setup: [][]string{add129}, cmd: a("ZCARD", "z"), want: IntReply(129), enc: map[string]string{"z": "skiplist"}},
		{name: "one-way", setup: [][]string{add129}, cmd: a("ZREMRANGEBYRANK", "z", "0", "-2"), want: IntReply(128), enc: map[string]string{"z": "skiplist"}},
		{name: "long member", setup: [][]string{z3}, cmd: a("ZADD", "z", "1", strings.Repeat("x", 65)), want: IntReply(1), enc: map[string]string{"z": "skiplist"}},
		{name: "64 bytes fit", setup: [][]string{z3}, cmd: a("ZADD", "z", "1", strings.Repeat("x", 64)), want: IntReply(1), enc: map[string]string{"z": "listpack"}},
		{name: "store result small", setup: [][]string{add129}, cmd: a("ZUNIONSTORE", "d", "1", "z", "WEIGHTS", "2"), want: IntReply(129), enc: map[string]string{"d": "skiplist"}},
		{name: "store result compacted", setup: [][]string{add129}, cmd: a("ZRANGESTORE", "d", "z", "0", "2"), want: IntReply(3), enc: map[string]string{"d": "listpack"}},
		{name: "rangestore big", setup: [][]string{add129}, cmd: a("ZRANGESTORE", "d", "z", "0", "-1"), want: IntReply(129), enc: map[string]string{"d": "skiplist"}},
		{name: "union -0 compacted to 0", setup: [][]string{{"ZADD", "z", "0", "x"}}, cmd: a("ZUNIONSTORE", "d", "1", "z", "WEIGHTS", "-1"), want: IntReply(1),
			zsets: map[string][]string{"d": {"x", "0"}}},
		{name: "union reply keeps -0", setup: [][]string{{"ZADD", "z", "0", "x"}}, cmd: a("ZUNION", "1", "z", "WEIGHTS", "-1", "WITHSCORES"), want: bulks("x", "-0")},
	})
}

func TestZsetReads(t *testing.T) {
	zl := []string{"ZADD", "z", "0", "a", "0", "b", "0", "c", "0", "d"}
	runZCases(t, []zcase{
		{name: "zscore formats", setup: [][]string{{"ZADD", "z", "1e20", "a", "-inf", "b", "2.5", "c"}}, cmd: a("ZMSCORE", "z", "a", "b", "c", "x"),
			want: ArrayReply(BulkReply("1e+20"), BulkReply("-inf"), BulkReply("2.5"), NilReply())},
		{name: "zmscore missing key", cmd: a("ZMSCORE", "z", "a"), want: ArrayReply(NilReply())},
		{name: "zcount", setup: [][]string{z3}, cmd: a("ZCOUNT", "z", "(1", "3"), want: IntReply(2)},
		{name: "zcount empty bounds are 0", setup: [][]string{{"ZADD", "z", "0", "a", "1", "b"}}, cmd: a("ZCOUNT", "z", "", "("), want: IntReply(0)},
		{name: "zcount nul ends the number", setup: [][]string{z3}, cmd: a("ZCOUNT", "z", "2\x00x", "+inf"), want: IntReply(2)},
		{name: "zcount bad", cmd: a("ZCOUNT", "z", "1 ", "2"), want: errMinMaxFloat},
		{name: "zlexcount", setup: [][]string{zl}, cmd: a("ZLEXCOUNT", "z", "(a", "[c"), want: IntReply(2)},
		{name: "zlexcount bad", cmd: a("ZLEXCOUNT", "z", "a", "+"), want: errMinMaxLex},
		{name: "zlexcount mixed scores walks like a listpack", setup: [][]string{{"ZADD", "z", "3", "a", "1", "b", "2", "c", "0", "d"}},
			cmd: a("ZLEXCOUNT", "z", "[b", "[d"), want: IntReply(0)},
		{name: "zrank", setup: [][]string{z3}, cmd: a("ZREVRANK", "z", "a"), want: IntReply(2)},
		{name: "zrange rev withscores", setup: [][]string{z3}, cmd: a("ZRANGE", "z", "0", "1", "REV", "WITHSCORES"), want: bulks("c", "3", "b", "2")},
		{name: "zrange byscore limit", setup: [][]string{z3}, cmd: a("ZRANGE", "z", "-inf", "+inf", "BYSCORE", "LIMIT", "1", "-1"), want: bulks("b", "c")},
		{name: "zrange negative offset", setup: [][]string{z3}, cmd: a("ZRANGE", "z", "-inf", "+inf", "BYSCORE", "LIMIT", "-1", "5"), want: bulks()},
		{name: "zrange limit on rank", setup: [][]string{z3}, cmd: a("ZRANGE", "z", "0", "1", "LIMIT", "0", "1"),
			want: ErrorReply("ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX")},
		{name: "zrange limit -1 on rank", setup: [][]string{z3}, cmd: a("ZRANGE", "z", "0", "0", "LIMIT", "0", "-1"), want: bulks("a")},
		{name: "zrange bylex withscores", cmd: a("ZRANGE", "z", "-", "+", "BYLEX", "WITHSCORES"),
			want: ErrorReply("ERR syntax error, WITHSCORES not supported in combination with BYLEX")},
		{name: "zrevrangebylex", setup: [][]string{zl}, cmd: a("ZREVRANGEBYLEX", "z", "+", "(a", "LIMIT", "1", "2"), want: bulks("c", "b")},
		{name: "zrevrangebyscore", setup: [][]string{z3}, cmd: a("ZREVRANGEBYSCORE", "z", "(3", "-inf"), want: bulks("b", "a")},
		{name: "zrange wrongtype after parse", setup: [][]string{{"SET", "z", "v"}}, cmd: a("ZRANGE", "z", "x", "1"), want: errNotInt},
		{name: "zscan listpack text", setup: [][]string{{"ZADD", "z", "1e18", "a", "0.1", "b"}}, cmd: a("ZSCAN", "z", "0"),
			want: ArrayReply(BulkReply("0"), bulks("b", "0.10000000000000001", "a", "1000000000000000000"))},
		{name: "zscan match", setup: [][]string{z3}, cmd: a("ZSCAN", "z", "0", "MATCH", "[^a]"), want: ArrayReply(BulkReply("0"), bulks("b", "2", "c", "3"))},
		{name: "zscan missing key skips options", cmd: a("ZSCAN", "z", "0", "BAD"), want: ArrayReply(BulkReply("0"), bulks())},
		{name: "zscan cursor", cmd: a("ZSCAN", "z", " 0"), want: ErrorReply("ERR invalid cursor")},
		{name: "zscan count", setup: [][]string{z3}, cmd: a("ZSCAN", "z", "0", "COUNT", "0"), want: errSyntax},
	})
}

func TestZsetWrites(t *testing.T) {
	runZCases(t, []zcase{
		{name: "zrem last deletes", setup: [][]string{z3}, cmd: a("ZREM", "z", "a", "b", "c", "x"), want: IntReply(3), zsets: map[string][]string{"z": nil}},
		{name: "zremrangebyrank", setup: [][]string{z3}, cmd: a("ZREMRANGEBYRANK", "z", "-2", "100"), want: IntReply(2), zsets: map[string][]string{"z": {"a", "1"}}},
		{name: "zremrangebyscore", setup: [][]string{z3}, cmd: a("ZREMRANGEBYSCORE", "z", "(1", "2"), want: IntReply(1), zsets: map[string][]string{"z": {"a", "1", "c", "3"}}},
		{name: "zremrangebylex", setup: [][]string{{"ZADD", "z", "0", "a", "0", "b", "0", "c"}}, cmd: a("ZREMRANGEBYLEX", "z", "-", "(c"), want: IntReply(2),
			zsets: map[string][]string{"z": {"c", "0"}}},
		{name: "zpopmax count", setup: [][]string{z3}, cmd: a("ZPOPMAX", "z", "2"), want: bulks("c", "3", "b", "2"), zsets: map[string][]string{"z": {"a", "1"}}},
		{name: "zpopmin bad count", setup: [][]string{z3}, cmd: a("ZPOPMIN", "z", "x"), want: errNotPositive},
		{name: "zmpop", setup: [][]string{z3}, cmd: a("ZMPOP", "2", "n", "z", "MAX", "COUNT", "5"),
			want: ArrayReply(BulkReply("z"), ArrayReply(bulks("c", "3"), bulks("b", "2"), bulks("a", "1"))), zsets: map[string][]string{"z": nil}},
		{name: "zmpop empty", cmd: a("ZMPOP", "1", "z", "MIN"), want: NilReply()},
		{name: "bzpopmin with data", setup: [][]string{z3}, cmd: a("BZPOPMIN", "n", "z", "0"), want: bulks("z", "a", "1")},
		{name: "bzmpop with data", setup: [][]string{z3}, cmd: a("BZMPOP", "1.5", "1", "z", "MIN"), want: ArrayReply(BulkReply("z"), ArrayReply(bulks("a", "1")))},
		{name: "bzpopmin inf timeout", cmd: a("BZPOPMIN", "z", "inf"), want: ErrorReply("ERR timeout is negative")},
		{name: "zrangestore", setup: [][]string{z3, {"SET", "d", "v", "PX", "100"}}, cmd: a("ZRANGESTORE", "d", "z", "(1", "+inf", "BYSCORE"), want: IntReply(2),
			zsets: map[string][]string{"d": {"b", "2", "c", "3"}}},
		{name: "zrangestore empty deletes", setup: [][]string{z3, {"SET", "d", "v"}}, cmd: a("ZRANGESTORE", "d", "z", "5", "9"), want: IntReply(0), zsets: map[string][]string{"d": nil}},
	})
}

func TestZsetSetOperations(t *testing.T) {
	za := []string{"ZADD", "a", "1", "x", "2", "y", "3", "z"}
	zb := []string{"ZADD", "b", "10", "y", "20", "z", "30", "w"}
	runZCases(t, []zcase{
		{name: "union", setup: [][]string{za, zb}, cmd: a("ZUNION", "2", "a", "b", "WITHSCORES"), want: bulks("x", "1", "y", "12", "z", "23", "w", "30")},
		{name: "union with a set", setup: [][]string{za}, sets: map[string][]string{"b": {"x", "q"}}, cmd: a("ZUNION", "2", "a", "b", "WITHSCORES"),
			want: bulks("q", "1", "x", "2", "y", "2", "z", "3")},
		{name: "inter with a set weighted", setup: [][]string{za}, sets: map[string][]string{"b": {"x", "z", "q"}},
			cmd: a("ZINTER", "2", "a", "b", "WEIGHTS", "1", "5", "WITHSCORES"), want: bulks("x", "6", "z", "8")},
		{name: "diff set first", setup: [][]string{zb}, sets: map[string][]string{"a": {"x", "y", "w", "v"}}, cmd: a("ZDIFF", "2", "a", "b", "WITHSCORES"),
			want: bulks("v", "1", "x", "1")},
		{name: "intercard with set", setup: [][]string{za}, sets: map[string][]string{"b": {"x", "z", "q"}}, cmd: a("ZINTERCARD", "2", "a", "b", "LIMIT", "1"), want: IntReply(1)},
		{name: "inf - inf is 0", setup: [][]string{{"ZADD", "a", "inf", "x"}, {"ZADD", "b", "-inf", "x"}}, cmd: a("ZUNION", "2", "a", "b", "WITHSCORES"), want: bulks("x", "0")},
		{name: "0 * inf is 0", setup: [][]string{{"ZADD", "a", "inf", "x"}}, cmd: a("ZUNION", "1", "a", "WEIGHTS", "0", "WITHSCORES"), want: bulks("x", "0")},
		{name: "inter NaN sum is 0", setup: [][]string{{"ZADD", "a", "5", "x"}, {"ZADD", "b", "inf", "x"}}, cmd: a("ZINTER", "2", "a", "b", "WEIGHTS", "1", "0", "WITHSCORES"),
			want: bulks("x", "0")},
		{name: "inter NaN ignored by max", setup: [][]string{{"ZADD", "a", "5", "x"}, {"ZADD", "b", "6", "x", "7", "y"}, {"ZADD", "b", "inf", "x"}},
			cmd: a("ZINTER", "2", "a", "b", "WEIGHTS", "1", "0", "AGGREGATE", "MAX", "WITHSCORES"), want: bulks("x", "5")},
		{name: "store replaces", setup: [][]string{za, zb, {"SET", "d", "v", "EX", "10"}}, cmd: a("ZINTERSTORE", "d", "2", "a", "b", "AGGREGATE", "MIN"), want: IntReply(2),
			zsets: map[string][]string{"d": {"y", "2", "z", "3"}}},
		{name: "wrongtype input", setup: [][]string{za, {"SET", "b", "v"}}, cmd: a("ZUNION", "2", "a", "b"), want: errWrongType},
		{name: "numkeys 0", cmd: a("ZDIFFSTORE", "d", "0", "a"), want: ErrorReply("ERR at least 1 input key is needed for 'zdiffstore' command")},
		{name: "weights on diff", setup: [][]string{za}, cmd: a("ZDIFF", "1", "a", "WEIGHTS", "1"), want: errSyntax},
		{name: "bad weight", cmd: a("ZUNION", "1", "a", "WEIGHTS", "nan"), want: ErrorReply("ERR weight value is not a float")},
	})
}

func TestZrandmember(t *testing.T) {
	ctx := context.Background()
	e := New(Options{})
	e.Do(ctx, z3...)
	cases := []struct {
		cmd  []string
		want Reply
		warn bool
	}{
		{a("ZRANDMEMBER", "z"), BulkReply("a"), true},
		{a("ZRANDMEMBER", "z", "5", "WITHSCORES"), bulks("c", "3", "b", "2", "a", "1"), false},
		{a("ZRANDMEMBER", "z", "2"), bulks("a", "b"), true},
		{a("ZRANDMEMBER", "z", "-4"), bulks("a", "b", "c", "a"), true},
		{a("ZRANDMEMBER", "z", "0"), bulks(), false},
		{a("ZRANDMEMBER", "z", "1", "x"), errSyntax, false},
		{a("ZRANDMEMBER", "z", "-9223372036854775808"), ErrorReply("ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807"), false},
		{a("ZRANDMEMBER", "z", "4611686018427387904", "WITHSCORES"), errOutOfRange, false},
	}
	for _, c := range cases {
		e.warnings = nil
		got, err := e.Do(ctx, c.cmd...)
		if err != nil || !got.Equal(c.want) {
			t.Errorf("%q = %s %v, want %s", c.cmd, got, err, c.want)
		}
		if warned := len(e.Warnings()) > 0; warned != c.warn {
			t.Errorf("%q: warnings %q, want warned=%v", c.cmd, e.Warnings(), c.warn)
		}
	}
	var re *RunError
	if _, err := e.Do(ctx, "ZRANDMEMBER", "z", "-100000000"); !errors.As(err, &re) || re.Code != CodeMemory {
		t.Errorf("huge negative count: %v", err)
	}
}

func TestZscanSkiplistWarns(t *testing.T) {
	ctx := context.Background()
	e := New(Options{})
	e.Do(ctx, "ZADD", "z", "1", "a", "2", strings.Repeat("b", 70))
	got, _ := e.Do(ctx, "ZSCAN", "z", "0")
	want := ArrayReply(BulkReply("0"), bulks("a", "1", strings.Repeat("b", 70), "2"))
	if !got.Equal(want) || len(e.Warnings()) != 1 {
		t.Errorf("ZSCAN skiplist = %s, warnings %q", got, e.Warnings())
	}
}

func TestString2d(t *testing.T) {
	for s, want := range map[string]any{
		"1": 1.0, "-2.5": -2.5, "0x10": 16.0, "inf": math.Inf(1), "-Infinity": math.Inf(-1), "1e308": 1e308, "0e-999": 0.0, "4e-320": 4e-320,
		"": nil, " 1": nil, "1 ": nil, "nan": nil, "1e309": nil, "1e-400": nil, "0x1p-2000": nil, "1\x00": nil, "0x": nil, "abc": nil, "+": nil,
	} {
		f, ok := string2d(s)
		if want == nil {
			if ok {
				t.Errorf("string2d(%q) = %v, want an error", s, f)
			}
		} else if !ok || f != want.(float64) {
			t.Errorf("string2d(%q) = %v %v, want %v", s, f, ok, want)
		}
	}
}

func TestScoreBounds(t *testing.T) {
	for _, c := range []struct {
		s    string
		f    float64
		ex   bool
		fail bool
	}{
		{s: "1", f: 1}, {s: "(1", f: 1, ex: true}, {s: "", f: 0}, {s: "(", f: 0, ex: true}, {s: " 2", f: 2}, {s: "1e400", f: math.Inf(1)},
		{s: "3\x00junk", f: 3}, {s: "2 ", fail: true}, {s: "nan", fail: true}, {s: "((1", fail: true}, {s: "[1", fail: true}, {s: "  ", fail: true},
	} {
		f, ex, ok := parseScoreBound(New(Options{}).Server, c.s)
		if ok == c.fail || (ok && (f != c.f || ex != c.ex)) {
			t.Errorf("parseScoreBound(%q) = %v %v %v", c.s, f, ex, ok)
		}
	}
}

func TestStringMatchZset(t *testing.T) {
	for _, c := range []struct {
		p, s string
		want bool
	}{
		{"*", "", false}, {"a*", "a", true}, {"a*", "abc", true}, {"a?c", "abc", true}, {"a?c", "ac", false}, {"[a-c]x", "bx", true}, {"[c-a]x", "bx", true},
		{"[^a]", "a", false}, {"[^a]", "b", true}, {"a\\*", "a*", true}, {"a\\*", "ab", false}, {"[abc", "a", true}, {"[\\]]", "]", true},
		{"*b*", "aaa", false}, {"a**", "a", true}, {"\\", "\\", true}, {"h[ae]llo", "hallo", true}, {"x*y*z", "xayazb", false},
	} {
		if got := stringMatch(c.p, c.s, false); got != c.want {
			t.Errorf("stringMatch(%q, %q) = %v", c.p, c.s, got)
		}
	}
}

func TestScanCursorAndListpackText(t *testing.T) {
	for s, want := range map[string]bool{"0": true, "": true, "+5": true, "-1": true, "7\x00x": true, " 1": false, "1 ": false, "x": false, "18446744073709551616": false, "-": false} {
		if scanCursorOK(New(Options{}).Server, s) != want {
			t.Errorf("scanCursorOK(%q) != %v", s, want)
		}
	}
	for _, c := range []struct {
		f    float64
		want string
	}{
		{3, "3"}, {math.Copysign(0, -1), "0"}, {1e18, "1000000000000000000"}, {4611686018427387904, "4611686018427387904"},
		{4611686018427388928, "4.6116860184273889e+18"}, {0.5, "0.5"}, {math.Inf(-1), "-inf"},
	} {
		if got := listpackScoreText(New(Options{}).Server, c.f); got != c.want {
			t.Errorf("listpackScoreText(%v) = %q, want %q", c.f, got, c.want)
		}
	}
}

// TestZsetModel checks the skiplist against a sorted slice over random
// inserts, updates and deletes: order, ranks, seeks and clone.
func TestZsetModel(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	z := newZSet()
	model := map[string]float64{}
	for i := 0; i < 5000; i++ {
		m := fmt.Sprint("m", r.Intn(400))
		if r.Intn(3) == 0 {
			_, had := model[m]
			if z.rem(m) != had {
				t.Fatalf("rem(%s) disagrees", m)
			}
			delete(model, m)
			continue
		}
		s := float64(r.Intn(50))
		_, had := model[m]
		if z.set(m, s) == had {
			t.Fatalf("set(%s) new disagrees", m)
		}
		model[m] = s
	}
	var want []ZMember
	for m, s := range model {
		want = append(want, ZMember{m, s})
	}
	sort.Slice(want, func(i, j int) bool { return zless(want[i], want[j]) })
	check := func(z *zset) {
		t.Helper()
		if z.len() != len(want) {
			t.Fatalf("len %d, want %d", z.len(), len(want))
		}
		all := z.all()
		for i, m := range want {
			if all[i] != m || z.at(i) != m || z.rank(m.Member) != i {
				t.Fatalf("rank %d: %v / %v / %d, want %v", i, all[i], z.at(i), z.rank(m.Member), m)
			}
		}
		got := z.rangeByScore(10, 20)
		var exp []ZMember
		for _, m := range want {
			if m.Score >= 10 && m.Score <= 20 {
				exp = append(exp, m)
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(exp) {
			t.Fatalf("rangeByScore: %v, want %v", got, exp)
		}
	}
	check(z)
	check(z.clone())
}

func TestZsetExpiry(t *testing.T) {
	ctx := context.Background()
	e := New(Options{Now: 1_000_000})
	e.Do(ctx, z3...)
	e.Do(ctx, "PEXPIRE", "z", "100")
	e.Advance(100) // at its expiry time the key still exists, as in Redis
	if r, _ := e.Do(ctx, "ZCARD", "z"); !r.Equal(IntReply(3)) {
		t.Fatalf("ZCARD at expiry = %s", r)
	}
	e.Advance(1)
	for _, c := range [][]string{{"ZCARD", "z"}, {"ZRANGE", "z", "0", "-1"}, {"ZADD", "z", "XX", "1", "a"}} {
		if r, _ := e.Do(ctx, c...); !r.Equal(IntReply(0)) && !r.Equal(bulks()) {
			t.Errorf("%q after expiry = %s", c, r)
		}
	}
	e.Do(ctx, "ZADD", "z", "5", "n")
	if r, _ := e.Do(ctx, "PTTL", "z"); !r.Equal(IntReply(-1)) {
		t.Errorf("recreated key PTTL = %s, want -1", r)
	}
}

// TestZsetNoPanics throws random argument lists from a vocabulary of
// awkward values at every sorted set command: every call must answer a
// reply or a RunError, never panic.
func TestZsetNoPanics(t *testing.T) {
	cmds := []string{"ZADD", "ZINCRBY", "ZSCORE", "ZMSCORE", "ZCARD", "ZCOUNT", "ZLEXCOUNT", "ZRANGE", "ZRANGESTORE", "ZREVRANGE",
		"ZRANGEBYSCORE", "ZREVRANGEBYSCORE", "ZRANGEBYLEX", "ZREVRANGEBYLEX", "ZRANK", "ZREVRANK", "ZREM", "ZREMRANGEBYRANK",
		"ZREMRANGEBYSCORE", "ZREMRANGEBYLEX", "ZPOPMIN", "ZPOPMAX", "ZMPOP", "BZPOPMIN", "BZPOPMAX", "BZMPOP", "ZUNION", "ZINTER",
		"ZDIFF", "ZINTERCARD", "ZUNIONSTORE", "ZINTERSTORE", "ZDIFFSTORE", "ZRANDMEMBER", "ZSCAN"}
	words := []string{"z", "y", "s", "0", "1", "2", "-1", "-2", "3", "9223372036854775807", "-9223372036854775808", "inf", "-inf", "(1", "(",
		"[a", "(b", "-", "+", "nan", "1e400", "", "a", "b", "LIMIT", "WITHSCORES", "BYSCORE", "BYLEX", "REV", "MIN", "MAX", "COUNT",
		"WEIGHTS", "AGGREGATE", "SUM", "NX", "XX", "GT", "LT", "CH", "INCR", "MATCH", "*", "[", "\\", "0.5"}
	r := rand.New(rand.NewSource(7))
	ctx := context.Background()
	e := New(Options{})
	for i := 0; i < 20000; i++ {
		if i%500 == 0 {
			e = New(Options{})
			e.Do(ctx, "ZADD", "z", "1", "a", "2", "b", "-inf", "c", "inf", "d")
			e.Do(ctx, "ZADD", "y", "0", "a", "0", "b", "0", "c")
			e.Do(ctx, "SET", "s", "v")
		}
		args := []string{cmds[r.Intn(len(cmds))]}
		for n := r.Intn(9); n > 0; n-- {
			args = append(args, words[r.Intn(len(words))])
		}
		func() {
			defer func() {
				if p := recover(); p != nil {
					t.Fatalf("%q panics: %v", args, p)
				}
			}()
			e.Do(ctx, args...)
		}()
	}
}
