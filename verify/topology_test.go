package verify

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
)

// allSlots makes the imitated node serve every slot, so that a key in
// another slot is local (only the same-slot rule can refuse it).
var allSlots = []SlotRange{{0, 16383}}

// TestTopologyRules: the key rules of a standalone server and of a cluster
// node, reply and findings, per kind of run (scriptVerifyClusterState).
func TestTopologyRules(t *testing.T) {
	const (
		setOther  = "return redis.pcall('SET', 'other', 'v')"
		twoSlots  = "redis.call('SET', 'a', '1')\nreturn redis.pcall('SET', 'b', '2')"
		shebang   = "#!lua\n"
		crossFlag = "#!lua flags=allow-cross-slot-keys\n"
	)
	mset80 := ErrorReply("ERR Command 'mset' in script attempted to access keys that don't hash to the same slot")
	for _, tc := range []struct {
		name     string
		target   string
		topology string
		slots    []SlotRange
		src      string
		keys     []string
		want     Reply
		findings []string // keys of the undeclared-key findings
	}{
		{"standalone other slot", "", TopologyStandalone, nil, setOther, []string{"k"}, StatusReply("OK"), []string{"other"}},
		{"standalone declared cross slot", "", TopologyStandalone, nil, "return #KEYS", []string{"a", "b"}, IntReply(2), nil},
		{"standalone no-cluster", "", TopologyStandalone, nil, "#!lua flags=no-cluster\nreturn 1", nil, IntReply(1), nil},
		{"cluster declared cross slot", "", "", nil, "return #KEYS", []string{"a", "b"}, ErrorReply(errCrossSlot), nil},
		{"cluster no-cluster", "", "", nil, "#!lua flags=no-cluster\nreturn 1", nil, ErrorReply(errNoCluster), nil},
		{"cluster compat same slot", "", "", nil, "return redis.call('SET', '{k}x', 'v')", []string{"k"}, StatusReply("OK"), []string{"{k}x"}},
		{"cluster compat non-local", "", "", nil, setOther, []string{"k"}, ErrorReply(errNonLocal), []string{"other"}},
		{"cluster compat local other slot", "", "", allSlots, setOther, []string{"k"}, StatusReply("OK"), []string{"other"}},
		{"cluster shebang same slot", "", "", nil, shebang + "return redis.call('SET', '{k}x', 'v')", []string{"k"}, StatusReply("OK"), []string{"{k}x"}},
		{"cluster shebang other slot", "", "", allSlots, shebang + setOther, []string{"k"}, ErrorReply(errSameSlot), []string{"other"}},
		{"cluster shebang non-local first", "", "", nil, shebang + setOther, []string{"k"}, ErrorReply(errNonLocal), []string{"other"}},
		{"cluster allow-cross-slot-keys", "", "", allSlots, crossFlag + setOther, []string{"k"}, StatusReply("OK"), []string{"other"}},
		{"cluster no keys compat", "", "", nil, twoSlots, nil, ErrorReply(errNonLocal), []string{"a", "b"}},
		{"cluster no keys compat local", "", "", allSlots, twoSlots, nil, StatusReply("OK"), []string{"a", "b"}},
		{"cluster no keys shebang", "", "", allSlots, shebang + twoSlots, nil, ErrorReply(errSameSlot), []string{"a", "b"}},
		{"standalone no keys shebang", "", TopologyStandalone, nil, shebang + twoSlots, nil, StatusReply("OK"), []string{"a", "b"}},
		{"mset cross slot 7.0", "redis-7.0", "", allSlots, "return redis.pcall('MSET', KEYS[1], 'v', 'other', 'v')", []string{"k"}, ErrorReply(errNonLocal), []string{"other"}},
		{"mset cross slot 8.0", "redis-8.0", "", allSlots, "return redis.pcall('MSET', KEYS[1], 'v', 'other', 'v')", []string{"k"}, mset80, []string{"other"}},
		{"mset cross slot valkey 8.1", "valkey-8.1", "", allSlots, "return redis.pcall('MSET', KEYS[1], 'v', 'other', 'v')", []string{"k"}, mset80, []string{"other"}},
		{"mset cross slot standalone", "redis-8.0", TopologyStandalone, nil, "return redis.pcall('MSET', KEYS[1], 'v', 'other', 'v')", []string{"k"}, StatusReply("OK"), []string{"other"}},
		{"spublish other slot strict", "", "", allSlots, shebang + "return redis.pcall('SPUBLISH', 'ch', 'm')", []string{"k"}, ErrorReply(errSameSlot), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := New(Options{Target: tc.target, Topology: tc.topology, NodeSlots: tc.slots})
			r, err := e.Eval(context.Background(), []byte(tc.src), tc.keys, nil)
			if err != nil || !r.Equal(tc.want) {
				t.Fatalf("got %s %v, want %s", r, err, tc.want)
			}
			var keys []string
			for _, f := range e.Findings() {
				if f.Code != CodeUndeclaredKey || f.Chunk != "user_script" || f.Line == 0 {
					t.Errorf("finding %+v", f)
				}
				keys = append(keys, f.Key)
			}
			if !slices.Equal(keys, tc.findings) {
				t.Errorf("findings %q, want %q", keys, tc.findings)
			}
		})
	}
}

// TestFindings: each distinct access is one finding at the line that made
// it, through pcall too; a loop's repeats are one; a function's line is
// the library's; StrictKeys stops the run instead.
func TestFindings(t *testing.T) {
	ctx := context.Background()
	e := New(Options{Topology: TopologyStandalone})
	src := "local p = 'bull:{q}:'\nfor i = 1, 3 do\n  redis.call('HSET', p .. ARGV[1], 'n', i)\nend\nlocal ok = pcall(redis.call, 'GET', p .. 'id')\nreturn redis.call('SORT', KEYS[1], 'BY', 'w_*')"
	e.Do(ctx, "RPUSH", "bull:{q}:wait", "1")
	if _, err := e.Eval(ctx, []byte(src), []string{"bull:{q}:wait"}, []string{"7"}); err != nil {
		t.Fatal(err)
	}
	want := []Finding{
		{Code: CodeUndeclaredKey, Key: "bull:{q}:7", Command: "HSET", Chunk: "user_script", Line: 3},
		{Code: CodeUndeclaredKey, Key: "bull:{q}:id", Command: "GET", Chunk: "user_script", Line: 5},
		{Code: CodeUndeclaredKey, Key: "w_1", Command: "SORT", Chunk: "user_script", Line: 6},
	}
	if got := e.Findings(); !slices.Equal(got, want) {
		t.Errorf("findings\n%+v\nwant\n%+v", got, want)
	}
	if got, want := e.Entry("bull:{q}:7"); !want || got.Hash[0].Value != "3" {
		t.Errorf("the run did not complete: %+v", got)
	}
	// The next run starts with none.
	if _, err := e.Eval(ctx, []byte("return 1"), nil, nil); err != nil || len(e.Findings()) != 0 {
		t.Errorf("findings after a clean run: %+v %v", e.Findings(), err)
	}
	lib := "#!lua name=l\nredis.register_function('f', function(keys, args)\n  return redis.call('GET', 'x')\nend)\n"
	if r, err := e.FunctionLoad([]byte(lib), false); err != nil || r.Kind == Error {
		t.Fatal(r, err)
	}
	if _, err := e.FCall(ctx, "f", nil, nil); err != nil {
		t.Fatal(err)
	}
	if got := e.Findings(); len(got) != 1 || got[0].Chunk != "user_function" || got[0].Line != 3 || got[0].Key != "x" {
		t.Errorf("function findings %+v", got)
	}
	strict := New(Options{Topology: TopologyStandalone, StrictKeys: true})
	_, err := strict.Eval(ctx, []byte("redis.call('SET', 'a', 1)\nreturn redis.call('GET', 'x')"), []string{"a"}, nil)
	var re *RunError
	if !errors.As(err, &re) || re.Code != CodeUndeclaredKey || re.Line != 2 {
		t.Errorf("strict: %v %+v", err, re)
	}
	if len(strict.Findings()) != 0 {
		t.Errorf("strict findings %+v", strict.Findings())
	}
}

func TestCheckTopology(t *testing.T) {
	for _, n := range append(Topologies(), "") {
		if err := CheckTopology(n); err != nil {
			t.Errorf("%q: %v", n, err)
		}
	}
	if err := CheckTopology("sentinel"); err == nil {
		t.Error("sentinel accepted")
	}
}

// TestClusterDatabases: a cluster node has database 0 only; SELECT of
// another, MOVE, SWAPDB and COPY to another database are refused
// (db.c), by a client and in a script alike.
func TestClusterDatabases(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		args []string
		want Reply
	}{
		{[]string{"SELECT", "1"}, ErrorReply("ERR SELECT is not allowed in cluster mode")},
		{[]string{"SELECT", "0"}, StatusReply("OK")},
		{[]string{"SELECT", "x"}, errNotInt},
		{[]string{"SELECT", "16"}, ErrorReply("ERR SELECT is not allowed in cluster mode")},
		{[]string{"MOVE", "k", "x"}, ErrorReply("ERR MOVE is not allowed in cluster mode")},
		{[]string{"SWAPDB", "0", "1"}, ErrorReply("ERR SWAPDB is not allowed in cluster mode")},
		{[]string{"COPY", "k", "{k}n", "DB", "1"}, ErrorReply("ERR Copying to another database is not allowed in cluster mode")},
		{[]string{"COPY", "k", "{k}n", "DB", "0"}, IntReply(1)},
		{[]string{"COPY", "k", "{k}n", "BOGUS"}, ErrorReply("ERR syntax error")},
	} {
		e := New(Options{})
		e.Do(ctx, "SET", "k", "v")
		if r, err := e.Do(ctx, tc.args...); err != nil || !r.Equal(tc.want) {
			t.Errorf("%q: %s %v, want %s", tc.args, r, err, tc.want)
		}
		// From 7.2 a cluster node has one database: COPY to another is
		// out of range first.
		e = New(Options{Target: "valkey-8.1"})
		e.Do(ctx, "SET", "k", "v")
		want := tc.want
		if tc.args[0] == "COPY" && tc.args[len(tc.args)-1] == "1" {
			want = ErrorReply("ERR DB index is out of range")
		}
		if r, err := e.Do(ctx, tc.args...); err != nil || !r.Equal(want) {
			t.Errorf("valkey-8.1 %q: %s %v, want %s", tc.args, r, err, want)
		}
		e = New(Options{})
		e.Do(ctx, "SET", "k", "v")
		src := "return redis.pcall(unpack(ARGV))"
		if r, err := e.Eval(ctx, []byte(src), []string{"k"}, tc.args); err != nil || !r.Equal(tc.want) {
			t.Errorf("script %q: %s %v, want %s", tc.args, r, err, tc.want)
		}
		s := New(Options{Topology: TopologyStandalone})
		s.Do(ctx, "SET", "k", "v")
		if r, err := s.Do(ctx, tc.args...); err != nil || (r.Kind == Error && strings.Contains(r.Str, "cluster")) {
			t.Errorf("standalone %q: %s %v", tc.args, r, err)
		}
	}
}
