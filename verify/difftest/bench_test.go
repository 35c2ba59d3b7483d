package difftest

import (
	"context"
	"testing"

	"github.com/scriptctl/scriptctl/internal/redistest"
	"github.com/scriptctl/scriptctl/verify"
)

// benchSnippets are the corpus snippets without setup or after commands,
// as EVAL.
func benchSnippets(b *testing.B) []Snippet {
	b.Helper()
	all, err := loadCorpus(corpusDir)
	if err != nil {
		b.Fatal(err)
	}
	var out []Snippet
	for _, s := range all {
		if s.Library == "" && len(s.Setup) == 0 && len(s.After) == 0 && !s.ReadOnly {
			out = append(out, s)
		}
	}
	return out
}

// BenchmarkCorpusOffline runs every setup-free snippet once per iteration
// in a fresh offline engine.
func BenchmarkCorpusOffline(b *testing.B) {
	snippets := benchSnippets(b)
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, s := range snippets {
			e := verify.New(verify.Options{})
			e.Eval(ctx, []byte(s.Script), s.Keys, s.Args)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(snippets)), "ns/snippet")
}

// BenchmarkCorpusLive runs the same snippets as EVAL on a local
// redis-server over one connection (FLUSHALL between snippets, as the
// offline side starts empty).
func BenchmarkCorpusLive(b *testing.B) {
	snippets := benchSnippets(b)
	srv := redistest.Standalone(b)
	c := srv.Client()
	defer c.Close()
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, s := range snippets {
			c.Do(ctx, c.B().Flushall().Build())
			cmd := c.B().Eval().Script(s.Script).Numkeys(int64(len(s.Keys))).Key(s.Keys...).Arg(s.Args...).Build()
			c.Do(ctx, cmd)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(snippets)), "ns/snippet")
}
