package keyspace

import (
	"context"
	"errors"
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
