package lint

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/yuin/gopher-lua/parse"
)

// chainShapes are scripts of 100,000 operators or nesting levels: the
// operator chains Redis accepts (+, and, ==, an index chain) and the
// nestings it refuses past 200 levels (a .. chain, parentheses, tables,
// not, do blocks). Each one must lint in time linear in its size.
func chainShapes() map[string]string {
	const n = 100000
	return map[string]string{
		"plus":   "return 1" + strings.Repeat("+1", n),
		"concat": "local a = 'x' return a" + strings.Repeat("..a", n),
		"and":    "local a = 1 return a" + strings.Repeat(" and a", n),
		"eq":     "local a = 1 return a" + strings.Repeat(" == a", n),
		"index":  "local a = {} return a" + strings.Repeat("[1]", n),
		"parens": "return " + strings.Repeat("(", n) + "1" + strings.Repeat(")", n),
		"tables": "return " + strings.Repeat("{", n) + strings.Repeat("}", n),
		"not":    "return " + strings.Repeat("not ", n) + "1",
		"do":     strings.Repeat("do ", n) + strings.Repeat("end ", n),
	}
}

// TestLintLongChains: every chain shape lints to completion (no stack
// overflow, no quadratic blow-up: the 1.4 GB and 34 s of a 100,000-long
// .. chain were the report), with the findings Redis's own compile
// implies: the nestings past Lua 5.1's 200 syntax levels are a syntax
// error, the accepted chains lint clean. No time is asserted: the
// benchmark (BenchmarkLint/chain-*) measures it against gopher-lua's
// parse of the same input.
func TestLintLongChains(t *testing.T) {
	refused := map[string]bool{"concat": true, "tables": true, "not": true, "do": true}
	for name, src := range chainShapes() {
		ds := Source(name+".lua", []byte(src), nil)
		if refused[name] {
			if len(ds) != 1 || ds[0].Code != "syntax" || !strings.Contains(ds[0].Message, "too many syntax levels") {
				t.Errorf("%s: %v, want one syntax finding (too many syntax levels)", name, ds)
			}
			continue
		}
		if len(ds) != 0 {
			t.Errorf("%s: %v, want none", name, ds)
		}
	}
}

// benchChains lints each chain shape and reports its cost as a ratio to
// the baseline measured in the same run on the same input: gopher-lua's
// parse alone (x-parse). lint parses once itself, so a ratio that stays
// flat as the input grows is linear; wall times on a shared machine are
// not compared across runs.
func benchChains(b *testing.B) {
	for name, src := range chainShapes() {
		b.Run("chain-"+name+"-100000", func(b *testing.B) {
			data := []byte(src)
			b.SetBytes(int64(len(data)))
			var lint, base time.Duration
			for b.Loop() {
				start := time.Now()
				if _, err := parse.Parse(bytes.NewReader(data), name); err != nil {
					b.Fatal(err)
				}
				mid := time.Now()
				if _, err := Run(context.Background(), Config{Files: []File{{Path: name + ".lua", Source: data}}}); err != nil {
					b.Fatal(err)
				}
				base, lint = base+mid.Sub(start), lint+time.Since(mid)
			}
			b.ReportMetric(float64(lint)/float64(base), "x-parse")
		})
	}
}
