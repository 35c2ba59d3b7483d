package verify

import (
	"context"
	"strings"
	"testing"

	"github.com/scriptctl/scriptctl/internal/redistest"
	"github.com/scriptctl/scriptctl/slot"
)

// TestLiveSpublishSlot: on a Redis Cluster node, a script may SPUBLISH to
// a shard channel of its keys' slot, but not to one of a slot another node
// owns. The engine, told the node's slots, answers both as the node does.
func TestLiveSpublishSlot(t *testing.T) {
	if testing.Short() {
		t.Skip("live differential: needs a redis-server cluster")
	}
	const key, channel = "k", "ch"
	c := redistest.NewCluster(t)
	owner := c.Primaries[1] // slots 5461-10922
	if s := slot.Of(key); s < 5461 || s > 10922 || slot.Of(channel) <= 10922 {
		t.Fatalf("slots %d and %d are not on primaries 1 and 2", s, slot.Of(channel))
	}
	ctx := context.Background()
	facts, err := lookupTarget(liveTarget(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		channel string
		want    Reply // the live reply, which the engine answers too
	}{
		{"{k}ch", ArrayReply(IntReply(0), StatusReply("OK"))},
		{channel, ErrorReply(facts.text(errNonLocal))},
	} {
		script := "return {redis.call('SPUBLISH', '" + c.channel + "', 'm'), redis.call('SET', KEYS[1], 'v')}"
		msg, err := owner.Do(ctx, "EVAL", script, "1", key).ToMessage()
		if err != nil && msg.Error() == nil {
			t.Fatal(err)
		}
		live, err := FromMessage(msg)
		if err != nil {
			t.Fatal(err)
		}
		if live.Kind == Error {
			live.Str = strings.SplitN(live.Str, " script: ", 2)[0]
		}
		if !live.Equal(c.want) {
			t.Errorf("%s: live %s, want %s", c.channel, live, c.want)
		}
		off, err := New(Options{Target: liveTarget(t), NodeSlots: []SlotRange{{5461, 10921}}}).Eval(ctx, []byte(script), []string{key}, nil)
		if off.Kind == Error {
			off.Str = strings.SplitN(off.Str, " script: ", 2)[0]
		}
		if err != nil || !off.Equal(live) {
			t.Errorf("%s: offline %s %v, live %s", c.channel, off, err, live)
		}
	}
}
