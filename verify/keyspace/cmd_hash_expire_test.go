package keyspace

import (
	"context"
	"maps"
	"slices"
	"testing"
)

// hfeEngine is a redis-8.0 engine at t=1,000,000 ms with hash h = a,b,c.
func hfeEngine(t *testing.T) *testServer {
	t.Helper()
	e := New(Options{Now: 1_000_000, Target: "redis-8.0"})
	mustDo(t, e, "HSET", "h", "a", "1", "b", "2", "c", "3")
	return e
}

func intsReply(v ...int64) Reply {
	out := make([]Reply, len(v))
	for i, n := range v {
		out[i] = IntReply(n)
	}
	return ArrayReply(out...)
}

func TestHashFieldExpiresOnTheClock(t *testing.T) {
	e := hfeEngine(t)
	if got := mustDo(t, e, "HPEXPIRE", "h", "100", "FIELDS", "1", "a"); !got.Equal(intsReply(1)) {
		t.Fatalf("HPEXPIRE = %s", got)
	}
	// A field is live while its expiry is >= now (hashTypeGetValue).
	e.Advance(100)
	if got := mustDo(t, e, "HGET", "h", "a"); !got.Equal(BulkReply("1")) {
		t.Errorf("at the expiry ms HGET = %s, want \"1\"", got)
	}
	e.Advance(1)
	if got := mustDo(t, e, "HGET", "h", "a"); !got.Equal(NilReply()) {
		t.Errorf("after expiry HGET = %s, want nil", got)
	}
	if got := mustDo(t, e, "HLEN", "h"); !got.Equal(IntReply(2)) {
		t.Errorf("HLEN = %s, want 2", got)
	}
	en, ok := e.Entry("h")
	if !ok || !slices.Equal(en.Hash, []Field{{"b", "2"}, {"c", "3"}}) || en.FieldTTL != nil {
		t.Errorf("entry = %+v, want b, c without field TTLs", en)
	}
}

func TestHashDeletedWithItsLastField(t *testing.T) {
	e := hfeEngine(t)
	mustDo(t, e, "HEXPIRE", "h", "5", "FIELDS", "3", "a", "b", "c")
	e.Advance(4000)
	if got := mustDo(t, e, "HTTL", "h", "FIELDS", "2", "a", "x"); !got.Equal(intsReply(1, -2)) {
		t.Errorf("HTTL = %s, want [1 -2]", got)
	}
	if got := mustDo(t, e, "DBSIZE"); !got.Equal(IntReply(1)) {
		t.Errorf("DBSIZE before expiry = %s", got)
	}
	e.Advance(1001)
	if got := mustDo(t, e, "DBSIZE"); !got.Equal(IntReply(0)) {
		t.Errorf("DBSIZE after the last field expired = %s, want 0", got)
	}
	if got := mustDo(t, e, "EXISTS", "h"); !got.Equal(IntReply(0)) {
		t.Errorf("EXISTS = %s, want 0", got)
	}
	if _, ok := e.Entry("h"); ok {
		t.Error("the hash is still stored")
	}
}

func TestHashFieldPastTimeDeletes(t *testing.T) {
	e := hfeEngine(t)
	got := mustDo(t, e, "HPEXPIREAT", "h", "1000000", "FIELDS", "2", "a", "b")
	if !got.Equal(intsReply(2, 2)) {
		t.Errorf("HPEXPIREAT now = %s, want [2 2]", got)
	}
	got = mustDo(t, e, "HEXPIREAT", "h", "1", "FIELDS", "1", "c")
	if !got.Equal(intsReply(2)) || mustDo(t, e, "EXISTS", "h").Int != 0 {
		t.Errorf("HEXPIREAT past = %s; the hash must be gone", got)
	}
}

func TestHashFieldTTLKeptAndDropped(t *testing.T) {
	e := hfeEngine(t)
	mustDo(t, e, "HPEXPIRE", "h", "5000", "FIELDS", "2", "a", "b")
	mustDo(t, e, "HINCRBY", "h", "a", "1") // keeps the TTL
	mustDo(t, e, "HSET", "h", "b", "x")    // drops it
	if got := mustDo(t, e, "HPTTL", "h", "FIELDS", "3", "a", "b", "c"); !got.Equal(intsReply(5000, -1, -1)) {
		t.Errorf("HPTTL = %s, want [5000 -1 -1]", got)
	}
	en, _ := e.Entry("h")
	if !maps.Equal(en.FieldTTL, map[string]int64{"a": 5000}) {
		t.Errorf("FieldTTL = %v", en.FieldTTL)
	}
	if got := mustDo(t, e, "OBJECT", "ENCODING", "h"); !got.Equal(BulkReply("listpackex")) {
		t.Errorf("encoding = %s", got)
	}
	mustDo(t, e, "HPERSIST", "h", "FIELDS", "1", "a")
	e.Advance(10_000)
	if got := mustDo(t, e, "HLEN", "h"); !got.Equal(IntReply(3)) {
		t.Errorf("HLEN after HPERSIST = %s, want 3", got)
	}
}

func TestHashFieldTTLPutAndCopy(t *testing.T) {
	e := New(Options{Now: 1_000_000, Target: "redis-7.4"})
	e.Put(Entry{Key: "h", Type: "hash", Hash: []Field{{"a", "1"}, {"b", "2"}, {"c", "3"}},
		FieldTTL: map[string]int64{"c": 300, "b": 200, "nosuch": 5}, PTTL: -1})
	en, _ := e.Entry("h")
	// listpackex order: fields with a TTL first, by TTL.
	if !slices.Equal(en.Hash, []Field{{"b", "2"}, {"c", "3"}, {"a", "1"}}) || !maps.Equal(en.FieldTTL, map[string]int64{"b": 200, "c": 300}) {
		t.Errorf("entry = %+v", en)
	}
	mustDo(t, e, "COPY", "h", "h2")
	e.Advance(250)
	en, _ = e.Entry("h2")
	if !slices.Equal(en.Hash, []Field{{"c", "3"}, {"a", "1"}}) || !maps.Equal(en.FieldTTL, map[string]int64{"c": 50}) {
		t.Errorf("copy = %+v", en)
	}
}

func TestHashFieldExpiryTargets(t *testing.T) {
	for _, target := range []string{"redis-7.0", "redis-7.2", "valkey-8.1"} {
		e := New(Options{Now: 1_000_000, Target: target})
		got, err := e.Do(context.Background(), "HEXPIRE", "h", "1", "FIELDS", "1", "a")
		if err != nil || !got.Equal(ErrorReply("ERR unknown command 'HEXPIRE', with args beginning with: 'h' '1' 'FIELDS' '1' 'a' ")) {
			t.Errorf("%s: HEXPIRE = %s %v, want unknown command", target, got, err)
		}
	}
}

func TestHashFieldRedis80Commands(t *testing.T) {
	e := hfeEngine(t)
	if got := mustDo(t, e, "HGETEX", "h", "PX", "100", "FIELDS", "2", "a", "x"); !got.Equal(ArrayReply(BulkReply("1"), NilReply())) {
		t.Errorf("HGETEX = %s", got)
	}
	if got := mustDo(t, e, "HSETEX", "h", "FXX", "KEEPTTL", "FIELDS", "1", "a", "new"); !got.Equal(IntReply(1)) {
		t.Errorf("HSETEX FXX KEEPTTL = %s", got)
	}
	if got := mustDo(t, e, "HSETEX", "h", "EX", "1", "FIELDS", "1", "b", "B"); !got.Equal(IntReply(1)) {
		t.Errorf("HSETEX EX = %s", got)
	}
	e.Advance(101)
	if got := mustDo(t, e, "HGETALL", "h"); !got.Equal(ArrayReply(BulkReply("b"), BulkReply("B"), BulkReply("c"), BulkReply("3"))) {
		t.Errorf("after a expired HGETALL = %s", got)
	}
	if got := mustDo(t, e, "HGETDEL", "h", "FIELDS", "1", "c"); !got.Equal(ArrayReply(BulkReply("3"))) {
		t.Errorf("HGETDEL = %s", got)
	}
	e.Advance(900)
	if got := mustDo(t, e, "EXISTS", "h"); !got.Equal(IntReply(0)) {
		t.Errorf("EXISTS after the last field expired = %s", got)
	}
	if got := mustDo(t, e, "HSETEX", "h", "FXX", "FIELDS", "1", "a", "1"); !got.Equal(IntReply(0)) || mustDo(t, e, "EXISTS", "h").Int != 0 {
		t.Errorf("HSETEX FXX on a missing key = %s, and must not create it", got)
	}
}
