package verify

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

// FuzzEval feeds arbitrary script bodies (shebang parser, Lua parser, goto
// check, concat rewrite, sandbox) to the engine: it must answer with a reply
// or a RunError, never panic or hang.
func FuzzEval(f *testing.F) {
	for _, s := range []string{
		"return 1", "#!lua flags=no-writes\nreturn 1", "#!lua name=x\n", "#!", "goto x", "::a::",
		"return 'a' .. 1 .. {}", "return string.format('%5.2f %q', 1, 'x')", "error({})",
		"return redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])", "return (", "local t = {} t[1] = t return t",
		"return tostring(0.1 + 0.2)", "x = 1", "return loadstring('return 1')()",
	} {
		f.Add([]byte(s), "v", "100")
	}
	f.Fuzz(func(t *testing.T, src []byte, arg, ttl string) {
		e := New(Options{Timeout: 50 * time.Millisecond})
		r, err := e.Eval(context.Background(), src, []string{"{k}a", "{k}b"}, []string{arg, ttl})
		if err != nil {
			var re *RunError
			if !errors.As(err, &re) || re.Code == "" {
				t.Fatalf("error is not a RunError: %v", err)
			}
			return
		}
		_ = r.String()
	})
}

// FuzzFunctionLoad feeds arbitrary library code to FUNCTION LOAD.
func FuzzFunctionLoad(f *testing.F) {
	for _, s := range []string{
		"#!lua name=l\nredis.register_function('f', function(k, a) return 1 end)",
		"#!lua name=l\nredis.register_function{function_name='f', callback=function() end, flags={'no-writes'}}",
		"#!lua\n", "#!lua name=a-b\n", "return 1", "#!lua name=l name=m\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, code []byte) {
		e := New(Options{Timeout: 50 * time.Millisecond})
		r, err := e.FunctionLoad(code, false)
		if err != nil {
			var re *RunError
			if !errors.As(err, &re) {
				t.Fatalf("error is not a RunError: %v", err)
			}
			return
		}
		if r.Kind == Bulk {
			if _, err := e.FCall(context.Background(), "f", nil, nil); err != nil {
				var re *RunError
				if !errors.As(err, &re) {
					t.Fatalf("error is not a RunError: %v", err)
				}
			}
		}
	})
}

// FuzzDo feeds arbitrary commands to the keyspace.
func FuzzDo(f *testing.F) {
	f.Add("SET", "k", "v", "PX")
	f.Add("EXPIRE", "k", "10", "NX")
	f.Add("HINCRBY", "k", "f", "-9223372036854775808")
	f.Add("GETEX", "k", "EXAT", "1")
	f.Fuzz(func(t *testing.T, c, a1, a2, a3 string) {
		e := New(Options{})
		ctx := context.Background()
		e.Do(ctx, "SET", "k", "1")
		for _, args := range [][]string{{c}, {c, a1}, {c, a1, a2}, {c, a1, a2, a3}} {
			if _, err := e.Do(ctx, args...); err != nil {
				var re *RunError
				if !errors.As(err, &re) {
					t.Fatalf("%q: error is not a RunError: %v", args, err)
				}
			}
		}
	})
}

// FuzzSyntax51 checks the Lua 5.1 parser: it returns an error in Lua's
// "chunk:line: message" shape or a tree, and never panics. Where
// gopher-lua's parser also reads the chunk as Lua 5.1 does, the two trees
// are the same (TestParse51TreeMatchesGopher), and the rewritten chunk
// compiles.
func FuzzSyntax51(f *testing.F) {
	for _, s := range append([]string{
		"return 1", "local = 3", "if x then", "return [[abc", "return 'a\\300'", "for a b in c do end",
		"local t = {a = 1, [2] = 3; 4}", "f{...}", "a.b:c'x'", "return -#not x ^ 2 .. 'y'",
		"goto continue", "--[==[ comment ]==] return 0x10, 1e5, .5", "return 1..2",
	}, treeCases...) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		got, info, err := parseChunk51(src, "user_script", true)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "user_script:") {
				t.Fatalf("error without position: %q", err)
			}
			return
		}
		if want, ok := gopherTree(src); ok {
			w := &opWalker{ops: info.ops, calls: info.calls, index: info.index}
			w.stmts(want)
			if !w.bad && w.n == len(info.ops) && w.nc == len(info.calls) && w.ni == len(info.index) {
				setOpLines(want, info.ops, info.calls, info.index)
				numeralValues(t, reflect.ValueOf(got), true)
				numeralValues(t, reflect.ValueOf(want), false)
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("tree differs from gopher-lua's for %q", src)
				}
			}
		}
		if _, _, err := compileSites(src, "@user_script"); err != nil {
			t.Logf("parsed, not compiled: %q: %v", src, err)
		}
	})
}

// FuzzPatterns runs Lua 5.1 pattern matching (patterns.go) on arbitrary
// subjects and patterns: a reply or a RunError, never a panic or a hang.
func FuzzPatterns(f *testing.F) {
	for _, s := range [][2]string{
		{"THE (quick) fox", "%f[%a]%a+"}, {"abc", "[a"}, {"x(a(b)c)y", "%b()"}, {"key=val", "(%w+)=(%w+)"},
		{"aaa", "^a-$"}, {"abc", "()b()"}, {"abc", "%1"}, {"a]b", "[]]"}, {"", "(.-)$"},
	} {
		f.Add(s[0], s[1])
	}
	src := []byte("return {string.find(ARGV[1], ARGV[2]), string.match(ARGV[1], ARGV[2]), string.gsub(ARGV[1], ARGV[2], '<%0>')}")
	e := New(Options{Timeout: 100 * time.Millisecond})
	f.Fuzz(func(t *testing.T, subject, pattern string) {
		if _, err := e.Eval(context.Background(), src, nil, []string{subject, pattern}); err != nil {
			var re *RunError
			if !errors.As(err, &re) {
				t.Fatalf("error is not a RunError: %v", err)
			}
		}
	})
}
