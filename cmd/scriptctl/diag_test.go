package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/scriptctl/scriptctl/internal/diag"
	"github.com/scriptctl/scriptctl/internal/iostreams"
	"github.com/scriptctl/scriptctl/internal/redistest"
	"github.com/scriptctl/scriptctl/internal/target"
)

// diagLine is the shared text form of a finding.
var diagLine = regexp.MustCompile(`^[^\s:]+(:\d+(:\d+)?)?: (error|warning) [a-z][a-z0-9-]*: \S.*$`)

// TestDiagnosticShape runs the failure path of every command that reports
// findings or reads an input file, in text and in JSON: each text finding
// line has the shared shape (file:line:col: severity code: message, detail
// lines indented), and each JSON finding carries exactly the shared fields
// inside a document with format_version 2.
func TestDiagnosticShape(t *testing.T) {
	dir := ciRepo(t)
	m := filepath.Join(dir, "manifest.yaml")
	write := func(name, text string) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// A caller whose keys can land in different slots, for check-keys.
	split := write("split.yaml", "schema: 1\nlibrary: x\nversion: 1\nscripts:\n  pair:\n    file: lua/release.lua\n    keys: [a, b]\n    args: [token]\n"+
		"callers:\n  svc:\n    scripts: [pair]\n    keys:\n      a: \"x:{<id>}\"\n      b: \"y:<id>\"\n")
	// Invalid input: a manifest, a scenario and a model with problems.
	badManifest := write("bad/manifest.yaml", "schema: 1\nlibrary: x\nversion: 0\nscirpts: {}\n")
	badScenario := write("badscen/bad.yaml", "bogus: 1\nsteps:\n  - call: nosuch\n")
	badModel := write("badmodel/bad.yaml", "name: x\nbound: 3\n")
	sumManifest := write("badsum/manifest.yaml", "schema: 1\nlibrary: x\nversion: 1\nscripts:\n  a:\n    file: a.lua\n    keys: [k]\n")
	write("badsum/a.lua", "return redis.call('GET', KEYS[1])\n")
	write("badsum/scripts.sum", "garbage\n")
	undeclared := write("eval/undeclared.lua", "return redis.call('GET', 'other')\n")
	badState := write("eval/state.yaml", "lease:\n  valu: x\n")

	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stderr bool // the text findings go to stderr
		noJSON bool // --format json prints the command's own document
	}{
		{"check", []string{"check", "-m", m}, 1, false, false},
		{"lint", []string{"lint", "-m", m}, 1, false, false},
		{"verify", []string{"verify", "-m", m, filepath.Join(dir, "lua_test")}, 1, false, false},
		{"check-keys", []string{"check-keys", "-m", split}, 1, true, false},
		{"plan", []string{"plan", "-m", m, "--url", "redis://127.0.0.1:1"}, 1, true, false}, // the pre-flight gate
		{"manifest", []string{"check-keys", "-m", badManifest}, 2, true, false},
		{"sum", []string{"sum", "-m", sumManifest}, 2, true, false},
		{"scenario", []string{"verify", "-m", m, badScenario}, 2, true, false},
		{"model", []string{"explore", "-m", m, badModel}, 2, true, false},
		{"eval", []string{"eval", "--strict-keys", undeclared}, 1, true, false},
		{"eval-warning", []string{"eval", undeclared}, 0, true, false},
		{"state", []string{"eval", "--state", badState, undeclared}, 2, true, false},
	} {
		t.Run(tc.name+"/text", func(t *testing.T) {
			ios, _, out, errOut := iostreams.Test()
			if code := run(context.Background(), ios, tc.args); code != tc.code {
				t.Fatalf("exit %d, want %d\n%s%s", code, tc.code, out, errOut)
			}
			text := out.String()
			if tc.stderr {
				text = errOut.String()
			}
			n := 0
			for _, l := range strings.Split(text, "\n") {
				if !strings.Contains(l, ": error ") && !strings.Contains(l, ": warning ") || strings.HasPrefix(l, " ") {
					continue
				}
				n++
				if !diagLine.MatchString(l) {
					t.Errorf("not in the shared format: %q", l)
				}
			}
			if n == 0 {
				t.Fatalf("no finding lines in:\n%s", text)
			}
			if tc.code == 2 && strings.Contains(errOut.String(), "Error: ") {
				t.Errorf("a problem printed as a plain error:\n%s", errOut)
			}
		})
		if tc.noJSON {
			continue
		}
		t.Run(tc.name+"/json", func(t *testing.T) {
			ios, _, out, errOut := iostreams.Test()
			if code := run(context.Background(), ios, append(tc.args, "--format", "json")); code != tc.code {
				t.Fatalf("exit %d, want %d\n%s%s", code, tc.code, out, errOut)
			}
			checkDiagnosticJSON(t, out.String())
		})
	}
}

// TestDiagnosticShapeFindings is TestDiagnosticShape for explore (a model
// whose predicate fails), diff (a manifest never deployed) and inspect
// (nodes that should agree differ, with --exit-code): each case's setup
// returns the arguments, the diagnostic code and the line every run must
// report, text and JSON exit alike.
func TestDiagnosticShapeFindings(t *testing.T) {
	// diff and inspect share one primary and its replica (starting a
	// pair waits for the replica's sync): diff runs first, on servers
	// with nothing loaded, then inspect loads a script on the primary.
	primary, replica := redistest.Replicated(t)
	shapeServers := func(t *testing.T) (*redistest.Server, *redistest.Server) {
		t.Helper()
		noConnEnv(t)
		return primary, replica
	}
	for _, tc := range []struct {
		name   string
		setup  func(t *testing.T) (args []string, code string, line int)
		exit   int
		stderr bool // the text findings go to stderr
	}{
		{name: "explore", exit: 1, setup: func(t *testing.T) ([]string, string, int) {
			dir := shapeFiles(t, exploreShapeFiles)
			return []string{"explore", "-m", filepath.Join(dir, "manifest.yaml"), filepath.Join(dir, "model.yaml")}, "invariant-violated", 9
		}},
		{name: "diff", exit: 1, stderr: true, setup: func(t *testing.T) ([]string, string, int) {
			p, _ := shapeServers(t)
			return []string{"diff", "-m", loaderProject(t, "1"), "--url", p.URL()}, "absent", 0
		}},
		{name: "inspect", exit: 1, stderr: true, setup: func(t *testing.T) ([]string, string, int) {
			p, rep := shapeServers(t)
			p.MustDo("SCRIPT", "LOAD", inspV1)
			rep.MustDo("SCRIPT", "FLUSH")
			return []string{"inspect", "--url", p.URL(), "--sum", inspectSum(t), "--exit-code"}, "differs", 1
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args, code, line := tc.setup(t)
			want := func(ds []diag.Diagnostic) {
				t.Helper()
				if !slices.ContainsFunc(ds, func(d diag.Diagnostic) bool { return d.Code == code && d.Line == line }) {
					t.Errorf("no %s finding at line %d: %+v", code, line, ds)
				}
			}
			ios, _, out, errOut := iostreams.Test()
			if got := run(context.Background(), ios, args); got != tc.exit {
				t.Fatalf("text: exit %d, want %d\n%s%s", got, tc.exit, out, errOut)
			}
			text := out.String()
			if tc.stderr {
				text = errOut.String()
			}
			want(checkDiagnosticText(t, text))

			ios, _, out, errOut = iostreams.Test()
			if got := run(context.Background(), ios, append(args, "--format", "json")); got != tc.exit {
				t.Fatalf("json: exit %d, want %d\n%s%s", got, tc.exit, out, errOut)
			}
			checkDiagnosticJSON(t, out.String())
			var doc struct{ Diagnostics []diag.Diagnostic }
			if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
				t.Fatal(err)
			}
			want(doc.Diagnostics)
		})
	}
}

// checkDiagnosticText fails unless text has finding lines, each in the
// shared shape, and returns them parsed.
func checkDiagnosticText(t *testing.T, text string) []diag.Diagnostic {
	t.Helper()
	pos := regexp.MustCompile(`^([^\s:]+)(?::(\d+)(?::(\d+))?)?: (error|warning) ([a-z0-9-]+): (.*)$`)
	var ds []diag.Diagnostic
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, "    ") && len(ds) > 0 {
			ds[len(ds)-1].Detail = append(ds[len(ds)-1].Detail, strings.TrimPrefix(l, "    "))
			continue
		}
		if !strings.Contains(l, ": error ") && !strings.Contains(l, ": warning ") || strings.HasPrefix(l, " ") {
			continue
		}
		m := pos.FindStringSubmatch(l)
		if m == nil || !diagLine.MatchString(l) {
			t.Errorf("not in the shared format: %q", l)
			continue
		}
		line, _ := strconv.Atoi(m[2])
		col, _ := strconv.Atoi(m[3])
		ds = append(ds, diag.Diagnostic{File: m[1], Line: line, Column: col, Severity: m[4], Code: m[5], Message: m[6]})
	}
	if len(ds) == 0 {
		t.Fatalf("no finding lines in:\n%s", text)
	}
	return ds
}

// shapeServers starts a primary and its replica once per test.
// shapeFiles writes files (name, then text) into a temp dir.
func shapeFiles(t *testing.T, files []string) string {
	t.Helper()
	dir := t.TempDir()
	for i := 0; i < len(files); i += 2 {
		p := filepath.Join(dir, files[i])
		if err := os.WriteFile(p, []byte(files[i+1]), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// exploreShapeFiles: a model whose predicate (named on line 9) fails once
// publish writes the value.
var exploreShapeFiles = []string{
	"manifest.yaml", "schema: 1\nlibrary: t\nversion: 1\nscripts:\n  acquire:\n    file: acquire.lua\n    keys: [lease]\n    args: [token, ttl]\n" +
		"  publish:\n    file: publish.lua\n    keys: [lease, value]\n    args: [token, candidate]\n" +
		"callers:\n  svc:\n    scripts: [acquire, publish]\n    keys:\n      lease: \"c:{p-<id>}:lease\"\n      value: \"c:{p-<id>}:value\"\n",
	"acquire.lua", "if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then\n  return 'acquired'\nend\nreturn 'busy'\n",
	"publish.lua", "if redis.call('GET', KEYS[1]) ~= ARGV[1] then\n  return 0\nend\nredis.call('SET', KEYS[2], ARGV[2])\nreturn 1\n",
	"model.yaml", "vars: {id: \"1\"}\nprotocol:\n  acquire: {script: acquire, args: {token: \"${token}\", ttl: \"100\"}, owned: acquired, ttl_arg: ttl}\n" +
		"  publish: {script: publish, args: {token: \"${token}\", candidate: \"${candidate}\"}, accepted: \"1\"}\n" +
		"workers:\n  a: [acquire, read, publish]\ninvariants:\n  predicates:\n    - name: nothing published\n      assert: [\"${key.value}\", \"==\", \"\"]\n",
}

// checkDiagnosticJSON fails unless doc is a format_version 2 document with
// findings (diagnostics, or check's steps[].findings) that carry exactly
// the shared fields.
func checkDiagnosticJSON(t *testing.T, text string) {
	t.Helper()
	want := []string{"code", "column", "detail", "file", "line", "message", "severity"}
	var doc struct {
		FormatVersion string                       `json:"format_version"`
		Diagnostics   []map[string]json.RawMessage `json:"diagnostics"`
		Steps         []struct {
			Findings []map[string]json.RawMessage `json:"findings"`
		} `json:"steps"`
	}
	if err := json.Unmarshal([]byte(text), &doc); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, text)
	}
	if doc.FormatVersion != "2" {
		t.Errorf("format_version %q, want 2", doc.FormatVersion)
	}
	all := doc.Diagnostics
	for _, s := range doc.Steps {
		all = append(all, s.Findings...)
	}
	if len(all) == 0 {
		t.Fatalf("no findings in %s", text)
	}
	for _, f := range all {
		var keys []string
		for k := range f {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		if !slices.Equal(keys, want) {
			t.Errorf("finding fields %v, want %v", keys, want)
		}
		var sev string
		if err := json.Unmarshal(f["severity"], &sev); err != nil || sev != "error" && sev != "warning" {
			t.Errorf("severity %s", f["severity"])
		}
	}
}

// TestDiagnosticShapeOnline is TestDiagnosticShape for the online commands,
// each against real servers brought to a state that yields findings: every
// finding line on stderr has the shared shape, the JSON document carries
// them as shared diagnostics, and each form holds the row's code.
func TestDiagnosticShapeOnline(t *testing.T) {
	noConnEnv(t)
	// readOnly makes s refuse writes (FUNCTION LOAD, FUNCTION DELETE) with
	// NOREPLICAS while it still answers reads and SCRIPT LOAD.
	readOnly := func(s *redistest.Server) { s.MustDo("CONFIG", "SET", "min-replicas-to-write", "1") }
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T) []string // the command line
		code  int
		want  string // a code every form must hold
	}{
		{"plan", func(t *testing.T) []string {
			s := redistest.Standalone(t)
			return []string{"plan", "--exit-code", "-m", loaderProject(t, "1"), "--url", s.URL()}
		}, 4, "pending-change"},
		{"deploy-failed", func(t *testing.T) []string {
			a, b := redistest.Standalone(t), redistest.Standalone(t)
			readOnly(b) // the lock is on a, the first given
			return []string{"deploy", "-m", loaderProject(t, "1"), "--url", a.URL(), "--url", b.URL()}
		}, 3, "load-failed"},
		{"deploy-conflict", func(t *testing.T) []string {
			s := redistest.Standalone(t)
			path := loaderProject(t, "1")
			loaderExpect(t, 0, "deploy", "-m", path, "--url", s.URL())
			release := filepath.Join(filepath.Dir(path), "lua", "release.lua")
			if err := os.WriteFile(release, append(mustRead(t, release), "-- tweak\n"...), 0o644); err != nil {
				t.Fatal(err)
			}
			return []string{"deploy", "-m", path, "--url", s.URL(), "--skip-checks"}
		}, 3, "conflict"},
		{"prune", func(t *testing.T) []string {
			a, b := redistest.Standalone(t), redistest.Standalone(t)
			path := loaderProject(t, "1")
			urls := []string{"--url", a.URL(), "--url", b.URL()}
			loaderExpect(t, 0, append([]string{"deploy", "-m", path}, urls...)...)
			setVersion(t, path, "2")
			loaderExpect(t, 0, append([]string{"deploy", "-m", path}, urls...)...)
			readOnly(b)
			return append([]string{"prune", "--keep", "1", "-m", path}, urls...)
		}, 3, "delete-failed"},
		{"unlock", func(t *testing.T) []string {
			s := redistest.Standalone(t)
			s.MustDo("SET", "scriptctl:lock:{catalog_refresh}", "feedc0de host=ci-7 pid=42 since=2026-01-02T03:04:05Z", "PX", "600000")
			return []string{"unlock", "-m", loaderProject(t, "1"), "--url", s.URL(), "--holder", "0badc0de"}
		}, 1, "lock-held"},
		{"status", func(t *testing.T) []string {
			s := redistest.Standalone(t)
			path := loaderProject(t, "1")
			loaderExpect(t, 0, "deploy", "-m", path, "--url", s.URL())
			s.MustDo("SCRIPT", "FLUSH")
			return []string{"status", "-m", path, "--url", s.URL()}
		}, 1, "drift"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := tc.setup(t)
			// Text: the findings on stderr, the summary or error after them.
			ios, _, out, errOut := iostreams.Test()
			if code := run(context.Background(), ios, args); code != tc.code {
				t.Fatalf("text: exit %d, want %d\n%s%s", code, tc.code, out, errOut)
			}
			n, found := 0, false
			for _, l := range strings.Split(errOut.String(), "\n") {
				if !strings.Contains(l, ": error ") && !strings.Contains(l, ": warning ") || strings.HasPrefix(l, " ") {
					continue
				}
				n++
				if !diagLine.MatchString(l) {
					t.Errorf("not in the shared format: %q", l)
				}
				found = found || strings.Contains(l, " "+tc.want+": ")
			}
			if n == 0 || !found {
				t.Fatalf("text: no %s finding on stderr:\n%s", tc.want, errOut)
			}
			// JSON: the same findings in the document.
			ios, _, out, errOut = iostreams.Test()
			if code := run(context.Background(), ios, append(args, "--format", "json")); code != tc.code {
				t.Fatalf("json: exit %d, want %d\n%s%s", code, tc.code, out, errOut)
			}
			checkDiagnosticJSON(t, out.String())
			var doc struct {
				Diagnostics []diag.Diagnostic `json:"diagnostics"`
			}
			if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
				t.Fatal(err)
			}
			if !slices.ContainsFunc(doc.Diagnostics, func(d diag.Diagnostic) bool { return d.Code == tc.want }) {
				t.Errorf("json: no %s diagnostic:\n%s", tc.want, out)
			}
		})
	}
}

// TestScenarioCodeCheckAndVerify: an invalid scenario has one code, the
// one verify reports, in check's verify step too.
func TestScenarioCodeCheckAndVerify(t *testing.T) {
	dir := ciRepo(t)
	bad := filepath.Join(dir, "lua_test", "bad.yaml")
	if err := os.WriteFile(bad, []byte("bogus: 1\nsteps:\n  - call: nosuch\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := filepath.Join(dir, "manifest.yaml")
	codes := func(args ...string) []string {
		t.Helper()
		ios, _, out, errOut := iostreams.Test()
		if code := run(context.Background(), ios, append(args, "--format", "json")); code != 2 {
			t.Fatalf("%v: exit %d, want 2\n%s%s", args, code, out, errOut)
		}
		var doc struct {
			Diagnostics []diag.Diagnostic `json:"diagnostics"`
			Steps       []struct {
				Name     string            `json:"name"`
				Findings []diag.Diagnostic `json:"findings"`
			} `json:"steps"`
		}
		if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		ds := doc.Diagnostics
		for _, s := range doc.Steps {
			if s.Name == "verify" {
				ds = append(ds, s.Findings...)
			}
		}
		var cs []string
		for _, d := range ds {
			if d.File == bad || strings.HasSuffix(d.File, "lua_test/bad.yaml") {
				cs = append(cs, d.Code)
			}
		}
		slices.Sort(cs)
		return slices.Compact(cs)
	}
	v, c := codes("verify", "-m", m, bad), codes("check", "-m", m)
	if !slices.Equal(v, []string{"scenario"}) || !slices.Equal(c, v) {
		t.Errorf("codes of an invalid scenario: verify %q, check %q; want [scenario] in both", v, c)
	}
}

// TestDiagnosticShapeScaffold: init and new scenario list what they
// created (the JSON document's created matches the files on disk), and run
// again refuse with one file-exists diagnostic per existing file, in the
// shared shape on stderr in text and inside the command's document in
// JSON, exit 2, overwriting nothing.
func TestDiagnosticShapeScaffold(t *testing.T) {
	t.Chdir(t.TempDir())
	type scaffoldDoc struct {
		FormatVersion string            `json:"format_version"`
		Command       string            `json:"command"`
		Dir           string            `json:"dir"`
		Created       []string          `json:"created"`
		Updated       []string          `json:"updated"`
		Diagnostics   []diag.Diagnostic `json:"diagnostics"`
	}
	// files returns every file below dir, path -> content.
	files := func(t *testing.T, dir string) map[string]string {
		t.Helper()
		out := map[string]string{}
		err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := os.ReadFile(p)
			out[p] = string(b)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	sorted := func(s []string) []string { s = slices.Clone(s); slices.Sort(s); return s }
	for _, format := range []string{"text", "json"} {
		repo := "repo-" + format
		scen := filepath.Join(repo, "lua_test", "twice.yaml")
		for _, tc := range []struct {
			name    string
			args    []string
			command string
			dir     string // init's dir in the document
			created func(t *testing.T) []string
			mine    []string // files changed between the runs, so an overwrite shows
		}{
			{"init", []string{"init", repo}, "init", repo, func(t *testing.T) []string {
				var ps []string
				for p := range files(t, repo) {
					ps = append(ps, p)
				}
				return ps
			},
				[]string{filepath.Join(repo, "README.md"), filepath.Join(repo, "lua", "release.lua")}},
			{"new scenario", []string{"new", "scenario", "twice", "-m", filepath.Join(repo, "manifest.yaml")}, "new scenario", "", func(*testing.T) []string { return []string{scen} },
				[]string{scen}},
		} {
			t.Run(tc.name+"/"+format, func(t *testing.T) {
				args := append(slices.Clone(tc.args), "--format", format)
				ios, _, out, errOut := iostreams.Test()
				if code := run(context.Background(), ios, args); code != 0 {
					t.Fatalf("first run: exit %d\n%s%s", code, out, errOut)
				}
				want := sorted(tc.created(t))
				if format == "json" {
					var doc scaffoldDoc
					if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
						t.Fatalf("%v\n%s", err, out)
					}
					if doc.FormatVersion != "2" || doc.Command != tc.command || doc.Dir != tc.dir || doc.Updated == nil || len(doc.Updated) != 0 || doc.Diagnostics == nil || len(doc.Diagnostics) != 0 {
						t.Errorf("document %+v", doc)
					}
					if got := sorted(doc.Created); !slices.Equal(got, want) {
						t.Errorf("created %q, want the files on disk %q", got, want)
					}
				} else {
					var got []string
					for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
						if f, ok := strings.CutPrefix(l, "created "); ok {
							got = append(got, filepath.FromSlash(f))
						}
					}
					if !slices.Equal(sorted(got), want) {
						t.Errorf("created %q, want the files on disk %q", sorted(got), want)
					}
				}
				for _, f := range tc.mine {
					if err := os.WriteFile(f, []byte("-- mine\n"), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				before := files(t, repo)

				ios, _, out, errOut = iostreams.Test()
				if code := run(context.Background(), ios, args); code != 2 {
					t.Fatalf("second run: exit %d, want 2\n%s%s", code, out, errOut)
				}
				var ds []diag.Diagnostic
				if format == "json" {
					if errOut.Len() > 0 {
						t.Errorf("stderr: %s", errOut)
					}
					checkDiagnosticJSON(t, out.String())
					var doc scaffoldDoc
					if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
						t.Fatal(err)
					}
					if doc.Command != tc.command || doc.Created == nil || len(doc.Created) != 0 {
						t.Errorf("refusal document: command %q, created %q", doc.Command, doc.Created)
					}
					ds = doc.Diagnostics
				} else {
					if out.Len() > 0 || strings.Contains(errOut.String(), "Error: ") {
						t.Errorf("stdout %q; stderr:\n%s", out, errOut)
					}
					ds = checkDiagnosticText(t, errOut.String())
					if n := strings.Count(errOut.String(), "\n    --force overwrites it"); n != len(ds) {
						t.Errorf("%d hint detail lines for %d diagnostics:\n%s", n, len(ds), errOut)
					}
				}
				var named []string
				for _, d := range ds {
					named = append(named, d.File)
					if d.Severity != diag.Error || d.Code != "file-exists" || d.Line != 0 || d.Message != "exists; "+tc.command+" does not overwrite it" {
						t.Errorf("diagnostic %+v", d)
					}
					if format == "json" && (len(d.Detail) != 1 || !strings.HasPrefix(d.Detail[0], "--force overwrites it")) {
						t.Errorf("detail %q", d.Detail)
					}
				}
				if got := sorted(named); !slices.Equal(got, want) {
					t.Errorf("diagnostics name %q, want %q", got, want)
				}
				after := files(t, repo)
				for p, b := range before {
					if after[p] != b {
						t.Errorf("the refused run changed %s", p)
					}
				}
				if len(after) != len(before) {
					t.Errorf("the refused run wrote files: %d before, %d after", len(before), len(after))
				}
				for _, f := range tc.mine {
					if b, _ := os.ReadFile(f); string(b) != "-- mine\n" {
						t.Errorf("%s overwritten: %q", f, b)
					}
				}
			})
		}
	}
}

// TestDiagnosticShapeServers: the server checks' findings (a node the
// manifest's targets do not list, a node whose upstream version a Lua CVE
// lists) are shared diagnostics at the manifest's targets line, in text on
// stderr and in JSON in the document (a refused deploy's too), of severity
// error exactly when they decide the exit code, which stays as it was.
func TestDiagnosticShapeServers(t *testing.T) {
	noConnEnv(t)
	s := redistest.Standalone(t)
	family, version := s.Family(t)
	ncves := len(target.AffectingCVEs(family, version))
	if family != "redis" || ncves == 0 {
		t.Skipf("the test server, %s %s, is not listed as affected by a Lua CVE", family, version)
	}
	untargeted := loaderProject(t, "1")
	setTargets(t, untargeted, "[valkey-8.1]")
	targeted := loaderProject(t, "1")
	setTargets(t, targeted, "[redis-7.0, valkey-8.1]")
	line := loadFor(t, untargeted).TargetsLine
	if line == 0 || loadFor(t, targeted).TargetsLine != line {
		t.Fatalf("targets at line %d and %d, want the same non-zero line", line, loadFor(t, targeted).TargetsLine)
	}
	// Everything loaded: no pending change or drift decides an exit code.
	loaderExpect(t, 0, "deploy", "-m", targeted, "--url", s.URL())

	const (
		untgt = "untargeted-server"
		cve   = "lua-cve"
	)
	hints := map[string]string{untgt: "add redis-7.0 to the manifest's targets once its scenarios pass",
		cve: target.CVEHint}
	for _, tc := range []struct {
		name string
		args []string
		exit int
		want map[string]string // code -> severity; no other server code
	}{
		{"plan-exit-code", []string{"plan", "--exit-code", "-m", untargeted}, 1, map[string]string{untgt: "error", cve: "warning"}},
		{"plan-exit-code-fail-on-cve", []string{"plan", "--exit-code", "--fail-on-cve", "-m", targeted}, 1, map[string]string{cve: "error"}},
		{"plan", []string{"plan", "-m", untargeted}, 0, map[string]string{untgt: "warning", cve: "warning"}},
		{"status", []string{"status", "-m", untargeted}, 1, map[string]string{untgt: "error", cve: "warning"}},
		{"status-targeted", []string{"status", "-m", targeted}, 0, map[string]string{cve: "warning"}},
		{"status-fail-on-cve", []string{"status", "--fail-on-cve", "-m", targeted}, 1, map[string]string{cve: "error"}},
		{"deploy", []string{"deploy", "-m", untargeted}, 1, map[string]string{untgt: "error", cve: "warning"}},
		{"deploy-allow-untargeted", []string{"deploy", "--allow-untargeted", "-m", untargeted}, 0, map[string]string{untgt: "warning", cve: "warning"}},
		{"deploy-fail-on-cve", []string{"deploy", "--fail-on-cve", "-m", targeted}, 1, map[string]string{cve: "error"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append(tc.args, "--url", s.URL())
			file := displayPath(tc.args[len(tc.args)-1])
			check := func(form string, ds []diag.Diagnostic) {
				t.Helper()
				got := map[string]int{}
				for _, d := range ds {
					if d.Code != untgt && d.Code != cve {
						continue
					}
					got[d.Code]++
					// untargeted-server names the node in its message; lua-cve
					// (one per CVE) in its first detail line.
					if sev, ok := tc.want[d.Code]; !ok || d.Severity != sev || d.File != file || d.Line != line ||
						!strings.Contains(d.Message+strings.Join(d.Detail, "\n"), s.Addr) {
						t.Errorf("%s: %+v; want %s %s at %s:%d naming %s", form, d, sev, d.Code, file, line, s.Addr)
					}
				}
				for code := range tc.want {
					want := 1
					if code == cve {
						want = ncves
					}
					if got[code] != want {
						t.Errorf("%s: %d %s finding(s), want %d: %+v", form, got[code], code, want, ds)
					}
				}
			}

			ios, _, out, errOut := iostreams.Test()
			if code := run(context.Background(), ios, args); code != tc.exit {
				t.Fatalf("text: exit %d, want %d\n%s%s", code, tc.exit, out, errOut)
			}
			check("text", checkDiagnosticText(t, errOut.String()))
			for code := range tc.want {
				if !strings.Contains(errOut.String(), " "+code+": ") || !strings.Contains(errOut.String(), "\n    "+hints[code]+"\n") {
					t.Errorf("text: no %s finding with its hint as detail:\n%s", code, errOut)
				}
			}
			if strings.Contains(errOut.String(), "warning: untargeted server") || strings.Contains(errOut.String(), "\nwarning: ") {
				t.Errorf("text: a free-form warning is left:\n%s", errOut)
			}

			ios, _, out, errOut = iostreams.Test()
			if code := run(context.Background(), ios, append(args, "--format", "json")); code != tc.exit {
				t.Fatalf("json: exit %d, want %d\n%s%s", code, tc.exit, out, errOut)
			}
			checkDiagnosticJSON(t, out.String())
			var doc struct {
				Command     string            `json:"command"`
				Error       string            `json:"error"`
				Diagnostics []diag.Diagnostic `json:"diagnostics"`
				Nodes       []struct {
					Addr   string `json:"addr"`
					Status string `json:"status"`
				} `json:"nodes"`
			}
			if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
				t.Fatal(err)
			}
			check("json", doc.Diagnostics)
			for _, d := range doc.Diagnostics {
				if h, ok := hints[d.Code]; ok && (len(d.Detail) == 0 || d.Detail[len(d.Detail)-1] != h || d.Code == untgt && len(d.Detail) != 1) {
					t.Errorf("json: %s detail %q, want %q last", d.Code, d.Detail, h)
				}
			}
			if doc.Command != tc.args[0] || len(doc.Nodes) != 1 || doc.Nodes[0].Addr != s.Addr {
				t.Errorf("json: not the %s document of %s:\n%s", tc.args[0], s.Addr, out)
			}
			// A refused deploy: the nodes, untouched, and why.
			if tc.args[0] == "deploy" && tc.exit == 1 && (doc.Nodes[0].Status != "refused" || !strings.Contains(doc.Error, "deploy refused")) {
				t.Errorf("json: refused deploy document:\n%s", out)
			}
		})
	}
}
