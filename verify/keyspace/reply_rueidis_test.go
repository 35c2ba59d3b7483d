package keyspace

import (
	"context"
	"testing"

	"github.com/redis/rueidis"

	"github.com/scriptctl/scriptctl/internal/redistest"
)

// TestFromMessage checks the exact conversion of live replies: status and
// bulk stay distinct and error texts keep their "ERR " code.
func TestFromMessage(t *testing.T) {
	s := redistest.Standalone(t)
	c, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{s.Addr}, DisableCache: true, AlwaysRESP2: true, ForceSingleClient: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, tc := range []struct {
		src  string
		want Reply
	}{
		{"return 1", IntReply(1)},
		{"return 3.9", IntReply(3)},
		{"return 'OK'", BulkReply("OK")},
		{"return redis.status_reply('OK')", StatusReply("OK")},
		{"return redis.error_reply('MY boom')", ErrorReply("MY boom")},
		{"return redis.error_reply('boom')", ErrorReply("ERR boom")},
		{"return false", NilReply()},
		{"return {}", ArrayReply()},
		{"return {1, 'a', {2, false}, redis.status_reply('S')}", ArrayReply(IntReply(1), BulkReply("a"), ArrayReply(IntReply(2), NilReply()), StatusReply("S"))},
		{"return {1, 2, nil, 4}", ArrayReply(IntReply(1), IntReply(2))},
	} {
		msg, _ := c.Do(context.Background(), c.B().Eval().Script(tc.src).Numkeys(0).Build()).ToMessage()
		got, err := FromMessage(msg)
		if err != nil {
			t.Fatalf("%s: %v", tc.src, err)
		}
		if !got.Equal(tc.want) {
			t.Errorf("%s: got %s, want %s", tc.src, got, tc.want)
		}
	}
}
