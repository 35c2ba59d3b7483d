package scenario

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/scriptctl/scriptctl/verify"

	"github.com/scriptctl/scriptctl/manifest"
)

func repoManifest(t testing.TB) *manifest.Manifest {
	t.Helper()
	m, err := manifest.Load(filepath.Join("..", "..", "manifest.yaml"))
	if err != nil {
		t.Fatalf("load the repository's manifest: %v", err)
	}
	return m
}

// v1Manifest is version 1 of the repository's manifest, kept as released in
// lua/v1 (acquire, publish, release on the keys lease and value): the
// fixture of the tests that pin down binding and live runs.
func v1Manifest(t testing.TB) *manifest.Manifest {
	t.Helper()
	m, err := manifest.Load(filepath.Join("..", "..", "lua", "v1", "manifest.yaml"))
	if err != nil {
		t.Fatalf("load version 1 of the repository's manifest: %v", err)
	}
	return m
}

func bundled(t testing.TB, m *manifest.Manifest) []*Scenario {
	t.Helper()
	paths, err := Discover(m)
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) < 12 {
		t.Fatalf("want at least 12 bundled scenarios, found %d", len(paths))
	}
	ss, err := LoadAll(m, paths)
	if err != nil {
		t.Fatalf("bundled scenarios: %v", err)
	}
	return ss
}

func TestBundledScenariosBind(t *testing.T) {
	m := repoManifest(t)
	ss := bundled(t, m)
	controls := 0
	for _, s := range ss {
		if len(s.Controls) > 0 {
			controls++
			for _, c := range s.Controls {
				if len(c.Source) == 0 {
					t.Errorf("%s: control %s has no source", s.File, c.Script)
				}
			}
		}
	}
	if controls < 2 {
		t.Errorf("want at least 2 negative controls, found %d", controls)
	}
}

const minimal = `caller: catalog_summary
vars: {id: "42"}
workers:
  w: {token: tok-w}
steps:
  - worker: w
    call: acquire
    args: {lease_ttl_ms: 1e3}
    expect:
      reply: [acquired]
      keys:
        lease: {value: "${token}", ttl_ms: 1000}
`

func TestBindResolvesKeysArgsAndReferences(t *testing.T) {
	m := v1Manifest(t)
	s, err := Parse("x.yaml", []byte(minimal))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Bind(m); err != nil {
		t.Fatal(err)
	}
	bs := s.bound.steps[0]
	if want := []string{"catalog:{product-42}:lease", "catalog:{product-42}:value"}; !reflect.DeepEqual(bs.keys, want) {
		t.Errorf("keys = %q, want %q", bs.keys, want)
	}
	// The token defaults to the worker's; 1e3 is sent as written.
	if want := []string{"tok-w", "1e3"}; !reflect.DeepEqual(bs.args, want) {
		t.Errorf("args = %q, want %q", bs.args, want)
	}
	ke := bs.expect.keys[0]
	if ke.key != "catalog:{product-42}:lease" || ke.Want.Type != "string" || ke.Want.Value != "tok-w" || ke.TTL.Min != 1000 {
		t.Errorf("key expectation = %+v", ke)
	}
	if want := []string{"catalog:{product-42}:lease", "catalog:{product-42}:value"}; !reflect.DeepEqual(s.bound.universe, want) {
		t.Errorf("universe = %q, want %q", s.bound.universe, want)
	}
}

func TestParseKeepsArgTextAsWritten(t *testing.T) {
	src := `steps:
  - call: acquire
    args: [tok, 0, -1, 1.5, 1e3, "", abc, 0x10, "007"]
`
	s, err := Parse("x.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"tok", "0", "-1", "1.5", "1e3", "", "abc", "0x10", "007"}
	if got := s.Steps[0].ArgList; !reflect.DeepEqual(got, want) {
		t.Errorf("args = %q, want %q", got, want)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, src string
		want      []string // each must appear in the error text
	}{
		{"not a mapping", "- a\n", []string{"x.yaml:1:1: a scenario must be a YAML mapping"}},
		{"empty", "", []string{"x.yaml: empty file"}},
		{"syntax", "steps: [\n", []string{"x.yaml:", "YAML syntax"}},
		{"unknown field", "stepz: []\n", []string{`x.yaml:1:1: stepz: unknown field "stepz"`, "x.yaml:1:1: steps: required field is missing"}},
		{"no steps", "steps: []\n", []string{"x.yaml:1:8: steps: at least one step is required"}},
		{"two actions", "steps:\n  - call: acquire\n    sleep_ms: 5\n", []string{"x.yaml:2:5: steps[1]: a step does exactly one of call, sleep_ms or do (found 2)"}},
		{"no action", "steps:\n  - name: x\n", []string{"found 0"}},
		{"bad sleep", "steps:\n  - sleep_ms: -5\n", []string{"x.yaml:2:15: steps[1].sleep_ms: must be a positive integer, not -5"}},
		{"float sleep", "steps:\n  - sleep_ms: 1.5\n", []string{"must be a positive integer, not float 1.5"}},
		{"unknown worker", "steps:\n  - worker: ghost\n    sleep_ms: 5\n", []string{`x.yaml:2: steps[1].worker: unknown worker "ghost"`}},
		{"bool arg", "steps:\n  - call: acquire\n    args: [true]\n", []string{`x.yaml:3:12: steps[1].args[1]: bool true is ambiguous: quote it`}},
		{"null value", "keys:\n  k: {value: ~}\nsteps:\n  - sleep_ms: 1\n", []string{"x.yaml:2:14: keys.k.value: null is ambiguous"}},
		{"both value and hash", "keys:\n  k: {value: a, hash: {f: v}}\nsteps:\n  - sleep_ms: 1\n", []string{"x.yaml:2:23: keys.k: a key has one type: value and hash are both given"}},
		{"empty hash", "keys:\n  k: {hash: {}}\nsteps:\n  - sleep_ms: 1\n", []string{"a hash needs at least one field"}},
		{"duplicate key", "steps:\n  - sleep_ms: 1\nsteps:\n  - sleep_ms: 2\n", []string{`x.yaml:3:1: steps: duplicate key "steps" (first at line 1)`}},
		{"alias", "vars: &a {x: y}\nsteps:\n  - sleep_ms: 1\n", []string{"anchors and aliases are not supported"}},
		{"bad reply type", "steps:\n  - sleep_ms: 1\n    expect:\n      reply: {okay: x}\n", []string{`x.yaml:4:15: steps[1].expect.reply.okay: unknown reply type "okay"`}},
		{"float reply", "steps:\n  - sleep_ms: 1\n    expect:\n      reply: 1.5\n", []string{"float 1.5 is not a Redis reply: quote it"}},
		{"bad ttl range", "steps:\n  - sleep_ms: 1\n    expect:\n      keys:\n        k: {ttl_ms: {min: 5, max: 1}}\n", []string{"x.yaml:5:21: steps[1].expect.keys.k.ttl_ms: min 5 is above max 1"}},
		{"bad key expectation", "steps:\n  - sleep_ms: 1\n    expect:\n      keys:\n        k: gone\n", []string{`must be "absent" or a mapping`}},
		{"regression without control", "steps:\n  - sleep_ms: 1\n    regression:\n      reply: 1\n", []string{"x.yaml:3: steps[1].regression: only a control scenario"}},
		{"control without regression", "control:\n  publish: c.lua\nsteps:\n  - sleep_ms: 1\n", []string{"a control scenario must declare the regression it reaches"}},
		{"keys on sleep", "steps:\n  - sleep_ms: 1\n    args: [a]\n", []string{"x.yaml:3:11: steps[1].args: only a call step takes args"}},
		{"empty do", "steps:\n  - do: []\n", []string{"x.yaml:2:9: steps[1].do: must be a non-empty list"}},
		{"two documents", "steps:\n  - sleep_ms: 1\n---\nsteps: []\n", []string{"more than one YAML document"}},
		{"reserved var", "vars: {token: x}\nsteps:\n  - sleep_ms: 1\n", []string{`vars.token: "token" is reserved`}},
		{"worker without token", "workers:\n  w: {}\nsteps:\n  - sleep_ms: 1\n", []string{"x.yaml:2:6: workers.w.token: required field is missing"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("x.yaml", []byte(tt.src))
			if err == nil {
				t.Fatal("no error")
			}
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("error does not match ErrInvalid: %v", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error\n%v\ndoes not contain %q", err, w)
				}
			}
		})
	}
}

func TestBindErrors(t *testing.T) {
	m := v1Manifest(t)
	tests := []struct {
		name, src string
		want      []string
	}{
		{"unknown script", "steps:\n  - call: acquirex\n", []string{`x.yaml:2: steps[1].call: unknown script "acquirex" (did you mean "acquire"?): the manifest declares acquire, publish, release`}},
		{"unknown caller", "caller: nobody\nsteps:\n  - sleep_ms: 1\n", []string{`x.yaml:1: caller: unknown caller "nobody"`}},
		{"missing var", "steps:\n  - call: release\n    args: [t]\n", []string{"x.yaml:2: steps[1]: key template \"catalog:{product-<id>}:lease\" of caller catalog_summary needs <id>: set vars.id"}},
		{"unknown arg", "vars: {id: '1'}\nsteps:\n  - call: release\n    args: {token: a, ttl: 5}\n", []string{`x.yaml:4: steps[1].args.ttl: script release has no arg "ttl" (args: token)`}},
		{"missing arg", "vars: {id: '1'}\nsteps:\n  - call: publish\n    args: {token: a}\n", []string{`x.yaml:3: steps[1].args: missing arg "candidate" of script publish`, `missing arg "cache_ttl_ms"`}},
		{"unknown key name", "vars: {id: '1'}\nsteps:\n  - call: release\n    keys: {leese: x}\n    args: [a]\n", []string{`x.yaml:4: steps[1].keys.leese: script release has no key "leese"`}},
		{"unknown reference", "vars: {id: '1'}\nsteps:\n  - do: [GET, '${nope}']\n", []string{"x.yaml:3: steps[1].do[2]: unknown reference ${nope}"}},
		{"token without worker", "vars: {id: '1'}\nsteps:\n  - do: [GET, '${token}']\n", []string{"${token} needs the step's worker"}},
		{"unknown key ref", "vars: {id: '1'}\nsteps:\n  - do: [GET, '${key.nope}']\n", []string{`caller catalog_summary has no key "nope"`}},
		{"unclosed", "vars: {id: '1'}\nsteps:\n  - do: [GET, '${id']\n", []string{"unclosed ${"}},
		{"unknown control script", "vars: {id: '1'}\ncontrol: {nope: c.lua}\nsteps:\n  - sleep_ms: 1\n    regression: {reply: 1}\n", []string{`x.yaml:2: control.nope: unknown script "nope": the manifest declares`}},
		{"unknown control script, a typo", "vars: {id: '1'}\ncontrol: {relase: c.lua}\nsteps:\n  - sleep_ms: 1\n    regression: {reply: 1}\n", []string{`x.yaml:2: control.relase: unknown script "relase" (did you mean "release"?): the manifest declares`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse("x.yaml", []byte(tt.src))
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			err = s.Bind(m)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error\n%v\ndoes not contain %q", err, w)
				}
			}
			if s.bound != nil {
				t.Error("a scenario that failed to bind is bound")
			}
		})
	}
}

func TestExpandEscapes(t *testing.T) {
	m := repoManifest(t)
	s, err := Parse("x.yaml", []byte("vars: {id: '9'}\nworkers: {a: {token: tA}}\nsteps:\n  - do: [SET, '${key.value}', '$${id} ${id} ${a.token} $5']\n"))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Bind(m); err != nil {
		t.Fatal(err)
	}
	want := []string{"SET", "catalog:{product-9}:value", "${id} 9 tA $5"}
	if got := s.bound.steps[0].cmd; !reflect.DeepEqual(got, want) {
		t.Errorf("cmd = %q, want %q", got, want)
	}
}

func TestLoadReportsUnreadableControl(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "c.yaml")
	os.WriteFile(p, []byte("control: {publish: controls/missing.lua}\nsteps:\n  - sleep_ms: 1\n    regression: {reply: 1}\n"), 0o644)
	_, err := Load(p)
	if err == nil || !strings.Contains(err.Error(), p+":1: control.publish: cannot read controls/missing.lua") {
		t.Errorf("err = %v", err)
	}
}

// TestKeysRoundTrip: what WriteKeys writes (what --save writes), ParseKeys
// (--state) reads back as the same keys, for every type, with a hash's
// fields, a list's elements, a set's and a sorted set's members in the
// order given, and scores exact (infinities, -0, tiny and huge ones).
func TestKeysRoundTrip(t *testing.T) {
	keys := []Key{
		{Name: "b:{x}:hash", Type: "hash", Hash: []verify.Field{{Name: "zeta", Value: "26"}, {Name: "yes", Value: "null"}, {Name: "1", Value: ""}, {Name: "alpha", Value: "1"}}, PTTL: 1500},
		{Name: "a", Type: "string", Value: "007", PTTL: -1},
		{Name: "true", Type: "string", Value: "", PTTL: 20},
		{Name: "multi\nline", Type: "string", Value: "1e3", PTTL: -1},
		{Name: "l", Type: "list", List: []string{"c", "1", "c", "~", "", "a b"}, PTTL: -1},
		{Name: "s", Type: "set", Set: []string{"z", "10", "2", "null"}, PTTL: 7},
		{Name: "z", Type: "zset", ZSet: []verify.ZMember{
			{Member: "low", Score: math.Inf(-1)}, {Member: "neg", Score: -2.5}, {Member: "nz", Score: math.Copysign(0, -1)}, {Member: "zero", Score: 0}, {Member: "tiny", Score: 5e-324}, {Member: "third", Score: 1.0 / 3},
			{Member: "1", Score: 1}, {Member: "big", Score: 1e300}, {Member: "int", Score: 9007199254740993}, {Member: "top", Score: math.Inf(1)},
		}, PTTL: -1},
	}
	var buf bytes.Buffer
	if err := WriteKeys(&buf, keys); err != nil {
		t.Fatal(err)
	}
	got, err := ParseKeys("state.yaml", buf.Bytes())
	if err != nil {
		t.Fatalf("parse what WriteKeys wrote:\n%s\n%v", buf.String(), err)
	}
	want := []Key{keys[1], keys[0], keys[4], keys[3], keys[5], keys[2], keys[6]} // sorted by name
	for i := range got {
		got[i].Line = 0
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("round trip:\n%s\ngot  %+v\nwant %+v", buf.String(), got, want)
	}
	// -0 keeps its sign.
	if z := got[6].ZSet[2]; !math.Signbit(z.Score) {
		t.Errorf("-0 read back as %v", z.Score)
	}
}

// TestWriteKeysFormat pins the text --save writes for each type.
func TestWriteKeysFormat(t *testing.T) {
	var buf bytes.Buffer
	err := WriteKeys(&buf, []Key{
		{Name: "h", Type: "hash", Hash: []verify.Field{{Name: "zeta", Value: "26"}, {Name: "alpha", Value: "1"}}, PTTL: -1},
		{Name: "l", Type: "list", List: []string{"b", "a"}, PTTL: 5},
		{Name: "s", Type: "set", Set: []string{"x"}, PTTL: -1},
		{Name: "z", Type: "zset", ZSet: []verify.ZMember{{Member: "m", Score: 1.5}, {Member: "n", Score: math.Inf(1)}, {Member: "2", Score: 2}}, PTTL: -1},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := `h:
  hash:
    zeta: "26"
    alpha: "1"
l:
  list:
    - b
    - a
  ttl_ms: 5
s:
  set:
    - x
z:
  zset:
    - [m, 1.5]
    - [n, inf]
    - ["2", 2]
`
	if buf.String() != want {
		t.Errorf("WriteKeys:\n%s\nwant\n%s", buf.String(), want)
	}
	if err := WriteKeys(&buf, []Key{{Name: "x", Type: "stream"}}); err == nil || err.Error() != `key "x": a stream read by its type only cannot be written to a state file` {
		t.Errorf("stream: %v", err)
	}
}

func TestParseKeysErrors(t *testing.T) {
	_, err := ParseKeys("s.yaml", []byte("k:\n  value: a\n  ttl_ms: 0\n"))
	if err == nil || !strings.Contains(err.Error(), "s.yaml:3:11: k.ttl_ms: must be a positive integer, not 0") {
		t.Errorf("err = %v", err)
	}
	keys, err := ParseKeys("s.yaml", []byte("# nothing\n~\n"))
	if err != nil || len(keys) != 0 {
		t.Errorf("empty state: %v, %v", keys, err)
	}
}
