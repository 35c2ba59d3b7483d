package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
)

// TestVersionInjected builds scriptctl the way the Makefile does (make
// build VERSION=...) and checks that the version it prints is the one given.
func TestVersionInjected(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "scriptctl")
	cmd := exec.Command("make", "-s", "-C", "../..", "build", "VERSION=v9.8.7-test", "BIN="+bin)
	if _, err := exec.LookPath("make"); err != nil {
		// Without make, the flag the Makefile passes.
		cmd = exec.Command("go", "build", "-ldflags", "-X main.version=v9.8.7-test", "-o", bin, ".")
	}
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %v\n%s", cmd.Args, err, out)
	}
	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^scriptctl v9\.8\.7-test \(go1\.\d+`).Match(out) {
		t.Fatalf("version printed %q, want v9.8.7-test", out)
	}
}
