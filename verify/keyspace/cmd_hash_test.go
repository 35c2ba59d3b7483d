package keyspace

import (
	"context"
	"strconv"
	"strings"
	"testing"
)

func TestHashCommands(t *testing.T) {
	h := []string{"HSET", "h", "a", "1", "b", "2"}
	runCmdCases(t, []cmdCase{
		{name: "hset", cmd: a("HSET", "h", "a", "1", "b", "2"), want: IntReply(2), keys: map[string]*Entry{"h": hsh(-1, "a", "1", "b", "2")}},
		{name: "hset update", setup: [][]string{h}, cmd: a("HSET", "h", "a", "9", "c", "3"), want: IntReply(1), keys: map[string]*Entry{"h": hsh(-1, "a", "9", "b", "2", "c", "3")}},
		{name: "hset odd", cmd: a("HSET", "h", "a", "1", "b"), want: errArity("hset"), keys: map[string]*Entry{"h": gone()}},
		{name: "hset wrongtype", setup: [][]string{{"SET", "h", "v"}}, cmd: a("HSET", "h", "a", "1"), want: errWrongType, keys: map[string]*Entry{"h": str("v", -1)}},
		{name: "hset keeps ttl", setup: [][]string{h, {"PEXPIRE", "h", "50"}}, cmd: a("HSET", "h", "c", "3"), want: IntReply(1), keys: map[string]*Entry{"h": hsh(50, "a", "1", "b", "2", "c", "3")}},
		{name: "hget", setup: [][]string{h}, cmd: a("HGET", "h", "b"), want: BulkReply("2")},
		{name: "hget missing field", setup: [][]string{h}, cmd: a("HGET", "h", "z"), want: NilReply()},
		{name: "hget wrongtype", setup: [][]string{{"SET", "h", "v"}}, cmd: a("HGET", "h", "a"), want: errWrongType},
		{name: "hdel", setup: [][]string{h}, cmd: a("HDEL", "h", "a", "z"), want: IntReply(1), keys: map[string]*Entry{"h": hsh(-1, "b", "2")}},
		{name: "hdel last removes key", setup: [][]string{h}, cmd: a("HDEL", "h", "a", "b"), want: IntReply(2), keys: map[string]*Entry{"h": gone()}},
		{name: "hgetall order", setup: [][]string{h, {"HDEL", "h", "a"}, {"HSET", "h", "c", "3", "a", "4"}}, cmd: a("HGETALL", "h"),
			want: ArrayReply(BulkReply("b"), BulkReply("2"), BulkReply("c"), BulkReply("3"), BulkReply("a"), BulkReply("4"))},
		{name: "hgetall missing", cmd: a("HGETALL", "h"), want: ArrayReply()},
		{name: "hmget", setup: [][]string{h}, cmd: a("HMGET", "h", "b", "z", "a"), want: ArrayReply(BulkReply("2"), NilReply(), BulkReply("1"))},
		{name: "hmget missing key", cmd: a("HMGET", "h", "a"), want: ArrayReply(NilReply())},
		{name: "hincrby new", cmd: a("HINCRBY", "h", "n", "5"), want: IntReply(5), keys: map[string]*Entry{"h": hsh(-1, "n", "5")}},
		{name: "hincrby", setup: [][]string{h}, cmd: a("HINCRBY", "h", "a", "-3"), want: IntReply(-2), keys: map[string]*Entry{"h": hsh(-1, "a", "-2", "b", "2")}},
		{name: "hincrby not int", setup: [][]string{{"HSET", "h", "a", "x"}}, cmd: a("HINCRBY", "h", "a", "1"), want: errHashNotInt, keys: map[string]*Entry{"h": hsh(-1, "a", "x")}},
		{name: "hincrby bad incr", cmd: a("HINCRBY", "h", "a", "1.5"), want: errNotInt, keys: map[string]*Entry{"h": gone()}},
		{name: "hincrby overflow", setup: [][]string{{"HSET", "h", "a", "-9223372036854775808"}}, cmd: a("HINCRBY", "h", "a", "-1"), want: errOverflow},
		{name: "hexists", setup: [][]string{h}, cmd: a("HEXISTS", "h", "a"), want: IntReply(1)},
		{name: "hexists no", setup: [][]string{h}, cmd: a("HEXISTS", "h", "z"), want: IntReply(0)},
	})
}

func TestHashCommandsMore(t *testing.T) {
	h := []string{"HSET", "h", "a", "1", "b", "2"}
	s := []string{"SET", "h", "v"}
	wrong := func(name string, cmd ...string) cmdCase {
		return cmdCase{name: name + " wrongtype", setup: [][]string{s}, cmd: cmd, want: errWrongType, keys: map[string]*Entry{"h": str("v", -1)}}
	}
	ws := func(ss ...string) Reply {
		out := make([]Reply, len(ss))
		for i, x := range ss {
			out[i] = BulkReply(x)
		}
		return ArrayReply(out...)
	}
	runCmdCases(t, []cmdCase{
		{name: "hlen", setup: [][]string{h}, cmd: a("HLEN", "h"), want: IntReply(2)},
		{name: "hlen missing", cmd: a("HLEN", "h"), want: IntReply(0)},
		wrong("hlen", "HLEN", "h"),
		{name: "hmset", cmd: a("HMSET", "h", "a", "1", "a", "2"), want: okReply, keys: map[string]*Entry{"h": hsh(-1, "a", "2")}},
		{name: "hmset odd", cmd: a("HMSET", "h", "a", "1", "b"), want: errArity("hmset"), keys: map[string]*Entry{"h": gone()}},
		wrong("hmset", "HMSET", "h", "a", "1"),
		{name: "hsetnx new", setup: [][]string{h}, cmd: a("HSETNX", "h", "c", "3"), want: IntReply(1), keys: map[string]*Entry{"h": hsh(-1, "a", "1", "b", "2", "c", "3")}},
		{name: "hsetnx exists", setup: [][]string{h}, cmd: a("HSETNX", "h", "a", "9"), want: IntReply(0), keys: map[string]*Entry{"h": hsh(-1, "a", "1", "b", "2")}},
		wrong("hsetnx", "HSETNX", "h", "a", "1"),
		{name: "hkeys", setup: [][]string{h, {"HDEL", "h", "a"}, {"HSET", "h", "a", "3"}}, cmd: a("HKEYS", "h"), want: ws("b", "a")},
		{name: "hkeys missing", cmd: a("HKEYS", "h"), want: ArrayReply()},
		wrong("hkeys", "HKEYS", "h"),
		{name: "hvals", setup: [][]string{h}, cmd: a("HVALS", "h"), want: ws("1", "2")},
		wrong("hvals", "HVALS", "h"),
		{name: "hstrlen", setup: [][]string{{"HSET", "h", "a", "hello"}}, cmd: a("HSTRLEN", "h", "a"), want: IntReply(5)},
		{name: "hstrlen no field", setup: [][]string{h}, cmd: a("HSTRLEN", "h", "z"), want: IntReply(0)},
		{name: "hstrlen missing", cmd: a("HSTRLEN", "h", "z"), want: IntReply(0)},
		wrong("hstrlen", "HSTRLEN", "h", "a"),
		{name: "hincrbyfloat new", cmd: a("HINCRBYFLOAT", "h", "f", "10.5"), want: BulkReply("10.5"), keys: map[string]*Entry{"h": hsh(-1, "f", "10.5")}},
		{name: "hincrbyfloat sum", setup: [][]string{{"HSET", "h", "f", "0.2"}}, cmd: a("HINCRBYFLOAT", "h", "f", "0.1"), want: BulkReply("0.3")},
		{name: "hincrbyfloat to int", setup: [][]string{{"HSET", "h", "f", "1.5"}}, cmd: a("HINCRBYFLOAT", "h", "f", "1.5"), want: BulkReply("3"), keys: map[string]*Entry{"h": hsh(-1, "f", "3")}},
		{name: "hincrbyfloat bad incr", cmd: a("HINCRBYFLOAT", "h", "f", "x"), want: errNotFloat, keys: map[string]*Entry{"h": gone()}},
		{name: "hincrbyfloat inf incr", cmd: a("HINCRBYFLOAT", "h", "f", "inf"), want: ErrorReply("ERR value is NaN or Infinity"), keys: map[string]*Entry{"h": gone()}},
		{name: "hincrbyfloat nan incr", cmd: a("HINCRBYFLOAT", "h", "f", "nan"), want: errNotFloat},
		{name: "hincrbyfloat bad value", setup: [][]string{{"HSET", "h", "f", "1x"}}, cmd: a("HINCRBYFLOAT", "h", "f", "1"), want: ErrorReply("ERR hash value is not a float"), keys: map[string]*Entry{"h": hsh(-1, "f", "1x")}},
		{name: "hincrbyfloat inf value", setup: [][]string{{"HSET", "h", "f", "inf"}}, cmd: a("HINCRBYFLOAT", "h", "f", "1"), want: errNaNOrInf},
		{name: "hincrbyfloat overflow", setup: [][]string{{"HSET", "h", "f", "1e4932"}}, cmd: a("HINCRBYFLOAT", "h", "f", "1e4932"), want: errNaNOrInf},
		wrong("hincrbyfloat", "HINCRBYFLOAT", "h", "f", "1"),
		{name: "hrandfield no count", setup: [][]string{h}, cmd: a("HRANDFIELD", "h"), want: BulkReply("a")},
		{name: "hrandfield missing", cmd: a("HRANDFIELD", "h"), want: NilReply()},
		{name: "hrandfield missing count", cmd: a("HRANDFIELD", "h", "3"), want: ArrayReply()},
		{name: "hrandfield zero", setup: [][]string{h}, cmd: a("HRANDFIELD", "h", "0"), want: ArrayReply()},
		{name: "hrandfield all", setup: [][]string{h}, cmd: a("HRANDFIELD", "h", "5", "WITHVALUES"), want: ws("a", "1", "b", "2")},
		{name: "hrandfield first", setup: [][]string{h}, cmd: a("HRANDFIELD", "h", "1"), want: ws("a")},
		{name: "hrandfield negative cycles", setup: [][]string{h}, cmd: a("HRANDFIELD", "h", "-3", "withvalues"), want: ws("a", "1", "b", "2", "a", "1")},
		{name: "hrandfield not int", setup: [][]string{h}, cmd: a("HRANDFIELD", "h", "x"), want: errNotInt},
		{name: "hrandfield min", cmd: a("HRANDFIELD", "h", "-9223372036854775808"), want: ErrorReply("ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807")},
		{name: "hrandfield withvalues range", cmd: a("HRANDFIELD", "h", "4611686018427387904", "WITHVALUES"), want: ErrorReply("ERR value is out of range")},
		{name: "hrandfield syntax", cmd: a("HRANDFIELD", "h", "1", "x"), want: errSyntax},
		{name: "hrandfield too many", cmd: a("HRANDFIELD", "h", "1", "WITHVALUES", "x"), want: errSyntax},
		wrong("hrandfield", "HRANDFIELD", "h"),
		{name: "hscan", setup: [][]string{h}, cmd: a("HSCAN", "h", "7"), want: ArrayReply(BulkReply("0"), ws("a", "1", "b", "2"))},
		{name: "hscan match", setup: [][]string{{"HSET", "h", "foo", "1", "bar", "2", "fob", "3"}}, cmd: a("HSCAN", "h", "0", "MATCH", "fo?", "COUNT", "1"), want: ArrayReply(BulkReply("0"), ws("foo", "1", "fob", "3"))},
		{name: "hscan missing", cmd: a("HSCAN", "h", "0", "COUNT", "0"), want: ArrayReply(BulkReply("0"), ArrayReply())},
		{name: "hscan bad cursor", cmd: a("HSCAN", "h", "1x"), want: ErrorReply("ERR invalid cursor")},
		{name: "hscan count 0", setup: [][]string{h}, cmd: a("HSCAN", "h", "0", "COUNT", "0"), want: errSyntax},
		{name: "hscan count x", setup: [][]string{h}, cmd: a("HSCAN", "h", "0", "COUNT", "x"), want: errNotInt},
		{name: "hscan type", setup: [][]string{h}, cmd: a("HSCAN", "h", "0", "TYPE", "hash"), want: errSyntax},
		{name: "hscan dangling", setup: [][]string{h}, cmd: a("HSCAN", "h", "0", "MATCH"), want: errSyntax},
		wrong("hscan", "HSCAN", "h", "0"),
	})
}

func TestParseScanCursor(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want uint64
		ok   bool
	}{
		{"0", 0, true}, {"", 0, true}, {"42", 42, true}, {"+7", 7, true}, {"-1", 1<<64 - 1, true},
		{"18446744073709551615", 1<<64 - 1, true}, {"18446744073709551616", 0, false},
		{" 1", 0, false}, {"1 ", 0, false}, {"+", 0, false}, {"-", 0, false}, {"0x1", 0, false},
		{"5\x00junk", 5, true}, {"\x00", 0, true},
	} {
		got, ok := parseScanCursor(New(Options{}).Server, tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("parseScanCursor(%q) = %d, %v; want %d, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
	// From 7.4: string2ull (seen live on Redis 8.0.2 and Valkey 8.1.1).
	for _, tc := range []struct {
		in   string
		want uint64
		ok   bool
	}{
		{"0", 0, true}, {"", 0, false}, {"42", 42, true}, {"+7", 7, true}, {"-1", 0, false}, {"-0", 0, true},
		{"-01", 1<<64 - 1, true}, {" 1", 1, true}, {"1 ", 0, false}, {" ", 0, false}, {"007", 7, true},
		{"18446744073709551615", 1<<64 - 1, true}, {"18446744073709551616", 0, false}, {"0x1", 0, false},
	} {
		got, ok := parseScanCursor(New(Options{Target: "redis-8.0"}).Server, tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("redis-8.0: parseScanCursor(%q) = %d, %v; want %d, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestStringMatch(t *testing.T) {
	for _, tc := range []struct {
		pat, s string
		want   bool
	}{
		{"*", "anything", true}, {"*", "", false}, {"", "", true}, {"", "a", false},
		{"h?llo", "hello", true}, {"h?llo", "hllo", false}, {"h*llo", "heeeello", true},
		{"h[ae]llo", "hallo", true}, {"h[ae]llo", "hillo", false}, {"h[^e]llo", "hallo", true},
		{"h[^e]llo", "hello", false}, {"h[a-b]llo", "hbllo", true}, {"h[b-a]llo", "hallo", true},
		{"a\\*", "a*", true}, {"a\\*", "ab", false}, {"[\\]]", "]", true}, {"[abc", "a", true},
		{"[abc", "d", false}, {"a**", "a", true}, {"*a*b", "xxaxxb", true}, {"*a*b", "xxaxxc", false},
		{"f*", "f", true}, {"[\x80-\xff]", "\xc3", true}, {"[\x01-\xff]", "a", false},
	} {
		if got := stringMatch(tc.pat, tc.s, false); got != tc.want {
			t.Errorf("stringMatch(%q, %q) = %v, want %v", tc.pat, tc.s, got, tc.want)
		}
	}
}

// TestHashEncoding checks the listpack to hashtable conversion Redis 7.0
// makes (hash-max-listpack-entries 512, hash-max-listpack-value 64, one
// way) and the warnings of the commands that list a hashtable.
func TestHashEncoding(t *testing.T) {
	ctx := context.Background()
	enc := func(e *testServer, k string) string { return e.db.get(k).hash.encoding() }
	e := New(Options{})
	for i := 1; i <= 512; i++ {
		e.Do(ctx, "HSET", "big", "f"+strconv.Itoa(i), "v")
	}
	if got := enc(e, "big"); got != "listpack" {
		t.Fatalf("512 fields: %s, want listpack", got)
	}
	e.Do(ctx, "HSET", "big", "f513", "v")
	e.Do(ctx, "HDEL", "big", "f1", "f2")
	if got := enc(e, "big"); got != "hashtable" {
		t.Fatalf("513 fields then 511: %s, want hashtable (one way)", got)
	}
	for _, tc := range []struct {
		name string
		cmds [][]string
		want string
	}{
		{"64-byte value", [][]string{{"HSET", "h", "a", strings.Repeat("x", 64)}}, "listpack"},
		{"65-byte value", [][]string{{"HSET", "h", "a", strings.Repeat("x", 65)}}, "hashtable"},
		{"65-byte field", [][]string{{"HSET", "h", strings.Repeat("x", 65), "1"}}, "hashtable"},
		{"hsetnx existing long", [][]string{{"HSET", "h", "a", "1"}, {"HSETNX", "h", "a", strings.Repeat("x", 65)}}, "listpack"},
		{"hincrby long field", [][]string{{"HSET", "h", "a", "1"}, {"HINCRBY", "h", strings.Repeat("x", 65), "1"}}, "hashtable"},
		{"hincrbyfloat long result", [][]string{{"HINCRBYFLOAT", "h", "a", "1e70"}}, "hashtable"},
		{"hdel keeps hashtable", [][]string{{"HSET", "h", "a", strings.Repeat("x", 65), "b", "1"}, {"HDEL", "h", "a"}}, "hashtable"},
	} {
		e := New(Options{})
		for _, c := range tc.cmds {
			if r, err := e.Do(ctx, c...); err != nil || r.IsError() {
				t.Fatalf("%s: %q: %s %v", tc.name, c, r, err)
			}
		}
		if got := enc(e, "h"); got != tc.want {
			t.Errorf("%s: encoding %s, want %s", tc.name, got, tc.want)
		}
	}
	if c := e.db.get("big").hash.clone(); c.encoding() != "hashtable" || c.len() != 511 {
		t.Errorf("clone: %s %d fields", c.encoding(), c.len())
	}
}

func TestHashOrderWarnings(t *testing.T) {
	ctx := context.Background()
	long := strings.Repeat("x", 65)
	for _, tc := range []struct {
		name  string
		setup []string
		cmd   []string
		warn  string // a fragment of the warning; "" for none
	}{
		{"hgetall listpack", []string{"HSET", "h", "a", "1", "b", "2"}, a("HGETALL", "h"), ""},
		{"hgetall hashtable", []string{"HSET", "h", "a", long, "b", "2"}, a("HGETALL", "h"), "HGETALL: hash of 2 fields is hashtable-encoded"},
		{"hkeys hashtable", []string{"HSET", "h", "a", long, "b", "2"}, a("HKEYS", "h"), "HKEYS: hash of 2"},
		{"hvals hashtable", []string{"HSET", "h", "a", long, "b", "2"}, a("HVALS", "h"), "HVALS: hash of 2"},
		{"hashtable one field", []string{"HSET", "h", "a", long}, a("HGETALL", "h"), ""},
		{"hscan hashtable", []string{"HSET", "h", "a", long, "b", "2"}, a("HSCAN", "h", "0"), "HSCAN: hash of 2"},
		{"hrandfield pick", []string{"HSET", "h", "a", "1", "b", "2"}, a("HRANDFIELD", "h"), "HRANDFIELD: Redis picks 1 of 2"},
		{"hrandfield negative", []string{"HSET", "h", "a", "1", "b", "2"}, a("HRANDFIELD", "h", "-5"), "Redis picks 5 of 2"},
		{"hrandfield one field", []string{"HSET", "h", "a", "1"}, a("HRANDFIELD", "h", "-5"), ""},
		{"hrandfield whole listpack", []string{"HSET", "h", "a", "1", "b", "2"}, a("HRANDFIELD", "h", "2"), ""},
		{"hrandfield whole hashtable", []string{"HSET", "h", "a", long, "b", "2"}, a("HRANDFIELD", "h", "2"), "HRANDFIELD: hash of 2"},
	} {
		e := New(Options{})
		e.Do(ctx, tc.setup...)
		e.warnings = nil
		if r, err := e.Do(ctx, tc.cmd...); err != nil || r.IsError() {
			t.Fatalf("%s: %s %v", tc.name, r, err)
		}
		w := strings.Join(e.Warnings(), "\n")
		if (tc.warn == "") != (w == "") || !strings.Contains(w, tc.warn) {
			t.Errorf("%s: warnings %q, want %q", tc.name, w, tc.warn)
		}
	}
}

func TestHrandfieldHugeCount(t *testing.T) {
	e := New(Options{})
	ctx := context.Background()
	e.Do(ctx, "HSET", "h", "a", "1")
	_, err := e.Do(ctx, "HRANDFIELD", "h", "-9223372036854775807")
	if re, ok := err.(*RunError); !ok || re.Code != CodeMemory {
		t.Fatalf("HRANDFIELD -LONG_MAX: %v, want a memory RunError", err)
	}
	if r, err := e.Do(ctx, "HRANDFIELD", "h", "-1000"); err != nil || len(r.Elems) != 1000 {
		t.Fatalf("HRANDFIELD -1000: %d elements, %v", len(r.Elems), err)
	}
}
