package scenario

import (
	"context"
	"strings"
	"testing"

	"github.com/scriptctl/scriptctl/internal/redistest"
	"github.com/scriptctl/scriptctl/verify"
)

// everyType is a scenario whose keys: hold every type, in an order that is
// not sorted, and whose steps compare them after each step.
const everyType = `vars: {id: "1"}
keys:
  "{t}h": {hash: {zeta: "26", alpha: "1", mid: ""}, ttl_ms: 60000}
  "{t}l": {list: [b, a, b, "3"]}
  "{t}s": {set: [x, "10", "2", y]}
  "{t}n": {set: ["10", "2", "-1"]}
  "{t}z": {zset: [[m, 2], [n, 1], [o, -inf], [p, inf], [q, 0.1], [r, 1.5e300], [s, 2]], ttl_ms: 60000}
  "{t}zm": {zset: {b: 1, a: 1}}
steps:
  - do: [HGETALL, "{t}h"]
    expect:
      reply: [zeta, "26", alpha, "1", mid, ""]
      keys:
        "{t}h": {hash: {zeta: "26", alpha: "1", mid: ""}, ttl_ms: {min: 59000, max: 60000}}
        "{t}l": {list: [b, a, b, "3"], ttl_ms: none}
        "{t}s": {set: [y, x, "2", "10"]}
        "{t}n": {set: ["-1", "2", "10"]}
        "{t}z": {zset: {o: -inf, n: 1, q: 0.1, m: 2, s: 2, r: 1.5e300, p: inf}}
        "{t}zm": {zset: [[a, 1], [b, 1]]}
  - sleep_ms: 1
`

// TestLiveDifferentialEveryType writes every type to a real server in the
// file's order and reads it back (LRANGE, SMEMBERS, ZRANGE WITHSCORES,
// HGETALL): offline and live agree, and the expectations hold on both.
func TestLiveDifferentialEveryType(t *testing.T) {
	srv := redistest.Standalone(t)
	requireLiveIdentical(t, srv, "every.yaml", everyType, srv.Kind.Target())
}

// TestLivePutWritesInFileOrder reads what a live run wrote straight from
// the server: the hash's fields and the list's elements in the file's
// order, the sorted set by score, every set member.
func TestLivePutWritesInFileOrder(t *testing.T) {
	srv := redistest.Standalone(t)
	m := repoManifest(t)
	s, err := Parse("every.yaml", []byte(everyType))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Bind(m); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	be, err := dial(t, srv).newLive(ctx, m, ModeEval, s.bound.universe)
	if err != nil {
		t.Fatal(err)
	}
	defer be.close(ctx)
	if _, err := s.execute(ctx, be, false); err != nil {
		t.Fatal(err)
	}
	// Redis 7.0 writes scores with %.17g; 7.2 and Valkey with the shortest
	// form (d2string).
	zrange := `o -inf q 0.10000000000000001 n 1 m 2 s 2 r 1.5000000000000001e+300 p inf`
	if srv.Kind.Name != "redis-7.0" {
		zrange = `o -inf q 0.1 n 1 m 2 s 2 r 1.5e+300 p inf`
	}
	for _, tc := range []struct {
		cmd  []string
		want string
	}{
		{[]string{"HGETALL", "{t}h"}, `zeta 26 alpha 1 mid `},
		{[]string{"LRANGE", "{t}l", "0", "-1"}, `b a b 3`},
		{[]string{"ZRANGE", "{t}z", "0", "-1", "WITHSCORES"}, zrange},
		{[]string{"SMEMBERS", "{t}n"}, `-1 2 10`}, // an intset answers sorted
		{[]string{"SCARD", "{t}s"}, `4`},
		{[]string{"OBJECT", "ENCODING", "{t}h"}, `listpack`},
	} {
		args := append([]string{tc.cmd[0]}, tc.cmd[1:]...)
		for i, a := range args {
			if strings.HasPrefix(a, "{t}") {
				args[i] = be.mapKey(a)
			}
		}
		r, err := be.do(ctx, args...)
		if err != nil {
			t.Fatal(err)
		}
		if got := flat(r); got != tc.want {
			t.Errorf("%s = %q, want %q", strings.Join(tc.cmd, " "), got, tc.want)
		}
	}
}

func flat(r verify.Reply) string {
	switch r.Kind {
	case verify.Array:
		parts := make([]string, len(r.Elems))
		for i, e := range r.Elems {
			parts[i] = flat(e)
		}
		return strings.Join(parts, " ")
	case verify.Int:
		return verify.IntReply(r.Int).String()
	}
	return r.Str
}

// TestDiffRunsCollections: a live set in another order is the same set; a
// list in another order, or a hash with its fields moved, differs.
func TestDiffRunsCollections(t *testing.T) {
	sc := &Scenario{File: "x.yaml", bound: &binding{steps: []boundStep{{}}}}
	state := func(k Key) []StepResult {
		k.Name, k.PTTL = "k", -1
		return []StepResult{{Index: 1, Line: 3, State: []Key{k}}}
	}
	fields := func(kv ...string) []verify.Field {
		var out []verify.Field
		for i := 0; i+1 < len(kv); i += 2 {
			out = append(out, verify.Field{Name: kv[i], Value: kv[i+1]})
		}
		return out
	}
	for _, tc := range []struct {
		name      string
		off, live Key
		want      string
	}{
		{"set order", Key{Type: "set", Set: []string{"a", "b"}}, Key{Type: "set", Set: []string{"b", "a"}}, ""},
		{"list order", Key{Type: "list", List: []string{"a", "b"}}, Key{Type: "list", List: []string{"b", "a"}},
			`key k: list ["a", "b"] (no ttl) | list ["b", "a"] (no ttl)`},
		{"hash order", Key{Type: "hash", Hash: fields("zeta", "1", "alpha", "2")}, Key{Type: "hash", Hash: fields("alpha", "2", "zeta", "1")},
			`key k: hash {"zeta": "1", "alpha": "2"} (no ttl) | hash {"alpha": "2", "zeta": "1"} (no ttl)`},
		{"type", Key{Type: "set", Set: []string{"a"}}, Key{Type: "list", List: []string{"a"}},
			`key k: set {"a"} (no ttl) | list ["a"] (no ttl)`},
	} {
		d := sc.diffRuns(&Run{Steps: state(tc.off)}, &Run{Steps: state(tc.live)})
		var got []string
		for _, x := range d {
			got = append(got, x.What+": "+x.Offline+" | "+x.Live)
		}
		if strings.Join(got, "\n") != tc.want {
			t.Errorf("%s: differences %q, want %q", tc.name, got, tc.want)
		}
	}
}
