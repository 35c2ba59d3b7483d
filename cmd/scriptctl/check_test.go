package main

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/scriptctl/scriptctl/internal/cmdutil"
	"github.com/scriptctl/scriptctl/internal/iostreams"
	"github.com/scriptctl/scriptctl/manifest"
)

// checkTestManifest writes a valid one-script manifest and returns its path.
func checkTestManifest(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"manifest.yaml": "schema: 1\nlibrary: lib\nversion: 1\nscripts:\n  a:\n    file: a.lua\n    keys: []\n    args: []\n",
		"a.lua":         "return 1\n",
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "manifest.yaml")
}

// withCheckSteps replaces the check steps for one test.
func withCheckSteps(t *testing.T, steps ...checkStep) {
	t.Helper()
	saved := checkSteps
	checkSteps = steps
	t.Cleanup(func() { checkSteps = saved })
}

func fixedStep(r stepResult) func(context.Context, *manifest.Manifest) stepResult {
	return func(context.Context, *manifest.Manifest) stepResult { return r }
}

func TestCheckExitCodes(t *testing.T) {
	warning := checkFinding{Severity: "warning", File: "manifest.yaml", Line: 3, Col: 5, Field: "callers.x", Message: "hot slot"}
	problem := checkFinding{Severity: "error", File: "lua/a.lua", Message: "changed"}
	tests := []struct {
		name     string
		steps    []checkStep
		wantCode int
		wantOut  string
	}{
		{"all ok", []checkStep{{"manifest", checkManifestStep}, {"one", fixedStep(stepResult{Summary: "fine"})}}, 0,
			"manifest: ok (lib version 1: 1 script, 0 callers)\none: ok (fine)\n"},
		{"warnings pass", []checkStep{{"keys", fixedStep(stepResult{Findings: []checkFinding{warning}})}}, 0,
			"keys: ok, 1 warning\nmanifest.yaml:3:5: warning keys: callers.x: hot slot\n"},
		{"problem fails", []checkStep{
			{"one", fixedStep(stepResult{Findings: []checkFinding{problem, warning}})},
			{"two", fixedStep(stepResult{Summary: "still runs"})},
		}, 1, "one: 1 problem, 1 warning\nlua/a.lua: error one: changed\nmanifest.yaml:3:5: warning one: callers.x: hot slot\ntwo: ok (still runs)\n"},
		{"input error wins", []checkStep{
			{"one", fixedStep(stepResult{Findings: []checkFinding{problem}})},
			{"two", fixedStep(stepResult{Err: cmdutil.Input(errors.New("bad file\nsecond line"))})},
		}, 2, "one: 1 problem\nlua/a.lua: error one: changed\ntwo: failed\n  bad file\n  second line\n"},
		{"env error wins", []checkStep{
			{"one", fixedStep(stepResult{Err: cmdutil.Input(errors.New("bad"))})},
			{"two", fixedStep(stepResult{Err: cmdutil.Env(errors.New("down"))})},
		}, 3, "one: failed\n  bad\ntwo: failed\n  down\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			withCheckSteps(t, tt.steps...)
			ios, _, out, errOut := iostreams.Test()
			err := runCheck(context.Background(), &checkOptions{IO: ios, Manifest: checkTestManifest(t), Format: "text"})
			if code := exitCode(err); code != tt.wantCode {
				t.Errorf("exit code %d, want %d (err %v)", code, tt.wantCode, err)
			}
			var ee *cmdutil.ExitError
			if err != nil && (!errors.As(err, &ee) || !ee.Silent) {
				t.Errorf("err %v is not silent: the report already printed it", err)
			}
			if out.String() != tt.wantOut {
				t.Errorf("stdout:\n%s\nwant:\n%s", out, tt.wantOut)
			}
			if errOut.Len() != 0 {
				t.Errorf("stderr: %s", errOut)
			}
		})
	}
}

func TestCheckJSON(t *testing.T) {
	withCheckSteps(t,
		checkStep{"manifest", checkManifestStep},
		checkStep{"keys", fixedStep(stepResult{Findings: []checkFinding{
			{Severity: "warning", File: "manifest.yaml", Line: 3, Col: 5, Message: "hot slot"},
			{Severity: "error", File: "manifest.yaml", Line: 4, Col: 7, Field: "callers.x.keys.a", Message: "cross slot"},
		}})},
	)
	ios, _, out, _ := iostreams.Test()
	path := checkTestManifest(t)
	err := runCheck(context.Background(), &checkOptions{IO: ios, Manifest: path, Format: "json"})
	if exitCode(err) != 1 {
		t.Fatalf("err = %v, want exit 1", err)
	}
	var doc checkJSON
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if doc.OK || doc.Problems != 1 || doc.Warnings != 1 || doc.Manifest != path || len(doc.Steps) != 2 {
		t.Fatalf("doc = %+v", doc)
	}
	keys := doc.Steps[1]
	if keys.Name != "keys" || keys.Status != "problems" || len(keys.Findings) != 2 {
		t.Fatalf("keys step = %+v", keys)
	}
	if f := keys.Findings[1]; f.Severity != "error" || f.Line != 4 || f.Column != 7 || f.Code != "keys" || f.Message != "callers.x.keys.a: cross slot" || f.Detail == nil {
		t.Errorf("finding = %+v", f)
	}
	if doc.Steps[0].Status != "ok" || !strings.Contains(doc.Steps[0].Summary, "lib version 1") {
		t.Errorf("manifest step = %+v", doc.Steps[0])
	}
}

func TestCheckInvalidManifestJSON(t *testing.T) {
	withCheckSteps(t, checkStep{"manifest", checkManifestStep}, checkStep{"sum", checkSumStep})
	dir := t.TempDir()
	path := filepath.Join(dir, "manifest.yaml")
	if err := os.WriteFile(path, []byte("schema: 1\nlibrary: lib\nversion: 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ios, _, out, _ := iostreams.Test()
	err := runCheck(context.Background(), &checkOptions{IO: ios, Manifest: path, Format: "json"})
	if exitCode(err) != 2 {
		t.Fatalf("err = %v, want exit 2", err)
	}
	var doc checkJSON
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if doc.OK || doc.Problems != 2 || doc.Steps[0].Status != "error" || doc.Steps[1].Status != "skipped" {
		t.Fatalf("doc = %+v", doc)
	}
	if f := doc.Steps[0].Findings[0]; f.Line != 1 || f.Code != "manifest" || f.Message != "scripts: required field is missing" {
		t.Errorf("first finding = %+v", f)
	}
	// Text mode returns the manifest errors for main to print: exit 2.
	ios, _, out, _ = iostreams.Test()
	err = runCheck(context.Background(), &checkOptions{IO: ios, Manifest: path, Format: "text"})
	if !errors.Is(err, manifest.ErrInvalid) || out.Len() != 0 {
		t.Errorf("text: err = %v, stdout %q", err, out)
	}
}
