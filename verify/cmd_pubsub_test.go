package verify

import (
	"context"
	"errors"
	"slices"
	"testing"
)

func TestCmdPubsub(t *testing.T) {
	runCmdCases(t, []cmdCase{
		{name: "publish", cmd: a("PUBLISH", "ch", "m"), want: IntReply(0)},
		{name: "publish arity", cmd: a("PUBLISH", "ch"), want: errArity("publish")},
		{name: "publish too many", cmd: a("PUBLISH", "ch", "m", "x"), want: errArity("publish")},
		{name: "spublish", cmd: a("SPUBLISH", "ch", "m"), want: IntReply(0)},
		{name: "spublish arity", cmd: a("SPUBLISH", "ch", "m", "x"), want: errArity("spublish")},
		{name: "publish touches no key", setup: [][]string{{"SET", "ch", "v"}}, cmd: a("PUBLISH", "ch", "m"), want: IntReply(0), keys: map[string]*Entry{"ch": str("v", -1)}},
	})
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
	want := []Message{{"wake", "a\x00", false}, {"other", "x", true}, {"wake", "b", false}}
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
		if err != nil || !r.Equal(ErrorReply(scriptErrWrite)) {
			t.Errorf("%s: %s %v, want %s", ro, r, err, scriptErrWrite)
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

// TestCommandUnjudged: COMMAND's other forms, and COUNT on another
// target, are refused rather than answered wrongly.
func TestCommandUnjudged(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		target string
		args   []string
	}{
		{"", a("COMMAND")},
		{"", a("COMMAND", "INFO", "get")},
		{"", a("COMMAND", "LIST")},
	} {
		e := New(Options{Target: c.target})
		r, err := e.Do(ctx, c.args...)
		var re *RunError
		if !errors.As(err, &re) || re.Code != CodeNotImplemented {
			t.Errorf("%s %q: %s %v, want not implemented", c.target, c.args, r, err)
		}
	}
	// COUNT comes from each target's recorded table (COMMAND COUNT on
	// Valkey 8.1.1 is 242).
	if r, err := New(Options{Target: "valkey-8.1"}).Do(ctx, "COMMAND", "COUNT"); err != nil || !r.Equal(IntReply(242)) {
		t.Errorf("valkey-8.1 COMMAND COUNT = %s %v, want 242", r, err)
	}
}
