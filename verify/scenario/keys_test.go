package scenario

import (
	"context"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/scriptctl/scriptctl/verify"
)

// TestParseKeysEveryType reads each type of the keyspace format, with the
// contents in the order written and the scores as ZADD reads them.
func TestParseKeysEveryType(t *testing.T) {
	src := `h: {hash: {zeta: "26", alpha: 1}}
l: {list: [c, 1, c, 1.50], ttl_ms: 100}
s: {set: [b, a, "007"]}
zl: {zset: [[m, 1], [n, "2.5"], [o, inf], [p, -inf], [q, 0x10], [r, 1e3], [s, .inf], [t, -.inf], [u, +Infinity]]}
zm: {zset: {b: 2, a: 2, c: -0.5}}
`
	keys, err := ParseKeys("s.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	inf := math.Inf(1)
	want := []Key{
		{Name: "h", Type: "hash", Hash: []verify.Field{{Name: "zeta", Value: "26"}, {Name: "alpha", Value: "1"}}, PTTL: -1, Line: 1},
		{Name: "l", Type: "list", List: []string{"c", "1", "c", "1.50"}, PTTL: 100, Line: 2},
		{Name: "s", Type: "set", Set: []string{"b", "a", "007"}, PTTL: -1, Line: 3},
		{Name: "zl", Type: "zset", ZSet: []verify.ZMember{
			{Member: "m", Score: 1}, {Member: "n", Score: 2.5}, {Member: "o", Score: inf}, {Member: "p", Score: -inf}, {Member: "q", Score: 16},
			{Member: "r", Score: 1000}, {Member: "s", Score: inf}, {Member: "t", Score: -inf}, {Member: "u", Score: inf},
		}, PTTL: -1, Line: 4},
		{Name: "zm", Type: "zset", ZSet: []verify.ZMember{{Member: "b", Score: 2}, {Member: "a", Score: 2}, {Member: "c", Score: -0.5}}, PTTL: -1, Line: 5},
	}
	if !reflect.DeepEqual(keys, want) {
		t.Errorf("ParseKeys:\ngot  %+v\nwant %+v", keys, want)
	}
}

// TestParseKeysRefused: every invalid entry is refused at its
// file:line:col, all of them at once.
func TestParseKeysRefused(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"empty hash", "k: {hash: {}}\n", "s.yaml:1:11: k.hash: a hash needs at least one field (Redis has no empty hash)"},
		{"empty list", "k: {list: []}\n", "s.yaml:1:11: k.list: needs at least one element (Redis has no empty list)"},
		{"empty set", "k:\n  set: []\n", "s.yaml:2:8: k.set: needs at least one member (Redis has no empty set)"},
		{"empty zset list", "k: {zset: []}\n", "s.yaml:1:11: k.zset: needs at least one member (Redis has no empty zset)"},
		{"empty zset mapping", "k: {zset: {}}\n", "s.yaml:1:11: k.zset: needs at least one member (Redis has no empty zset)"},
		{"duplicate field", "k:\n  hash:\n    a: 1\n    a: 2\n", `s.yaml:4:5: k.hash.a: duplicate key "a" (first at line 3)`},
		{"duplicate set member", "k: {set: [a, b, a]}\n", `s.yaml:1:17: k.set[3]: duplicate member "a" (first at line 1)`},
		{"duplicate zset member", "k:\n  zset:\n    - [a, 1]\n    - [a, 2]\n", `s.yaml:4:8: k.zset[2]: duplicate member "a" (first at line 3)`},
		{"duplicate zset mapping member", "k: {zset: {a: 1, a: 2}}\n", `s.yaml:1:18: k.zset.a: duplicate key "a" (first at line 1)`},
		{"nan", "k: {zset: [[a, nan]]}\n", `s.yaml:1:16: k.zset[1]: score "nan" is not a valid float (ZADD would refuse it)`},
		{"yaml nan", "k: {zset: {a: .nan}}\n", `s.yaml:1:15: k.zset.a: score ".nan" is not a valid float (ZADD would refuse it)`},
		{"not a number", "k: {zset: {a: 1x}}\n", `s.yaml:1:15: k.zset.a: score "1x" is not a valid float`},
		{"leading space", "k: {zset: {a: \" 1\"}}\n", `s.yaml:1:15: k.zset.a: score " 1" is not a valid float`},
		{"overflow", "k: {zset: {a: 1e400}}\n", `s.yaml:1:15: k.zset.a: score "1e400" is not a valid float`},
		{"underflow", "k: {zset: {a: 1e-400}}\n", `s.yaml:1:15: k.zset.a: score "1e-400" is not a valid float`},
		{"underscore", "k: {zset: {a: 1_000}}\n", `s.yaml:1:15: k.zset.a: score "1_000" is not a valid float`},
		{"bool score", "k: {zset: {a: true}}\n", `s.yaml:1:15: k.zset.a: the score must be a number, inf or -inf, not bool true`},
		{"list score", "k: {zset: {a: [1]}}\n", `s.yaml:1:15: k.zset.a: the score must be a number, inf or -inf, not a list`},
		{"not a pair", "k: {zset: [[a, 1, 2]]}\n", `s.yaml:1:12: k.zset[1]: must be a [member, score] pair, not a list of 3`},
		{"scalar pair", "k: {zset: [a]}\n", `s.yaml:1:12: k.zset[1]: must be a [member, score] pair, not the string "a"`},
		{"zset scalar", "k: {zset: a}\n", `s.yaml:1:11: k.zset: must be a list of [member, score] pairs or a mapping from member to score, not the string "a"`},
		{"list mapping", "k: {list: {a: 1}}\n", `s.yaml:1:11: k.list: must be a list of elements, not a mapping`},
		{"set scalar", "k: {set: a}\n", `s.yaml:1:10: k.set: must be a list of members, not the string "a"`},
		{"null element", "k: {list: [a, ~]}\n", `s.yaml:1:15: k.list[2]: null is ambiguous: quote it ("~")`},
		{"nested element", "k: {list: [[a]]}\n", `s.yaml:1:12: k.list[1]: must be a scalar, not a list`},
		{"bool member", "k: {set: [true]}\n", `s.yaml:1:11: k.set[1]: bool true is ambiguous: quote it ("true")`},
		{"two types", "k: {list: [a], set: [a]}\n", "s.yaml:1:21: k: a key has one type: list and set are both given"},
		{"no contents", "k: {ttl_ms: 5}\n", "s.yaml:1:4: k: needs its contents: value (a string), hash (a mapping), list, set, zset or stream"},
		{"stream", "k: {stream: [a]}\n", "s.yaml:1:13: k.stream: must be a mapping, not a list"},
		{"unknown type", "k: {array: [a]}\n", `s.yaml:1:5: k.array: unknown field "array": want one of value, hash, list, set, zset, stream, ttl_ms`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseKeys("s.yaml", []byte(tc.src))
			if err == nil {
				t.Fatalf("no error; want %s", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error\n%v\nwant it to contain\n%s", err, tc.want)
			}
		})
	}
}

func TestParseScore(t *testing.T) {
	for in, want := range map[string]float64{
		"1": 1, "-2.5": -2.5, "+3": 3, "1.": 1, ".5": 0.5, "1e3": 1000, "1E-2": 0.01, "0x10": 16, "0x1.8p1": 3, "-0X.8": -0.5,
		"inf": math.Inf(1), "-INF": math.Inf(-1), "+Infinity": math.Inf(1), "0e-400": 0, "4e-320": 4e-320,
	} {
		if got, err := ParseScore(in); err != nil || got != want {
			t.Errorf("ParseScore(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", " 1", "1 ", "nan", "-nan", "1e", "0x", "0xp1", "infin", "1e400", "-1e400", "1e-400", "0x1p-2000", "1_0", "++1", "1,5", "٣"} {
		if got, err := ParseScore(in); err == nil {
			t.Errorf("ParseScore(%q) = %v, want an error", in, got)
		}
	}
	for _, f := range []float64{0, 1, -2.5, 1.0 / 3, 1e300, 5e-324, math.Inf(1), math.Inf(-1), 9007199254740993} {
		if got, err := ParseScore(FormatScore(f)); err != nil || got != f {
			t.Errorf("FormatScore(%v) = %q reads back as %v, %v", f, FormatScore(f), got, err)
		}
	}
}

// TestSameContents: a list compares in order, a set as a set, a sorted set
// by member and score, a small hash in order and a large one as a set.
func TestSameContents(t *testing.T) {
	h := func(kv ...string) Key {
		k := Key{Type: "hash"}
		for i := 0; i+1 < len(kv); i += 2 {
			k.Hash = append(k.Hash, verify.Field{Name: kv[i], Value: kv[i+1]})
		}
		return k
	}
	big := func(reverse bool) Key {
		var kv []string
		for i := range 513 {
			f := string(rune('a'+i%26)) + strings.Repeat("x", i/26) + string(rune('0'+i%10))
			kv = append(kv, f, "v")
		}
		if reverse {
			for i, j := 0, len(kv)-2; i < j; i, j = i+2, j-2 {
				kv[i], kv[j] = kv[j], kv[i]
			}
		}
		return h(kv...)
	}
	long := strings.Repeat("v", 65)
	z := func(ms ...verify.ZMember) Key { return Key{Type: "zset", ZSet: ms} }
	for _, tc := range []struct {
		name string
		a, b Key
		same bool
	}{
		{"string", Key{Type: "string", Value: "a"}, Key{Type: "string", Value: "a"}, true},
		{"string differs", Key{Type: "string", Value: "a"}, Key{Type: "string", Value: "b"}, false},
		{"types differ", Key{Type: "list", List: []string{"a"}}, Key{Type: "set", Set: []string{"a"}}, false},
		{"list order", Key{Type: "list", List: []string{"a", "b"}}, Key{Type: "list", List: []string{"b", "a"}}, false},
		{"list", Key{Type: "list", List: []string{"a", "b", "a"}}, Key{Type: "list", List: []string{"a", "b", "a"}}, true},
		{"set order", Key{Type: "set", Set: []string{"a", "b"}}, Key{Type: "set", Set: []string{"b", "a"}}, true},
		{"set member", Key{Type: "set", Set: []string{"a", "b"}}, Key{Type: "set", Set: []string{"a", "c"}}, false},
		{"zset order", z(verify.ZMember{Member: "a", Score: 1}, verify.ZMember{Member: "b", Score: 2}), z(verify.ZMember{Member: "b", Score: 2}, verify.ZMember{Member: "a", Score: 1}), true},
		{"zset score", z(verify.ZMember{Member: "a", Score: 1}), z(verify.ZMember{Member: "a", Score: 1.5}), false},
		{"zset member", z(verify.ZMember{Member: "a", Score: 1}), z(verify.ZMember{Member: "b", Score: 1}), false},
		{"small hash order", h("zeta", "1", "alpha", "2"), h("alpha", "2", "zeta", "1"), false},
		{"small hash", h("zeta", "1", "alpha", "2"), h("zeta", "1", "alpha", "2"), true},
		{"hash value", h("f", "1"), h("f", "2"), false},
		{"long value hash has no order", h("a", long, "b", "1"), h("b", "1", "a", long), true},
		{"large hash has no order", big(false), big(true), true},
	} {
		if got := SameContents(tc.a, tc.b); got != tc.same {
			t.Errorf("%s: SameContents = %v, want %v", tc.name, got, tc.same)
		}
	}
}

// TestKeyExpectEveryType checks expect.keys against each type: contents
// compared exactly, a type mismatch said plainly, ${...} expanded in
// values and members.
func TestKeyExpectEveryType(t *testing.T) {
	m := repoManifest(t)
	s, err := Parse("x.yaml", []byte(`vars: {v: "7", id: "1"}
steps:
  - sleep_ms: 1
    expect:
      keys:
        h: {hash: {zeta: "26", alpha: "${v}"}}
        l: {list: [b, "${v}"]}
        s: {set: [x, "${v}"]}
        z: {zset: {m: 1, "${v}": inf}}
`))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Bind(m); err != nil {
		t.Fatal(err)
	}
	kes := s.bound.steps[0].expect.keys
	f := func(kv ...string) []verify.Field {
		var out []verify.Field
		for i := 0; i+1 < len(kv); i += 2 {
			out = append(out, verify.Field{Name: kv[i], Value: kv[i+1]})
		}
		return out
	}
	inf := math.Inf(1)
	for _, tc := range []struct {
		i    int
		got  Key
		want string
	}{
		{0, Key{Type: "hash", Hash: f("zeta", "26", "alpha", "7"), PTTL: -1}, ""},
		{0, Key{Type: "hash", Hash: f("alpha", "7", "zeta", "26"), PTTL: -1}, `hash: want hash {"zeta": "26", "alpha": "7"}, got hash {"alpha": "7", "zeta": "26"}`},
		{0, Key{Type: "hash", Hash: f("zeta", "26"), PTTL: -1}, `hash: want hash {"zeta": "26", "alpha": "7"}, got hash {"zeta": "26"}`},
		{0, Key{Type: "string", Value: "x", PTTL: -1}, `want a hash, got a string: "x" (no ttl)`},
		{1, Key{Type: "list", List: []string{"b", "7"}, PTTL: 5}, ""},
		{1, Key{Type: "list", List: []string{"7", "b"}, PTTL: -1}, `list: want list ["b", "7"], got list ["7", "b"]`},
		{1, Key{Type: "set", Set: []string{"b", "7"}, PTTL: -1}, `want a list, got a set: set {"b", "7"} (no ttl)`},
		{2, Key{Type: "set", Set: []string{"7", "x"}, PTTL: -1}, ""},
		{2, Key{Type: "set", Set: []string{"7", "x", "y"}, PTTL: -1}, `set: want set {"x", "7"}, got set {"7", "x", "y"}`},
		{3, Key{Type: "zset", ZSet: []verify.ZMember{{Member: "m", Score: 1}, {Member: "7", Score: inf}}, PTTL: -1}, ""},
		{3, Key{Type: "zset", ZSet: []verify.ZMember{{Member: "m", Score: 2}, {Member: "7", Score: inf}}, PTTL: -1}, `zset: want zset {"m": 1, "7": inf}, got zset {"m": 2, "7": inf}`},
		{3, Key{Type: "list", List: []string{"m"}, PTTL: -1}, `want a zset, got a list: list ["m"] (no ttl)`},
	} {
		if got := kes[tc.i].check(tc.got, true); got != tc.want {
			t.Errorf("expectation %d vs %+v:\n got  %s\n want %s", tc.i, tc.got, got, tc.want)
		}
	}
}

// TestOfflineRunEveryType runs a scenario offline whose keys: hold every
// type and whose expect.keys check them after a raw command: the engine
// holds what the file says, in the file's order.
func TestOfflineRunEveryType(t *testing.T) {
	m := repoManifest(t)
	s, err := Parse("x.yaml", []byte(`vars: {id: "1"}
keys:
  h: {hash: {zeta: "26", alpha: "1"}, ttl_ms: 500}
  l: {list: [b, a, b]}
  s: {set: [x, y]}
  z: {zset: [[m, 2], [n, 1], [o, -inf]]}
steps:
  - do: [HGETALL, h]
    expect:
      reply: [zeta, "26", alpha, "1"]
      keys:
        h: {hash: {zeta: "26", alpha: "1"}, ttl_ms: 500}
        l: {list: [b, a, b], ttl_ms: none}
        s: {set: [y, x]}
        z: {zset: {o: -inf, n: 1, m: 2}}
  - do: [HGETALL, h]
    expect:
      keys:
        h: {hash: {alpha: "1", zeta: "26"}}
`))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Bind(m); err != nil {
		t.Fatal(err)
	}
	be, err := newOffline(m, ModeEval, "")
	if err != nil {
		t.Fatal(err)
	}
	run, err := s.execute(context.Background(), be, false)
	if err != nil {
		t.Fatal(err)
	}
	if run.Error != "" {
		t.Fatal(run.Error)
	}
	want := []Failure{{Step: 2, Line: 19, Message: `key "h": hash: want hash {"alpha": "1", "zeta": "26"}, got hash {"zeta": "26", "alpha": "1"}`}}
	if !reflect.DeepEqual(run.Failures, want) {
		t.Errorf("failures %+v\nwant %+v", run.Failures, want)
	}
}
