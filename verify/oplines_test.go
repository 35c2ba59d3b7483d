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

// TestFuncStatementLines: a function statement stores its function on the
// line of 'function', however many lines its name takes; the parts of the
// name are read on their own lines, and a method still gets self (Lua
// 5.1's lines, proven live by lua_lines.yaml's line-funcname-*).
func TestFuncStatementLines(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		// each script starts on line 2, inside the pcall's function
		{"local t = 1\nfunction t\n.f()\nend", "user_script:3: attempt to index local 't' (a number value)"},
		{"local t = true\nfunction t\n\n:m()\nend", "user_script:3: attempt to index local 't' (a boolean value)"},
		{"local a = 1\nfunction a\n.b\n.c()\nend", "user_script:4: attempt to index local 'a' (a number value)"},
		{"local a = {b = 1}\nfunction a\n.b\n:c()\nend", "user_script:3: attempt to index field 'b' (a number value)"},
	} {
		r := mustEval(t, New(Options{}), "return {pcall(function()\n"+c.src+"\nend)}", nil, nil)
		want := ArrayReply(NilReply(), BulkReply(c.want))
		if !r.Equal(want) {
			t.Errorf("%q: got %s, want %s", c.src, r, want)
		}
	}
	r := mustEval(t, New(Options{}), "local t = {}\nfunction t\n:m(a)\nreturn self == t, a\nend\nreturn {tostring(t:m(1)), select(2, t:m(2))}", nil, nil)
	if want := ArrayReply(BulkReply("true"), IntReply(2)); !r.Equal(want) {
		t.Errorf("method: got %s, want %s", r, want)
	}
}
