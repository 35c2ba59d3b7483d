package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/scriptctl/scriptctl/manifest"
)

// TestCheckLintStep: the lint step of scriptctl check reports the
// repository's scripts clean, and a bad script's findings with their codes;
// dynamic-key is a warning, and an error when the manifest's strict_keys
// (or check's --strict-keys, which sets it) asks for strict keys.
func TestCheckLintStep(t *testing.T) {
	m, err := manifest.Load("../../manifest.yaml")
	if err != nil {
		t.Fatal(err)
	}
	r := checkLintStep(context.Background(), m)
	if r.Err != nil || len(r.Findings) != 0 || r.Summary != "5 scripts, no findings" {
		t.Errorf("bundled scripts: %+v", r)
	}

	dir := t.TempDir()
	write := func(name, data string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("manifest.yaml", "schema: 1\nlibrary: x\nversion: 1\nscripts:\n  s:\n    file: s.lua\n    keys: [k]\n    args: []\n")
	write("s.lua", "return {redis.call('GET', 'literal'), redis.call('SMEMBERS', KEYS[1])}\n")
	m, err = manifest.Load(filepath.Join(dir, "manifest.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	r = checkLintStep(context.Background(), m)
	if r.Err != nil || len(r.Findings) != 2 {
		t.Fatalf("got %+v, want 2 findings", r)
	}
	f := r.Findings[0]
	if f.Severity != "warning" || f.Code != "dynamic-key" || f.Line != 1 || f.Col != 27 {
		t.Errorf("finding 0: %+v", f)
	}
	if r.Findings[1].Severity != "warning" || r.Findings[1].Code != "unbounded-command" {
		t.Errorf("finding 1: %+v", r.Findings[1])
	}

	m.StrictKeys = true
	r = checkLintStep(context.Background(), m)
	if r.Err != nil || len(r.Findings) != 2 || r.Findings[0].Severity != "error" || r.Findings[0].Code != "dynamic-key" || r.Findings[1].Severity != "warning" {
		t.Errorf("strict keys: got %+v, want dynamic-key an error, unbounded-command a warning", r.Findings)
	}
}
