package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/scriptctl/scriptctl/internal/diag"
	"github.com/scriptctl/scriptctl/internal/iostreams"
	"github.com/scriptctl/scriptctl/internal/redistest"
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
		{"eval", []string{"eval", undeclared}, 1, true, true}, // run_error in eval's own JSON
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
	t.Setenv("SCRIPTCTL_URL", "")
	t.Setenv("SCRIPTCTL_PASSWORD", "")
	t.Setenv("REDISCLI_AUTH", "")
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
		}, 1, "pending-change"},
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
