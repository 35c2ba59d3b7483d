package verify

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/yuin/gopher-lua/parse"
	"gopkg.in/yaml.v3"
)

// TestOpLinesCorpus checks that the Lua 5.1 checker's operators line up
// with gopher-lua's tree for every script of the differential corpus
// (setOpLines changes nothing when they do not).
func TestOpLinesCorpus(t *testing.T) {
	files, _ := filepath.Glob("difftest/testdata/snippets/*.yaml")
	n, bad := 0, 0
	for _, f := range files {
		b, _ := os.ReadFile(f)
		var list []map[string]any
		if err := yaml.Unmarshal(b, &list); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, m := range list {
			s, _ := m["script"].(string)
			if s == "" {
				continue
			}
			info, err := checkSyntax51([]byte(s), "x")
			if err != nil || len(info.gotos) > 0 || len(info.ws) > 0 || len(info.dots) > 0 {
				continue
			}
			chunk, err := parse.Parse(bytes.NewReader([]byte(s)), "x")
			if err != nil {
				continue
			}
			w := &opWalker{ops: info.ops, calls: info.calls, index: info.index}
			w.stmts(chunk)
			n++
			if w.bad || w.n != len(info.ops) || w.nc != len(info.calls) || w.ni != len(info.index) {
				bad++
				t.Errorf("%s %v: mismatch at %d of %d", f, m["name"], w.n, len(info.ops))
			}
		}
	}
	if n < 1000 {
		t.Fatalf("only %d scripts checked", n)
	}
	t.Logf("%d scripts, %d mismatched", n, bad)
}
