package main

import (
	"context"
	"testing"

	"github.com/scriptctl/scriptctl/internal/iostreams"
)

// endlessInput is a standard input that never ends, like /dev/zero.
type endlessInput struct{}

func (endlessInput) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = '-'
	}
	return len(p), nil
}

// TestEvalStdinIsBounded: "eval -" reads standard input up to the script
// cap and stops there, exit 2, rather than growing without end.
func TestEvalStdinIsBounded(t *testing.T) {
	ios, _, out, errOut := iostreams.Test()
	ios.In = endlessInput{}
	code := run(context.Background(), ios, []string{"eval", "-"})
	if want := "Error: read script from stdin: larger than the 4 MiB limit\n"; code != 2 || errOut.String() != want || out.Len() != 0 {
		t.Fatalf("exit %d, stderr %q, stdout %q; want exit 2, %q", code, errOut.String(), out.String(), want)
	}
}
