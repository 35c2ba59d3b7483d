package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/scriptctl/scriptctl/internal/iostreams"
	"github.com/scriptctl/scriptctl/internal/redistest"
	"github.com/scriptctl/scriptctl/loader"
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

// TestRediscoverOnRedirect: a redirect on the lock's command (the slots
// moved after discovery) is said on stderr and answered with a new
// discovery; any other error is left to the caller.
func TestRediscoverOnRedirect(t *testing.T) {
	s := redistest.Standalone(t)
	ios, _, _, errOut := iostreams.Test()
	f := connFlags{URLs: []string{s.URL()}, Timeout: 5 * time.Second}
	o, err := f.connectAll(context.Background(), ios, "deploy")
	if err != nil {
		t.Fatal(err)
	}
	if _, retry, _ := f.rediscover(context.Background(), ios, o, errors.New("other"), "deploy"); retry {
		t.Fatal("retry on an error that is not a redirect")
	}
	re := &loader.RedirectError{Node: s.Addr, Op: "deploy lock k", Reply: "MOVED 5397 127.0.0.1:7002"}
	o2, retry, err := f.rediscover(context.Background(), ios, o, fmt.Errorf("wrapped: %w", re), "deploy")
	if !retry || err != nil || o2 == nil || o2 == o || len(o2.topo.Nodes) != 1 || !o2.topo.Nodes[0].OK() {
		t.Fatalf("rediscover: retry %v err %v", retry, err)
	}
	defer o2.topo.Close()
	if !strings.Contains(errOut.String(), `the node answered "MOVED 5397 127.0.0.1:7002"`) || !strings.Contains(errOut.String(), "discovering the nodes again") {
		t.Fatalf("stderr: %s", errOut)
	}
}
