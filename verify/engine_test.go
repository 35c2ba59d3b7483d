package verify

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

func evalT(t *testing.T, e *Engine, src string, keys, args []string) (Reply, error) {
	t.Helper()
	return e.Eval(context.Background(), []byte(src), keys, args)
}

func mustEval(t *testing.T, e *Engine, src string, keys, args []string) Reply {
	t.Helper()
	r, err := evalT(t, e, src, keys, args)
	if err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	return r
}

func runErrCode(t *testing.T, err error) string {
	t.Helper()
	var re *RunError
	if !errors.As(err, &re) {
		t.Fatalf("want a *RunError, got %v", err)
	}
	return re.Code
}

func TestRunErrors(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		keys      []string
		code      string
		msg       string
	}{
		{"infinite loop", "while true do end", nil, CodeStepLimit, "more than 1000000 steps"},
		{"loop in pcall", "while true do pcall(function() while true do end end) end", nil, CodeStepLimit, ""},
		{"loop in coroutine", "coroutine.wrap(function() while true do end end)()", nil, CodeStepLimit, ""},
		{"loop in resumed coroutine", "local co = coroutine.create(function() while true do end end) return {coroutine.resume(co)}", nil, CodeStepLimit, ""},
		{"backtracking pattern", "return string.find(string.rep('a', 5000), '.-.-.-b')", nil, CodeStepLimit, ""},
		{"undeclared key", "return redis.call('GET', 'other')", []string{"k"}, CodeUndeclaredKey, `undeclared key "other"`},
		{"undeclared in pcall", "return redis.pcall('GET', 'other')", nil, CodeUndeclaredKey, ""},
		{"undeclared mset", "return redis.call('MSET', KEYS[1], 'v', 'x', 'v')", []string{"k"}, CodeUndeclaredKey, `"x"`},
		{"not implemented", "return redis.call('COMMAND', 'DOCS', 'get')", nil, CodeNotImplemented, "not implemented offline: COMMAND DOCS"},
		{"not implemented pcall", "return redis.pcall('CLIENT', 'HELP')", nil, CodeNotImplemented, "CLIENT HELP"},
		{"server state", "return redis.call('INFO')", nil, CodeServerState, "depends on the server's state: INFO"},
		{"server state pcall", "redis.call('SET', KEYS[1], 'v') return redis.pcall('DUMP', KEYS[1])", []string{"k"}, CodeServerState, "DUMP"},
		{"error table without err", "error({})", nil, CodeServerCrash, "crashes"},
		{"huge rep", "return string.rep('x', 1e9)", nil, CodeMemory, ""},
		{"doubling concat", "local s = 'x' for i = 1, 40 do s = s .. s end return #s", nil, CodeMemory, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := Options{StepLimit: 1_000_000, StrictKeys: tc.code == CodeUndeclaredKey}
			e := New(opts)
			r, err := evalT(t, e, tc.src, tc.keys, nil)
			if err == nil {
				t.Fatalf("want RunError %s, got reply %s", tc.code, r)
			}
			if got := runErrCode(t, err); got != tc.code {
				t.Fatalf("code %q, want %q (%v)", got, tc.code, err)
			}
			if !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("message %q does not contain %q", err.Error(), tc.msg)
			}
		})
	}
}

func TestCrossSlot(t *testing.T) {
	e := New(Options{})
	r := mustEval(t, e, "return redis.call('SET', KEYS[1], 'v')", []string{"a", "b"}, nil)
	if !r.Equal(ErrorReply("CROSSSLOT Keys in request don't hash to the same slot")) {
		t.Fatalf("got %s", r)
	}
	if _, ok := e.Entry("a"); ok {
		t.Fatal("script ran despite CROSSSLOT")
	}
	r = mustEval(t, e, "return redis.call('SET', KEYS[1], 'v')", []string{"{x}a", "{x}b"}, nil)
	if !r.Equal(StatusReply("OK")) {
		t.Fatalf("same slot: got %s", r)
	}
}

func TestVirtualClockExpiry(t *testing.T) {
	ctx := context.Background()
	e := New(Options{Now: 1000})
	if e.Now() != 1000 {
		t.Fatalf("Now %d", e.Now())
	}
	mustEval(t, e, "return redis.call('SET', KEYS[1], 'v', 'PX', '100')", []string{"k"}, nil)
	en, ok := e.Entry("k")
	if !ok || en.PTTL != 100 || en.Value != "v" || en.Type != "string" {
		t.Fatalf("entry %+v %v", en, ok)
	}
	e.Advance(99)
	if r, _ := e.Do(ctx, "PTTL", "k"); !r.Equal(IntReply(1)) {
		t.Fatalf("PTTL after 99ms: %s", r)
	}
	e.Advance(1) // at its expiry time the key still exists, as in Redis
	if r, _ := e.Do(ctx, "GET", "k"); !r.Equal(BulkReply("v")) {
		t.Fatalf("GET after 100ms: %s", r)
	}
	if r, _ := e.Do(ctx, "PTTL", "k"); !r.Equal(IntReply(0)) {
		t.Fatalf("PTTL after 100ms: %s", r)
	}
	e.Advance(1)
	if r, _ := e.Do(ctx, "GET", "k"); !r.Equal(NilReply()) {
		t.Fatalf("GET after 101ms: %s", r)
	}
	if _, ok := e.Entry("k"); ok {
		t.Fatal("expired key still listed")
	}
	if len(e.Entries()) != 0 {
		t.Fatalf("entries %+v", e.Entries())
	}
	e.Advance(-50)
	if e.Now() != 1101 {
		t.Fatalf("clock ran backwards: %d", e.Now())
	}
}

func TestTTLRounding(t *testing.T) {
	ctx := context.Background()
	e := New(Options{})
	e.Do(ctx, "SET", "k", "v", "PX", "1500")
	for _, tc := range []struct {
		advance int64
		ttl     int64
	}{{0, 2}, {1, 1}, {498, 1}, {502, 0}, {498, 0}, {1, 0}, {1, -2}} {
		e.Advance(tc.advance)
		if r, _ := e.Do(ctx, "TTL", "k"); !r.Equal(IntReply(tc.ttl)) {
			t.Fatalf("after +%d: TTL %s, want %d", tc.advance, r, tc.ttl)
		}
	}
}

func TestPutEntries(t *testing.T) {
	ctx := context.Background()
	e := New(Options{})
	e.Put(Entry{Key: "s", Type: "string", Value: "v", PTTL: 50})
	e.Put(Entry{Key: "h", Type: "hash", Hash: []Field{{Name: "b", Value: "2"}, {Name: "a", Value: "1"}}, PTTL: -1})
	got := e.Entries()
	if len(got) != 2 || got[0].Key != "h" || got[1].Key != "s" || got[1].PTTL != 50 || got[0].PTTL != -1 || got[0].Hash[0] != (Field{Name: "b", Value: "2"}) {
		t.Fatalf("entries %+v", got)
	}
	// A hash keeps the order it was given in, as HSET with the same
	// arguments would: HGETALL answers b before a.
	r, _ := e.Do(ctx, "HGETALL", "h")
	if !r.Equal(ArrayReply(BulkReply("b"), BulkReply("2"), BulkReply("a"), BulkReply("1"))) {
		t.Fatalf("HGETALL %s", r)
	}
	// Entry returns a copy: changing it does not change the keyspace.
	got[0].Hash[1].Value = "x"
	if r, _ := e.Do(ctx, "HGET", "h", "a"); !r.Equal(BulkReply("1")) {
		t.Fatalf("HGET %s", r)
	}
}

// TestPutEntryEveryType writes each type with Put and reads it back with
// Entry: the type, the contents in Redis's order, the TTL.
func TestPutEntryEveryType(t *testing.T) {
	inf := math.Inf(1)
	for _, tc := range []struct {
		name string
		put  Entry
		want Entry // Key and PTTL as put
	}{
		{"string", Entry{Type: "string", Value: "v"}, Entry{Type: "string", Value: "v"}},
		{"empty type is a string", Entry{Value: ""}, Entry{Type: "string", Value: ""}},
		{"hash in order", Entry{Type: "hash", Hash: []Field{{Name: "zeta", Value: "26"}, {Name: "alpha", Value: "1"}}}, Entry{Type: "hash", Hash: []Field{{Name: "zeta", Value: "26"}, {Name: "alpha", Value: "1"}}}},
		{"hash field twice", Entry{Type: "hash", Hash: []Field{{Name: "a", Value: "1"}, {Name: "b", Value: "2"}, {Name: "a", Value: "3"}}}, Entry{Type: "hash", Hash: []Field{{Name: "a", Value: "3"}, {Name: "b", Value: "2"}}}},
		{"list", Entry{Type: "list", List: []string{"c", "a", "c"}}, Entry{Type: "list", List: []string{"c", "a", "c"}}},
		{"set", Entry{Type: "set", Set: []string{"x", "y", "x"}}, Entry{Type: "set", Set: []string{"x", "y"}}},
		{"zset sorted by score then member", Entry{Type: "zset", ZSet: []ZMember{{Member: "b", Score: 2}, {Member: "z", Score: 1}, {Member: "a", Score: 2}, {Member: "top", Score: inf}, {Member: "low", Score: -inf}}},
			Entry{Type: "zset", ZSet: []ZMember{{Member: "low", Score: -inf}, {Member: "z", Score: 1}, {Member: "a", Score: 2}, {Member: "b", Score: 2}, {Member: "top", Score: inf}}}},
		{"zset member twice keeps the last score", Entry{Type: "zset", ZSet: []ZMember{{Member: "m", Score: 5}, {Member: "n", Score: 1}, {Member: "m", Score: 0}}}, Entry{Type: "zset", ZSet: []ZMember{{Member: "m", Score: 0}, {Member: "n", Score: 1}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := New(Options{})
			tc.put.Key, tc.put.PTTL = "k", 700
			e.Put(tc.put)
			got, ok := e.Entry("k")
			tc.want.Key, tc.want.PTTL = "k", 700
			if !ok || !sameEntry(got, tc.want) {
				t.Fatalf("Entry = %+v, %v; want %+v", got, ok, tc.want)
			}
		})
	}
}

// TestPutEmptyCollection: Redis has no empty list, set, sorted set or
// hash, so Put of one leaves no key (and removes what was there).
func TestPutEmptyCollection(t *testing.T) {
	for _, typ := range []string{"hash", "list", "set", "zset", "stream"} {
		e := New(Options{})
		e.Put(Entry{Key: "k", Type: "string", Value: "old"})
		e.Put(Entry{Key: "k", Type: typ, PTTL: -1})
		if en, ok := e.Entry("k"); ok {
			t.Errorf("%s: Put of an empty one left %+v", typ, en)
		}
	}
	e := New(Options{})
	e.Put(Entry{Key: "z", Type: "zset", ZSet: []ZMember{{Member: "nan", Score: math.NaN()}}})
	if en, ok := e.Entry("z"); ok {
		t.Errorf("a NaN score was stored: %+v", en)
	}
}

func TestErrorReplyFormat(t *testing.T) {
	src := "local x = 1\nerror('boom')"
	r := mustEval(t, New(Options{}), src, nil, nil)
	want := "ERR user_script:2: boom script: " + SHA1([]byte(src)) + ", on @user_script:2."
	if !r.Equal(ErrorReply(want)) {
		t.Fatalf("got %s\nwant %s", r, want)
	}
}

func TestNoWritesAndReadOnly(t *testing.T) {
	ctx := context.Background()
	e := New(Options{})
	r, err := e.EvalRO(ctx, []byte("return redis.call('SET', KEYS[1], 'v')"), []string{"k"}, nil)
	if err != nil || !strings.HasPrefix(r.Str, "ERR Write commands are not allowed from read-only scripts. script: ") {
		t.Fatalf("EVAL_RO write: %s %v", r, err)
	}
	r, _ = e.EvalRO(ctx, []byte("#!lua\nreturn 1"), nil, nil)
	if !r.Equal(ErrorReply("ERR Can not execute a script with write flag using *_ro command.")) {
		t.Fatalf("EVAL_RO shebang: %s", r)
	}
	r, _ = e.EvalRO(ctx, []byte("#!lua flags=no-writes\nreturn redis.call('GET', KEYS[1])"), []string{"k"}, nil)
	if !r.Equal(NilReply()) {
		t.Fatalf("EVAL_RO no-writes read: %s", r)
	}
	if _, ok := e.Entry("k"); ok {
		t.Fatal("read-only script wrote")
	}
}

func TestRandomSequence(t *testing.T) {
	// A fresh redis-server 7.0.15 answers 397, 841 to math.random(1000)
	// twice, then 447, 319 in the next script: the generator is shared and
	// never reseeded between scripts.
	e := New(Options{})
	r := mustEval(t, e, "return {math.random(1000), math.random(1000)}", nil, nil)
	if !r.Equal(ArrayReply(IntReply(397), IntReply(841))) {
		t.Fatalf("first: %s", r)
	}
	mustEval(t, e, "return math.random()", nil, nil)
	r = mustEval(t, e, "return {math.random(1000), math.random(1000)}", nil, nil)
	if !r.Equal(ArrayReply(IntReply(447), IntReply(319))) {
		t.Fatalf("second: %s", r)
	}
}

func TestDoScripts(t *testing.T) {
	ctx := context.Background()
	e := New(Options{})
	r, err := e.Do(ctx, "EVAL", "return {KEYS[1], ARGV[1]}", "1", "k", "a")
	if err != nil || !r.Equal(ArrayReply(BulkReply("k"), BulkReply("a"))) {
		t.Fatalf("EVAL: %s %v", r, err)
	}
	r, _ = e.Do(ctx, "EVAL", "return 1", "2", "k")
	if !r.Equal(ErrorReply("ERR Number of keys can't be greater than number of args")) {
		t.Fatalf("numkeys: %s", r)
	}
	r, _ = e.Do(ctx, "FUNCTION", "LOAD", "#!lua name=l\nredis.register_function('f', function(keys, args) return keys[1] end)")
	if !r.Equal(BulkReply("l")) {
		t.Fatalf("FUNCTION LOAD: %s", r)
	}
	r, _ = e.Do(ctx, "FCALL", "f", "1", "k")
	if !r.Equal(BulkReply("k")) {
		t.Fatalf("FCALL: %s", r)
	}
}

func TestSandboxReuse(t *testing.T) {
	ctx := context.Background()
	e := New(Options{Timeout: 100 * time.Millisecond})
	if _, err := e.Eval(ctx, []byte("while true do end"), nil, nil); err == nil {
		t.Fatal("want timeout")
	}
	r := mustEval(t, e, "return {#KEYS, #ARGV, KEYS[1]}", []string{"a"}, nil)
	if !r.Equal(ArrayReply(IntReply(1), IntReply(0), BulkReply("a"))) {
		t.Fatalf("after timeout: %s", r)
	}
	r = mustEval(t, e, "return {#KEYS, #ARGV}", nil, []string{"x", "y"})
	if !r.Equal(ArrayReply(IntReply(0), IntReply(2))) {
		t.Fatalf("KEYS leaked: %s", r)
	}
	// A cached script compiled once runs again with the same SHA in errors.
	src := "error('again')"
	for range 2 {
		r = mustEval(t, e, src, nil, nil)
		if !r.Equal(ErrorReply("ERR user_script:1: again script: " + SHA1([]byte(src)) + ", on @user_script:1.")) {
			t.Fatalf("cached: %s", r)
		}
	}
}

func TestWarnings(t *testing.T) {
	e := New(Options{})
	// Lua 5.1 accepts goto as a name, and so does the engine, unwarned.
	r := mustEval(t, e, "local goto = 1 return goto", nil, nil)
	if !r.Equal(IntReply(1)) {
		t.Fatalf("goto as a name: %s", r)
	}
	if w := e.Warnings(); len(w) != 0 {
		t.Fatalf("goto as a name warned: %q", w)
	}
	mustEval(t, e, "return 1 +", nil, nil)
	if w := e.Warnings(); len(w) != 0 {
		t.Fatalf("exact compile error warned: %q", w)
	}
	mustEval(t, e, "return 1", nil, nil)
	if w := e.Warnings(); len(w) != 0 {
		t.Fatalf("warnings not reset: %q", w)
	}
	// Several index operations on one line: the failing one is found by
	// its key and named like Lua 5.1 names it.
	r = mustEval(t, e, "local t = {} return t.a.b + t.c.d", nil, nil)
	if !strings.Contains(r.Str, "attempt to index field 'a' (a nil value)") {
		t.Fatalf("reply %s", r)
	}
	mustEval(t, e, "goto x", nil, nil)
	if w := e.Warnings(); len(w) != 0 {
		t.Fatalf("goto is exact: %q", w)
	}
	// Lua 5.1's order is exact for a table whose history the engine sees
	// (Redis 7.0.15 answers "yx"), a key set to nil through a variable
	// before others grew the table included ("k5bk1k4k3k2"), and warned
	// where Lua places keys by address (tables as keys).
	r = mustEval(t, e, "local t = {x = 1, y = 2} local s = '' for k in pairs(t) do s = s .. k end return s", nil, nil)
	if r.Str != "yx" {
		t.Fatalf("pairs order %s, want yx", r)
	}
	if w := e.Warnings(); len(w) != 0 {
		t.Fatalf("exact order warned: %q", w)
	}
	r = mustEval(t, e, "local none local t = {} t.a = 1 t.b = 2 t.a = none for i = 1, 5 do t['k' .. i] = i end local s = '' for k in pairs(t) do s = s .. k end return s", nil, nil)
	if r.Str != "k5bk1k4k3k2" {
		t.Fatalf("pairs order %s, want k5bk1k4k3k2", r)
	}
	if w := e.Warnings(); len(w) != 0 {
		t.Fatalf("recorded history warned: %q", w)
	}
	mustEval(t, e, "local t = {} t[{}] = 1 t[{}] = 2 t.x = 1 local n = 0 for k in pairs(t) do n = n + 1 end return n", nil, nil)
	if w := e.Warnings(); len(w) != 1 || !strings.Contains(w[0], "key order") {
		t.Fatalf("guessed history not warned: %q", w)
	}
	mustEval(t, e, "local n = 0 for k in pairs({1, 2, 3, x = 1}) do n = n + 1 end return n", nil, nil)
	if w := e.Warnings(); len(w) != 0 {
		t.Fatalf("array with one hash key warned: %q", w)
	}
}

func TestFunctionLoadTimeout(t *testing.T) {
	// The budget stands for Redis's 500 ms; a smaller one keeps the test
	// short.
	defer func(n int64) { loadStepLimit = n }(loadStepLimit)
	loadStepLimit = 1_000_000
	e := New(Options{})
	r, err := e.FunctionLoad([]byte("#!lua name=tl\nwhile true do end"), false)
	if err != nil || !r.Equal(ErrorReply("ERR Error registering functions: ERR FUNCTION LOAD timeout")) {
		t.Fatalf("got %s %v", r, err)
	}
	// The engine still loads and runs libraries afterwards.
	r, _ = e.FunctionLoad([]byte("#!lua name=ok\nredis.register_function('f', function() return 7 end)"), false)
	if !r.Equal(BulkReply("ok")) {
		t.Fatalf("load after timeout: %s", r)
	}
	if r, err := e.FCall(context.Background(), "f", nil, nil); err != nil || !r.Equal(IntReply(7)) {
		t.Fatalf("fcall: %s %v", r, err)
	}
}
