package scenario

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/scriptctl/scriptctl/internal/redistest"
	"github.com/scriptctl/scriptctl/manifest"
	"github.com/scriptctl/scriptctl/verify"
)

// bucketLua is a token bucket on the server clock that stores the time of
// the last take and sets PEXPIRE: every reply carries TIME-derived numbers.
const bucketLua = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)%s
local capacity = tonumber(ARGV[1])
local refill_ms = tonumber(ARGV[2])
local tokens = tonumber(redis.call('HGET', KEYS[1], 'tokens') or capacity)
local ts = tonumber(redis.call('HGET', KEYS[1], 'ts') or now)
tokens = math.min(capacity, tokens + math.floor((now - ts) / refill_ms))
if tokens < 1 then
  return {0, tokens, now}
end
tokens = tokens - 1
redis.call('HSET', KEYS[1], 'tokens', tokens, 'ts', now)
redis.call('PEXPIRE', KEYS[1], capacity * refill_ms)
return {1, tokens, now, redis.call('PTTL', KEYS[1])}
`

const bucketScenario = `steps:
  - call: take
    keys: ["bucket:{c1}"]
    args: ["3", "1000"]
    expect:
      keys:
        "bucket:{c1}": {ttl_ms: 3000}
  - call: take
    keys: ["bucket:{c1}"]
    args: ["3", "1000"]
  - call: take
    keys: ["bucket:{c1}"]
    args: ["3", "1000"]
  - call: take
    keys: ["bucket:{c1}"]
    args: ["3", "1000"]
  - sleep_ms: 1500 # half a refill from the rounding steps: robust to a loaded machine
  - call: take
    keys: ["bucket:{c1}"]
    args: ["3", "1000"]
  - do: [HGET, "bucket:{c1}", ts]
  - do: [PEXPIRETIME, "bucket:{c1}"]
  - do: [PTTL, "bucket:{c1}"]
  - do: [TIME]
  - do: [SET, "plain", "1700000000000"]
  - do: [GET, "plain"]
`

func bucketManifest(t *testing.T, skew string) *manifest.Manifest {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"manifest.yaml": "schema: 1\nlibrary: bucket\nversion: 1\nscripts:\n  take:\n    file: take.lua\n    keys: [bucket]\n    args: [capacity, refill_ms]\n",
		"take.lua":      strings.Replace(bucketLua, "%s", skew, 1),
	}
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	m, err := manifest.Load(filepath.Join(dir, "manifest.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestClockToleranceLive: a token bucket that reads TIME and sets PEXPIRE
// agrees with a live server within the clock tolerance, run after run; a
// live script off by one second differs from the offline run of the right
// one.
func TestClockToleranceLive(t *testing.T) {
	srv := dial(t, redistest.Standalone(t))
	ctx := context.Background()
	bind := func(m *manifest.Manifest) *Scenario {
		t.Helper()
		sc, err := Parse("bucket.yaml", []byte(bucketScenario))
		if err != nil {
			t.Fatal(err)
		}
		if err := sc.Bind(m); err != nil {
			t.Fatal(err)
		}
		return sc
	}
	m := bucketManifest(t, "")
	sc := bind(m)
	for round := 0; round < 3; round++ {
		rep, err := RunAll(ctx, m, []*Scenario{sc}, Options{Live: srv})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rep.Results {
			if r.Status != StatusPass {
				t.Fatalf("[%s] round %d: status %s\n%s", r.Mode, round, r.Status, problems(rep))
			}
			// Tolerated: the replies with now, the stored ts, PEXPIRETIME
			// and TIME; never the constant that looks like a time.
			replies := map[int]bool{}
			for _, d := range r.ClockTolerated {
				if d.What == "reply" {
					replies[d.Step] = true
				}
			}
			for _, step := range []int{7, 8, 10} {
				if !replies[step] {
					t.Errorf("[%s]: step %d not reported within the clock tolerance: %+v", r.Mode, step, r.ClockTolerated)
				}
			}
			if replies[12] {
				t.Errorf("[%s]: a string that looks like a number was loosened", r.Mode)
			}
		}
	}

	// The live script is one second ahead: every reply and stored ts that
	// carries now differs.
	wrong := bucketManifest(t, "\nnow = now + 1000")
	lv, err := runLive(ctx, bind(wrong), srv, wrong, ModeEval, false)
	if err != nil {
		t.Fatal(err)
	}
	base, taint, err := clockRuns(ctx, sc, m, ModeEval, verify.DefaultTarget, false, lv.clockStart)
	if err != nil {
		t.Fatal(err)
	}
	diffs, _ := sc.diffRunsClock(base, lv, &clockCompare{taint: taint, tol: DefaultClockTolerance})
	steps := map[int]bool{}
	for _, d := range diffs {
		steps[d.Step] = true
	}
	for _, step := range []int{1, 2, 3, 7, 8} {
		if !steps[step] {
			t.Errorf("one second off: step %d does not differ; differences %+v", step, diffs)
		}
	}
}

// TestClockTaint: what the probes mark as clock-derived, and in which unit.
func TestClockTaint(t *testing.T) {
	m := bucketManifest(t, "")
	sc, err := Parse("bucket.yaml", []byte(bucketScenario))
	if err != nil {
		t.Fatal(err)
	}
	if err := sc.Bind(m); err != nil {
		t.Fatal(err)
	}
	_, taint, err := clockRuns(context.Background(), sc, m, ModeEval, verify.DefaultTarget, false, 1_800_000_000_123)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		step int // 1-based
		path string
		want float64
	}{
		{1, ".2", 1},     // now, in ms
		{1, ".3", 1},     // the PTTL right after PEXPIRE: the clock runs on in a script
		{1, ".1", 0},     // the tokens left: exact
		{1, ".0", 0},     // taken: exact
		{7, "", 1},       // the stored ts
		{8, "", 1},       // PEXPIRETIME
		{9, "", 1},       // PTTL, read steps after it was set
		{10, ".0", .001}, // TIME's seconds
		{10, ".1", 1000}, // TIME's microseconds
		{12, "", 0},      // GET of a constant that looks like a time
	} {
		if got := taint.reply[tc.step-1][tc.path]; got != tc.want {
			t.Errorf("step %d reply%s: unit %v, want %v", tc.step, tc.path, got, tc.want)
		}
	}
	if got := taint.keys[0]["bucket:{c1}"]["hash.ts"]; got != 1 {
		t.Errorf("stored ts: unit %v, want 1", got)
	}
	if got := taint.keys[0]["bucket:{c1}"]["hash.tokens"]; got != 0 {
		t.Errorf("stored tokens: unit %v, want 0 (exact)", got)
	}
	cc := &clockCompare{taint: taint, tol: 50}
	for _, tc := range []struct {
		o, l string
		u    float64
		ok   bool
	}{
		{"i:1800000000123", "i:1800000000170", 1, true},
		{"i:1800000000123", "i:1800000000180", 1, false},
		{"b:1800000000", "b:1800000001", .001, true},
		{"b:999990", "b:000010", 1000, true}, // across a second
		{"b:100000", "b:200000", 1000, false},
		{"b:12ab", "b:12ab", 1, false}, // not a number
	} {
		if got := cc.within(tc.o, tc.l, tc.u, 3); got != tc.ok {
			t.Errorf("within(%s, %s, %v) = %v", tc.o, tc.l, tc.u, got)
		}
	}
}

// TestClockDeclared: clock: [reply, key] in an expectation loosens the
// numbers of that step's reply and key (in ms) for the live comparison,
// and nothing else.
func TestClockDeclared(t *testing.T) {
	m := repoManifest(t)
	src := `vars: {id: "1"}
steps:
  - do: [GET, "ts:{a}"]
    expect:
      clock: [reply, "ts:{a}"]
  - do: [GET, "ts:{a}"]
`
	sc, err := Parse("d.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if err := sc.Bind(m); err != nil {
		t.Fatal(err)
	}
	key := func(v string) []Key { return []Key{{Name: "ts:{a}", Type: "string", Value: v, PTTL: -1}} }
	bulk := func(v string) *verify.Reply { r := verify.BulkReply(v); return &r }
	step := func(i int, v string) StepResult { return StepResult{Index: i, Reply: bulk(v), State: key(v)} }
	off := &Run{Steps: []StepResult{step(1, "1000"), step(2, "1000")}}
	lv := &Run{Steps: []StepResult{step(1, "1030"), step(2, "1030")}}
	taint := &clockTaint{reply: make([]map[string]float64, 2), keys: make([]map[string]map[string]float64, 2)}
	sc.markDeclared(taint, off)
	diffs, near := sc.diffRunsClock(off, lv, &clockCompare{taint: taint, tol: 50})
	var got []string
	for _, d := range diffs {
		got = append(got, fmt.Sprintf("differs %d %s", d.Step, d.What))
	}
	for _, d := range near {
		got = append(got, fmt.Sprintf("near %d %s", d.Step, d.What))
	}
	want := "differs 2 reply\ndiffers 2 key ts:{a}\nnear 1 reply\nnear 1 key ts:{a}"
	if strings.Join(got, "\n") != want {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), want)
	}
	// Beyond the tolerance, or not a number: differs.
	lv.Steps[0] = step(1, "1100")
	if d, _ := sc.diffRunsClock(off, lv, &clockCompare{taint: taint, tol: 50}); len(d) != 4 {
		t.Errorf("1100 vs 1000: %d differences, want 4", len(d))
	}
	off.Steps[0], lv.Steps[0] = step(1, "t1000"), step(1, "t1001")
	if d, _ := sc.diffRunsClock(off, lv, &clockCompare{taint: taint, tol: 50}); len(d) != 4 {
		t.Errorf("t1000 vs t1001: %d differences, want 4", len(d))
	}
	if _, err := Parse("e.yaml", []byte("steps:\n  - do: [PING]\n    expect:\n      clock: [\"\"]\n")); err == nil || !strings.Contains(err.Error(), "e.yaml:4:15: steps[1].expect.clock[1]: must not be empty") {
		t.Errorf("empty clock entry: %v", err)
	}
}

// TestClockSortedSetScores: a sorted set scored by a millisecond clock (a
// sliding-window limiter's ZADD key now now) is clock-derived, and a live
// score within the tolerance passes: its scores print without an exponent,
// so the number matcher reads them.
func TestClockSortedSetScores(t *testing.T) {
	const now = 1796427678095
	if got := FormatScore(now); got != "1796427678095" {
		t.Fatalf("FormatScore(%v) = %q, want a plain decimal", float64(now), got)
	}
	for f, want := range map[float64]string{1e6: "1000000", 1.5e15: "1500000000000000", 0.25: "0.25", 1e21: "1e+21", 1e-7: "1e-07"} {
		if got := FormatScore(f); got != want {
			t.Errorf("FormatScore(%v) = %q, want %q", f, got, want)
		}
	}
	zkey := func(ms float64) Key {
		return Key{Name: "rl:{u}", Type: "zset", ZSet: []verify.ZMember{{Member: "m1", Score: ms}}, PTTL: -1}
	}
	var u ClockUnits
	u.MarkProbe(Outcome{Keys: []Key{zkey(now)}}, Outcome{Keys: []Key{zkey(now + Shift)}}, Outcome{Keys: []Key{zkey(now + 2*Shift)}}, Shift)
	if got := u.Keys["rl:{u}"]["score.0"]; got != 1 {
		t.Fatalf("score unit %v, want 1 (ms): %v", got, u.Keys)
	}
	if ok, tolerated := u.SameContents(zkey(now), zkey(now+40), 50, 0); !ok || !tolerated {
		t.Fatalf("a score 40ms off: ok %v, tolerated %v; want both", ok, tolerated)
	}
	if ok, _ := u.SameContents(zkey(now), zkey(now+400), 50, 0); ok {
		t.Fatal("a score 400ms off passed a 50ms tolerance")
	}
	// The number matcher also reads an exponent, as a reply may carry one.
	if f, ok := number("b:1.796427678095e+12"); !ok || f != now {
		t.Fatalf("number(1.796427678095e+12) = %v, %v", f, ok)
	}
}

// TestClockSlidingWindowLive: a sliding-window limiter that scores its
// sorted set with the server clock in milliseconds passes a live comparison
// within the clock tolerance: the scores (above 1e6) are read as numbers.
func TestClockSlidingWindowLive(t *testing.T) {
	srv := dial(t, redistest.Standalone(t))
	dir := t.TempDir()
	files := map[string]string{
		"manifest.yaml": "schema: 1\nlibrary: window\nversion: 1\nscripts:\n  hit:\n    file: hit.lua\n    keys: [window]\n    args: [limit, window_ms, id]\n",
		"hit.lua": `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - tonumber(ARGV[2]))
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then
  return 0
end
redis.call('ZADD', KEYS[1], now, ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
`,
	}
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	m, err := manifest.Load(filepath.Join(dir, "manifest.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	sc, err := Parse("window.yaml", []byte(`steps:
  - call: hit
    keys: ["rl:{u1}"]
    args: ["2", "60000", "a"]
    expect: {reply: 1}
  - call: hit
    keys: ["rl:{u1}"]
    args: ["2", "60000", "b"]
    expect: {reply: 1}
  - call: hit
    keys: ["rl:{u1}"]
    args: ["2", "60000", "c"]
    expect: {reply: 0}
`))
	if err != nil {
		t.Fatal(err)
	}
	if err := sc.Bind(m); err != nil {
		t.Fatal(err)
	}
	rep, err := RunAll(context.Background(), m, []*Scenario{sc}, Options{Live: srv, ClockTolerance: 500})
	if err != nil {
		t.Fatal(err)
	}
	// Whether the two clocks read the same millisecond is the machine's
	// business: the scores may agree exactly or within the tolerance
	// (ClockTolerated), and either way the run passes.
	for _, r := range rep.Results {
		if r.Status != StatusPass {
			t.Fatalf("[%s]: status %s\n%s", r.Mode, r.Status, problems(rep))
		}
	}
}
