package main

import (
	"os"
	"os/exec"
	"runtime/debug"
	"strings"
	"testing"
)

// TestGrowStack: the frame growStack reserves is really there (not
// compiled away). In a child process whose goroutines may not grow past
// 48 KB, growStack must overflow the stack; with the frame gone it would
// return.
func TestGrowStack(t *testing.T) {
	if os.Getenv("SCRIPTCTL_TEST_GROWSTACK") == "1" {
		debug.SetMaxStack(48 << 10)
		_ = growStack(1)
		os.Stdout.WriteString("growStack returned on a 48 KB stack\n")
		os.Exit(0)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestGrowStack$")
	cmd.Env = append(os.Environ(), "SCRIPTCTL_TEST_GROWSTACK=1")
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "stack exceeds 49152-byte limit") {
		t.Errorf("growStack on a 48 KB stack: %v\n%s", err, out)
	}
}
