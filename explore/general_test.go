package explore

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/scriptctl/scriptctl/manifest"
)

// The general language's tests run on a small manifest of their own: a
// counter, a list and a plain GET.
const generalManifest = `schema: 1
library: counters
version: 1
scripts:
  incr:
    file: incr.lua
    keys: [counter]
    args: [ttl_ms]
    reply: 'value: integer'
  get:
    file: get.lua
    keys: [counter]
    args: []
  push:
    file: push.lua
    keys: [list]
    args: [item]
  pop:
    file: pop.lua
    keys: [list]
    args: []
callers:
  app:
    scripts: [incr, get, push, pop]
    keys:
      counter: "c:{<id>}:n"
      list: "c:{<id>}:list"
`

var generalScripts = map[string]string{
	"incr.lua": "local n = redis.call('INCR', KEYS[1])\nredis.call('PEXPIRE', KEYS[1], ARGV[1])\nreturn n\n",
	"get.lua":  "return redis.call('GET', KEYS[1])\n",
	"push.lua": "return redis.call('RPUSH', KEYS[1], ARGV[1])\n",
	"pop.lua":  "return redis.call('LPOP', KEYS[1])\n",
	// unsafe: counts twice
	"incr_twice.lua": "redis.call('INCR', KEYS[1])\nlocal n = redis.call('INCR', KEYS[1])\nredis.call('PEXPIRE', KEYS[1], ARGV[1])\nreturn n\n",
}

// generalModel writes the manifest, its scripts and the model into a
// folder and parses the model.
func generalModel(t *testing.T, body string) (*Model, error) {
	t.Helper()
	dir := t.TempDir()
	for name, text := range generalScripts {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mp := filepath.Join(dir, "manifest.yaml")
	if err := os.WriteFile(mp, []byte(generalManifest), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := manifest.Load(mp)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "model.yaml")
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return Load(path, m)
}

func mustGeneral(t *testing.T, body string) *Model {
	t.Helper()
	md, err := generalModel(t, body)
	if err != nil {
		t.Fatal(err)
	}
	return md
}

// steps renders a timeline as "actor action -> reply".
func steps(v *Violation) string {
	var out []string
	for _, l := range v.Timeline {
		out = append(out, l.Actor+" "+l.Action+" -> "+l.Reply)
	}
	return strings.Join(out, "\n")
}

const generalHead = "caller: app\nvars: {id: \"1\"}\n"

func TestGeneralParseErrors(t *testing.T) {
	tests := []struct {
		name, body string
		want       []string
	}{
		{"unknown script", generalHead + "workers:\n  a:\n    - call: incrr\n",
			[]string{`model.yaml:5:13: workers.a[0].call: the manifest has no script "incrr": want one of incr, get, push, pop`}},
		{"missing arg", generalHead + "workers:\n  a:\n    - call: incr\n",
			[]string{`model.yaml:5:13: workers.a[0].args.ttl_ms: missing: script incr takes ttl_ms`}},
		{"unknown arg and key", generalHead + "workers:\n  a:\n    - call: incr\n      args: {ttl_ms: \"5\", ttl: \"1\"}\n      keys: {countr: x}\n",
			[]string{`model.yaml:6:27: workers.a[0].args.ttl: script incr has no arg "ttl": want ttl_ms`, `model.yaml:7:14: workers.a[0].keys.countr: script incr has no key "countr": want counter`}},
		{"save path", generalHead + "workers:\n  a:\n    - call: get\n      save: {v: \"0.1\"}\n",
			[]string{`model.yaml:6:17: workers.a[0].save.v: must be an element path: 1-based indices joined by dots (2, 1.3), not "0.1"`}},
		{"save reserved", generalHead + "workers:\n  a:\n    - call: get\n      save: token\n",
			[]string{`model.yaml:6:13: workers.a[0].save: register names are`}},
		{"if", generalHead + "workers:\n  a:\n    - call: get\n    - if: {type: set}\n    - if: {matches: \"(\", equals: x}\n      then: []\n    - if: {matches: \"(\"}\n      else: [pause]\n",
			[]string{`model.yaml:6:7: workers.a[1].then: missing: an if step has then, else or both`, `model.yaml:6:18: workers.a[1].if.type: unknown type "set"`,
				`model.yaml:7:11: workers.a[2].if: give exactly one of equals, matches and type`, `model.yaml:9:21: workers.a[3].if.matches: not a regular expression`}},
		{"if var", generalHead + "workers:\n  a:\n    - if: {var: nope, equals: \"1\"}\n      then: [pause]\n",
			[]string{`model.yaml:5:17: workers.a[0].if.var: ${nope}: not a var, a worker register`}},
		{"extras", generalHead + "workers:\n  a:\n    - pause: null\n      args: {x: \"1\"}\n",
			[]string{`model.yaml:6:13: workers.a[0].args: args does not go with pause`}},
		{"goto", generalHead + "workers:\n  a:\n    - goto: nowhere\n",
			[]string{`model.yaml:5:13: workers.a[0].goto: no step named "nowhere" in worker a`}},
		{"nested field", generalHead + "workers:\n  a:\n    - call: get\n    - if: {type: nil}\n      then:\n        - call: incr\n",
			[]string{`model.yaml:8:17: workers.a[1].then[0].args.ttl_ms: missing`}},
		{"environment", generalHead + "workers:\n  a: [pause]\nenvironment:\n  - crash: b\n  - pause: a\n  - expire: nope\n  - {advance_ms: 5, ms: 3}\n",
			[]string{`model.yaml:6:12: environment[0].crash: no worker "b"`, `model.yaml:7:5: environment[1].ms: missing: how long the worker pauses`,
				`model.yaml:8:13: environment[2].expire: caller app has no key "nope"`, `model.yaml:9:25: environment[3].ms: ms goes with pause`}},
		{"control", generalHead + "control: {inc: x.lua, incr: nope.lua}\nworkers:\n  a: [pause]\n",
			[]string{`model.yaml:3:11: control.inc: the manifest has no script "inc"`, `model.yaml:3:29: control.incr: cannot read nope.lua`}},
		{"setup", generalHead + "setup:\n  - pause: null\n  - {call: incr, args: {ttl_ms: \"1\"}}\nworkers:\n  a: [pause]\n",
			[]string{`model.yaml:4:5: setup[0].pause: unknown field "pause"`, `model.yaml:4:5: setup[0]: a setup step is one call or one do`}},
		{"lua syntax", generalHead + "workers:\n  a: [pause]\ninvariants:\n  predicates:\n    - name: p\n      lua: |\n        local x = 1\n        return x ==\n",
			[]string{`model.yaml:10:12: invariants.predicates[0].lua: Lua syntax error:`}},
		{"lua and assert", generalHead + "workers:\n  a: [pause]\ninvariants:\n  predicates:\n    - {name: p, lua: \"return true\", assert: [\"1\", ==, \"1\"]}\n",
			[]string{`model.yaml:7:22: invariants.predicates[0].lua: give one of assert and lua`}},
		{"builtins without protocol", generalHead + "workers:\n  a: [pause]\nexpect: {violation: single-owner}\n",
			[]string{`model.yaml:5:21: expect.violation: unknown invariant "single-owner": want one of`}},
		{"role without protocol", generalHead + "workers:\n  a: [acquire]\n",
			[]string{`model.yaml:4:7: workers.a[0]: step acquire needs protocol.acquire`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			md, err := generalModel(t, tc.body)
			var errs manifest.Errors
			if !errors.As(err, &errs) {
				t.Fatalf("want manifest.Errors, got %v (model %+v)", err, md)
			}
			if len(errs) != len(tc.want) {
				t.Fatalf("got %d problems, want %d:\n%v", len(errs), len(tc.want), err)
			}
			for i, w := range tc.want {
				if !strings.Contains(errs[i].Error(), w) {
					t.Errorf("problem %d: %q does not contain %q", i, errs[i].Error(), w)
				}
			}
		})
	}
}

// TestCallSaveIf: call steps with saved replies and if/then/else; a Lua
// invariant over the keyspace finds the interleaving where two workers'
// read-then-write loses an update.
func TestCallSaveIf(t *testing.T) {
	md := mustGeneral(t, generalHead+`
workers:
  a: &w
    - call: get
      save: seen
    - if: {type: nil}
      then:
        - do: [SET, "${key.counter}", "1"]
      else:
        - do: [SET, "${key.counter}", "2"]
  b: *w
invariants:
  predicates:
    - name: both counted
      lua: |
        if not final then return true end
        local v = redis.call("GET", keys.counter)
        if v ~= "2" then return false, "the counter is " .. tostring(v) end
        return true
`)
	if len(md.Workers[0].Steps) != 5 || md.Workers[0].Steps[1].Goto != 4 || md.Workers[0].Steps[3].Goto != 5 {
		t.Fatalf("flattened steps %+v", md.Workers[0].Steps)
	}
	res := explore(t, md, Options{})
	if res.Violation == nil || res.Violation.Invariant != "both counted" || res.Violation.Message != "the counter is 1 at the end" {
		t.Fatalf("violation %+v", res.Violation)
	}
	want := "a get -> (nil)\nb get -> (nil)\na do SET c:{1}:n 1 -> +OK\nb do SET c:{1}:n 1 -> +OK"
	if got := steps(res.Violation); got != want {
		t.Errorf("timeline:\n%s\nwant:\n%s", got, want)
	}
}

// TestGotoLoopAndSetup: setup fills a list; a worker pops until nil with
// a goto loop and saves each item; the final check sees every item popped.
func TestGotoLoopAndSetup(t *testing.T) {
	md := mustGeneral(t, generalHead+`
setup:
  - call: push
    args: {item: x}
  - call: push
    args: {item: "y"}
workers:
  a:
    - name: next
      call: pop
      save: item
    - if: {type: string}
      then: [{goto: next}]
invariants:
  predicates:
    - name: drained
      lua: |
        if final and redis.call("LLEN", keys.list) ~= 0 then return false, "items left" end
        if final and #replies.a ~= 3 then return false, #replies.a .. " pops" end
        return true
`)
	res := explore(t, md, Options{})
	if res.Violation != nil || res.States != 4 || !res.OK() {
		t.Fatalf("states %d violation %+v", res.States, res.Violation)
	}
}

// TestCrashAndPause: a crashed worker's remaining steps never run; a
// paused worker resumes when the clock reaches the end of its pause, past
// its key's TTL.
func TestCrashAndPause(t *testing.T) {
	body := generalHead + `
workers:
  a:
    - call: incr
      args: {ttl_ms: "100"}
    - call: incr
      args: {ttl_ms: "100"}
environment:
  - %s
invariants:
  predicates:
    - name: two counted
      lua: |
        if final and not workers.a.crashed and redis.call("GET", keys.counter) ~= "2" then
          return false, "the counter is " .. tostring(redis.call("GET", keys.counter))
        end
        if final and workers.a.crashed and #history > 2 then return false, "a ran after its crash" end
        return true
`
	crash := mustGeneral(t, strings.Replace(body, "%s", "crash: a", 1))
	res := explore(t, crash, Options{})
	if res.Violation != nil {
		t.Fatalf("crash: %+v\n%s", res.Violation, steps(res.Violation))
	}
	// root, a1, a2, crash, a1+crash, a1+a2 ... : crash before, between, after
	if res.Interleavings != 3 {
		t.Errorf("crash: %d interleavings, want 3", res.Interleavings)
	}
	pause := mustGeneral(t, strings.Replace(body, "%s", "{pause: a, ms: 150}", 1))
	res = explore(t, pause, Options{})
	if res.Violation == nil || res.Violation.Message != "the counter is 1 at the end" {
		t.Fatalf("pause: %+v", res.Violation)
	}
	want := "a incr 100 -> 1\na pause 150ms -> \na resume (+150ms) -> \na incr 100 -> 1"
	if got := steps(res.Violation); got != want {
		t.Errorf("timeline:\n%s\nwant:\n%s", got, want)
	}
}

// TestExpireEvent: a key with a TTL may expire at any point.
func TestExpireEvent(t *testing.T) {
	md := mustGeneral(t, generalHead+`
workers:
  a:
    - call: incr
      args: {ttl_ms: "60000"}
    - call: incr
      args: {ttl_ms: "60000"}
      save: n
environment:
  - expire: counter
invariants:
  predicates:
    - name: counted twice
      lua: |
        if final and workers.a.vars.n ~= "2" then return false, "the second incr saw " .. workers.a.vars.n end
        return true
`)
	res := explore(t, md, Options{})
	if res.Violation == nil || res.Violation.Message != "the second incr saw 1 at the end" {
		t.Fatalf("%+v", res.Violation)
	}
	if want := "a incr 60000 -> 1\nexpiry expire counter -> \na incr 60000 -> 1"; steps(res.Violation) != want {
		t.Errorf("timeline:\n%s\nwant:\n%s", steps(res.Violation), want)
	}
}

// TestControlAndHistory: control: replaces a script; the history carries
// each call's args and reply; the unsafe variant is the expected violation.
func TestControlAndHistory(t *testing.T) {
	body := generalHead + `
workers:
  a: [{call: incr, args: {ttl_ms: "1000"}}]
  b: [{call: incr, args: {ttl_ms: "1000"}}]
invariants:
  predicates:
    - name: counts the calls
      lua: |
        local n = 0
        for _, h in ipairs(history) do
          if h.script == "incr" and h.args.ttl_ms == "1000" then n = n + 1 end
        end
        local v = tonumber(redis.call("GET", keys.counter) or "0")
        if v ~= n then return false, n .. " calls, the counter says " .. v end
        return true
`
	res := explore(t, mustGeneral(t, body), Options{})
	if res.Violation != nil || res.States != 5 { // the history is state: ab and ba differ
		t.Fatalf("safe: states %d, %+v", res.States, res.Violation)
	}
	control := mustGeneral(t, body+"control: {incr: incr_twice.lua}\nexpect: {violation: counts the calls}\n")
	res = explore(t, control, Options{})
	if !res.OK() || res.Violation.Message != "1 calls, the counter says 2" || steps(res.Violation) != "a incr 1000 -> 2" {
		t.Fatalf("control: %+v", res.Violation)
	}
}

// TestLuaInvariantReadOnly: an invariant that writes, or raises, is an
// errored violation that no negative control accepts.
func TestLuaInvariantReadOnly(t *testing.T) {
	md := mustGeneral(t, generalHead+`
workers:
  a: [pause]
invariants:
  predicates:
    - name: writes
      lua: |
        redis.call("SET", keys.counter, "x")
        return true
expect: {violation: writes}
`)
	res := explore(t, md, Options{})
	if res.Violation == nil || !res.Violation.Errored || res.OK() || !strings.Contains(res.Violation.Message, "Write commands are not allowed from read-only scripts") {
		t.Fatalf("%+v", res.Violation)
	}
}

// TestGeneralTruncation: the state bound and the time bound stop the
// exploration and say which.
func TestGeneralTruncation(t *testing.T) {
	body := generalHead + `
workers:
  a: &w
    - {call: push, args: {item: "${worker}"}}
    - {call: push, args: {item: "${worker}"}}
  b: *w
  c: *w
`
	md := mustGeneral(t, body)
	full := explore(t, md, Options{})
	if full.Truncated || full.States != 271 { // every order of the pushes is a list of its own
		t.Fatalf("full: %d states, truncated %t", full.States, full.Truncated)
	}
	res := explore(t, md, Options{MaxStates: 5})
	if !res.Truncated || res.TruncatedBy != "states" || res.OK() {
		t.Errorf("states: %+v", res)
	}
	// a clock that moves an hour per reading: the first check is over
	var calls int
	clock := func() time.Time { calls++; return time.Unix(0, 0).Add(time.Duration(calls) * time.Hour) }
	res = explore(t, md, Options{MaxTime: time.Minute, clock: clock})
	if !res.Truncated || res.TruncatedBy != "time" || res.Bound != 60000 || res.States >= full.States {
		t.Errorf("time: truncated %t by %q bound %d states %d", res.Truncated, res.TruncatedBy, res.Bound, res.States)
	}
}

// TestConditions: if on a register (matches, equals), on an element of
// the last reply (reply: PATH, type), and a call with its keys given.
func TestConditions(t *testing.T) {
	md := mustGeneral(t, generalHead+`
setup:
  - {call: push, args: {item: a-1}}
  - {call: push, args: {item: b-2}}
workers:
  a:
    - do: [LRANGE, "${key.list}", "0", "-1"]
    - if: {reply: 2, equals: b-2}
      else: [{goto: end}]
    - if: {reply: 3, type: nil}
      else: [{goto: end}]
    - name: next
      call: pop
      save: item
    - if: {var: item, equals: ""}
      then: [{goto: end}]
    - if: {var: item, matches: "^a-[0-9]$"}
      then:
        - call: push
          keys: {list: "c:{1}:picked"}
          args: {item: "${item}"}
    - goto: next
invariants:
  predicates:
    - name: picked the a items
      lua: |
        if not final then return true end
        local picked = redis.call("LRANGE", "c:{1}:picked", 0, -1)
        if #picked ~= 1 or picked[1] ~= "a-1" then return false, "picked " .. cjson.encode(picked) end
        if workers.a.vars.item ~= "" or not workers.a.finished then return false, "not drained" end
        return true
`)
	res := explore(t, md, Options{})
	if res.Violation != nil || !res.OK() {
		t.Fatalf("%+v", res.Violation)
	}
	// LRANGE, pop a-1, push, pop b-2, pop nil: five steps, one path
	if res.States != 6 || res.Interleavings != 1 {
		t.Errorf("%d states, %d interleavings", res.States, res.Interleavings)
	}
}

// TestExpiryBoundary: a key lives through its expiry millisecond (Redis's
// now > when), so one advance of exactly its TTL leaves it and a second
// removes it; restoring the snapshot taken at that millisecond (PTTL 0)
// keeps its expiry, as replaying the path does.
func TestExpiryBoundary(t *testing.T) {
	md := mustGeneral(t, generalHead+`
workers:
  a:
    - call: incr
      args: {ttl_ms: "100"}
    - call: incr
      args: {ttl_ms: "100"}
      save: n
environment:
  - advance_ms: 100
    times: 2
invariants:
  predicates:
    - name: counted twice
      lua: |
        if final and workers.a.vars.n ~= "2" then return false, "the second incr saw " .. workers.a.vars.n end
        return true
`)
	want := "a incr 100 -> 1\nclock advance 100ms -> \nclock advance 100ms -> \na incr 100 -> 1"
	for _, replay := range []bool{false, true} {
		res := explore(t, md, Options{Replay: replay})
		if res.Violation == nil {
			t.Fatalf("replay %v: no violation", replay)
		}
		if got := steps(res.Violation); got != want {
			t.Errorf("replay %v: timeline:\n%s\nwant:\n%s", replay, got, want)
		}
	}
}
