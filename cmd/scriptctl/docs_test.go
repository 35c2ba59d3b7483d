package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/scriptctl/scriptctl/internal/iostreams"
)

// TestCLIReferenceInSync: docs/cli holds exactly the Markdown reference the
// commands generate. After changing a command (or merging new ones), run
// 'go generate ./cmd/scriptctl' and commit docs/cli.
func TestCLIReferenceInSync(t *testing.T) {
	tmp := t.TempDir()
	ios, _, _, _ := iostreams.Test()
	if err := runDocs(ios, newRootCmd(ios), "markdown", tmp); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	entries, err := os.ReadDir(tmp)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(tmp, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		want[e.Name()] = string(b)
	}
	if want["scriptctl_init.md"] == "" || !strings.Contains(want["scriptctl_check.md"], "--fail-on") {
		t.Fatalf("generated reference lacks init or check --fail-on: %v", len(want))
	}
	have, _ := filepath.Glob("../../docs/cli/scriptctl*.md")
	stale := false
	for _, p := range have {
		name := filepath.Base(p)
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		w, ok := want[name]
		switch {
		case !ok:
			t.Errorf("docs/cli/%s documents no command", name)
			stale = true
		case string(b) != w:
			t.Errorf("docs/cli/%s is out of date", name)
			stale = true
		}
		delete(want, name)
	}
	for name := range want {
		t.Errorf("docs/cli/%s is missing", name)
		stale = true
	}
	if stale {
		t.Log("regenerate with: go generate ./cmd/scriptctl (and delete the pages of removed commands)")
	}
}

// TestDocsMan: docs man writes a page per command.
func TestDocsMan(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "man1")
	loaderExpect(t, 0, "docs", "man", dir)
	b, err := os.ReadFile(filepath.Join(dir, "scriptctl-check.1"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `.TH "SCRIPTCTL" "1"`) || !strings.Contains(string(b), "--fail-on warning") {
		t.Fatalf("scriptctl-check.1:\n%s", b)
	}
	if r := loaderRun(t, "docs", "pdf"); r.code != 2 {
		t.Fatalf("docs pdf: exit %d", r.code)
	}
}

// docs --format json lists exactly the files it wrote, for both kinds.
func TestDocsJSONListsFiles(t *testing.T) {
	for _, kind := range []string{"man", "markdown"} {
		dir := filepath.Join(t.TempDir(), "out")
		code, out, errOut := runEvalCLI(t, "docs", kind, dir, "--format", "json")
		if code != 0 {
			t.Fatalf("docs %s: exit %d\n%s", kind, code, errOut)
		}
		var doc docsJSON
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatalf("docs %s: %v\n%s", kind, err, out)
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var onDisk []string
		for _, e := range entries {
			onDisk = append(onDisk, e.Name())
		}
		listed := slices.Sorted(slices.Values(doc.Files))
		if doc.FormatVersion != "1" || doc.Command != "docs "+kind || doc.Dir != dir || len(listed) < 20 || !slices.Equal(listed, onDisk) {
			t.Errorf("docs %s: document %+v, files on disk %v", kind, doc, onDisk)
		}
	}
	if code, _, errOut := runEvalCLI(t, "docs", "man", t.TempDir(), "--format", "yaml"); code != 2 || !strings.Contains(errOut, "invalid --format") {
		t.Errorf("--format yaml: exit %d\n%s", code, errOut)
	}
}
