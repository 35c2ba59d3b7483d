package verify

import (
	"context"
	"encoding/binary"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
	"gopkg.in/yaml.v3"

	"github.com/scriptctl/scriptctl/verify/luac51"
)

// luacDump is what the server's string.dump returns for the function at
// path in src compiled under chunk name source.
func luacDump(t *testing.T, src, source string, path ...int) string {
	t.Helper()
	p, err := luac51.Compile([]byte(src), source)
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range path {
		p = p.Protos[i]
	}
	return string(p.Dump())
}

func TestStringDumpFindsTheFunction(t *testing.T) {
	src := "local function a() return 1 end\nlocal function b() return function() return 2 end, function(x) return x end end\nreturn {string.dump(a), string.dump(b), string.dump(select(2, b()))}"
	e := New(Options{})
	r := mustEval(t, e, src, nil, nil)
	want := ArrayReply(BulkReply(luacDump(t, src, "@user_script", 0)), BulkReply(luacDump(t, src, "@user_script", 1)), BulkReply(luacDump(t, src, "@user_script", 1, 1)))
	if !r.Equal(want) {
		t.Errorf("got %q, want the dumps of functions 0, 1 and 1/1", r)
	}
	if w := e.Warnings(); len(w) != 0 {
		t.Errorf("warnings %q", w)
	}
}

func TestStringDumpLoadstringChunk(t *testing.T) {
	e := New(Options{})
	r := mustEval(t, e, "return string.dump(loadstring('return 1\\0 + 2', '=n'))", nil, nil)
	if want := luacDump(t, "return 1\x00 + 2", "=n"); r.Str != want {
		t.Errorf("got %q, want %q", r.Str, want)
	}
	// The NUL byte belongs to the numeral, as in Lua 5.1.
	if r := mustEval(t, e, "return loadstring('return 1\\0 + 2')()", nil, nil); !r.Equal(IntReply(3)) {
		t.Errorf("loadstring('return 1\\0 + 2')() = %s, want 3", r)
	}
	// and after a dot it is a dot: a .\0 b concatenates.
	if r := mustEval(t, e, "return loadstring('local a = ... return a .\\0 \\'y\\'')('x')", nil, nil); !r.Equal(BulkReply("xy")) {
		t.Errorf("a .\\0 'y' = %s, want xy", r)
	}
}

// A library's function dumped by FCALL after another library was loaded:
// the engine finds its chunk among every chunk it compiled.
func TestStringDumpEarlierLibrary(t *testing.T) {
	e := New(Options{})
	libA := "#!lua name=a\nlocal function f() return 'a' end\nredis.register_function('fa', function() return string.dump(f) end)\n"
	libB := "#!lua name=b\nredis.register_function('fb', function() return 1 end)\n"
	for _, lib := range []string{libA, libB} {
		if r, err := e.FunctionLoad([]byte(lib), false); err != nil || r.Kind == Error {
			t.Fatalf("FUNCTION LOAD: %v %v", r, err)
		}
	}
	r, err := e.FCall(context.Background(), "fa", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	body := libA[len("#!lua name=a"):]
	if want := luacDump(t, body, "@user_function", 0); r.Str != want {
		t.Errorf("got %q, want %q", r.Str, want)
	}
	if w := e.Warnings(); len(w) != 0 {
		t.Errorf("warnings %q", w)
	}
}

// TestStringDumpPowerAtTie: 10^23 lies at a tie between two doubles, and
// the dump holds the one glibc's pow folds it to (the odd one), with no
// warning.
func TestStringDumpPowerAtTie(t *testing.T) {
	e := New(Options{})
	src := "return string.dump(function() return 10 ^ 23 end)"
	r := mustEval(t, e, src, nil, nil)
	if want := luacDump(t, src, "@user_script", 0); r.Str != want {
		t.Errorf("got %q, want %q", r.Str, want)
	}
	glibc := binary.LittleEndian.AppendUint64(nil, 0x44b52d02c7e14af7)
	if !strings.Contains(r.Str, string(glibc)) {
		t.Errorf("the dump %q lacks glibc's 10^23 %q", r.Str, glibc)
	}
	if w := e.Warnings(); len(w) != 0 {
		t.Errorf("warnings %q", w)
	}
}

// TestLuacShapeMatchesCompile checks, over every Lua source of the
// repository, that Lua 5.1's compile of a chunk nests its functions as the
// engine's compile does: string.dump finds a function by that shape. And
// that every function's zero constant has the sign of Lua 5.1's
// (zeroconst.go): a chunk where Lua 5.1 has a -0 constant is one the
// rewriter noted.
func TestLuacShapeMatchesCompile(t *testing.T) {
	checked, negZeros := checkZeroConstants(t, repoChunks(t))
	if checked < 2000 || negZeros < 30 {
		t.Errorf("only %d chunks checked, %d with a -0 constant", checked, negZeros)
	}
}

// checkZeroConstants compiles each chunk the engine compiles with Lua
// 5.1's compiler too and requires the same nesting of functions, a note
// from the rewriter for every chunk where Lua 5.1 has a -0 constant, and
// every function's zero constant of Lua 5.1's sign. It returns how many
// chunks it checked and how many of them had a -0 constant.
func checkZeroConstants(t *testing.T, srcs []string) (checked, negZeros int) {
	t.Helper()
	for _, src := range srcs {
		if src == "" {
			continue
		}
		proto, luac, err := compileSites([]byte(src), "@user_script")
		if err != nil {
			continue
		}
		lp, err := luac51.Compile([]byte(src), "@user_script")
		if err != nil {
			t.Errorf("luac51 refuses what the engine compiles: %v\n%s", err, src)
			continue
		}
		if d := shapeDiff(proto, lp, "main"); d != "" {
			t.Errorf("%s\n%s", d, src)
			continue
		}
		if hasNegZero(lp) {
			negZeros++
			if luac == nil {
				t.Errorf("Lua 5.1 has a -0 constant the rewriter did not note\n%s", src)
			}
		}
		if d := zeroDiff(proto, lp, "main"); d != "" {
			t.Errorf("%s\n%s", d, src)
		}
		checked++
	}
	return checked, negZeros
}

// repoChunks is every Lua source of the repository: .lua files and the
// difftest snippets' scripts and libraries.
func repoChunks(t *testing.T) []string {
	t.Helper()
	var srcs []string
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		switch {
		case strings.HasSuffix(path, ".lua"):
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			srcs = append(srcs, string(b))
		case strings.HasSuffix(path, ".yaml") && strings.Contains(path, filepath.Join("difftest", "testdata", "snippets")):
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			var cases []struct {
				Script  string `yaml:"script"`
				Library string `yaml:"library"`
			}
			if err := yaml.Unmarshal(b, &cases); err != nil {
				return err
			}
			for _, c := range cases {
				srcs = append(srcs, c.Script, c.Library)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return srcs
}

func hasNegZero(l *luac51.Proto) bool {
	if z, ok := zeroConstant(l); ok && math.Signbit(z) {
		return true
	}
	for _, c := range l.Protos {
		if hasNegZero(c) {
			return true
		}
	}
	return false
}

// zeroDiff: the first function whose zero constant has another sign than
// Lua 5.1's (where both have one).
func zeroDiff(g *lua.FunctionProto, l *luac51.Proto, path string) string {
	if z, ok := zeroConstant(l); ok {
		for _, k := range g.Constants {
			if n, isNum := k.(lua.LNumber); isNum && n == 0 && math.Signbit(float64(n)) != math.Signbit(z) {
				return fmt.Sprintf("%s: zero constant %v, Lua 5.1 %v", path, float64(n), z)
			}
		}
	}
	for i := range l.Protos {
		if d := zeroDiff(g.FunctionPrototypes[i], l.Protos[i], fmt.Sprintf("%s/%d", path, i)); d != "" {
			return d
		}
	}
	return ""
}

func shapeDiff(g *lua.FunctionProto, l *luac51.Proto, path string) string {
	if len(g.FunctionPrototypes) != len(l.Protos) {
		return fmt.Sprintf("%s: %d nested functions, Lua 5.1 %d", path, len(g.FunctionPrototypes), len(l.Protos))
	}
	if path != "main" && g.LineDefined != l.LineDefined {
		return fmt.Sprintf("%s: defined at line %d, Lua 5.1 %d", path, g.LineDefined, l.LineDefined)
	}
	for i := range l.Protos {
		if d := shapeDiff(g.FunctionPrototypes[i], l.Protos[i], fmt.Sprintf("%s/%d", path, i)); d != "" {
			return d
		}
	}
	return ""
}
