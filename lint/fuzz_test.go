package lint

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// FuzzLint: no input makes the linter panic, and every diagnostic has a
// position inside the file, a registered code and a message.
func FuzzLint(f *testing.F) {
	for _, p := range mustGlob(f, "../lua/*.lua") {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(data), true)
	}
	for _, p := range mustGlob(f, "testdata/*.txtar") {
		ar, err := txtar.ParseFile(p)
		if err != nil {
			f.Fatal(err)
		}
		for _, file := range ar.Files {
			if strings.HasSuffix(file.Name, ".lua") {
				f.Add(string(file.Data), false)
			}
		}
	}
	decl := &Decl{Script: "s", Keys: []string{"a", "b"}, Args: []string{"x", "y"}, Flags: []string{"no-writes"}}
	f.Fuzz(func(t *testing.T, src string, withDecl bool) {
		d := decl
		if !withDecl {
			d = nil
		}
		ds := Source("f.lua", []byte(src), d)
		lines := len(splitLines(src))
		for _, x := range ds {
			if x.Pos.File != "f.lua" || x.Pos.Line < 1 || x.Pos.Line > lines || x.Pos.Col < 1 {
				t.Errorf("bad position %v for %q", x, src)
			}
			if _, ok := Lookup(x.Code); !ok || x.Message == "" {
				t.Errorf("bad diagnostic %v", x)
			}
		}
	})
}

func mustGlob(f *testing.F, pattern string) []string {
	f.Helper()
	m, err := filepath.Glob(pattern)
	if err != nil || len(m) == 0 {
		f.Fatalf("no seeds for %s: %v", pattern, err)
	}
	return m
}
