package mutate

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/scriptctl/scriptctl/manifest"
)

// brief is a mutant as "line:col operator from→to".
func brief(m Mutant) string {
	return fmt.Sprintf("%d:%d %s %s→%s", m.Line, m.Col, m.Operator, m.From, m.To)
}

func TestGenerate(t *testing.T) {
	src := "#!lua flags=no-writes\n" +
		"local a = -1 -- a < b and 'EX' in a comment\n" +
		"if a <= 2 and not b or c ~= 'nx' then\n" +
		"  redis.call('SET', KEYS[1], x * 3, \"PX\", 10 - -a)\n" +
		"end\n" +
		"local s = '>= 1' .. [[ == ]]\n" +
		"return redis.call('GET', KEYS[1]) == true\n"
	ms, err := Generate("s", "s.lua", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range ms {
		got = append(got, brief(m))
	}
	want := []string{
		"2:12 constant 1→2", "2:12 constant 1→0", // -1: the unary minus is no arithmetic
		"3:6 relational <=→<",
		"3:9 constant 2→3", "3:9 constant 2→1",
		"3:11 logical and→or",
		"3:15 negation not →",
		"3:21 logical or→and",
		"3:26 equality ~=→==",
		"3:29 option 'nx'→'xx'", // in the literal's case
		"4:3 call-deleted redis.call('SET', KEYS[1], x * 3, \"PX\", 10 - -a)→",
		"4:26 constant 1→2", "4:26 constant 1→0",
		"4:32 arithmetic *→/",
		"4:34 constant 3→4", "4:34 constant 3→2",
		"4:37 option \"PX\"→\"EX\"",
		"4:43 constant 10→11", "4:43 constant 10→9",
		"4:46 arithmetic -→+", // "10 + -a": never "10 --a", a comment
		"7:31 constant 1→2", "7:31 constant 1→0",
		"7:35 equality ==→~=",
		"7:38 boolean true→false",
	}
	if !slices.Equal(got, want) {
		t.Errorf("mutants:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// No mutant touches a comment, a string's contents or the shebang, and
	// the returned statement's redis.call is an expression, not deleted.
	for _, m := range ms {
		if m.Line == 1 || m.Line == 6 {
			t.Errorf("mutant in the shebang or a string: %s", brief(m))
		}
	}
}

func TestApply(t *testing.T) {
	src := []byte("local n = 0\nif n - 1 < 0 then redis.call('DEL', KEYS[1]) end\nreturn n\n")
	ms, err := Generate("s", "s.lua", src)
	if err != nil {
		t.Fatal(err)
	}
	applied := map[string]string{}
	for _, m := range ms {
		applied[brief(m)] = string(m.Apply(src))
	}
	for mutant, want := range map[string]string{
		"1:11 constant 0→(-1)":                          "local n = (-1)\nif n - 1 < 0 then redis.call('DEL', KEYS[1]) end\nreturn n\n",
		"2:6 arithmetic -→+":                            "local n = 0\nif n + 1 < 0 then redis.call('DEL', KEYS[1]) end\nreturn n\n",
		"2:10 relational <→<=":                          "local n = 0\nif n - 1 <= 0 then redis.call('DEL', KEYS[1]) end\nreturn n\n",
		"2:19 call-deleted redis.call('DEL', KEYS[1])→": "local n = 0\nif n - 1 < 0 then  end\nreturn n\n",
	} {
		got, ok := applied[mutant]
		if !ok {
			t.Errorf("no mutant %s among %v", mutant, applied)
			continue
		}
		if got != want {
			t.Errorf("%s applied:\n%q\nwant\n%q", mutant, got, want)
		}
	}
}

// TestCallStatement: a redis.call whose reply is used is an expression and
// is never deleted; every call statement is.
func TestCallStatement(t *testing.T) {
	for _, tc := range []struct {
		src     string
		deleted int
	}{
		{"redis.call('DEL', KEYS[1])", 1},
		{"redis.call('DEL', KEYS[1]); redis.pcall('DEL', KEYS[2])", 2},
		{"local x = redis.call('GET', KEYS[1])", 0},
		{"local x = f() redis.call('DEL', KEYS[1])", 1},
		{"return redis.call('GET', KEYS[1])", 0},
		{"f(redis.call('GET', KEYS[1]))", 0},
		{"redis.call('HGETALL', KEYS[1])[1] = 2", 0},
		{"if x then redis.call('DEL', 'a') else server.call('DEL', 'b') end", 2},
		{"local t = {redis.call('GET', 'a')}", 0},
		{"redis.call('GET', 'a'):len()", 0},
		{"redis.status_reply('OK')", 0},
	} {
		ms, err := Generate("s", "s.lua", []byte(tc.src))
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, m := range ms {
			if m.Operator == OpCall {
				n++
			}
		}
		if n != tc.deleted {
			t.Errorf("%q: %d call-deleted mutants, want %d", tc.src, n, tc.deleted)
		}
	}
}

func TestIgnoreComment(t *testing.T) {
	src := []byte("-- scriptctl:ignore mutant-survived the bound cannot be observed\n" +
		"if #a > 15 then return 1 end\n" +
		"if b > 2 then return 1 end -- scriptctl:ignore mutant-survived equivalent\n" +
		"if c > 3 then return 1 end\n")
	ms, err := Generate("s", "s.lua", src)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		want := map[int]string{2: "the bound cannot be observed", 3: "equivalent", 4: "equivalent"}[m.Line]
		if m.Ignored != want {
			t.Errorf("%s: ignored %q, want %q", brief(m), m.Ignored, want)
		}
	}
}

func TestLexErrors(t *testing.T) {
	for _, src := range []string{"local s = 'abc", "local s = [[abc", "--[==[ never closed", "local x = 1 @ 2"} {
		if _, err := Generate("s", "s.lua", []byte(src)); err == nil {
			t.Errorf("%q: no error", src)
		}
	}
}

func FuzzGenerate(f *testing.F) {
	for _, s := range []string{"return 1", "if a < b and not c then redis.call('SET', 'k', 'v', 'EX', 5) end", "local s = [==[x]==] .. 'y\\'z' -- c", "x = 0x10 + 1e5 - .5"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		ms, err := Generate("s", "s.lua", []byte(src))
		if err != nil {
			return
		}
		for _, m := range ms {
			if m.Off < 0 || m.End < m.Off || m.End > len(src) || src[m.Off:m.End] != m.From {
				t.Fatalf("mutant %s: bad span [%d,%d) of %d bytes", brief(m), m.Off, m.End, len(src))
			}
			if out := m.Apply([]byte(src)); len(out) != len(src)-len(m.From)+len(m.To) {
				t.Fatalf("mutant %s: applied length %d", brief(m), len(out))
			}
		}
	})
}

// repo copies testdata/repo (a counter script, one scenario) into a temp
// folder, with edit applied to its script, and loads it.
func repo(t *testing.T, edit func(string) string) *manifest.Manifest {
	t.Helper()
	dir := t.TempDir()
	for _, rel := range []string{"manifest.yaml", "lua/bump.lua", "lua_test/bump.yaml"} {
		b, err := os.ReadFile(filepath.Join("testdata", "repo", rel))
		if err != nil {
			t.Fatal(err)
		}
		if rel == "lua/bump.lua" && edit != nil {
			b = []byte(edit(string(b)))
		}
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(rel)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, rel), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	m, err := manifest.Load(filepath.Join(dir, "manifest.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestRun(t *testing.T) {
	m := repo(t, nil)
	rep, err := Run(context.Background(), m, Options{Parallel: 2, StepLimit: testStepLimit})
	if err != nil {
		t.Fatal(err)
	}
	status := map[string]Result{}
	for _, r := range rep.Results {
		status[brief(r.Mutant)] = r
	}
	for mutant, want := range map[string]string{
		"9:9 arithmetic +→-":    Killed,   // endless loop: stopped by the step limit
		"11:10 relational >→>=": Survived, // no scenario sits exactly at the cap
		"11:6 arithmetic +→-":   Killed,
		"14:1 call-deleted redis.call('SET', KEYS[1], n + i, 'EX', 60)→": Killed,
		"14:35 option 'EX'→'PX'": Killed,   // the TTL is checked
		"5:27 constant 2→1":      Survived, // ARGV[1] and ARGV[2] are equal in the scenario
	} {
		r, ok := status[mutant]
		if !ok {
			t.Errorf("no mutant %s", mutant)
			continue
		}
		if r.Status != want {
			t.Errorf("%s: %s (%s), want %s", mutant, r.Status, r.By, want)
		}
	}
	if r := status["9:9 arithmetic +→-"]; !strings.Contains(r.By, "steps") {
		t.Errorf("the endless loop was not stopped by the step limit: %s", r.By)
	}
	if r := status["14:1 call-deleted redis.call('SET', KEYS[1], n + i, 'EX', 60)→"]; !strings.Contains(r.By, `scenario "bump below, at and over the cap"`) {
		t.Errorf("killed by %q, want the scenario named", r.By)
	}
	if rep.Scenarios != 1 || rep.Models != 0 {
		t.Errorf("scenarios %d models %d", rep.Scenarios, rep.Models)
	}
	k, s := rep.Count(Killed), rep.Count(Survived)
	if k+s != len(rep.Results) || s == 0 || rep.Score() != 100*float64(k)/float64(k+s) {
		t.Errorf("killed %d survived %d of %d, score %v", k, s, len(rep.Results), rep.Score())
	}
	// Results come in source order.
	for i := 1; i < len(rep.Results); i++ {
		if rep.Results[i].Off < rep.Results[i-1].Off {
			t.Fatalf("results out of order at %d", i)
		}
	}

	// The same run with an ignore comment on the cap's line: its mutants
	// are not run.
	m = repo(t, func(s string) string {
		return strings.Replace(s, "if n + i > cap then", "-- scriptctl:ignore mutant-survived checked by the service's own test\nif n + i > cap then", 1)
	})
	rep, err = Run(context.Background(), m, Options{Operators: []string{OpRelational}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rep.Results {
		got = append(got, fmt.Sprintf("%d %s %s", r.Line, r.Status, r.Ignored))
	}
	want := []string{"8 killed ", "12 ignored checked by the service's own test"}
	if !slices.Equal(got, want) {
		t.Errorf("relational mutants: %q, want %q", got, want)
	}
}

// TestRunLua51Only: a script Redis's Lua 5.1 reads and gopher-lua's parser
// refuses (here a form feed, white space to Lua 5.1) has its mutants
// judged, not all declared stillborn.
func TestRunLua51Only(t *testing.T) {
	m := repo(t, func(s string) string { return strings.Replace(s, "local i = 0\n", "local i = 0\f\n", 1) })
	rep, err := Run(context.Background(), m, Options{Operators: []string{OpRelational}, StepLimit: testStepLimit})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Results) == 0 || rep.Count(Stillborn) != 0 || rep.Count(Killed) == 0 {
		t.Errorf("%d mutants: %d stillborn, %d killed; want none stillborn, some killed", len(rep.Results), rep.Count(Stillborn), rep.Count(Killed))
	}
}

func TestRunBaselineFails(t *testing.T) {
	m := repo(t, func(s string) string { return strings.Replace(s, "'EX', 60", "'EX', 61", 1) })
	_, err := Run(context.Background(), m, Options{})
	var be *BaselineError
	if !errors.As(err, &be) || !strings.Contains(err.Error(), "ttl") {
		t.Fatalf("err %v, want a BaselineError naming the failing step", err)
	}
}

// TestEquivalentsAmbiguous: an entry that matches two mutants of a line
// must name the column.
func TestEquivalentsAmbiguous(t *testing.T) {
	m := repo(t, func(s string) string {
		return strings.Replace(s, "return n + i\n", "return n + i + 0 * 1 + 0 * 1\n", 1)
	})
	p := filepath.Join(m.Dir, EquivalentFile)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	entry := "equivalent:\n  - script: bump\n    line: 15\n    operator: constant\n    from: '1'\n    to: '2'\n    reason: times zero\n"
	if err := os.WriteFile(p, []byte(entry), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Run(context.Background(), m, Options{})
	if err == nil || !strings.Contains(err.Error(), "2 constant mutants `1` → `2` at bump line 15 (columns 20, 28): add column to name one") {
		t.Fatalf("err %v", err)
	}
	if err := os.WriteFile(p, []byte(entry+"    column: 28\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := Run(context.Background(), m, Options{Operators: []string{OpConstant}})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range rep.Results {
		if r.Status == Ignored {
			n++
			if r.Line != 15 || r.Col != 28 {
				t.Errorf("ignored %s", brief(r.Mutant))
			}
		}
	}
	if n != 1 {
		t.Errorf("%d ignored, want 1", n)
	}
}

func TestEquivalentsFile(t *testing.T) {
	m := repo(t, nil)
	write := func(body string) {
		t.Helper()
		p := filepath.Join(m.Dir, EquivalentFile)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// One entry names the cap's boundary mutant: it is ignored, with the reason.
	write("equivalent:\n  - script: bump\n    line: 11\n    operator: relational\n    from: '>'\n    to: '>='\n    reason: the service never sends a step past the cap\n")
	rep, err := Run(context.Background(), m, Options{Operators: []string{OpRelational}})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Results {
		want := ""
		if r.Line == 11 {
			want = "the service never sends a step past the cap"
		}
		if r.Ignored != want || (want != "") != (r.Status == Ignored) {
			t.Errorf("%s: %s ignored %q, want %q", brief(r.Mutant), r.Status, r.Ignored, want)
		}
	}
	for _, tc := range []struct{ body, want string }{
		{"equivalent:\n  - script: bump\n    line: 11\n    operator: relational\n    from: '<'\n    to: '<='\n    reason: x\n", "mutants.yaml"},
		{"equivalent:\n  - script: bmp\n    line: 11\n    operator: relational\n    from: '>'\n    reason: x\n", `unknown script "bmp" (did you mean "bump"?)`},
		{"equivalent:\n  - script: bump\n    line: 0\n    operator: relationl\n    from: '>'\n    reason: ''\n", "line: must be a line number from 1"},
		{"equivalent: {}\n", "must be a list of mutants"},
		{"equivalents: []\n", "unknown field: want equivalent"},
		{"equivalent:\n  - script: bump\n", "missing line"},
	} {
		write(tc.body)
		_, err := Run(context.Background(), m, Options{Operators: []string{OpRelational}})
		var errs manifest.Errors
		if !errors.As(err, &errs) {
			t.Errorf("%q: err %v, want manifest.Errors", tc.body, err)
			continue
		}
		if !strings.Contains(err.Error(), filepath.Join("lua_test", "mutate", "equivalent.yaml")) {
			t.Errorf("%q: %v does not name the file", tc.body, err)
		}
		switch {
		case tc.want == "mutants.yaml":
			if !strings.Contains(err.Error(), "no relational mutant `<` → `<=` at bump line 11") {
				t.Errorf("stale entry: %v", err)
			}
		default:
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%q: %v, want %q", tc.body, err, tc.want)
			}
		}
	}
}

// TestBundledNoSurvivor: every mutant of the repository's own scripts and
// of each example is killed by its scenarios and models, except the
// equivalent ones listed in lua_test/mutate/equivalent.yaml.
func TestBundledNoSurvivor(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs the bundled scenarios once per mutant")
	}
	for _, tc := range []struct {
		manifest   string
		equivalent int
	}{
		{"../manifest.yaml", 4},
		{"../examples/rate_limiter/manifest.yaml", 2},
		{"../examples/reliable_queue/manifest.yaml", 0},
		{"../examples/token_bucket/manifest.yaml", 0},
	} {
		name := filepath.Base(filepath.Dir(tc.manifest))
		if name == ".." {
			name = "bundled"
		}
		t.Run(name, func(t *testing.T) {
			m, err := manifest.Load(tc.manifest)
			if err != nil {
				t.Fatal(err)
			}
			rep, err := Run(context.Background(), m, Options{})
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range rep.Results {
				if r.Status == Survived {
					t.Errorf("%s:%d:%d: %s mutant %s survived", r.File, r.Line, r.Col, r.Operator, r.Description())
				}
			}
			if n, ig := len(rep.Results), rep.Count(Ignored); n < 50 || ig != tc.equivalent {
				t.Errorf("%d mutants, %d ignored: want the whole set and the %d listed equivalents", n, ig, tc.equivalent)
			}
			t.Logf("%d mutants: %d killed, %d ignored", len(rep.Results), rep.Count(Killed), rep.Count(Ignored))
		})
	}
}
