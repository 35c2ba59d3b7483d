package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/scriptctl/scriptctl/internal/testtier"
)

// TestNoStartCostPackages: the binary links none of the packages that cost
// every process start or its size for a feature it does without:
//
//   - the packages that parse and print Go source (their itabs and
//     initialisers run at every start); gen writes the Go bindings in
//     gofmt's layout itself.
//   - text/template and html/template, reached: they call
//     reflect.Value.MethodByName with a name the linker cannot see, and a
//     reachable call of it makes the linker keep every exported method of
//     every reachable type (rueidis's command builders among them): about
//     15 MB of binary, 35.6 MB instead of 20, and a slower start. cobra
//     imports text/template but reaches it only from its Set*Template
//     methods, so no other package may import either and package main
//     calls none of those. TestNoDynamicMethodLookup checks the built
//     binary itself.
func TestNoStartCostPackages(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is not on PATH")
	}
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) < 10 || !strings.Contains(string(out), "\ngithub.com/scriptctl/scriptctl/gen ") {
		t.Fatalf("go list -deps lists %d packages, without gen:\n%s", len(lines), out)
	}
	for _, line := range lines {
		fields := strings.Fields(line)
		pkg, imports := fields[0], fields[1:]
		switch pkg {
		case "go/format", "go/printer", "go/parser", "go/ast", "go/doc/comment", "go/scanner", "go/token", "html/template":
			t.Errorf("scriptctl links %s", pkg)
		}
		for _, imp := range imports {
			if imp == "text/template" && pkg != "github.com/spf13/cobra" {
				t.Errorf("%s imports text/template", pkg)
			}
		}
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	setTemplate := regexp.MustCompile(`\.Set\w*Template\(`)
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if m := setTemplate.Find(src); m != nil {
			t.Errorf("%s calls %s...): cobra renders it with text/template", f, m)
		}
	}
}

// TestNoDynamicMethodLookup builds scriptctl and checks that its symbol
// table has no reflect.Value.Method or MethodByName: with either reachable
// the linker keeps every exported method of every type
// (TestNoStartCostPackages says what that costs).
func TestNoDynamicMethodLookup(t *testing.T) {
	testtier.Full(t, "builds the binary with CGO_ENABLED=0: the toolchain")
	bin := filepath.Join(t.TempDir(), "scriptctl")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command("go", "tool", "nm", bin).Output()
	if err != nil {
		t.Fatalf("go tool nm: %v", err)
	}
	if !strings.Contains(string(out), " main.main\n") {
		t.Fatalf("go tool nm lists no main.main:\n%.2000s", out)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if f := strings.Fields(line); len(f) > 0 {
			switch f[len(f)-1] {
			case "reflect.Value.Method", "reflect.Value.MethodByName":
				t.Errorf("scriptctl links %s", f[len(f)-1])
			}
		}
	}
}
