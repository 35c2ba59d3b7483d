package lint

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/scriptctl/scriptctl/manifest"
)

var update = flag.Bool("update", false, "rewrite the want.txt sections of testdata/*.txtar")

// TestRules runs the golden cases in testdata/<code>.txtar. Each archive
// holds an optional manifest.yaml, Lua files named bad*.lua and good*.lua,
// and want.txt: the diagnostics of every file. A bad file must raise the
// rule's code; a good file must lint clean. Every registered rule needs at
// least two of each.
func TestRules(t *testing.T) {
	for _, r := range Rules() {
		t.Run(r.Code, func(t *testing.T) {
			path := filepath.Join("testdata", r.Code+".txtar")
			ar, err := txtar.ParseFile(path)
			if err != nil {
				t.Fatalf("every rule needs golden cases: %v", err)
			}
			dir := t.TempDir()
			var luaFiles []string
			for _, f := range ar.Files {
				if f.Name == "want.txt" {
					continue
				}
				if err := os.WriteFile(filepath.Join(dir, f.Name), f.Data, 0o644); err != nil {
					t.Fatal(err)
				}
				if strings.HasSuffix(f.Name, ".lua") {
					luaFiles = append(luaFiles, f.Name)
				}
			}
			files := caseFiles(t, dir, luaFiles)
			var got bytes.Buffer
			bad, good := 0, 0
			for _, f := range files {
				ds, err := Run(context.Background(), Config{Files: []File{f}, Profile: r.Profile})
				if err != nil {
					t.Fatal(err)
				}
				name := filepath.Base(f.Path)
				for _, d := range ds {
					d.Pos.File = name
					got.WriteString(d.String() + "\n" + Details(d))
				}
				switch {
				case strings.HasPrefix(name, "bad"):
					bad++
					if !slices.ContainsFunc(ds, func(d Diagnostic) bool { return d.Code == r.Code }) {
						t.Errorf("%s: no %s diagnostic; got %v", name, r.Code, ds)
					}
				case strings.HasPrefix(name, "good"):
					good++
					if len(ds) > 0 {
						t.Errorf("%s: want no diagnostics, got:\n%s", name, lines(ds))
					}
				}
			}
			if bad < 2 || good < 2 {
				t.Errorf("%s: %d bad and %d good examples, want at least 2 of each", path, bad, good)
			}
			want := ""
			for _, f := range ar.Files {
				if f.Name == "want.txt" {
					want = string(f.Data)
				}
			}
			if *update {
				ar.Files = slices.DeleteFunc(ar.Files, func(f txtar.File) bool { return f.Name == "want.txt" })
				ar.Files = append(ar.Files, txtar.File{Name: "want.txt", Data: got.Bytes()})
				if err := os.WriteFile(path, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if got.String() != want {
				t.Errorf("%s: diagnostics differ (go test ./lint -update to accept)\ngot:\n%s\nwant:\n%s", path, got.String(), want)
			}
		})
	}
}

// caseFiles returns the Lua files of a case in name order, with the
// manifest's declaration for those it lists.
func caseFiles(t *testing.T, dir string, names []string) []File {
	t.Helper()
	decls := map[string]*Decl{}
	if _, err := os.Stat(filepath.Join(dir, "manifest.yaml")); err == nil {
		m, err := manifest.Load(filepath.Join(dir, "manifest.yaml"))
		if err != nil {
			t.Fatalf("manifest: %v", err)
		}
		for _, f := range ManifestFiles(m) {
			decls[filepath.Base(f.Path)] = f.Decl
		}
	}
	slices.Sort(names)
	var out []File
	for _, n := range names {
		out = append(out, File{Path: filepath.Join(dir, n), Decl: decls[n]})
	}
	return out
}

func lines(ds []Diagnostic) string {
	var b strings.Builder
	for _, d := range ds {
		b.WriteString("  " + d.String() + "\n")
	}
	return b.String()
}
