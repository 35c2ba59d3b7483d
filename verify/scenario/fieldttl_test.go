package scenario

import (
	"bytes"
	"context"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/scriptctl/scriptctl/internal/redistest"
	"github.com/scriptctl/scriptctl/verify"
)

// A hash's field_ttl_ms seeds the engine's field expiry, comes back from a
// snapshot, is written by WriteKeys and seeds a server with HPEXPIRE.
func TestFieldTTLRoundTrip(t *testing.T) {
	keys, err := ParseKeys("s.yaml", []byte("h: {hash: {a: '1', b: '2', c: '3'}, field_ttl_ms: {c: 500, b: 200}}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(keys[0].FieldTTL, map[string]int64{"b": 200, "c": 500}) {
		t.Fatalf("FieldTTL = %v", keys[0].FieldTTL)
	}
	cmds := PutCommands(keys[0], "h")
	want := [][]string{{"HPEXPIRE", "h", "200", "FIELDS", "1", "b"}, {"HPEXPIRE", "h", "500", "FIELDS", "1", "c"}}
	if got := cmds[len(cmds)-2:]; !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("PutCommands end with %q, want %q", got, want)
	}
	e := verify.New(verify.Options{Now: 1_000_000, Target: "redis-7.4"})
	e.Put(keys[0].Entry())
	e.Advance(300)
	en, _ := e.Entry("h")
	k := KeyOf(en)
	if !maps.Equal(k.FieldTTL, map[string]int64{"c": 200}) || len(k.Hash) != 2 {
		t.Fatalf("after 300 ms: %+v", k)
	}
	var buf bytes.Buffer
	if err := WriteKeys(&buf, []Key{k}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "  field_ttl_ms:\n    c: 200\n") {
		t.Errorf("WriteKeys wrote\n%s", buf.String())
	}
	back, err := ParseKeys("s.yaml", buf.Bytes())
	if err != nil || !maps.Equal(back[0].FieldTTL, k.FieldTTL) {
		t.Errorf("read back: %+v %v", back, err)
	}
}

func TestFieldTTLRefused(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"not a hash", "k: {value: v, field_ttl_ms: {a: 1}}\n", "s.yaml:1:29: k.field_ttl_ms: goes with hash only"},
		{"no such field", "k: {hash: {a: '1'}, field_ttl_ms: {b: 1}}\n", `s.yaml:1:36: k.field_ttl_ms.b: the hash has no field "b"`},
		{"zero", "k: {hash: {a: '1'}, field_ttl_ms: {a: 0}}\n", "s.yaml:1:39: k.field_ttl_ms.a: must be a positive integer, not 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseKeys("s.yaml", []byte(tc.src))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error\n%v\nwant it to contain\n%s", err, tc.want)
			}
		})
	}
}

// fieldTTLScenario seeds a hash with field TTLs, lets a step run a command
// that reads it, and expects the field TTLs on both sides.
const fieldTTLScenario = `vars: {id: "1"}
keys:
  "{t}h": {hash: {a: "1", b: "2", c: "3"}, field_ttl_ms: {c: 60000, b: 30000}}
steps:
  - do: [HKEYS, "{t}h"]
    expect:
      reply: [b, c, a]
      keys:
        "{t}h": {hash: {b: "2", c: "3", a: "1"}, field_ttl_ms: {a: none, b: {min: 29000, max: 30000}, c: {min: 59000, max: 60000}}}
`

// TestFieldTTLExpectOffline checks field_ttl_ms expectations on the engine,
// and that a wrong one is reported by field.
func TestFieldTTLExpectOffline(t *testing.T) {
	m := repoManifest(t)
	for _, tc := range []struct {
		src, why string
	}{
		{fieldTTLScenario, ""},
		{strings.Replace(fieldTTLScenario, "a: none", "a: 5", 1), "field_ttl_ms.a: want 5, got none"},
	} {
		s, err := Parse("f.yaml", []byte(tc.src))
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Bind(m); err != nil {
			t.Fatal(err)
		}
		rep, err := RunAll(context.Background(), m, []*Scenario{s}, Options{Target: "redis-7.4"})
		if err != nil {
			t.Fatal(err)
		}
		if got := problems(rep); (tc.why == "") != rep.OK() || !strings.Contains(got, tc.why) {
			t.Errorf("want problems containing %q, got OK %v:\n%s", tc.why, rep.OK(), got)
		}
	}
}

// TestLiveFieldTTL seeds the field TTLs on Redis 8.0 (HPEXPIRE), reads them
// back (HPTTL) and finds the run identical to the engine's.
func TestLiveFieldTTL(t *testing.T) {
	kind, _ := redistest.LookupKind("redis-8.0")
	srv := redistest.Standalone(t, redistest.WithKind(kind))
	requireLiveIdentical(t, srv, "f.yaml", fieldTTLScenario, "redis-8.0")
}

// requireLiveIdentical runs the scenario src offline (as target) and on srv
// and requires a live run in each mode, no difference and no problem.
func requireLiveIdentical(t *testing.T, srv *redistest.Server, name, src, target string) {
	t.Helper()
	m := repoManifest(t)
	s, err := Parse(name, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Bind(m); err != nil {
		t.Fatal(err)
	}
	rep, err := RunAll(context.Background(), m, []*Scenario{s}, Options{Live: dial(t, srv), Target: target})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Results {
		if len(r.Live) == 0 {
			t.Errorf("[%s] no live run", r.Mode)
		}
		for _, d := range r.Differences {
			t.Errorf("[%s] step %d: %s differs\n  offline: %s\n  live:    %s", r.Mode, d.Step, d.What, d.Offline, d.Live)
		}
	}
	if !rep.OK() {
		t.Errorf("not OK:\n%s", problems(rep))
	}
}
