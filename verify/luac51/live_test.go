package luac51

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/scriptctl/scriptctl/internal/redistest"
)

// dumpScript asks the server for string.dump of src loaded as a chunk
// named name: the bytes, or the compile error.
const dumpScript = `local f, e = loadstring(ARGV[1], ARGV[2])
if not f then return {err = e} end
return string.dump(f)`

// corpus is every Lua source of the repository: the .lua files and the
// scripts of the difftest snippets.
func corpus(t *testing.T) map[string]string {
	t.Helper()
	root := filepath.Join("..", "..")
	srcs := map[string]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		switch {
		case strings.HasSuffix(path, ".lua"):
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			srcs[path] = string(b)
		case strings.HasSuffix(path, ".yaml") && strings.Contains(path, filepath.Join("difftest", "testdata", "snippets")):
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			var cases []struct {
				Name   string `yaml:"name"`
				Script string `yaml:"script"`
			}
			if err := yaml.Unmarshal(b, &cases); err != nil {
				return err
			}
			for _, c := range cases {
				if c.Script != "" {
					srcs[filepath.Base(path)+":"+c.Name] = c.Script
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, src := range lexerCases {
		srcs[fmt.Sprintf("lexer case %d", i)] = src
	}
	for i, src := range limitCases() {
		srcs[fmt.Sprintf("limit case %d", i)] = src
	}
	return srcs
}

// limitCases are chunks at and over Lua 5.1's compile limits.
func limitCases() []string {
	locals := func(n int) string {
		var b strings.Builder
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, "local v%d = %d\n", i, i)
		}
		return b.String()
	}
	upvals := func(n int) string {
		var b, u strings.Builder
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, "local u%d = %d\n", i, i)
			fmt.Fprintf(&u, "u%d, ", i)
		}
		return b.String() + "return function() return " + u.String() + "nil end"
	}
	values := func(n int) string { return "return " + strings.Repeat("1, ", n) + "1" }
	nest := func(n int) string { return "return " + strings.Repeat("(", n) + "1" + strings.Repeat(")", n) }
	return []string{locals(199), locals(200), locals(201), upvals(60), upvals(61) + "\n",
		"local a, b, c, d\n" + upvals(58), values(240), values(248), values(249), values(300),
		nest(100), nest(198), nest(199), nest(200), nest(250),
		"return {" + strings.Repeat("{", 150) + strings.Repeat("}", 150) + "}",
		"x = " + strings.Repeat("-", 300) + "1"}
}

// lexerCases are sources whose line numbers or string values depend on
// llex.c's details.
var lexerCases = []string{
	"return [[a [[ b]]", "return [=[a [=[ b]=], [==[]]]=]]==]", "--[[ x [[ y ]]\nreturn 1",
	"local a = 1\r\nlocal b = 2\r\nreturn a + b", "local a = 1\rlocal b = 2\n\rreturn a, b",
	"local s = [[\r\nx\r\ny]]\nreturn s", "local s = 'a\\\r\nb'\nreturn s", "return 1 -- end",
	"\f\vreturn\f1\v", "return 1\x00 + 2", "return 1e\x00", "return 0x", "return 1..2",
	"return 0x1p4, 0X10, 1E2, .5e-3", "return '\\z'", "return '\\300'", "local t = {[[x]]}",
	"f = function(...) local arg = arg return ... end", "return function(a, a) return a end",
	"local a <const> = 1", "goto x", "return 1 // 2", "return ~1", "return 1 & 2",
}

// TestDumpMatchesServer compiles every Lua source of the repository and
// compares the dump of its main function with the live server's.
func TestDumpMatchesServer(t *testing.T) {
	srv := redistest.Standalone(t)
	c := srv.Client()
	ctx := context.Background()
	srcs := corpus(t)
	if len(srcs) < 1000 {
		t.Fatalf("only %d sources found", len(srcs))
	}
	same, refused := 0, 0
	for name, src := range srcs {
		for _, chunk := range []string{"=t", "@user_script"} {
			res := c.Do(ctx, c.B().Eval().Script(dumpScript).Numkeys(0).Arg(src, chunk).Build())
			want, err := res.AsBytes()
			p, cerr := CompileCalls([]byte(src), chunk, 1) // loadstring in a script
			if err != nil {
				// The server refused the chunk: so must we, with its words.
				if cerr == nil {
					t.Errorf("%s: server refuses (%v), we compile", name, err)
				} else if !strings.Contains(err.Error(), replyText(cerr.Error())) {
					t.Errorf("%s: server %v; ours %v", name, err, cerr)
				}
				refused++
				continue
			}
			if cerr != nil {
				t.Errorf("%s: %v", name, cerr)
				continue
			}
			got := p.Dump()
			if !bytes.Equal(got, want) {
				sp, uerr := undump(want)
				if uerr != nil {
					t.Errorf("%s: server dump unreadable: %v", name, uerr)
					continue
				}
				t.Errorf("%s (%s):\n%s", name, chunk, diffProto("main", p, sp))
				continue
			}
			same++
		}
	}
	t.Logf("%d dumps identical, %d chunks refused alike", same, refused)
}

// TestRandomChunksMatchServer compiles random chunks (gen_test.go) and
// compares their dumps with the server's; the server's compile errors (a
// chunk over a limit) must be ours too.
func TestRandomChunksMatchServer(t *testing.T) {
	srv := redistest.Standalone(t)
	c := srv.Client()
	ctx := context.Background()
	same, refused := 0, 0
	for seed := uint64(0); seed < 3000; seed++ {
		src := randomChunk(seed)
		res := c.Do(ctx, c.B().Eval().Script(dumpScript).Numkeys(0).Arg(src, "=r").Build())
		want, err := res.AsBytes()
		p, cerr := CompileCalls([]byte(src), "=r", 1)
		if err != nil {
			if cerr == nil || !strings.Contains(err.Error(), replyText(cerr.Error())) {
				t.Errorf("seed %d: server %v; ours %v\n%s", seed, err, cerr, src)
			}
			refused++
			continue
		}
		if cerr != nil {
			t.Errorf("seed %d: %v\n%s", seed, cerr, src)
			continue
		}
		if got := p.Dump(); !bytes.Equal(got, want) {
			sp, uerr := undump(want)
			if uerr != nil {
				t.Fatalf("seed %d: server dump unreadable: %v", seed, uerr)
			}
			t.Errorf("seed %d:\n%s\n%s", seed, src, diffProto("main", p, sp))
			continue
		}
		same++
	}
	t.Logf("%d random chunks identical, %d refused alike", same, refused)
	if same < 1000 {
		t.Errorf("only %d chunks compiled: the generator writes too many invalid ones", same)
	}
}

// TestPowFoldingMatchesServer compares the folding of constant powers
// (glibc's pow on the server) over many operands: identical.
func TestPowFoldingMatchesServer(t *testing.T) {
	srv := redistest.Standalone(t)
	c := srv.Client()
	ctx := context.Background()
	r := rand.New(rand.NewPCG(1, 2))
	bases := []string{"2", "3", "10", "7", "0.5", "1.1", "1.5", "2.5", "12345", "0.001", "1e10", "99", "1.0001"}
	same := 0
	for i := 0; i < 2000; i++ {
		y := fmt.Sprint(r.IntN(120) - 60)
		if r.IntN(3) == 0 {
			y = fmt.Sprintf("%d.%d", r.IntN(40)-20, r.IntN(1000))
		}
		src := fmt.Sprintf("return %s ^ %s", bases[r.IntN(len(bases))], y)
		want, err := c.Do(ctx, c.B().Eval().Script(dumpScript).Numkeys(0).Arg(src, "=p").Build()).AsBytes()
		if err != nil {
			t.Fatal(err)
		}
		p, err := Compile([]byte(src), "=p")
		if err != nil {
			t.Fatal(err)
		}
		if got := p.Dump(); !bytes.Equal(got, want) {
			sp, _ := undump(want)
			t.Errorf("%s: ours %v, server %v", src, p.Constants, sp.Constants)
			continue
		}
		same++
	}
	t.Logf("%d folded powers identical", same)
}

// replyText is an error message as an error reply carries it: Redis turns
// its line ends into spaces (a long string quoted by a compile error).
func replyText(s string) string {
	return strings.NewReplacer("\r", " ", "\n", " ").Replace(s)
}
