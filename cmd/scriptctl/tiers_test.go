package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// TestMakefileTiersCoverEveryPackage: make test runs every package of the
// module exactly once, in RACE_PKGS (with the race detector) or in
// NORACE_PKGS (without): a new package that is in neither would never run.
// And every test make test skips or samples (testtier) is one make
// test-full runs (FULL_RUN in FULL_PKGS, in the rest tier); CI runs both.
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

	// make test samples the corpora and make test-full runs the rest of
	// them with the same samples: together they run every snippet. Every
	// run of make test records the tests that ask for the server build
	// (LOG_ENV): make test-targets runs those on the other builds.
	for target, want := range map[string][]string{
		"test":         {"$(SAMPLE_ENV) $(GO) test"},
		"test-full":    {"$(SAMPLE_ENV) SCRIPTCTL_TEST_TIER=rest $(GO) test", "-run '$(FULL_RUN)' $(FULL_PKGS)"},
		"test-targets": {"$(if $(TARGET_RUN),-run '$(TARGET_RUN)') $(TARGET_PKGS)"},
	} {
		m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(target) + `:.*\n((?:\t.*\n)+)`).FindSubmatch(mk)
		if m == nil {
			t.Errorf("the Makefile has no %s target", target)
			continue
		}
		for _, w := range want {
			if !strings.Contains(string(m[1]), w) {
				t.Errorf("make %s does not run %q:\n%s", target, w, m[1])
			}
		}
		for _, line := range strings.Split(string(m[1]), "\n") {
			if target == "test" && strings.Contains(line, "$(GO) test") && !strings.Contains(line, "$(LOG_ENV)") {
				t.Errorf("make test runs tests without $(LOG_ENV): make test-targets would not rerun them on the other builds:\n%s", line)
			}
		}
	}
}

// fullTierTests lists the Test functions of dir's test files that call
// testtier.Full (skipped in make test), testtier.Sample, testtier.IsFull or
// testtier.IsRest (sampled in make test, the rest in make test-full),
// directly or through functions of the package's test files.
func fullTierTests(t *testing.T, dir string) []string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*_test.go"))
	bodies := map[string]*ast.BlockStmt{}
	for _, f := range files {
		af, err := parser.ParseFile(token.NewFileSet(), f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range af.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Body != nil && fn.Recv == nil {
				bodies[fn.Name.Name] = fn.Body
			}
		}
	}
	tiered := map[string]bool{}
	for changed := true; changed; {
		changed = false
		for name, body := range bodies {
			if tiered[name] {
				continue
			}
			ast.Inspect(body, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.SelectorExpr:
					if id, ok := n.X.(*ast.Ident); ok && id.Name == "testtier" {
						switch n.Sel.Name {
						case "Full", "Sample", "IsFull", "IsRest":
							tiered[name] = true
						}
					}
				case *ast.CallExpr:
					if id, ok := n.Fun.(*ast.Ident); ok && tiered[id.Name] {
						tiered[name] = true
					}
				}
				return !tiered[name]
			})
			changed = changed || tiered[name]
		}
	}
	var out []string
	for name := range tiered {
		if strings.HasPrefix(name, "Test") {
			out = append(out, name)
		}
	}
	sort.Strings(out)
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
