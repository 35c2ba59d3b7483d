package scenario

import (
	"context"
	"strings"
	"testing"

	"github.com/scriptctl/scriptctl/internal/redistest"
)

// liveOnly calls LASTSAVE, which the engine does not run offline.
const liveOnly = `caller: catalog_summary
vars: {id: "42"}
live_only: true
workers: {w: {token: tok-w}}
steps:
  - worker: w
    call: acquire
    args: {lease_ttl_ms: 2000}
    expect:
      reply: [acquired, "0"]
  - do: [LASTSAVE]
  - worker: w
    call: release
    expect:
      reply: %s
`

func bindLiveOnly(t *testing.T, releaseReply string) *Scenario {
	t.Helper()
	s, err := Parse("live_only.yaml", []byte(strings.Replace(liveOnly, "%s", releaseReply, 1)))
	if err != nil {
		t.Fatal(err)
	}
	if !s.LiveOnly {
		t.Fatal("LiveOnly not parsed")
	}
	if err := s.Bind(repoManifest(t)); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestLiveOnlyOffline: offline, a live_only scenario is skipped with the
// step the engine cannot run as the reason, never passed, and the report
// stays OK.
func TestLiveOnlyOffline(t *testing.T) {
	m := repoManifest(t)
	rep, err := RunAll(context.Background(), m, []*Scenario{bindLiveOnly(t, "1")}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Results) != 2 {
		t.Fatalf("%d results, want 2 (both modes)", len(rep.Results))
	}
	for _, r := range rep.Results {
		if r.Status != StatusSkip || len(r.Runs) != 0 || len(r.Live) != 0 {
			t.Errorf("[%s] status %s, %d offline runs, %d live; want skip and none", r.Mode, r.Status, len(r.Runs), len(r.Live))
		}
		if !strings.Contains(r.SkipReason, "step 2 cannot be judged offline") || !strings.Contains(r.SkipReason, "LASTSAVE") {
			t.Errorf("[%s] skip reason %q, want the LASTSAVE step", r.Mode, r.SkipReason)
		}
		if !strings.HasPrefix(r.SkipReason, "live_only: ") {
			t.Errorf("[%s] skip reason %q, want it led by live_only", r.Mode, r.SkipReason)
		}
	}
	if !rep.OK() || rep.Counts()[StatusPass] != 0 || len(rep.Problems()) != 0 {
		t.Errorf("OK %v, counts %v, problems %v", rep.OK(), rep.Counts(), rep.Problems())
	}
}

// TestLiveOnlyLive: with a server, a live_only scenario runs live and its
// expectations decide: right ones pass, a wrong one fails.
func TestLiveOnlyLive(t *testing.T) {
	srv := dial(t, redistest.Standalone(t))
	m := repoManifest(t)
	for _, tc := range []struct {
		reply string
		want  Status
	}{{"1", StatusPass}, {"7", StatusFail}} {
		rep, err := RunAll(context.Background(), m, []*Scenario{bindLiveOnly(t, tc.reply)}, Options{Live: srv})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rep.Results {
			if r.Status != tc.want || len(r.Live) != 1 || len(r.Live[0].Steps) != 3 {
				t.Errorf("reply %s [%s]: status %s, %d live runs; want %s\n%s", tc.reply, r.Mode, r.Status, len(r.Live), tc.want, problems(rep))
			}
			if tc.want == StatusPass && (!r.LiveOnly || len(r.Runs) != 0 || len(r.Live[0].Failures) != 0 || r.Live[0].Error != "") {
				t.Errorf("live only %v, %d offline runs, live run %+v", r.LiveOnly, len(r.Runs), r.Live[0])
			}
			if tc.want == StatusFail && (len(rep.Problems()) != 2 || !strings.Contains(rep.Problems()[0].Message, "want 7, got 1")) {
				t.Errorf("problems %v", rep.Problems())
			}
		}
	}
}

func TestLiveOnlyMustBeBool(t *testing.T) {
	_, err := Parse("x.yaml", []byte("live_only: yes\nsteps:\n  - sleep_ms: 1\n"))
	if err == nil || err.Error() != `x.yaml:1:12: live_only: want true or false, not the string "yes"` {
		t.Errorf("err = %v", err)
	}
}
