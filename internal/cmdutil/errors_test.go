package cmdutil

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
	"testing"
)

func TestExitCode(t *testing.T) {
	_, readErr := os.ReadFile("/nonexistent/scriptctl/manifest.yaml")
	for _, tc := range []struct {
		name string
		err  error
		want int
	}{
		{"nil", nil, ExitOK},
		{"findings", Findings(), ExitFindings},
		{"usage", Usage(errors.New("bad flag"), "scriptctl --help"), ExitInput},
		{"input", Input(errors.New("bad scenario")), ExitInput},
		{"env", Env(errors.New("dial tcp: refused")), ExitEnv},
		{"wrapped env", fmt.Errorf("deploy: %w", Env(errors.New("refused"))), ExitEnv},
		{"input keeps an inner code", Input(Env(errors.New("refused"))), ExitEnv},
		{"unreadable file", fmt.Errorf("read manifest: %w", readErr), ExitInput},
		{"stdout not written", &fs.PathError{Op: "write", Path: os.Stdout.Name(), Err: syscall.ENOSPC}, ExitEnv},
		{"stderr not written", fmt.Errorf("report: %w", &fs.PathError{Op: "write", Path: os.Stderr.Name(), Err: syscall.EPIPE}), ExitEnv},
		{"a named file not written", &fs.PathError{Op: "write", Path: "out/report.xml", Err: syscall.ENOSPC}, ExitEnv},
		{"a named file not opened", &fs.PathError{Op: "open", Path: "out/report.xml", Err: syscall.ENOENT}, ExitInput},
		{"canceled", fmt.Errorf("deploy: %w", context.Canceled), ExitEnv},
		{"anything else", errors.New("boom"), ExitEnv},
	} {
		if got := ExitCode(tc.err); got != tc.want {
			t.Errorf("%s: ExitCode(%v) = %d, want %d", tc.name, tc.err, got, tc.want)
		}
	}
}

func TestExitErrorSilentAndHint(t *testing.T) {
	var ee *ExitError
	if !errors.As(Findings(), &ee) || !ee.Silent {
		t.Fatalf("Findings() is not a silent ExitError: %#v", ee)
	}
	err := Usage(errors.New("unknown flag: --x"), "'scriptctl lint --help'")
	if !errors.As(err, &ee) || ee.Hint != "'scriptctl lint --help'" || ee.Silent {
		t.Fatalf("Usage() = %#v", ee)
	}
	if err.Error() != "unknown flag: --x" {
		t.Fatalf("Usage().Error() = %q", err.Error())
	}
	if Env(nil) != nil || Input(nil) != nil {
		t.Fatal("wrapping nil must stay nil")
	}
}
