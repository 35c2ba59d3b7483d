package evalrun

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/scriptctl/scriptctl/internal/redistest"
	"github.com/scriptctl/scriptctl/verify"
	"github.com/scriptctl/scriptctl/verify/scenario"
)

// everyType is a --state with each type, written in an order that is not
// sorted.
var everyType = []scenario.Key{
	{Name: "{e}h", Type: "hash", Hash: []verify.Field{{Name: "zeta", Value: "26"}, {Name: "alpha", Value: "1"}}, PTTL: 60000},
	{Name: "{e}l", Type: "list", List: []string{"b", "a", "b"}, PTTL: -1},
	{Name: "{e}s", Type: "set", Set: []string{"y", "x", "10"}, PTTL: -1},
	{Name: "{e}z", Type: "zset", ZSet: []verify.ZMember{{Member: "top", Score: math.Inf(1)}, {Member: "m", Score: 0.1}, {Member: "low", Score: math.Inf(-1)}}, PTTL: -1},
}

// TestLiveDiffEveryType is --diff with a --state of every type: the
// server gets each key in the file's order (HSET, RPUSH, SADD, ZADD), the
// keys read back (HGETALL, LRANGE, SMEMBERS, ZRANGE WITHSCORES) equal the
// offline ones, and HGETALL answers the hash in the file's order on both
// sides.
func TestLiveDiffEveryType(t *testing.T) {
	srv := redistest.Standalone(t)
	conn := RueidisConn(srv.Client(), 0)
	ctx := context.Background()
	keys := []string{"{e}h", "{e}l", "{e}s", "{e}z"}
	for _, mode := range []Mode{ModeEval, ModeFunction} {
		t.Run(string(mode), func(t *testing.T) {
			res, err := Run(ctx, Options{
				Request: Request{Source: []byte("return redis.call('HGETALL', KEYS[1])"), Keys: keys, Args: []string{},
					Mode: mode, State: everyType, ClearKeys: true},
				Offline: true, Live: conn, Addr: srv.Addr,
			})
			if err != nil {
				t.Fatal(err)
			}
			if res.Differ() {
				t.Fatalf("differences: %+v", res.Differences)
			}
			want := verify.ArrayReply(verify.BulkReply("zeta"), verify.BulkReply("26"), verify.BulkReply("alpha"), verify.BulkReply("1"))
			if !res.Offline.Reply.Equal(want) || !res.Live.Reply.Equal(want) {
				t.Errorf("HGETALL offline %s, live %s; want %s", res.Offline.Reply, res.Live.Reply, want)
			}
			if len(res.Live.Keys) != 4 {
				t.Fatalf("live keys %+v", res.Live.Keys)
			}
			for i, k := range res.Live.Keys {
				w := everyType[i]
				if k.Name != w.Name || !scenario.SameContents(k, w) {
					t.Errorf("live key %+v, want %+v", k, w)
				}
			}
			if got := res.Live.Keys[3].ZSet; got[0].Member != "low" || got[2].Member != "top" {
				t.Errorf("ZRANGE order %+v", got)
			}
		})
	}
}

func TestCompareCollections(t *testing.T) {
	key := func(k scenario.Key) []scenario.Key { k.Name, k.PTTL = "k", -1; return []scenario.Key{k} }
	for _, tc := range []struct {
		name      string
		off, live scenario.Key
		want      string // the key's difference line, "" for none
	}{
		{"set in another order", scenario.Key{Type: "set", Set: []string{"a", "b"}}, scenario.Key{Type: "set", Set: []string{"b", "a"}}, ""},
		{"list in another order", scenario.Key{Type: "list", List: []string{"a", "b"}}, scenario.Key{Type: "list", List: []string{"b", "a"}},
			`offline list ["a", "b"] (no ttl), live list ["b", "a"] (no ttl)`},
		{"hash fields moved", scenario.Key{Type: "hash", Hash: []verify.Field{{Name: "z", Value: "1"}, {Name: "a", Value: "2"}}},
			scenario.Key{Type: "hash", Hash: []verify.Field{{Name: "a", Value: "2"}, {Name: "z", Value: "1"}}},
			`offline hash {"z": "1", "a": "2"} (no ttl), live hash {"a": "2", "z": "1"} (no ttl)`},
		{"zset score", scenario.Key{Type: "zset", ZSet: []verify.ZMember{{Member: "m", Score: math.Inf(1)}}},
			scenario.Key{Type: "zset", ZSet: []verify.ZMember{{Member: "m", Score: 1}}},
			`offline zset {"m": inf} (no ttl), live zset {"m": 1} (no ttl)`},
		{"type", scenario.Key{Type: "set", Set: []string{"a"}}, scenario.Key{Type: "stream"}, `offline set {"a"} (no ttl), live a stream (no ttl)`},
	} {
		r := &Result{Offline: &Side{Step: StepEval, Keys: key(tc.off)}, Live: &Side{Step: StepEval, Keys: key(tc.live)}}
		r.Compare(0)
		got := ""
		for _, d := range r.Differences {
			if d.What == `key "k"` {
				got = "offline " + d.Offline + ", live " + d.Live
			}
		}
		if got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestSaveKeysEveryType: --save writes every type so that --state reads
// the same keys back.
func TestSaveKeysEveryType(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.yaml")
	if err := SaveKeys(path, everyType); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	back, err := scenario.ParseKeys(path, data)
	if err != nil {
		t.Fatal(err)
	}
	for i := range back {
		back[i].Line = 0
	}
	if !reflect.DeepEqual(back, everyType) {
		t.Errorf("read back\n%+v\nwant\n%+v\n%s", back, everyType, data)
	}
	// Bytes a YAML file cannot hold are refused, in a stream too.
	for _, k := range []scenario.Key{
		{Name: "l", Type: "list", List: []string{"\xff"}},
		{Name: "s", Type: "set", Set: []string{"\xff"}},
		{Name: "z", Type: "zset", ZSet: []verify.ZMember{{Member: "\xff"}}},
		{Name: "h", Type: "hash", Hash: []verify.Field{{Name: "f", Value: "\xff"}}},
		{Name: "x", Type: "stream", Stream: &verify.StreamState{Entries: []verify.StreamEntry{{ID: verify.StreamID{Ms: 1}, Fields: []string{"f", "\xff"}}}}},
		{Name: "y", Type: "stream"},
	} {
		if err := SaveKeys(path, []scenario.Key{k}); err == nil || !strings.Contains(err.Error(), `key "`+k.Name+`"`) {
			t.Errorf("SaveKeys(%+v) = %v", k, err)
		}
	}
	var buf bytes.Buffer
	if err := (&Result{Offline: &Side{Keys: everyType}}).WriteJSON(&buf); err != nil || !strings.Contains(buf.String(), `"zset": [`) {
		t.Errorf("JSON %v\n%s", err, buf.String())
	}
}
