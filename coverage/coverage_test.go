package coverage

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/scriptctl/scriptctl/manifest"
	"github.com/scriptctl/scriptctl/verify"
	"github.com/scriptctl/scriptctl/verify/scenario"
)

// repo writes a manifest with two scripts and loads it.
func repo(t *testing.T) *manifest.Manifest {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"manifest.yaml": "schema: 1\nlibrary: lib\nversion: 1\nscripts:\n  cap:\n    file: cap.lua\n    keys: [k]\n    args: [n]\n  never:\n    file: never.lua\n    keys: [k]\n    args: []\n",
		"cap.lua":       "#!lua\nlocal n = tonumber(ARGV[1])\nif n > 5 then\n  return 'big'\nend\nreturn n\n",
		"never.lua":     "return redis.call('GET', KEYS[1])\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	m, err := manifest.Load(filepath.Join(dir, "manifest.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestCollect: a script's EVAL and FCALL runs add up on its own lines; a
// script nothing called is all zeros and Uncalled names it.
func TestCollect(t *testing.T) {
	m := repo(t)
	c := verify.NewLineCoverage()
	ctx := verify.WithLineCoverage(context.Background(), c)
	e := verify.New(verify.Options{})
	if _, err := e.Eval(ctx, m.Script("cap").Source, []string{"k"}, []string{"1"}); err != nil {
		t.Fatal(err)
	}
	if r, err := e.FunctionLoad(m.FunctionsLibrary(), false); err != nil || r.Kind == verify.Error {
		t.Fatalf("FUNCTION LOAD: %v %v", r, err)
	}
	if _, err := e.FCall(ctx, m.FunctionName("cap"), []string{"k"}, []string{"9"}); err != nil {
		t.Fatal(err)
	}
	rep := Collect(m, c)
	if len(rep.Scripts) != 2 {
		t.Fatalf("%d scripts", len(rep.Scripts))
	}
	got := map[int]uint32{}
	for _, l := range rep.Scripts[0].Lines {
		got[l.Line] = l.Count
	}
	want := map[int]uint32{2: 2, 3: 2, 4: 1, 6: 1}
	if len(got) != len(want) {
		t.Errorf("cap lines %v, want %v", got, want)
	}
	for line, n := range want {
		if got[line] != n {
			t.Errorf("cap line %d ran %d times, want %d (all %v)", line, got[line], n, got)
		}
	}
	if tt := rep.Scripts[0].Totals(); tt != (Totals{Lines: 4, LinesHit: 4, Branches: 2, BranchesHit: 2}) {
		t.Errorf("cap totals %+v", tt)
	}
	if u := rep.Uncalled(); len(u) != 1 || u[0].Name != "never" {
		t.Errorf("uncalled %+v", u)
	}

	var lcov bytes.Buffer
	if err := rep.WriteLCOV(&lcov, m.Dir); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"SF:cap.lua", "DA:4,1", "DA:6,1", "BRDA:3,0,0,1", "BRDA:3,0,1,1", "LF:4", "LH:4", "BRF:2", "BRH:2",
		"SF:never.lua", "DA:1,0", "LF:1", "LH:0", "end_of_record"} {
		if !strings.Contains(lcov.String(), line+"\n") {
			t.Errorf("lcov lacks %q:\n%s", line, lcov.String())
		}
	}
	var cob bytes.Buffer
	if err := rep.WriteCobertura(&cob, m.Dir, m.Library, time.UnixMilli(1700000000000)); err != nil {
		t.Fatal(err)
	}
	for _, frag := range []string{`<coverage line-rate="0.8000" branch-rate="1.0000" lines-covered="4" lines-valid="5"`, `timestamp="1700000000000"`,
		`<class name="cap" filename="cap.lua" line-rate="1.0000"`, `<line number="3" hits="2" branch="true" condition-coverage="100% (2/2)"></line>`,
		`<class name="never" filename="never.lua" line-rate="0.0000"`} {
		if !strings.Contains(cob.String(), frag) {
			t.Errorf("cobertura lacks %q:\n%s", frag, cob.String())
		}
	}
}

// TestBundledFullLineCoverage: the scenarios of the repository and of each
// example run every line of their scripts.
func TestBundledFullLineCoverage(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs every bundled scenario")
	}
	for _, path := range []string{"../manifest.yaml", "../examples/rate_limiter/manifest.yaml", "../examples/reliable_queue/manifest.yaml", "../examples/token_bucket/manifest.yaml"} {
		m, err := manifest.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		c := verify.NewLineCoverage()
		if _, err := scenario.Check(verify.WithLineCoverage(context.Background(), c), m); err != nil {
			t.Fatal(err)
		}
		for _, s := range Collect(m, c).Scripts {
			if tt := s.Totals(); tt.LinesHit != tt.Lines {
				var missed []int
				for _, l := range s.Lines {
					if l.Count == 0 {
						missed = append(missed, l.Line)
					}
				}
				t.Errorf("%s: %d of %d lines ran; never: %v", s.File, tt.LinesHit, tt.Lines, missed)
			}
		}
	}
}
