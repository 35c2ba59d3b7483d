package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestNoGoSourcePackages: the binary links none of the packages that parse
// and print Go source (their itabs and initialisers cost every process
// start); gen writes the Go bindings in gofmt's layout itself.
func TestNoGoSourcePackages(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is not on PATH")
	}
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 10 || !strings.Contains(string(out), "github.com/scriptctl/scriptctl/gen\n") {
		t.Fatalf("go list -deps lists %d packages, without gen:\n%s", len(deps), out)
	}
	for _, d := range deps {
		switch d {
		case "go/format", "go/printer", "go/parser", "go/ast", "go/doc/comment", "go/scanner", "go/token":
			t.Errorf("scriptctl links %s", d)
		}
	}
}
