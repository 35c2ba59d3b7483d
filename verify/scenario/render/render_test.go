package render

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/scriptctl/scriptctl/manifest"
	"github.com/scriptctl/scriptctl/verify"
	"github.com/scriptctl/scriptctl/verify/scenario"
)

// steps returns n passing steps from line 3 on.
func steps(n int) []scenario.StepResult {
	out := make([]scenario.StepResult, n)
	for i := range out {
		out[i] = scenario.StepResult{Index: i + 1, Line: 3 + i, Action: "call acquire"}
	}
	return out
}

func TestSummary(t *testing.T) {
	pass := &scenario.Run{Variant: scenario.VariantManifest, Steps: steps(7)}
	failed := &scenario.Run{Variant: scenario.VariantManifest, Steps: steps(2), Failures: []scenario.Failure{{Step: 1, Line: 3, Message: "a"}, {Step: 2, Line: 4, Message: "b"}}}
	stopped := &scenario.Run{Variant: scenario.VariantManifest, Steps: steps(1), Error: "script release does not compile\nsecond line"}
	diff := []scenario.Difference{{Step: 1}, {Step: 2}, {Step: 3}}
	for _, tc := range []struct {
		r    scenario.Result
		want string
	}{
		{scenario.Result{Status: scenario.StatusPass, Runs: []*scenario.Run{pass}}, "7 steps"},
		{scenario.Result{Status: scenario.StatusPass, Runs: []*scenario.Run{{Variant: scenario.VariantManifest, Steps: steps(1)}}}, "1 step"},
		{scenario.Result{Status: scenario.StatusFail, Runs: []*scenario.Run{failed}}, "2 failures"},
		{scenario.Result{Status: scenario.StatusError, Runs: []*scenario.Run{stopped}}, "script release does not compile"},
		{scenario.Result{Status: scenario.StatusDiffers, Runs: []*scenario.Run{pass}, Live: []*scenario.Run{pass}, Differences: diff}, "3 differences from offline"},
		{scenario.Result{Status: scenario.StatusPass, Runs: []*scenario.Run{pass}, Live: []*scenario.Run{pass}}, "7 steps, live matches"},
		{scenario.Result{Status: scenario.StatusPass, Runs: []*scenario.Run{pass}, Live: []*scenario.Run{pass}, ClockTolerated: diff[:1]}, "7 steps, live matches (1 value equal within the clock tolerance)"},
		{scenario.Result{Status: scenario.StatusPass, Control: true, Runs: []*scenario.Run{pass, {Variant: scenario.VariantControl, Steps: steps(7)}}}, "7 steps, control reached the regression"},
		{scenario.Result{Status: scenario.StatusSkip, LiveOnly: true, SkipReason: "live_only: step 2 cannot be judged offline\nmore"}, "skipped offline: live_only: step 2 cannot be judged offline"},
		{scenario.Result{Status: scenario.StatusPass, LiveOnly: true, Live: []*scenario.Run{{Variant: scenario.VariantManifest, Steps: steps(3)}}}, "3 steps live (live only)"},
	} {
		if got := Summary(&tc.r); got != tc.want {
			t.Errorf("Summary = %q, want %q", got, tc.want)
		}
	}
}

func TestProblems(t *testing.T) {
	rep := &scenario.Report{Results: []*scenario.Result{
		{File: "ok.yaml", Name: "ok", Mode: scenario.ModeEval, Status: scenario.StatusPass, Runs: []*scenario.Run{{Variant: scenario.VariantManifest, Steps: steps(1)}}},
		{File: "ctl.yaml", Name: "ctl", Mode: scenario.ModeFunction, Status: scenario.StatusFail, Control: true, Runs: []*scenario.Run{
			{Variant: scenario.VariantManifest, Steps: steps(5)},
			{Variant: scenario.VariantControl, Steps: steps(5), Failures: []scenario.Failure{{Step: 5, Line: 21, Message: scenario.ErrControlMissed + ": reply: want 1, got 0"}}},
		}},
		{File: "x.yaml", Name: "x", Mode: scenario.ModeEval, Status: scenario.StatusDiffers,
			Runs:        []*scenario.Run{{Variant: scenario.VariantManifest, Steps: steps(2)}},
			Differences: []scenario.Difference{{Variant: scenario.VariantManifest, Step: 2, Line: 9, What: "reply", Offline: "1", Live: "0"}}},
		{File: "bad.yaml", Name: "bad", Mode: scenario.ModeEval, Status: scenario.StatusError, Runs: []*scenario.Run{{Variant: scenario.VariantManifest, Error: "script release does not compile"}}},
	}}
	var buf bytes.Buffer
	if err := Problems(&buf, rep); err != nil {
		t.Fatal(err)
	}
	want := "FAIL ctl [function] (ctl.yaml)\n" +
		"  ctl.yaml:21: step 5 (control): " + scenario.ErrControlMissed + ": reply: want 1, got 0\n" +
		"DIFFERS x [eval] (x.yaml)\n" +
		"  x.yaml:9: step 2: reply differs\n      offline: 1\n      live:    0\n" +
		"ERROR bad [eval] (bad.yaml)\n" +
		"  script release does not compile\n"
	if buf.String() != want {
		t.Errorf("problems:\n%s\nwant:\n%s", buf.String(), want)
	}
}

func TestTrace(t *testing.T) {
	one := verify.IntReply(1)
	off := &scenario.Run{Variant: scenario.VariantManifest, Steps: []scenario.StepResult{
		{Index: 1, Line: 3, Action: "call acquire", Reply: &one, State: []scenario.Key{{Name: "b", Type: "string", Value: "tok", PTTL: 150}, {Name: "a", Type: "string", Value: "x", PTTL: -1}}},
		{Index: 2, Line: 5, Action: "do PUBLISH", Reply: &one, Published: []verify.Message{{Channel: "c", Message: "m"}}},
		{Index: 3, Line: 7, Action: "call release", Error: "ERR boom"},
	}}
	live := &scenario.Run{Variant: scenario.VariantManifest, Steps: []scenario.StepResult{{Index: 1, Line: 3, Action: "call acquire", Reply: &one}}}
	rep := &scenario.Report{Results: []*scenario.Result{
		{File: "t.yaml", Name: "t", Mode: scenario.ModeEval, Status: scenario.StatusPass, Runs: []*scenario.Run{off}, Live: []*scenario.Run{live},
			ClockTolerated: []scenario.Difference{{Step: 10, What: "reply", Offline: `["1000"]`, Live: `["1001"]`}}},
		{File: "l.yaml", Name: "l", Mode: scenario.ModeEval, Status: scenario.StatusFail, LiveOnly: true, SkipReason: "live_only: marked so",
			Live: []*scenario.Run{{Variant: scenario.VariantManifest, Steps: steps(1), Error: "stopped here"}}},
	}}
	var buf bytes.Buffer
	if err := Trace(&buf, rep); err != nil {
		t.Fatal(err)
	}
	want := `=== t [eval] pass (t.yaml)
step 1  line 3  call acquire
  reply: 1
  keys:  b = "tok" (ttl 150ms)
         a = "x" (no ttl)
  live reply: 1
  live keys:  (none)
step 2  line 5  do PUBLISH
  reply: 1
  published: ["c": "m"]
  keys:  (none)
step 3  line 7  call release
  error: ERR boom
step 10  reply equal within the clock tolerance: offline ["1000"], live ["1001"]
=== l [eval] fail (l.yaml)
offline: skipped (live_only: marked so)
step 1  line 3  call acquire
  live keys:  (none)
stopped: stopped here
`
	if buf.String() != want {
		t.Errorf("trace:\n%s\nwant:\n%s", buf.String(), want)
	}
}

// TestJSONLiveOnly: a live_only scenario skipped offline is a skip in the
// summary, with its reason.
func TestJSONLiveOnly(t *testing.T) {
	rep := &scenario.Report{Results: []*scenario.Result{
		{File: "l.yaml", Name: "l", Mode: scenario.ModeEval, Status: scenario.StatusSkip, LiveOnly: true, SkipReason: "live_only: marked so"},
		{File: "l.yaml", Name: "l", Mode: scenario.ModeFunction, Status: scenario.StatusSkip, LiveOnly: true, SkipReason: "live_only: marked so"},
	}}
	var buf bytes.Buffer
	if err := JSON(&buf, rep, false); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Summary map[string]int `json:"summary"`
		Results []struct {
			Status     string `json:"status"`
			LiveOnly   bool   `json:"live_only"`
			SkipReason string `json:"skip_reason"`
		} `json:"results"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Summary["skip"] != 2 || doc.Summary["pass"] != 0 || doc.Summary["total"] != 2 || doc.Results[0].Status != "skip" || !doc.Results[0].LiveOnly || doc.Results[0].SkipReason != "live_only: marked so" {
		t.Errorf("JSON: %s", buf.String())
	}
}

func TestJSONReport(t *testing.T) {
	m, err := manifest.Load(filepath.Join("..", "..", "..", "manifest.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	paths, err := scenario.Discover(m)
	if err != nil || len(paths) == 0 {
		t.Fatalf("bundled scenarios: %v, %d", err, len(paths))
	}
	ss, err := scenario.LoadAll(m, paths[:1])
	if err != nil {
		t.Fatal(err)
	}
	rep, err := scenario.RunAll(context.Background(), m, ss, scenario.Options{Modes: []scenario.Mode{scenario.ModeEval}})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := JSON(&buf, rep, true); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		FormatVersion string            `json:"format_version"`
		Summary       map[string]int    `json:"summary"`
		Diagnostics   []json.RawMessage `json:"diagnostics"`
		Results       []struct {
			File, Name, Mode, Status string
			Steps                    int
			Trace                    []struct {
				Side, Action, Reply string
				Step                int
				Keys                []struct {
					Key   string
					Value *string
					PTTL  int64 `json:"pttl_ms"`
				}
			}
		}
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	if doc.FormatVersion != "2" || doc.Diagnostics == nil || len(doc.Diagnostics) != 0 || doc.Summary["total"] != 1 || doc.Summary["pass"] != 1 || len(doc.Results) != 1 {
		t.Fatalf("report:\n%s", buf.String())
	}
	r := doc.Results[0]
	if r.Status != "pass" || r.Mode != "eval" || r.Steps != len(r.Trace) || r.Steps == 0 {
		t.Errorf("result: %+v", r)
	}
	// acquire_busy: the first step takes the lease for 1000 ms.
	first := r.Trace[0]
	if first.Side != "offline" || first.Reply != `["acquired", "0"]` || len(first.Keys) != 1 || *first.Keys[0].Value != "tok-first-2e90" || first.Keys[0].PTTL != 1000 {
		t.Errorf("first step: %+v", first)
	}
}
