package keyspace

import (
	"context"
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"
)

func TestKeyCommands(t *testing.T) {
	withTTL := []string{"SET", "k", "v", "PX", "5000"}
	plain := []string{"SET", "k", "v"}
	runCmdCases(t, []cmdCase{
		{name: "del", setup: [][]string{plain, {"SET", "b", "1"}}, cmd: a("DEL", "k", "b", "x"), want: IntReply(2), keys: map[string]*Entry{"k": gone(), "b": gone()}},
		{name: "del expired", setup: [][]string{withTTL}, advance: 5001, cmd: a("DEL", "k"), want: IntReply(0)},
		{name: "unlink", setup: [][]string{plain}, cmd: a("UNLINK", "k"), want: IntReply(1), keys: map[string]*Entry{"k": gone()}},
		{name: "exists dup", setup: [][]string{plain}, cmd: a("EXISTS", "k", "k", "x"), want: IntReply(2)},
		{name: "expire", setup: [][]string{plain}, cmd: a("EXPIRE", "k", "10"), want: IntReply(1), keys: map[string]*Entry{"k": str("v", 10000)}},
		{name: "pexpire", setup: [][]string{plain}, cmd: a("PEXPIRE", "k", "10"), want: IntReply(1), keys: map[string]*Entry{"k": str("v", 10)}},
		{name: "expireat", setup: [][]string{plain}, cmd: a("EXPIREAT", "k", "1010"), want: IntReply(1), keys: map[string]*Entry{"k": str("v", 10000)}},
		{name: "pexpireat", setup: [][]string{plain}, cmd: a("PEXPIREAT", "k", "1000010"), want: IntReply(1), keys: map[string]*Entry{"k": str("v", 10)}},
		{name: "pexpireat now deletes", setup: [][]string{plain}, cmd: a("PEXPIREAT", "k", "1000000"), want: IntReply(1), keys: map[string]*Entry{"k": gone()}},
		{name: "expire 0 deletes", setup: [][]string{plain}, cmd: a("EXPIRE", "k", "0"), want: IntReply(1), keys: map[string]*Entry{"k": gone()}},
		{name: "expire negative deletes", setup: [][]string{plain}, cmd: a("PEXPIRE", "k", "-5"), want: IntReply(1), keys: map[string]*Entry{"k": gone()}},
		{name: "expire missing", cmd: a("EXPIRE", "k", "10"), want: IntReply(0)},
		{name: "expire nx has ttl", setup: [][]string{withTTL}, cmd: a("PEXPIRE", "k", "10", "NX"), want: IntReply(0), keys: map[string]*Entry{"k": str("v", 5000)}},
		{name: "expire xx no ttl", setup: [][]string{plain}, cmd: a("PEXPIRE", "k", "10", "XX"), want: IntReply(0), keys: map[string]*Entry{"k": str("v", -1)}},
		{name: "expire gt smaller", setup: [][]string{withTTL}, cmd: a("PEXPIRE", "k", "10", "GT"), want: IntReply(0), keys: map[string]*Entry{"k": str("v", 5000)}},
		{name: "expire gt larger", setup: [][]string{withTTL}, cmd: a("PEXPIRE", "k", "6000", "gt"), want: IntReply(1), keys: map[string]*Entry{"k": str("v", 6000)}},
		{name: "expire gt no ttl", setup: [][]string{plain}, cmd: a("PEXPIRE", "k", "6000", "GT"), want: IntReply(0)},
		{name: "expire lt no ttl", setup: [][]string{plain}, cmd: a("PEXPIRE", "k", "6000", "LT"), want: IntReply(1), keys: map[string]*Entry{"k": str("v", 6000)}},
		{name: "expire lt larger", setup: [][]string{withTTL}, cmd: a("PEXPIRE", "k", "6000", "LT"), want: IntReply(0)},
		{name: "expire nx xx", setup: [][]string{plain}, cmd: a("EXPIRE", "k", "1", "NX", "XX"), want: ErrorReply("ERR NX and XX, GT or LT options at the same time are not compatible")},
		{name: "expire gt lt", setup: [][]string{plain}, cmd: a("EXPIRE", "k", "1", "GT", "LT"), want: ErrorReply("ERR GT and LT options at the same time are not compatible")},
		{name: "expire bad option", setup: [][]string{plain}, cmd: a("EXPIRE", "k", "1", "FOO"), want: ErrorReply("ERR Unsupported option FOO")},
		{name: "expire not int", setup: [][]string{plain}, cmd: a("EXPIRE", "k", "1.5"), want: errNotInt},
		{name: "expire overflow", setup: [][]string{plain}, cmd: a("EXPIRE", "k", "9223372036854775807"), want: errExpire("expire")},
		{name: "pexpire overflow", setup: [][]string{plain}, cmd: a("PEXPIRE", "k", "9223372036854775807"), want: errExpire("pexpire")},
		{name: "ttl", setup: [][]string{withTTL}, advance: 1499, cmd: a("TTL", "k"), want: IntReply(4)},
		{name: "ttl rounds", setup: [][]string{withTTL}, advance: 1500, cmd: a("TTL", "k"), want: IntReply(4)},
		{name: "ttl rounds down", setup: [][]string{withTTL}, advance: 1501, cmd: a("TTL", "k"), want: IntReply(3)},
		{name: "pttl", setup: [][]string{withTTL}, advance: 1234, cmd: a("PTTL", "k"), want: IntReply(3766)},
		{name: "pttl none", setup: [][]string{plain}, cmd: a("PTTL", "k"), want: IntReply(-1)},
		{name: "pttl missing", cmd: a("PTTL", "k"), want: IntReply(-2)},
		{name: "pttl at expiry", setup: [][]string{withTTL}, advance: 5000, cmd: a("PTTL", "k"), want: IntReply(0)},
		{name: "pttl expired", setup: [][]string{withTTL}, advance: 5001, cmd: a("PTTL", "k"), want: IntReply(-2)},
		{name: "persist", setup: [][]string{withTTL}, cmd: a("PERSIST", "k"), want: IntReply(1), keys: map[string]*Entry{"k": str("v", -1)}},
		{name: "persist none", setup: [][]string{plain}, cmd: a("PERSIST", "k"), want: IntReply(0)},
		{name: "type string", setup: [][]string{plain}, cmd: a("TYPE", "k"), want: StatusReply("string")},
		{name: "type hash", setup: [][]string{{"HSET", "k", "f", "v"}}, cmd: a("TYPE", "k"), want: StatusReply("hash")},
		{name: "type none", cmd: a("TYPE", "k"), want: StatusReply("none")},
	})
}

func TestKeyCommandsMore(t *testing.T) {
	plain := []string{"SET", "k", "v"}
	withTTL := []string{"SET", "k", "v", "PX", "5000"}
	runCmdCases(t, []cmdCase{
		{name: "rename", setup: [][]string{withTTL}, cmd: a("RENAME", "k", "n"), want: okReply, keys: map[string]*Entry{"k": gone(), "n": str("v", 5000)}},
		{name: "rename overwrites", setup: [][]string{plain, {"HSET", "n", "f", "v"}, {"PEXPIRE", "n", "50"}}, cmd: a("RENAME", "k", "n"), want: okReply, keys: map[string]*Entry{"n": str("v", -1)}},
		{name: "rename missing", cmd: a("RENAME", "k", "n"), want: errNoSuchKey},
		{name: "rename expired", setup: [][]string{withTTL}, advance: 5001, cmd: a("RENAME", "k", "n"), want: errNoSuchKey},
		{name: "rename same", setup: [][]string{plain}, cmd: a("RENAME", "k", "k"), want: okReply, keys: map[string]*Entry{"k": str("v", -1)}},
		{name: "rename same missing", cmd: a("RENAME", "k", "k"), want: errNoSuchKey},
		{name: "renamenx", setup: [][]string{plain}, cmd: a("RENAMENX", "k", "n"), want: IntReply(1), keys: map[string]*Entry{"k": gone(), "n": str("v", -1)}},
		{name: "renamenx exists", setup: [][]string{plain, {"SET", "n", "x"}}, cmd: a("RENAMENX", "k", "n"), want: IntReply(0), keys: map[string]*Entry{"k": str("v", -1), "n": str("x", -1)}},
		{name: "renamenx over expired", setup: [][]string{plain, {"SET", "n", "x", "PX", "10"}}, advance: 11, cmd: a("RENAMENX", "k", "n"), want: IntReply(1), keys: map[string]*Entry{"n": str("v", -1)}},
		{name: "renamenx same", setup: [][]string{plain}, cmd: a("RENAMENX", "k", "k"), want: IntReply(0)},
		{name: "copy", setup: [][]string{withTTL}, cmd: a("COPY", "k", "n"), want: IntReply(1), keys: map[string]*Entry{"k": str("v", 5000), "n": str("v", 5000)}},
		{name: "copy exists", setup: [][]string{plain, {"SET", "n", "x"}}, cmd: a("COPY", "k", "n"), want: IntReply(0), keys: map[string]*Entry{"n": str("x", -1)}},
		{name: "copy replace", setup: [][]string{plain, {"SET", "n", "x", "PX", "9"}}, cmd: a("COPY", "k", "n", "REPLACE"), want: IntReply(1), keys: map[string]*Entry{"n": str("v", -1)}},
		{name: "copy hash", setup: [][]string{{"HSET", "k", "a", "1"}}, cmd: a("COPY", "k", "n"), want: IntReply(1), keys: map[string]*Entry{"n": hsh(-1, "a", "1")}},
		{name: "copy missing", cmd: a("COPY", "k", "n"), want: IntReply(0), keys: map[string]*Entry{"n": gone()}},
		{name: "copy same", setup: [][]string{plain}, cmd: a("COPY", "k", "k"), want: errSameObject},
		{name: "copy same other db", setup: [][]string{plain}, cmd: a("COPY", "k", "k", "db", "1"), want: IntReply(1)},
		{name: "copy db 0 same", setup: [][]string{plain}, cmd: a("COPY", "k", "k", "DB", "0"), want: errSameObject},
		{name: "copy db range", setup: [][]string{plain}, cmd: a("COPY", "k", "n", "DB", "16"), want: errDBRange},
		{name: "copy db not int", setup: [][]string{plain}, cmd: a("COPY", "k", "n", "DB", "x"), want: errNotInt},
		{name: "copy db int range", setup: [][]string{plain}, cmd: a("COPY", "k", "n", "DB", "-2147483649"), want: ErrorReply("ERR value is out of range, value must between -2147483648 and 2147483647")},
		{name: "copy db no value", setup: [][]string{plain}, cmd: a("COPY", "k", "n", "DB"), want: errSyntax},
		{name: "copy bad option", setup: [][]string{plain}, cmd: a("COPY", "k", "n", "X"), want: errSyntax},
		{name: "move", setup: [][]string{withTTL}, cmd: a("MOVE", "k", "1"), want: IntReply(1), keys: map[string]*Entry{"k": gone()}},
		{name: "move same db", setup: [][]string{plain}, cmd: a("MOVE", "k", "0"), want: errSameObject},
		{name: "move missing", cmd: a("MOVE", "k", "1"), want: IntReply(0)},
		{name: "move target exists", setup: [][]string{{"SELECT", "1"}, plain, {"SELECT", "0"}, {"SET", "k", "zero"}}, cmd: a("MOVE", "k", "1"), want: IntReply(0), keys: map[string]*Entry{"k": str("zero", -1)}},
		{name: "move range", cmd: a("MOVE", "k", "16"), want: errDBRange},
		{name: "move not int", cmd: a("MOVE", "k", "one"), want: errNotInt},
		{name: "expiretime", setup: [][]string{withTTL}, cmd: a("EXPIRETIME", "k"), want: IntReply(1005)},
		{name: "expiretime rounds", setup: [][]string{{"SET", "k", "v", "PXAT", "1000500"}}, cmd: a("EXPIRETIME", "k"), want: IntReply(1001)},
		{name: "expiretime rounds down", setup: [][]string{{"SET", "k", "v", "PXAT", "1000499"}}, cmd: a("EXPIRETIME", "k"), want: IntReply(1000)},
		{name: "pexpiretime", setup: [][]string{withTTL}, cmd: a("PEXPIRETIME", "k"), want: IntReply(1005000)},
		{name: "pexpiretime none", setup: [][]string{plain}, cmd: a("PEXPIRETIME", "k"), want: IntReply(-1)},
		{name: "expiretime missing", cmd: a("EXPIRETIME", "k"), want: IntReply(-2)},
		{name: "touch", setup: [][]string{plain}, cmd: a("TOUCH", "k", "x", "k"), want: IntReply(2)},
		{name: "dbsize", setup: [][]string{plain, {"SET", "x", "1", "PX", "5"}}, cmd: a("DBSIZE"), want: IntReply(2)},
		{name: "dbsize counts a key at its expiry", setup: [][]string{plain, {"SET", "x", "1", "PX", "5"}}, advance: 5, cmd: a("DBSIZE"), want: IntReply(2)},
		{name: "dbsize skips expired", setup: [][]string{plain, {"SET", "x", "1", "PX", "5"}}, advance: 6, cmd: a("DBSIZE"), want: IntReply(1)},
		{name: "randomkey empty", cmd: a("RANDOMKEY"), want: NilReply()},
		{name: "randomkey one", setup: [][]string{plain}, cmd: a("RANDOMKEY"), want: BulkReply("k")},
		{name: "randomkey smallest", setup: [][]string{plain, {"SET", "b", "1"}}, cmd: a("RANDOMKEY"), want: BulkReply("b")},
		{name: "keys", setup: [][]string{plain, {"SET", "kk", "1"}, {"SET", "x", "1"}}, cmd: a("KEYS", "k*"), want: ArrayReply(BulkReply("k"), BulkReply("kk"))},
		{name: "keys expired", setup: [][]string{withTTL}, advance: 5001, cmd: a("KEYS", "*"), want: ArrayReply()},
		{name: "scan", setup: [][]string{plain, {"HSET", "h", "f", "v"}}, cmd: a("SCAN", "0"), want: ArrayReply(BulkReply("0"), ArrayReply(BulkReply("h"), BulkReply("k")))},
		{name: "scan type", setup: [][]string{plain, {"HSET", "h", "f", "v"}}, cmd: a("SCAN", "0", "TYPE", "Hash"), want: ArrayReply(BulkReply("0"), ArrayReply(BulkReply("h")))},
		{name: "scan match", setup: [][]string{plain, {"HSET", "h", "f", "v"}}, cmd: a("SCAN", "0", "MATCH", "[a-i]"), want: ArrayReply(BulkReply("0"), ArrayReply(BulkReply("h")))},
		{name: "scan empty nonzero cursor", cmd: a("SCAN", "77"), want: ArrayReply(BulkReply("0"), ArrayReply())},
		{name: "scan bad cursor", cmd: a("SCAN", "1x"), want: ErrorReply("ERR invalid cursor")},
		{name: "scan count 0", cmd: a("SCAN", "0", "COUNT", "0"), want: errSyntax},
		{name: "scan count not int", cmd: a("SCAN", "0", "COUNT", "z"), want: errNotInt},
		{name: "scan option without value", cmd: a("SCAN", "0", "MATCH"), want: errSyntax},
		{name: "type list kinds", setup: [][]string{{"HSET", "k", "f", "v"}}, cmd: a("TYPE", "k"), want: StatusReply("hash")},
		{name: "object encoding int", setup: [][]string{{"SET", "k", "-12"}}, cmd: a("OBJECT", "ENCODING", "k"), want: BulkReply("int")},
		{name: "object encoding embstr", setup: [][]string{{"SET", "k", "012"}}, cmd: a("OBJECT", "encoding", "k"), want: BulkReply("embstr")},
		{name: "object encoding raw", setup: [][]string{{"SET", "k", strings.Repeat("x", 45)}}, cmd: a("OBJECT", "ENCODING", "k"), want: BulkReply("raw")},
		{name: "object encoding append", setup: [][]string{{"SET", "k", "1"}, {"APPEND", "k", "2"}}, cmd: a("OBJECT", "ENCODING", "k"), want: BulkReply("raw")},
		{name: "object encoding append new", setup: [][]string{{"APPEND", "k", "2"}}, cmd: a("OBJECT", "ENCODING", "k"), want: BulkReply("int")},
		{name: "object encoding incr", setup: [][]string{{"SET", "k", "1"}, {"APPEND", "k", "2"}, {"INCR", "k"}}, cmd: a("OBJECT", "ENCODING", "k"), want: BulkReply("int")},
		{name: "object encoding hash", setup: [][]string{{"HSET", "k", "f", "v"}}, cmd: a("OBJECT", "ENCODING", "k"), want: BulkReply("listpack")},
		{name: "object encoding missing", cmd: a("OBJECT", "ENCODING", "k"), want: NilReply()},
		{name: "object refcount shared", setup: [][]string{{"SET", "k", "9999"}}, cmd: a("OBJECT", "REFCOUNT", "k"), want: IntReply(2147483647)},
		{name: "object refcount", setup: [][]string{{"SET", "k", "10000"}}, cmd: a("OBJECT", "REFCOUNT", "k"), want: IntReply(1)},
		{name: "object refcount copy", setup: [][]string{{"SET", "x", "5"}, {"COPY", "x", "k"}}, cmd: a("OBJECT", "REFCOUNT", "k"), want: IntReply(1)},
		{name: "object refcount rename keeps shared", setup: [][]string{{"SET", "x", "5"}, {"RENAME", "x", "k"}}, cmd: a("OBJECT", "REFCOUNT", "k"), want: IntReply(2147483647)},
		{name: "object freq", setup: [][]string{plain}, cmd: a("OBJECT", "FREQ", "k"), want: ErrorReply("ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust.")},
		{name: "object freq missing", cmd: a("OBJECT", "FREQ", "k"), want: NilReply()},
		{name: "object unknown", cmd: a("OBJECT", "foo", "k"), want: ErrorReply("ERR unknown subcommand 'foo'. Try OBJECT HELP.")},
		{name: "object arity", cmd: a("OBJECT", "Encoding"), want: ErrorReply("ERR wrong number of arguments for 'object|encoding' command")},
		{name: "object help arity", cmd: a("OBJECT", "help", "x"), want: ErrorReply("ERR wrong number of arguments for 'object|help' command")},
	})
}

func TestKeyMatch(t *testing.T) {
	for _, tc := range []struct {
		pat, s string
		want   bool
	}{
		{"*", "abc", true}, {"*", "", false}, {"", "", true}, {"a*", "a", true}, {"**", "x", true},
		{"h?llo", "hello", true}, {"h?llo", "hllo", false}, {"h[ae]llo", "hallo", true}, {"h[ae]llo", "hillo", false},
		{"h[^e]llo", "hallo", true}, {"h[^e]llo", "hello", false}, {"h[a-c]llo", "hbllo", true}, {"h[c-a]llo", "hbllo", true},
		{"h\\*", "h*", true}, {"h\\*", "hx", false}, {"h[", "h[", false}, {"h[", "hx", false}, {"h[a", "ha", true},
		{"h[\\]]", "h]", true}, {"*llo*", "hello", true}, {"a*b*c", "aXbYc", true}, {"a*b*c", "aXbY", false},
		{"[\x80-\xff]", "a", false}, {"[\xff-a]", "b", false}, {"[\xff-a]", "\x00", true}, {"[\xff-a]", "\x80", false}, {"\\", "\\", true},
	} {
		if got := keyMatch(tc.pat, tc.s); got != tc.want {
			t.Errorf("keyMatch(%q, %q) = %v, want %v", tc.pat, tc.s, got, tc.want)
		}
	}
}

func TestParseScanCursorKeys(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want uint64
		ok   bool
	}{
		{"0", 0, true}, {"", 0, true}, {"12", 12, true}, {"+3", 3, true}, {"-1", math.MaxUint64, true},
		{"18446744073709551615", math.MaxUint64, true}, {"18446744073709551616", 0, false},
		{" 1", 0, false}, {"1 ", 0, false}, {"+", 0, false}, {"-", 0, false}, {"0x1", 0, false},
	} {
		got, ok := parseScanCursor(New(Options{}).Server, tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("parseScanCursor(%q) = %d, %v; want %d, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

// TestKeysWarnings checks that replies whose order or pick Redis does not
// fix are flagged, and single answers are not.
func TestKeysWarnings(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		setup [][]string
		cmd   []string
		warn  bool
	}{
		{[][]string{{"SET", "a", "1"}}, a("KEYS", "*"), false},
		{[][]string{{"SET", "a", "1"}, {"SET", "b", "1"}}, a("KEYS", "*"), true},
		{[][]string{{"SET", "a", "1"}, {"SET", "b", "1"}}, a("KEYS", "a"), false},
		{[][]string{{"SET", "a", "1"}, {"SET", "b", "1"}}, a("SCAN", "0"), true},
		{[][]string{{"SET", "a", "1"}}, a("RANDOMKEY"), false},
		{[][]string{{"SET", "a", "1"}, {"SET", "b", "1"}}, a("RANDOMKEY"), true},
	} {
		e := New(Options{})
		for _, s := range tc.setup {
			mustDo(t, e, s...)
		}
		e.warnings = nil
		if _, err := e.Do(ctx, tc.cmd...); err != nil {
			t.Fatal(err)
		}
		if got := len(e.Warnings()) > 0; got != tc.warn {
			t.Errorf("%q: warnings %q, want warning %v", tc.cmd, e.Warnings(), tc.warn)
		}
	}
}

func mustDo(t *testing.T, e *testServer, args ...string) Reply {
	t.Helper()
	r, err := e.Do(context.Background(), args...)
	if err != nil || r.Kind == Error {
		t.Fatalf("%q: %s %v", args, r, err)
	}
	return r
}

// TestScanNotJudged checks that a scan whose batches depend on the hash seed
// is refused rather than answered.
func TestScanNotJudged(t *testing.T) {
	e := New(Options{})
	for i := 0; i < 10; i++ {
		mustDo(t, e, "SET", strconv.Itoa(i), "v")
	}
	for _, cmd := range [][]string{{"SCAN", "0"}, {"SCAN", "5", "COUNT", "100"}, {"SCAN", "0", "COUNT", "3"}} {
		_, err := e.Do(context.Background(), cmd...)
		var re *RunError
		if !errors.As(err, &re) || re.Code != CodeNotImplemented {
			t.Errorf("%q: err %v, want not-implemented", cmd, err)
		}
	}
	r := mustDo(t, e, "SCAN", "0", "COUNT", "11", "MATCH", "1")
	if !r.Equal(ArrayReply(BulkReply("0"), ArrayReply(BulkReply("1")))) {
		t.Errorf("SCAN 0 COUNT 11: %s", r)
	}
}

func TestValueClone(t *testing.T) {
	l := newList()
	l.pushBack("a")
	s := newSet()
	s.add("m")
	z := newZSet()
	z.set("z", 1)
	for _, v := range []*value{
		{kind: kindList, list: l, expireAt: 7},
		{kind: kindSet, set: s},
		{kind: kindZSet, zset: z},
		{kind: kindStream, stream: newStream()},
	} {
		c := v.clone()
		if c.kind != v.kind || c.expireAt != v.expireAt || c.encoding() != v.encoding() {
			t.Errorf("clone of %v: %+v", v.kind, c)
		}
	}
	c := (&value{kind: kindList, list: l}).clone()
	c.list.pushBack("b")
	if l.len() != 1 {
		t.Errorf("list clone shares its elements")
	}
	cs := (&value{kind: kindSet, set: s}).clone()
	cs.set.add("n")
	if s.len() != 1 {
		t.Errorf("set clone shares its members")
	}
	cz := (&value{kind: kindZSet, zset: z}).clone()
	cz.zset.set("y", 2)
	if z.len() != 1 {
		t.Errorf("zset clone shares its members")
	}
}

// TestObjectEncodingAfterPut checks that a string set up with Put and then
// edited in place (APPEND) reports raw, as Redis does.
func TestObjectEncodingAfterPut(t *testing.T) {
	e := New(Options{})
	e.Put(Entry{Key: "k", Value: "12"})
	if r := mustDo(t, e, "OBJECT", "REFCOUNT", "k"); !r.Equal(IntReply(2147483647)) {
		t.Errorf("REFCOUNT of a Put small integer: %s", r)
	}
	mustDo(t, e, "APPEND", "k", "3")
	if r := mustDo(t, e, "OBJECT", "ENCODING", "k"); !r.Equal(BulkReply("raw")) {
		t.Errorf("ENCODING after APPEND: %s", r)
	}
	if r := mustDo(t, e, "OBJECT", "REFCOUNT", "k"); !r.Equal(IntReply(1)) {
		t.Errorf("REFCOUNT after APPEND: %s", r)
	}
}
