package verify

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/yuin/gopher-lua/ast"
	"github.com/yuin/gopher-lua/parse"
	"gopkg.in/yaml.v3"

	"github.com/scriptctl/scriptctl/internal/cnum"
	"github.com/scriptctl/scriptctl/verify/luac51"
)

// corpusScripts returns the Lua sources of the differential corpus (each
// snippet's script) and of the repository's .lua files.
func corpusScripts(t testing.TB) []string {
	t.Helper()
	var out []string
	files, _ := filepath.Glob("difftest/testdata/snippets/*.yaml")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var list []map[string]any
		if err := yaml.Unmarshal(b, &list); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, m := range list {
			if s, _ := m["script"].(string); s != "" {
				out = append(out, s)
			}
		}
	}
	err := filepath.WalkDir("..", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && strings.HasPrefix(d.Name(), ".") && path != ".." {
			return filepath.SkipDir
		}
		if strings.HasSuffix(path, ".lua") {
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			out = append(out, string(b))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// gopherTree is what gopher-lua's own parser reads src as. ok is false
// where it cannot read it as Lua 5.1 does: a parse error, or bytes it reads
// otherwise (form feeds, vertical tabs and NUL bytes, which Lua 5.1 skips
// or reads as part of a token, and goto, a keyword to it); the live corpus
// proves those chunks (lua_goto.yaml and others).
func gopherTree(src []byte) (chunk []ast.Stmt, ok bool) {
	if bytes.ContainsAny(src, "\f\v\x00") || bytes.Contains(src, []byte("goto")) {
		return nil, false
	}
	chunk, err := parse.Parse(bytes.NewReader(src), "x")
	return chunk, err == nil
}

// numeralValues sets every numeral of the tree v to the text of the value
// Lua 5.1 reads it as (strtod, cnum.Str2d), so that two trees compare by
// value: gopher-lua's parser keeps a numeral's text, which gopher-lua's
// compiler then misreads in places ("0100" as octal, "1e400" as a NaN).
// With compiled set, each numeral must also be one gopher-lua's compiler
// reads as Lua 5.1 does (the Lua 5.1 parser's numerals, numeralText).
func numeralValues(t testing.TB, v reflect.Value, compiled bool) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return
		}
		if n, ok := v.Interface().(*ast.NumberExpr); ok {
			f, ok := cnum.Str2d(n.Value)
			if !ok {
				t.Fatalf("numeral %q is not a number to Lua", n.Value)
			}
			if compiled {
				g := math.NaN()
				if i, err := strconv.ParseInt(n.Value, 0, 64); err == nil {
					g = float64(i)
				} else if h, err := strconv.ParseFloat(n.Value, 64); err == nil {
					g = h
				}
				if g != f {
					t.Errorf("numeral %q: gopher-lua's compiler reads %v, Lua %v", n.Value, g, f)
				}
			}
			n.Value = strconv.FormatFloat(f, 'g', -1, 64)
			return
		}
		numeralValues(t, v.Elem(), compiled)
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				numeralValues(t, v.Field(i), compiled)
			}
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			numeralValues(t, v.Index(i), compiled)
		}
	}
}

// treeCases are chunks whose lines the parsers could disagree on: nodes
// that span lines, parentheses whose expression starts on a later line,
// long strings, and every kind of node.
var treeCases = []string{
	"local a = (\n1)\nreturn (\n\na), (\n...)",
	"local t = {}\nlocal x = (\nt).y\nlocal z = (\n\nf\n)(\n1)",
	"return (\nf())",
	"return ((\nf()))",
	"local s = [[\nab\ncd]] .. [==[\n]]\n]==]\nreturn s, #\n\ns",
	"local x = \"a\\\nb\" return x",
	"function a.b.c:d(x, ...)\nreturn self, x, ...\nend",
	"local function f(a,\nb)\nreturn a\nend",
	"for i = 1,\n2,\n3 do\nend\nfor k, v in\npairs({})\ndo end",
	"while\nfalse\ndo break end\nrepeat local x = 1 until\nx",
	"if a then elseif\nb then elseif c then else end",
	"local t = {\n[1] =\n2, x =\n3; 4,\n}",
	"a, b.c, d[\n1] = 1,\n2, 3",
	"f\n{1}\nf\n'x'\nt:m\n(1)",
	"return not\na, -\nb, #\nc, - - 1, 2^-3^2, 1 .. 2 .. 3",
	"return 1 +\n2 *\n3 ==\n4 and\n5 or\n6",
	"return 0x10, 0123, 00100, 1e2, .5, 5., 0xAp1, 1e400",
	"local goto = 1\nreturn goto",
	"do\nlocal x\nend\ndo end",
	"return function(...)\nreturn ...\nend, function() end",
}

// TestParse51TreeMatchesGopher: for every script of the corpus that
// gopher-lua's parser reads as Lua 5.1 does, the Lua 5.1 parser builds the
// same tree, node for node, field for field and line for line, numerals
// compared by value, once gopher-lua's tree is given Lua 5.1's lines from
// the operators, calls and field accesses the parser recorded in the order
// Lua 5.1 completes them (setOpLines). So the compiler gets the tree it
// got from gopher-lua's parser, and the parser's own lines (setLines)
// agree with the recorded ones.
func TestParse51TreeMatchesGopher(t *testing.T) {
	n := 0
	for _, s := range append(corpusScripts(t), treeCases...) {
		got, info, err := parseChunk51([]byte(s), "x", true)
		if err != nil {
			continue
		}
		want, ok := gopherTree([]byte(s))
		if !ok {
			continue
		}
		n++
		// ParseLua51 leaves gopher-lua's lines: its tree is gopher-lua's.
		plain, err := ParseLua51([]byte(s), "x")
		if err != nil {
			t.Fatalf("ParseLua51: %v", err)
		}
		numeralValues(t, reflect.ValueOf(plain), true)
		numeralValues(t, reflect.ValueOf(want), false)
		if !reflect.DeepEqual(plain, want) {
			t.Errorf("ParseLua51's tree differs from gopher-lua's for:\n%s", s)
		}
		w := &opWalker{ops: info.ops, calls: info.calls, index: info.index}
		w.stmts(want)
		if w.bad || w.n != len(info.ops) || w.nc != len(info.calls) || w.ni != len(info.index) {
			t.Errorf("recorded lines do not line up with the tree (at operator %d of %d):\n%s", w.n, len(info.ops), s)
			continue
		}
		setOpLines(want, info.ops, info.calls, info.index)
		numeralValues(t, reflect.ValueOf(got), true)
		numeralValues(t, reflect.ValueOf(want), false)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("tree differs from gopher-lua's for:\n%s", s)
		}
	}
	if n < 1000 {
		t.Fatalf("only %d scripts compared", n)
	}
	t.Logf("%d scripts", n)
}

// limitError is an error of a limit of Lua 5.1's compiler, which the parser
// does not check.
var limitError = regexp.MustCompile(`has more than \d+ (local variables|upvalues)|function or expression too complex|constant table overflow|control structure too long`)

// TestLuac51AcceptsWhatParse51Accepts: every chunk compiles with its Lua
// 5.1 compiler too (compileSites), whose refusal is final; so over the
// corpus and the repository's scripts the two must agree, error for error,
// but for the chunks past a limit of Lua 5.1's compiler (the loadstring
// snippets of lua_compile_limits.yaml build theirs at run time).
func TestLuac51AcceptsWhatParse51Accepts(t *testing.T) {
	n := 0
	for _, s := range append(corpusScripts(t), treeCases...) {
		_, _, perr := parse51([]byte(s), chunkID("@user_script"))
		_, lerr := luac51.Compile([]byte(s), "@user_script")
		switch {
		case perr == nil && lerr != nil && !limitError.MatchString(lerr.Error()):
			t.Errorf("luac51 refuses what the parser reads: %v\n%s", lerr, s)
		case perr != nil && (lerr == nil || lerr.Error() != perr.Error()):
			t.Errorf("parser: %v; luac51: %v\n%s", perr, lerr, s)
		}
		n++
	}
	t.Logf("%d chunks", n)
}
