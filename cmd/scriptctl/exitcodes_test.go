package main

import (
	"errors"
	"fmt"
	"testing"

	"github.com/scriptctl/scriptctl/internal/cmdutil"
	"github.com/scriptctl/scriptctl/manifest"
)

// TestExitCodeInvalidManifest: an invalid manifest exits 2, unless an
// ExitError in its chain says otherwise; the rest is cmdutil.ExitCode's.
func TestExitCodeInvalidManifest(t *testing.T) {
	invalid := fmt.Errorf("load: %w", manifest.Errors{{File: "m.yaml", Msg: "bad"}})
	for _, tc := range []struct {
		name string
		err  error
		want int
	}{
		{"nil", nil, cmdutil.ExitOK},
		{"invalid manifest", invalid, cmdutil.ExitInput},
		{"an exit error wins", cmdutil.Env(invalid), cmdutil.ExitEnv},
		{"anything else", errors.New("boom"), cmdutil.ExitEnv},
	} {
		if got := exitCode(tc.err); got != tc.want {
			t.Errorf("%s: exitCode = %d, want %d", tc.name, got, tc.want)
		}
	}
}
