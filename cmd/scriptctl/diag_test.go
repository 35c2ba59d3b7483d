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

	"github.com/scriptctl/scriptctl/internal/iostreams"
)

// diagLine is the shared text form of a finding.
var diagLine = regexp.MustCompile(`^[^\s:]+(:\d+(:\d+)?)?: (error|warning) [a-z][a-z0-9-]*: \S.*$`)

// TestDiagnosticShape runs the failure path of every command that reports
// findings and checks each finding line has the shared shape
// (file:line:col: severity code: message, detail lines indented), and that
// the JSON findings carry exactly the shared fields.
func TestDiagnosticShape(t *testing.T) {
	dir := ciRepo(t)
	m := filepath.Join(dir, "manifest.yaml")
	// A caller whose keys can land in different slots, for check-keys.
	split := "schema: 1\nlibrary: x\nversion: 1\nscripts:\n  pair:\n    file: lua/release.lua\n    keys: [a, b]\n    args: [token]\n" +
		"callers:\n  svc:\n    scripts: [pair]\n    keys:\n      a: \"x:{<id>}\"\n      b: \"y:<id>\"\n"
	if err := os.WriteFile(filepath.Join(dir, "split.yaml"), []byte(split), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args   []string
		stderr bool // the findings go to stderr
	}{
		{[]string{"check", "-m", m}, false},
		{[]string{"lint", "-m", m}, false},
		{[]string{"verify", "-m", m, filepath.Join(dir, "lua_test")}, false},
		{[]string{"check-keys", "-m", filepath.Join(dir, "split.yaml")}, true},
		{[]string{"plan", "-m", m, "--url", "redis://127.0.0.1:1"}, true}, // the pre-flight gate
	} {
		t.Run(tc.args[0], func(t *testing.T) {
			ios, _, out, errOut := iostreams.Test()
			if code := run(context.Background(), ios, tc.args); code == 0 {
				t.Fatalf("exit 0, want a failure\n%s", out)
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
		})
	}

	want := []string{"code", "column", "detail", "file", "line", "message", "severity"}
	for _, args := range [][]string{{"check", "-m", m, "--format", "json"}, {"lint", "-m", m, "--format", "json"}} {
		r := loaderRun(t, args...)
		var doc struct {
			FormatVersion string                       `json:"format_version"`
			Diagnostics   []map[string]json.RawMessage `json:"diagnostics"`
			Steps         []struct {
				Findings []map[string]json.RawMessage `json:"findings"`
			} `json:"steps"`
		}
		if err := json.Unmarshal([]byte(r.out), &doc); err != nil {
			t.Fatalf("%s: not JSON: %v\n%s", args[0], err, r.out)
		}
		if doc.FormatVersion != "2" {
			t.Errorf("%s: format_version %q, want 2", args[0], doc.FormatVersion)
		}
		all := doc.Diagnostics
		for _, s := range doc.Steps {
			all = append(all, s.Findings...)
		}
		if len(all) == 0 {
			t.Fatalf("%s: no findings in %s", args[0], r.out)
		}
		for _, f := range all {
			var keys []string
			for k := range f {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			if !slices.Equal(keys, want) {
				t.Errorf("%s: finding fields %v, want %v", args[0], keys, want)
			}
		}
	}
}
