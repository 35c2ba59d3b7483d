package scenario

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/scriptctl/scriptctl/internal/redistest"
	"github.com/scriptctl/scriptctl/verify"
)

const streamKeys = `"{t}s":
  stream:
    entries:
      - [1-1, {type: click, n: "1"}]
      - [1-2, [f, a, f, b]]
      - [5, {x: ""}]
    last_id: 7-3
    entries_added: 9
    max_deleted_id: 2-0
    groups:
      - name: workers
        last_id: 1-2
        entries_read: 2
        consumers: [alice, {name: bob, seen_time: 1600000000000}]
        pending:
          - {id: 1-1, consumer: alice, delivery_time: 1600000000000, delivery_count: 3}
          - {id: 1-2, consumer: bob}
      - name: audit
        last_id: 0-0
"{t}e": {stream: {last_id: 3-3, groups: [{name: g, last_id: 3-3}]}}
`

// TestStreamKeysRoundTrip seeds an engine with streams, checks what the
// stream commands answer, and writes the keyspace back: the state file
// reads back as the same streams.
func TestStreamKeysRoundTrip(t *testing.T) {
	keys, err := ParseKeys("state.yaml", []byte(streamKeys))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	e := verify.New(verify.Options{})
	for _, k := range keys {
		e.Put(k.Entry())
	}
	for _, c := range []struct {
		cmd  []string
		want string
	}{
		{[]string{"XRANGE", "{t}s", "-", "+"}, `1-1 type click n 1 1-2 f a f b 5-0 x `},
		{[]string{"XINFO", "STREAM", "{t}s"}, `length 3`},
		{[]string{"XADD", "{t}s", "7-*", "k", "v"}, `7-4`},
		{[]string{"XPENDING", "{t}s", "workers", "-", "+", "10"}, `1-1 alice 100000000000 3 1-2 bob 0 1`},
		{[]string{"XLEN", "{t}e"}, `0`},
		{[]string{"XADD", "{t}e", "3-3", "k", "v"}, `ERR The ID specified in XADD is equal or smaller than the target stream top item`},
	} {
		r, err := e.Do(ctx, c.cmd...)
		if err != nil {
			t.Fatal(err)
		}
		if got := flat(r); !strings.Contains(got, c.want) {
			t.Errorf("%q = %s, want it to contain %s", c.cmd, got, c.want)
		}
	}
	en, _ := e.Entry("{t}s")
	if got := en.Stream.Groups[1].Consumers[1].SeenTime; got != 1600000000000 {
		t.Errorf("bob's seen time = %d, want the file's", got)
	}
	if got := en.Stream.Groups[1].Pending[1].DeliveryTime; got != e.Now() {
		t.Errorf("a delivery time the file does not give = %d, want the clock's %d", got, e.Now())
	}
	var saved []Key
	for _, en := range e.Entries() {
		saved = append(saved, KeyOf(en))
	}
	var b bytes.Buffer
	if err := WriteKeys(&b, saved); err != nil {
		t.Fatal(err)
	}
	back, err := ParseKeys("saved.yaml", b.Bytes())
	if err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	if len(back) != len(saved) {
		t.Fatalf("read back %d keys, want %d", len(back), len(saved))
	}
	for i := range back {
		if !SameContents(back[i], saved[i]) || !sameStream(back[i].Stream, saved[i].Stream, true) {
			t.Errorf("key %q: saved %s, read back %s\n%s", saved[i].Name, contentsString(saved[i]), contentsString(back[i]), b.String())
		}
	}
	if !strings.Contains(b.String(), "[1-2, [f, a, f, b]]") || !strings.Contains(b.String(), "delivery_time: 1600000000000") {
		t.Errorf("saved state:\n%s", b.String())
	}
}

func TestStreamKeysRefused(t *testing.T) {
	for _, c := range []struct{ yaml, want string }{
		{"k: {stream: {entries: [[2-0, {a: b}], [1-0, {a: b}]]}}", "s.yaml:1:13: k.stream: stream entry 1-0: IDs must increase"},
		{"k: {stream: {entries: [[0-0, {a: b}]]}}", "greater than 0-0"},
		{"k: {stream: {entries: [[1-x, {a: b}]]}}", `s.yaml:1:25: k.stream.entries[1].id: stream ID "1-x" is not <ms>-<seq>`},
		{"k: {stream: {entries: [[1-1, [a]]]}}", "k.stream.entries[1]: needs field, value pairs: 1 texts"},
		{"k: {stream: {entries: [[1-1, {}]]}}", "needs at least one field"},
		{"k: {stream: {entries: [[1-1]]}}", "must be an [id, fields] pair"},
		{"k: {stream: {last_id: 1-1, groups: [{name: g, pending: [{id: 1-1, consumer: c}]}]}}", `pending entry of unknown consumer "c"`},
		{"k: {stream: {groups: [{name: g}, {name: g}]}}", `stream group "g" given twice`},
		{"k: {stream: {groups: [{last_id: 0}]}}", "needs a name"},
		{"k: {stream: {groups: [{name: g, consumers: [c], pending: [{id: 2, consumer: c}, {id: 1, consumer: c}]}]}}", "increasing ID order"},
		{"k: {stream: {entries: [[1-1, {a: b}]], last_id: 0-5}}", "smaller than the last entry"},
		{"k: {stream: {entries: [[1-1, {a: b}]], entries_added: -1}}", "must be a non-negative integer"},
		{"k: {stream: {nope: 1}}", `unknown field "nope"`},
		{"k: {stream: [1]}", "must be a mapping"},
	} {
		_, err := ParseKeys("s.yaml", []byte(c.yaml))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.yaml, err, c.want)
		}
	}
}

// streamScenario seeds a stream, reads from its group and acknowledges,
// with the stream compared after each step.
const streamScenario = `vars: {id: "1"}
keys:
  "{t}s":
    stream:
      entries: [[1-1, {job: a}], [1-2, {job: b}], [1-3, {job: c}]]
      max_deleted_id: 0-5
      groups:
        - {name: g, last_id: 1-1, entries_read: 1, consumers: [alice], pending: [{id: 1-1, consumer: alice, delivery_count: 2, delivery_time: 1600000000000}]}
  "{t}e": {stream: {last_id: 3-3, entries_added: 4, max_deleted_id: 3-3, groups: [{name: g, last_id: 3-3}]}}
  "{t}z": {stream: {}}
steps:
  - do: [XREADGROUP, GROUP, g, bob, COUNT, "1", STREAMS, "{t}s", ">"]
    expect:
      reply: [["{t}s", [[1-2, [job, b]]]]]
      keys:
        "{t}s":
          stream:
            entries: [[1-1, {job: a}], [1-2, {job: b}], [1-3, {job: c}]]
            max_deleted_id: 0-5
            groups:
              - name: g
                last_id: 1-2
                entries_read: 2
                consumers: [alice, bob]
                pending: [{id: 1-1, consumer: alice, delivery_count: 2, delivery_time: 1600000000000}, {id: 1-2, consumer: bob}]
        "{t}e": {stream: {last_id: 3-3, entries_added: 4, max_deleted_id: 3-3, groups: [{name: g, last_id: 3-3}]}}
        "{t}z": {stream: {entries: []}}
  - do: [XACK, "{t}s", g, 1-1]
    expect:
      reply: 1
  - do: [XDEL, "{t}s", 1-3]
    expect:
      keys:
        "{t}s":
          stream:
            entries: [[1-1, {job: a}], [1-2, {job: b}]]
            last_id: 1-3
            entries_added: 3
            max_deleted_id: 1-3
            groups: [{name: g, last_id: 1-2, entries_read: 2, consumers: [bob, alice], pending: [{id: 1-2, consumer: bob, delivery_count: 1}]}]
`

// TestLiveDifferentialStream writes a stream with a group, consumers and
// pending entries to a real server (XADD, XSETID, XGROUP, XCLAIM) and
// reads it back with XINFO STREAM FULL after each step: offline and live
// agree, and the expectations hold on both.
func TestLiveDifferentialStream(t *testing.T) {
	requireLiveIdentical(t, redistest.Standalone(t), "stream.yaml", streamScenario, "")
}

// TestScenarioPublished: declared subscribers are what PUBLISH answers,
// and each step's messages are compared in order.
func TestScenarioPublished(t *testing.T) {
	m := repoManifest(t)
	src := `vars: {id: "1"}
subscribers: {wake: 2}
steps:
  - do: [PUBLISH, wake, "${id}"]
    expect:
      reply: 2
      published: [{channel: wake, message: "1"}]
  - do: [SPUBLISH, other, m]
    expect:
      reply: 0
      published: [{channel: other, message: m}]
  - do: [GET, x]
    expect:
      published: []
  - do: [PUBLISH, wake, late]
    expect:
      published: [{channel: wake, message: early}]
`
	s, err := Parse("pub.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Bind(m); err != nil {
		t.Fatal(err)
	}
	rep, err := RunAll(context.Background(), m, []*Scenario{s}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Results {
		var fails []string
		for _, run := range r.Runs {
			for _, f := range run.Failures {
				fails = append(fails, f.Message)
			}
		}
		want := `published: want ["wake": "early"], got ["wake": "late"]`
		if len(fails) != 1 || fails[0] != want {
			t.Errorf("[%s] failures %q, want only %q", r.Mode, fails, want)
		}
	}
	for _, bad := range []string{
		"subscribers: {wake: -1}\nsteps: [{sleep_ms: 1}]",
		"steps: [{sleep_ms: 1, expect: {published: [{channel: c}]}}]",
		"steps: [{sleep_ms: 1, expect: {published: {channel: c}}}]",
	} {
		if _, err := Parse("bad.yaml", []byte(bad)); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}
