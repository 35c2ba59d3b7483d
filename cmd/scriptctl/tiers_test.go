package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestMakefileTiersCoverEveryPackage: make test runs every package of the
// module exactly once, in RACE_PKGS (with the race detector) or in
// NORACE_PKGS (without): a new package that is in neither would never run.
func TestMakefileTiersCoverEveryPackage(t *testing.T) {
	root := filepath.Join("..", "..")
	mk, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	lists := map[string][]string{}
	for _, name := range []string{"RACE_PKGS", "NORACE_PKGS"} {
		m := regexp.MustCompile(`(?m)^` + name + `\s*\?=\s*(.*)$`).FindSubmatch(mk)
		if m == nil {
			t.Fatalf("the Makefile has no %s", name)
		}
		lists[name] = strings.Fields(string(m[1]))
	}
	// Every folder with Go files is a package (testdata and hidden folders
	// aside, as the go command sees them).
	var pkgs []string
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); path != root && (n == "testdata" || strings.HasPrefix(n, ".") || strings.HasPrefix(n, "_")) {
				return filepath.SkipDir
			}
			if has, _ := filepath.Glob(filepath.Join(path, "*.go")); len(has) > 0 {
				rel, _ := filepath.Rel(root, path)
				pkgs = append(pkgs, "./"+filepath.ToSlash(rel))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	matches := func(pattern, pkg string) bool {
		if base, ok := strings.CutSuffix(pattern, "/..."); ok {
			return pkg == base || strings.HasPrefix(pkg, base+"/")
		}
		return strings.TrimSuffix(pattern, "/") == pkg
	}
	for _, p := range pkgs {
		var in []string
		for name, patterns := range lists {
			for _, pat := range patterns {
				if matches(pat, p) {
					in = append(in, name)
				}
			}
		}
		if len(in) != 1 {
			t.Errorf("package %s is in %d of the Makefile's tiers (%v): want exactly one of RACE_PKGS and NORACE_PKGS", p, len(in), in)
		}
	}
	if len(pkgs) < 30 {
		t.Fatalf("found only %d packages: the walk is wrong", len(pkgs))
	}
}
