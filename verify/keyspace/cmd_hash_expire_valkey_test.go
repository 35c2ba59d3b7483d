package keyspace

import (
	"context"
	"testing"
)

// vkEngine is a valkey-9.1 engine at t=1,000,000 ms with hash h = a,b,c.
func vkEngine(t *testing.T) *testServer {
	t.Helper()
	e := New(Options{Now: 1_000_000, Target: "valkey-9.1"})
	mustDo(t, e, "HSET", "h", "a", "1", "b", "2", "c", "3")
	return e
}

// TestValkeyHashFieldExpiry: on valkey-9.1 a TTL makes the hash a
// hashtable, XX and GT fail on a listpack without converting it, HTTL
// rounds to the nearest second, a field lives through its expiry ms, and
// the texts are Valkey's (redis-8.0 answers differently).
func TestValkeyHashFieldExpiry(t *testing.T) {
	e := vkEngine(t)
	steps := []struct {
		args []string
		want Reply
	}{
		{[]string{"HEXPIRE", "h", "100", "XX", "GT", "FIELDS", "1", "a"}, intsReply(0)},
		{[]string{"OBJECT", "ENCODING", "h"}, BulkReply("listpack")},
		{[]string{"HPEXPIRE", "h", "1499", "NX", "nx", "FIELDS", "2", "a", "x"}, intsReply(1, -2)},
		{[]string{"OBJECT", "ENCODING", "h"}, BulkReply("hashtable")},
		{[]string{"HTTL", "h", "FIELDS", "2", "a", "b"}, intsReply(1, -1)}, // 1499 ms rounds to 1
		{[]string{"HPEXPIRE", "h", "1500", "FIELDS", "1", "b"}, intsReply(1)},
		{[]string{"HTTL", "h", "FIELDS", "1", "b"}, intsReply(2)},
		{[]string{"HEXPIRE", "h", "10", "bad", "FIELDS", "1", "a"}, ErrorReply("ERR Unsupported option bad")},
		{[]string{"HEXPIRE", "h", "10", "FIELDS", "2", "a"}, errVkNumFields},
		{[]string{"HTTL", "h", "FIELDS", "2", "a"}, errSyntax},
		{[]string{"HPERSIST", "h", "FIELDS", "2", "a", "c"}, intsReply(1, -1)},
		{[]string{"OBJECT", "ENCODING", "h"}, BulkReply("hashtable")},
		{[]string{"HEXPIRE", "h", "0", "FIELDS", "1", "c"}, intsReply(2)},
		{[]string{"HSETEX", "h", "FXX", "KEEPTTL", "FIELDS", "1", "b", "20"}, IntReply(1)},
		{[]string{"HPTTL", "h", "FIELDS", "1", "b"}, intsReply(1500)},
		{[]string{"HSETEX", "h", "NX", "FIELDS", "1", "z", "1"}, IntReply(0)},
		{[]string{"HGETEX", "h", "PERSIST", "FIELDS", "2", "b", "a"}, ArrayReply(BulkReply("20"), BulkReply("1"))},
		{[]string{"HPTTL", "h", "FIELDS", "1", "b"}, intsReply(-1)},
		{[]string{"HGETEX", "h", "PX", "0", "FIELDS", "2", "a", "b"}, ArrayReply(BulkReply("1"), BulkReply("20"))},
		{[]string{"EXISTS", "h"}, IntReply(0)},
	}
	for _, s := range steps {
		if got := vkDo(t, e, s.args...); !got.Equal(s.want) {
			t.Errorf("%v = %s, want %s", s.args, got, s.want)
		}
	}
	// A field lives through its expiry ms (timestampIsExpired: now > when).
	mustDo(t, e, "HSETEX", "k", "PX", "100", "FIELDS", "1", "f", "v")
	e.Advance(100)
	if got := mustDo(t, e, "HGET", "k", "f"); !got.Equal(BulkReply("v")) {
		t.Errorf("at the expiry ms HGET = %s, want \"v\"", got)
	}
	e.Advance(1)
	if got := mustDo(t, e, "EXISTS", "k"); !got.Equal(IntReply(0)) {
		t.Errorf("after expiry EXISTS = %s, want 0", got)
	}
	// Redis 8.0's wording of the same mistake differs.
	r := vkEngine(t)
	if got := vkDo(t, New(Options{Now: 1_000_000, Target: "redis-8.0"}), "HEXPIRE", "h", "10", "FIELDS", "2", "a"); got.Equal(vkDo(t, r, "HEXPIRE", "h", "10", "FIELDS", "2", "a")) {
		t.Errorf("redis-8.0 and valkey-9.1 word a wrong count alike: %s", got)
	}
}

// vkDo runs one command, error replies included.
func vkDo(t *testing.T, e *testServer, args ...string) Reply {
	t.Helper()
	r, err := e.Do(context.Background(), args...)
	if err != nil {
		t.Fatalf("%q: %v", args, err)
	}
	return r
}
