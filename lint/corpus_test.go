package lint

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/scriptctl/scriptctl/manifest"
)

// expectRe matches the expected findings marked on a line of a corpus
// script: "--! code" or "--! code, code".
var expectRe = regexp.MustCompile(`--!\s*([a-z-]+(?:\s*,\s*[a-z-]+)*)\s*$`)

// TestCorpus lints testdata/corpus, realistic scripts written for this
// test in the styles of job queues, rate limiters, locks, leaderboards and
// session stores. Every finding was judged by reading the code, and each
// expected one is marked "--! code" on the line of its cause. The test
// asserts that the findings are exactly the marked ones (no finding judged
// false, every expected one present), one finding per cause, and that
// the whole output matches testdata/corpus/want.txt (-update rewrites it).
func TestCorpus(t *testing.T) {
	dir := filepath.Join("testdata", "corpus")
	m, err := manifest.Load(filepath.Join(dir, "manifest.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	files := ManifestFiles(m)
	if len(files) < 40 {
		t.Fatalf("the corpus has %d scripts, want at least 40", len(files))
	}
	var want []string
	for _, f := range files {
		for i, l := range strings.Split(string(f.Source), "\n") {
			if sm := expectRe.FindStringSubmatch(l); sm != nil {
				for _, code := range strings.Split(sm[1], ",") {
					want = append(want, fmt.Sprintf("%s:%d %s", filepath.Base(f.Path), i+1, strings.TrimSpace(code)))
				}
			}
		}
	}
	ds, err := Run(context.Background(), Config{Files: files})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	var text bytes.Buffer
	for _, d := range ds {
		d.Pos.File = filepath.Base(d.Pos.File)
		for i := range d.Related {
			d.Related[i].Pos.File = d.Pos.File
		}
		got = append(got, fmt.Sprintf("%s:%d %s", d.Pos.File, d.Pos.Line, d.Code))
		text.WriteString(d.String() + "\n" + Details(d))
	}
	slices.Sort(got)
	slices.Sort(want)
	for _, g := range got {
		if !slices.Contains(want, g) {
			t.Errorf("finding not expected (judged false, or mark it --! in the script): %s", g)
		}
	}
	for _, w := range want {
		if !slices.Contains(got, w) {
			t.Errorf("expected finding missing: %s", w)
		}
	}
	if len(got) != len(slices.Compact(slices.Clone(got))) || len(got) != len(want) {
		t.Errorf("%d findings for %d distinct causes: want one finding per cause", len(got), len(want))
	}
	golden := filepath.Join(dir, "want.txt")
	if *update {
		if err := os.WriteFile(golden, text.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	data, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if text.String() != string(data) {
		t.Errorf("corpus findings differ from %s (go test ./lint -run TestCorpus -update to accept):\n%s", golden, text.String())
	}
}
