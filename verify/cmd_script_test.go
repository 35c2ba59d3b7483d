package verify

import (
	"context"
	"encoding/hex"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/scriptctl/scriptctl/verify/keyspace"
)

// Data commands as a script calls them: redis.call and redis.pcall, the
// script layer's refusals, and the undeclared-key check. The commands' own
// cases are verify/keyspace's.

func TestStringDump(t *testing.T) {
	e := New(Options{})
	r := mustEval(t, e, "return string.dump(function() return 1 end)", nil, nil)
	// Redis 7.0.15's bytes for this function: header, "@user_script",
	// lines 1-1, no upvalues or parameters, stack 2, LOADK 0 0, RETURN 0 2,
	// RETURN 0 1, the constant 1, line info and no locals.
	want, _ := hex.DecodeString("1b4c756151000104080408000d0000000000000040757365725f7363726970740001000000010000000000000203000000010000001e0000011e0080000100000003000000000000f03f00000000030000000100000001000000010000000000000000000000")
	if r.Kind != Bulk || r.Str != string(want) {
		t.Fatalf("got %q, want the server's %q", r.Str, want)
	}
	if w := e.Warnings(); len(w) != 0 {
		t.Errorf("warnings %q, want none (the dump is exact)", w)
	}
	r = mustEval(t, e, "return {pcall(string.dump, tostring)}", nil, nil)
	if !r.Equal(ArrayReply(NilReply(), BulkReply("unable to dump given function"))) {
		t.Errorf("dump of a Go function: got %s", r)
	}
	r = mustEval(t, e, "local f, err = loadstring(string.dump(function() end)) return {type(f), err}", nil, nil)
	if !r.Equal(ArrayReply(BulkReply("nil"), BulkReply(`[string "`+"\x1bLuaQ"+`"]:1: unexpected symbol near 'char(27)'`))) {
		t.Errorf("loadstring of a dump: got %s", r)
	}
}

// In a script, a container's subcommand is looked up first: its noscript
// flag and arity are the subcommand's.
func TestScriptSubcommandFlags(t *testing.T) {
	for src, want := range map[string]string{
		"return redis.pcall('CONFIG', 'GET', 'x')": "ERR This Redis command is not allowed from script",
		"return redis.pcall('CLIENT', 'NOSUCH')":   "ERR Unknown Redis command called from script",
		"return redis.pcall('CONFIG', 'GET')":      "ERR Wrong number of args calling Redis command from script",
		"return redis.pcall('CLUSTER', 'SLOTS')":   "ERR This instance has cluster support disabled",
		"return redis.pcall('OBJECT', 'NOSUCH')":   "ERR Unknown Redis command called from script",
	} {
		if r := mustEval(t, New(Options{}), src, nil, nil); !r.Equal(ErrorReply(want)) {
			t.Errorf("%s: got %s, want %q", src, r, want)
		}
	}
}

// TestObjectInScript checks the script-side errors of OBJECT's subcommands.
func TestObjectInScript(t *testing.T) {
	e := New(Options{})
	for src, want := range map[string]Reply{
		"return redis.pcall('OBJECT', 'nope', 'k')":    ErrorReply(redisErrUnknown),
		"return redis.pcall('OBJECT', 'encoding')":     ErrorReply(redisErrArity),
		"return redis.pcall('OBJECT', 'help', 'x')":    ErrorReply(redisErrArity),
		"return redis.call('OBJECT', 'encoding', 'k')": NilReply(),
	} {
		got, err := e.Eval(context.Background(), []byte(src), []string{"k"}, nil)
		if err != nil || !got.Equal(want) {
			t.Errorf("%s: %s %v, want %s", src, got, err, want)
		}
	}
	_, err := e.Eval(context.Background(), []byte("redis.call('SET', KEYS[1], 'v') return redis.call('OBJECT', 'IDLETIME', KEYS[1])"), []string{"k"}, nil)
	var re *RunError
	if !errors.As(err, &re) || re.Code != CodeNotImplemented {
		t.Errorf("OBJECT IDLETIME: err %v, want not-implemented", err)
	}
}

// TestListBlockingInScript: BLPOP BRPOP BRPOPLPUSH BLMOVE are noscript in
// 7.0.15; BLMPOP runs without blocking and answers nil when nothing is
// there.
func TestListBlockingInScript(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		src  string
		want Reply
	}{
		{"return redis.pcall('BLPOP', KEYS[1], 0)", ErrorReply(redisErrNoScrpt)},
		{"return redis.pcall('BRPOP', KEYS[1], 0)", ErrorReply(redisErrNoScrpt)},
		{"return redis.pcall('BRPOPLPUSH', KEYS[1], KEYS[1], 0)", ErrorReply(redisErrNoScrpt)},
		{"return redis.pcall('BLMOVE', KEYS[1], KEYS[1], 'LEFT', 'LEFT', 0)", ErrorReply(redisErrNoScrpt)},
		{"return redis.call('BLMPOP', 0, 1, KEYS[1], 'LEFT')", NilReply()},
		{"return redis.pcall('BLMPOP', 'x', 1, KEYS[1], 'LEFT')", ErrorReply("ERR timeout is not a float or out of range")},
		{"redis.call('RPUSH', KEYS[1], 'a')\nreturn redis.call('BLMPOP', 0, 1, KEYS[1], 'LEFT')", ArrayReply(BulkReply("l"), bulks("a"))},
	}
	for _, tc := range cases {
		e := New(Options{})
		got, err := e.Eval(ctx, []byte(tc.src), []string{"l"}, nil)
		if err != nil {
			t.Fatalf("%s: %v", tc.src, err)
		}
		if !got.Equal(tc.want) {
			t.Errorf("%s: %s, want %s", tc.src, got, tc.want)
		}
	}
}

// TestPublished checks the record of messages, the declared receivers,
// and that a read-only script may not publish (may-replicate counts as a
// write there).
func TestPublished(t *testing.T) {
	ctx := context.Background()
	e := New(Options{})
	e.SetSubscribers(map[string]int64{"wake": 3})
	src := []byte("redis.call('PUBLISH', 'wake', ARGV[1]); redis.call('SPUBLISH', 'other', 'x'); return redis.call('PUBLISH', 'wake', 'b')")
	r, err := e.Eval(ctx, src, []string{"{other}k"}, []string{"a\x00"})
	if err != nil || !r.Equal(IntReply(3)) {
		t.Fatalf("eval: %s %v", r, err)
	}
	want := []Message{{Channel: "wake", Message: "a\x00", Shard: false}, {Channel: "other", Message: "x", Shard: true}, {Channel: "wake", Message: "b", Shard: false}}
	if got := e.Published(); !slices.Equal(got, want) {
		t.Fatalf("Published = %+v, want %+v", got, want)
	}
	e.Put(Entry{Key: "k", Type: "string", Value: "x", PTTL: -1})
	// A failing script keeps what it published before the error.
	r, _ = e.Eval(ctx, []byte("redis.call('PUBLISH', 'c', 'd'); return redis.call('INCR', 'k')"), []string{"k"}, nil)
	if r.Kind != Error || len(e.Published()) != 4 {
		t.Fatalf("after error: %s, %+v", r, e.Published())
	}
	e.ResetPublished()
	if len(e.Published()) != 0 {
		t.Fatalf("ResetPublished left %+v", e.Published())
	}
	for _, ro := range []string{"EVAL_RO", "EVAL"} {
		src := "return redis.pcall('PUBLISH', 'wake', 'x')"
		if ro == "EVAL" {
			src = "#!lua flags=no-writes\n" + src
		}
		r, err := e.Do(ctx, ro, src, "0")
		if err != nil || !r.Equal(ErrorReply(keyspace.ScriptErrWrite)) {
			t.Errorf("%s: %s %v, want %s", ro, r, err, keyspace.ScriptErrWrite)
		}
	}
	if len(e.Published()) != 0 {
		t.Errorf("a refused PUBLISH was recorded: %+v", e.Published())
	}
	// On a cluster a script's shard channel is routed like a key: in the
	// declared keys' slot, or the run's first slot without keys, it is
	// local; in another it is another node's. A standalone server has no
	// such rule.
	for _, c := range []struct {
		keys     []string
		topology string
		want     Reply
	}{
		{nil, "", IntReply(0)},
		{[]string{"{ch}k"}, "", IntReply(0)},
		{[]string{"k"}, "", ErrorReply(errNonLocal)},
		{[]string{"k"}, TopologyStandalone, IntReply(0)},
	} {
		e := New(Options{Topology: c.topology})
		r, err := e.Eval(ctx, []byte("return redis.pcall('SPUBLISH', 'ch', 'm')"), c.keys, nil)
		if err != nil || !r.Equal(c.want) {
			t.Errorf("SPUBLISH ch with keys %q on %q: %s %v, want %s", c.keys, c.topology, r, err, c.want)
		}
	}
	if r, err := e.Do(ctx, "SPUBLISH", "ch", "m"); err != nil || !r.Equal(IntReply(0)) {
		t.Errorf("a client's SPUBLISH: %s %v", r, err)
	}
	e.ResetPublished()
	// The map is copied: changing it later changes nothing.
	m := map[string]int64{"x": 1}
	e.SetSubscribers(m)
	m["x"] = 9
	if r, _ := e.Do(ctx, "PUBLISH", "x", "y"); !r.Equal(IntReply(1)) {
		t.Errorf("PUBLISH x = %s, want 1", r)
	}
}

// TestSelectInScript checks that a script's SELECT lasts until the script
// ends: the caller (a client, or the next script) keeps its database.
func TestSelectInScript(t *testing.T) {
	ctx := context.Background()
	e := New(Options{Topology: TopologyStandalone})
	mustDo(t, e, "SELECT", "2")
	mustDo(t, e, "SET", "k", "two")
	src := []byte("local a = redis.call('GET', KEYS[1]) redis.call('SELECT', 5) redis.call('SET', KEYS[1], 'five') return a")
	r, err := e.Eval(ctx, src, []string{"k"}, nil)
	if err != nil || !r.Equal(BulkReply("two")) {
		t.Fatalf("eval: %s %v", r, err)
	}
	if r := mustDo(t, e, "GET", "k"); !r.Equal(BulkReply("two")) {
		t.Errorf("after the script the client's database changed: GET %s", r)
	}
	mustDo(t, e, "SELECT", "5")
	if r := mustDo(t, e, "GET", "k"); !r.Equal(BulkReply("five")) {
		t.Errorf("the script's SET went elsewhere: GET %s", r)
	}
	// A failing script restores the database too.
	if _, err := e.Eval(ctx, []byte("redis.call('SELECT', 0) error('x')"), nil, nil); err != nil {
		t.Fatal(err)
	}
	if r := mustDo(t, e, "GET", "k"); !r.Equal(BulkReply("five")) {
		t.Errorf("after a failed script: GET %s", r)
	}
}

// TestSetLargeScript empties a large hashtable set one SPOP at a time
// (each pops the oldest member, in O(1)) and checks every member came out.
func TestSetLargeScript(t *testing.T) {
	e := New(Options{Timeout: time.Minute})
	src := `for i = 1, 20000 do redis.call('SADD', KEYS[1], 'm' .. i) end
local n = 0
while true do
  local m = redis.call('SPOP', KEYS[1])
  if not m then break end
  n = n + 1
  if m ~= 'm' .. n then return {err = 'popped ' .. m .. ' as ' .. n} end
end
return n`
	r, err := e.Eval(context.Background(), []byte(src), []string{"s"}, nil)
	if err != nil || !r.Equal(IntReply(20000)) {
		t.Fatalf("%s %v", r, err)
	}
}

// TestSetScriptKeys checks the keys each command declares: a script must
// pass them in KEYS.
func TestSetScriptKeys(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		src  string
		keys []string
		err  bool
	}{
		{"return redis.call('SMOVE', KEYS[1], 'other', 'm')", []string{"{x}a"}, true},
		{"return redis.call('SINTERCARD', 2, KEYS[1], 'other')", []string{"{x}a"}, true},
		{"return redis.call('SINTERCARD', 1, KEYS[1], 'LIMIT', 5)", []string{"{x}a"}, false},
		{"return redis.pcall('SINTERCARD', 3, KEYS[1])", []string{"{x}a"}, false},
		{"return redis.call('SINTERSTORE', 'dst', KEYS[1])", []string{"{x}a"}, true},
		{"return redis.call('SUNION', KEYS[1], KEYS[2])", []string{"{x}a", "{x}b"}, false},
	} {
		e := New(Options{StrictKeys: true})
		_, err := e.Eval(ctx, []byte(c.src), c.keys, nil)
		re, isRun := err.(*RunError)
		if c.err != (isRun && re.Code == CodeUndeclaredKey) {
			t.Errorf("%s: err %v, want undeclared key: %v", c.src, err, c.err)
		}
	}
}

// TestSortUndeclaredPatternKeys checks that BY, GET and STORE keys a script
// did not declare stop the run, as a cluster would refuse them.
func TestSortUndeclaredPatternKeys(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		src  string
		keys []string
		ok   bool
	}{
		{"return redis.call('SORT', KEYS[1], 'BY', 'w_*')", []string{"l"}, false},
		{"return redis.call('SORT', KEYS[1], 'GET', 'w_*')", []string{"l"}, false},
		{"return redis.call('SORT_RO', KEYS[1], 'GET', 'h_*->f')", []string{"l"}, false},
		{"return redis.call('SORT', KEYS[1], 'STORE', 'other')", []string{"l"}, false},
		{"return redis.call('SORT', KEYS[1], 'BY', 'w_*', 'GET', '#')", []string{"l", "w_1", "w_2"}, true},
		{"return redis.call('SORT', KEYS[1], 'BY', 'nosort', 'GET', '#')", []string{"l"}, true},
	} {
		e := New(Options{StrictKeys: true, Topology: TopologyStandalone})
		putList(e, "l", "2", "1")
		_, err := e.Eval(ctx, []byte(tc.src), tc.keys, nil)
		var re *RunError
		if isErr := errors.As(err, &re) && re.Code == CodeUndeclaredKey; isErr == tc.ok {
			t.Errorf("%s with KEYS %q: err %v", tc.src, tc.keys, err)
		}
	}
}

// TestStreamScriptRules: inside a script XREAD cannot BLOCK (the error
// names the command as the script typed it), subcommand errors take the
// script layer's words, and write subcommands fail in read-only scripts.
func TestStreamScriptRules(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		src  string
		ro   bool
		want string
	}{
		{"return redis.pcall('xRead', 'BLOCK', 0, 'STREAMS', KEYS[1], '$')", false, "ERR xRead command is not allowed with BLOCK option from scripts"},
		{"return redis.pcall('XGROUP', 'NOPE', KEYS[1])", false, redisErrUnknown},
		{"return redis.pcall('XGROUP', 'DESTROY', KEYS[1])", false, redisErrArity},
		{"return redis.pcall('XGROUP', 'CREATE', KEYS[1], 'g', '$', 'MKSTREAM')", true, keyspace.ScriptErrWrite},
		{"return redis.pcall('XREADGROUP', 'GROUP', 'g', 'c', 'STREAMS', KEYS[1], '>')", true, keyspace.ScriptErrWrite},
	}
	for _, tt := range tests {
		e := New(Options{})
		run := e.Eval
		if tt.ro {
			run = e.EvalRO
		}
		r, err := run(ctx, []byte(tt.src), []string{"s"}, nil)
		if err != nil || r.Kind != Error || r.Str != tt.want {
			t.Errorf("%s: %s %v, want error %q", tt.src, r, err, tt.want)
		}
		if _, ok := e.Entry("s"); ok {
			t.Errorf("%s: key s created", tt.src)
		}
	}
	// XINFO reads are fine in a read-only script.
	e := New(Options{})
	e.Do(ctx, "XADD", "s", "1-1", "f", "v")
	if r, err := e.EvalRO(ctx, []byte("return redis.call('XINFO', 'STREAM', KEYS[1])[2]"), []string{"s"}, nil); err != nil || !r.Equal(IntReply(1)) {
		t.Errorf("XINFO in EVAL_RO: %s %v", r, err)
	}
	// A client's XREAD BLOCK with nothing to serve would block: not judged.
	_, err := e.Do(ctx, "XREAD", "BLOCK", "10", "STREAMS", "s", "$")
	var re *RunError
	if !errors.As(err, &re) || re.Code != CodeNotImplemented {
		t.Errorf("XREAD BLOCK: %v, want a not-implemented RunError", err)
	}
	// XREAD's keys are the first half after STREAMS: undeclared keys fail
	// under StrictKeys.
	e = New(Options{StrictKeys: true})
	_, err = e.Eval(ctx, []byte("return redis.call('XREAD', 'STREAMS', KEYS[1], 'other', '0', '0')"), []string{"s"}, nil)
	if !errors.As(err, &re) || re.Code != CodeUndeclaredKey || !strings.Contains(re.Msg, `"other"`) {
		t.Errorf("XREAD undeclared key: %v", err)
	}
}

func TestZsetBlockingClient(t *testing.T) {
	ctx := context.Background()
	e := New(Options{})
	for _, c := range [][]string{{"BZPOPMIN", "z", "0"}, {"BZMPOP", "1", "1", "z", "MIN"}} {
		var re *RunError
		if _, err := e.Do(ctx, c...); !errors.As(err, &re) || re.Code != CodeNotImplemented {
			t.Errorf("%q on an empty key: %v, want a not-implemented RunError", c, err)
		}
	}
	r, err := e.Eval(ctx, []byte("return redis.call('BZMPOP', 0, 1, KEYS[1], 'MIN')"), []string{"z"}, nil)
	if err != nil || r.Kind != Nil {
		t.Errorf("BZMPOP in a script: %s %v, want nil at once", r, err)
	}
}

// TestListUndeclaredKey: the undeclared-key check sees every key a list
// command touches (keyspace's TestListKeyPositions has the positions).
func TestListUndeclaredKey(t *testing.T) {
	e := New(Options{StrictKeys: true})
	_, err := e.Eval(context.Background(), []byte("return redis.call('LMPOP', 2, KEYS[1], 'other', 'LEFT')"), []string{"l"}, nil)
	var re *RunError
	if !errors.As(err, &re) || re.Code != CodeUndeclaredKey {
		t.Errorf("LMPOP with an undeclared key: %v, want an undeclared-key RunError", err)
	}
}

// TestSortSetOrder checks that a set sorted BY a constant is sorted (ALPHA)
// inside a script (keyspace's TestSortSetOrderClient has a client's).
func TestSortSetOrder(t *testing.T) {
	ctx := context.Background()
	e := New(Options{})
	e.Put(Entry{Key: "s", Type: "set", Set: []string{"c", "a", "10"}})
	r, err := e.Eval(ctx, []byte("return redis.call('SORT', KEYS[1], 'BY', 'nosort')"), []string{"s"}, nil)
	if err != nil || !r.Equal(ArrayReply(BulkReply("10"), BulkReply("a"), BulkReply("c"))) {
		t.Errorf("in a script: %s %v", r, err)
	}
}

func mustDo(t *testing.T, e *Engine, args ...string) Reply {
	t.Helper()
	r, err := e.Do(context.Background(), args...)
	if err != nil || r.Kind == Error {
		t.Fatalf("%q: %s %v", args, r, err)
	}
	return r
}

func bulks(ss ...string) Reply {
	out := make([]Reply, len(ss))
	for i, s := range ss {
		out[i] = BulkReply(s)
	}
	return ArrayReply(out...)
}

func putList(e *Engine, key string, elems ...string) {
	e.Put(Entry{Key: key, Type: "list", List: elems})
}

// sameEntry compares two entries exactly: a hash's fields, a list's
// elements and a sorted set's members in order, a set's members as a set
// (Redis gives a large set no order).
func sameEntry(a, b Entry) bool {
	sa, sb := slices.Clone(a.Set), slices.Clone(b.Set)
	slices.Sort(sa)
	slices.Sort(sb)
	return a.Key == b.Key && a.Type == b.Type && a.Value == b.Value && a.PTTL == b.PTTL &&
		slices.Equal(a.Hash, b.Hash) && slices.Equal(a.List, b.List) && slices.Equal(sa, sb) && slices.Equal(a.ZSet, b.ZSet)
}
