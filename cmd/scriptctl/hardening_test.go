package main

import (
	"strings"
	"testing"
)

// TestStatusRepairHintMatchesDeploy: a library loaded with other code is
// drift that plain deploy refuses (a conflict), so status's hint says
// deploy --replace, and following it repairs the drift.
func TestStatusRepairHintMatchesDeploy(t *testing.T) {
	s := planServer(t)
	m := loadFor(t, repoManifest)
	loaderExpect(t, 0, "deploy", "-m", repoManifest, "--url", s.URL())
	s.MustDo("FUNCTION", "LOAD", "REPLACE", string(m.FunctionsLibrary())+"\n-- hand-edited on the server\n")

	res := loaderExpect(t, 1, "status", "-m", repoManifest, "--url", s.URL())
	if !strings.Contains(res.errOut, "1 drifted item(s): run 'scriptctl deploy --replace' to repair") {
		t.Fatalf("stderr:\n%s", res.errOut)
	}
	loaderExpect(t, 3, "deploy", "-m", repoManifest, "--url", s.URL())
	loaderExpect(t, 0, "deploy", "--replace", "-m", repoManifest, "--url", s.URL())
	loaderExpect(t, 0, "status", "-m", repoManifest, "--url", s.URL())

	// Missing scripts only: plain deploy repairs them, and the hint says so.
	s.MustDo("SCRIPT", "FLUSH")
	res = loaderExpect(t, 1, "status", "-m", repoManifest, "--url", s.URL())
	if !strings.Contains(res.errOut, "drifted item(s): run 'scriptctl deploy' to repair\n") {
		t.Fatalf("stderr:\n%s", res.errOut)
	}
	loaderExpect(t, 0, "deploy", "-m", repoManifest, "--url", s.URL())
	loaderExpect(t, 0, "status", "-m", repoManifest, "--url", s.URL())
}
