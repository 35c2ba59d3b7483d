package scenario

import (
	"context"
	"strings"
	"testing"

	"github.com/redis/rueidis"

	"github.com/scriptctl/scriptctl/internal/redistest"
	"github.com/scriptctl/scriptctl/liveconn"
	"github.com/scriptctl/scriptctl/slot"
	"github.com/scriptctl/scriptctl/verify"
)

// dialURL dials url as the command layer does (package liveconn) and runs
// live scenarios over it.
func dialURL(ctx context.Context, url string) (*Server, error) {
	lc, err := liveconn.DialURL(ctx, url)
	if err != nil {
		return nil, err
	}
	return NewServer(lc, lc.Addr), nil
}

func dial(t *testing.T, srv *redistest.Server) *Server {
	t.Helper()
	s, err := dialURL(context.Background(), srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// TestLiveDifferentialBundled runs every bundled scenario offline and on a
// throwaway redis-server, in both modes, and requires zero differences.
func TestLiveDifferentialBundled(t *testing.T) {
	srv := redistest.Standalone(t)
	m := repoManifest(t)
	ss := bundled(t, m)
	rep, err := RunAll(context.Background(), m, ss, Options{Live: dial(t, srv), Parallel: 8, Target: srv.Kind.Target()})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Against != srv.Addr {
		t.Errorf("Against = %q, want %q", rep.Against, srv.Addr)
	}
	live := 0
	for _, r := range rep.Results {
		live += len(r.Live)
		for _, d := range r.Differences {
			t.Errorf("%s [%s] %s step %d line %d: %s differs\n  offline: %s\n  live:    %s", r.File, r.Mode, d.Variant, d.Step, d.Line, d.What, d.Offline, d.Live)
		}
	}
	if live < len(ss)*2 {
		t.Errorf("%d live runs, want at least %d (every scenario in both modes)", live, len(ss)*2)
	}
	if !rep.OK() {
		t.Errorf("not every result passed:\n%s", problems(rep))
	}
	// Every run cleaned up after itself.
	if keys := srv.MustDo("KEYS", "*"); len(mustArray(t, keys)) != 0 {
		t.Errorf("keys left on the server: %s", keys.String())
	}
	if libs := srv.MustDo("FUNCTION", "LIST"); len(mustArray(t, libs)) != 0 {
		t.Errorf("functions left on the server: %s", libs.String())
	}
}

func mustArray(t *testing.T, msg rueidis.RedisMessage) []rueidis.RedisMessage {
	t.Helper()
	a, err := msg.ToArray()
	if err != nil {
		t.Fatalf("%s: %v", msg.String(), err)
	}
	return a
}

// TestLiveRunUsesPrefixedKeysAndRealValues checks what a live run stores:
// the keys it writes carry the run prefix inside the hash tag, and the
// values read back through them are the scenario's.
func TestLiveRunUsesPrefixedKeysAndRealValues(t *testing.T) {
	srv := redistest.Standalone(t)
	m := v1Manifest(t)
	s := dial(t, srv)
	sc, err := Parse("x.yaml", []byte(`caller: catalog_summary
vars: {id: "42"}
workers: {w: {token: tok-w}}
steps:
  - worker: w
    call: acquire
    args: {lease_ttl_ms: 60000}
`))
	if err != nil {
		t.Fatal(err)
	}
	if err := sc.Bind(m); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	be, err := s.newLive(ctx, m, ModeEval, sc.bound.universe)
	if err != nil {
		t.Fatal(err)
	}
	run, err := sc.execute(ctx, be, false)
	if err != nil {
		t.Fatal(err)
	}
	if got := run.Steps[0].Reply; got == nil || !got.Equal(verify.ArrayReply(verify.BulkReply("acquired"))) {
		t.Errorf("reply = %v", got)
	}
	mapped := be.mapKey("catalog:{product-42}:lease")
	if !strings.HasPrefix(mapped, "catalog:{sctl-") || !strings.HasSuffix(mapped, "-product-42}:lease") {
		t.Errorf("mapped key = %q", mapped)
	}
	if v, err := srv.Do(ctx, "GET", mapped).ToString(); err != nil || v != "tok-w" {
		t.Errorf("GET %s = %q, %v; want tok-w", mapped, v, err)
	}
	if v, err := srv.Do(ctx, "GET", "catalog:{product-42}:lease").ToString(); err == nil {
		t.Errorf("the unprefixed key was written: %q", v)
	}
	st, ok := find(run.Steps[0].State, "catalog:{product-42}:lease")
	if !ok || st.Value != "tok-w" || st.PTTL <= 59000 || st.PTTL > 60000 {
		t.Errorf("state read back = %+v, %v", st, ok)
	}
	if err := be.close(ctx); err != nil {
		t.Fatal(err)
	}
	if n, err := srv.Do(ctx, "EXISTS", mapped).AsInt64(); err != nil || n != 0 {
		t.Errorf("EXISTS %s after close = %d, %v", mapped, n, err)
	}
}

func TestMapKeyKeepsSlots(t *testing.T) {
	l := &live{prefix: "sctl-ab-1-"}
	a, b := l.mapKey("catalog:{product-42}:lease"), l.mapKey("catalog:{product-42}:value")
	if slot.Of(a) != slot.Of(b) {
		t.Errorf("%s and %s no longer share a slot", a, b)
	}
	if a != "catalog:{sctl-ab-1-product-42}:lease" {
		t.Errorf("mapKey = %q", a)
	}
	for in, want := range map[string]string{
		"plain":       "sctl-ab-1-plain",
		"foo{}{bar}":  "sctl-ab-1-foo{}{bar}",
		"{t}":         "{sctl-ab-1-t}",
		"unclosed{ab": "sctl-ab-1-unclosed{ab",
	} {
		if got := l.mapKey(in); got != want {
			t.Errorf("mapKey(%q) = %q, want %q", in, got, want)
		}
	}
	r := l.unmap(verify.ArrayReply(verify.BulkReply("x:{sctl-ab-1-t}"), verify.ErrorReply("ERR in fn_sctl")))
	if want := verify.ArrayReply(verify.BulkReply("x:{t}"), verify.ErrorReply("ERR in fn_sctl")); !r.Equal(want) {
		t.Errorf("unmap = %v", r)
	}
}

func TestDiffRuns(t *testing.T) {
	sc := &Scenario{File: "x.yaml", bound: &binding{steps: []boundStep{
		{expect: &boundExpect{reply: &ReplySpec{Kind: RArray, Elems: []*ReplySpec{{Kind: RBulk, Str: "busy"}, {Kind: RTTL}}}}},
		{},
	}}}
	busy := func(n int64) *verify.Reply {
		r := verify.ArrayReply(verify.BulkReply("busy"), verify.IntReply(n))
		return &r
	}
	one, zero := verify.IntReply(1), verify.IntReply(0)
	k := func(v string, pttl int64) []Key { return []Key{{Name: "k", Type: "string", Value: v, PTTL: pttl}} }
	off := &Run{Variant: VariantManifest, Steps: []StepResult{
		{Index: 1, Line: 3, Reply: busy(700), State: k("a", 700)},
		{Index: 2, Line: 9, Reply: &one, State: k("a", 500)},
	}}
	same := &Run{Variant: VariantManifest, Steps: []StepResult{
		{Index: 1, Line: 3, Reply: busy(690), State: k("a", 690), drift: 0},
		{Index: 2, Line: 9, Reply: &one, State: k("a", 480), drift: 5},
	}}
	if d := sc.diffRuns(off, same); len(d) != 0 {
		t.Errorf("within tolerance, got differences %+v", d)
	}
	other := &Run{Variant: VariantManifest, Steps: []StepResult{
		{Index: 1, Line: 3, Reply: busy(600), State: k("b", 700)},
		{Index: 2, Line: 9, Reply: &zero, State: nil},
	}}
	d := sc.diffRuns(off, other)
	var got []string
	for _, x := range d {
		got = append(got, x.What+": "+x.Offline+" | "+x.Live)
	}
	want := []string{
		`reply: ["busy", 700] | ["busy", 600]`,
		`key k: "a" (ttl 700ms) | "b" (ttl 700ms)`,
		`reply: 1 | 0`,
		`key k: "a" (ttl 500ms) | absent`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("differences:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// A live TTL above the offline one is always a difference.
	if ttlClose(100, 101, 50, TTLSlack) || !ttlClose(100, 100-50-TTLSlack, 50, TTLSlack) || ttlClose(100, 100-51-TTLSlack, 50, TTLSlack) || ttlClose(-1, 5, 0, TTLSlack) {
		t.Error("ttlClose tolerance is off")
	}
	rep := &Report{Results: []*Result{{File: "x.yaml", Name: "x", Mode: ModeEval, Status: StatusDiffers, Differences: d}}}
	if out := problems(rep); !strings.Contains(out, `x.yaml:9: scenario "x" [eval]: step 2: reply differs live: offline 1, live 0`+"\n") {
		t.Errorf("problems:\n%s", out)
	}
}
