package main

import (
	"go/ast"
	"go/parser"
	"go/token"
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
// And every test make test skips or samples (testtier) is one make
// test-full runs (FULL_RUN in FULL_PKGS); CI runs both.
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

	// Every test the fast tier skips or samples (testtier) runs in make
	// test-full: its name matches FULL_RUN and its package is in FULL_PKGS.
	fullRun := regexp.MustCompile(`(?m)^FULL_RUN\s*\?=\s*(.*)$`).FindSubmatch(mk)
	fullPkgs := regexp.MustCompile(`(?m)^FULL_PKGS\s*\?=\s*(.*)$`).FindSubmatch(mk)
	if fullRun == nil || fullPkgs == nil {
		t.Fatal("the Makefile has no FULL_RUN or FULL_PKGS")
	}
	run, err := regexp.Compile(strings.TrimSpace(string(fullRun[1])))
	if err != nil {
		t.Fatalf("FULL_RUN: %v", err)
	}
	marked := 0
	for _, p := range pkgs {
		for _, name := range fullTierTests(t, filepath.Join(root, p)) {
			marked++
			if !run.MatchString(name) {
				t.Errorf("%s: %s is of the full tier (testtier) but the Makefile's FULL_RUN does not match it: make test-full would never run it", p, name)
			}
			in := false
			for _, pat := range strings.Fields(string(fullPkgs[1])) {
				in = in || matches(pat, p)
			}
			if !in {
				t.Errorf("%s: %s is of the full tier (testtier) but its package is not in the Makefile's FULL_PKGS", p, name)
			}
		}
	}
	if marked == 0 {
		t.Error("no test calls testtier: the parse is wrong")
	}
}

// fullTierTests lists the Test functions of dir's test files that call
// testtier.Full (skipped in make test), testtier.Every or testtier.IsFull
// (sampled in make test, whole in make test-full).
func fullTierTests(t *testing.T, dir string) []string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*_test.go"))
	var out []string
	for _, f := range files {
		af, err := parser.ParseFile(token.NewFileSet(), f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range af.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil || !strings.HasPrefix(fn.Name.Name, "Test") {
				continue
			}
			found := false
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				if sel, ok := n.(*ast.SelectorExpr); ok {
					if id, ok := sel.X.(*ast.Ident); ok && id.Name == "testtier" && (sel.Sel.Name == "Full" || sel.Sel.Name == "Every" || sel.Sel.Name == "IsFull") {
						found = true
					}
				}
				return !found
			})
			if found {
				out = append(out, fn.Name.Name)
			}
		}
	}
	return out
}

// matches reports whether a go command package pattern (./x/... or ./x/)
// names the package ./p.
func matches(pattern, pkg string) bool {
	if base, ok := strings.CutSuffix(pattern, "/..."); ok {
		return pkg == base || strings.HasPrefix(pkg, base+"/")
	}
	return strings.TrimSuffix(pattern, "/") == pkg
}
