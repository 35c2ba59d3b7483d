package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/scriptctl/scriptctl/internal/cmdutil"
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

// TestChecksRunDuringDiscovery: plan's and deploy's pre-flight checks run
// while the nodes are discovered (connectDuring). Checks that wait for
// the node's first command see it (a run that discovered only after the
// checks would never send it); when they then fail, their error is the
// run's, whatever discovery found, and the connection still in its
// handshake is closed at once (the node reads EOF; its --timeout is an
// hour).
func TestChecksRunDuringDiscovery(t *testing.T) {
	addr, first, closed := redistest.Silent(t)
	ios, _, _, errOut := iostreams.Test()
	ios.Verbose = true
	f := connFlags{URLs: []string{"redis://" + addr}, Timeout: time.Hour}
	errChecks := errors.New("the pre-flight checks failed")
	// The bounds only turn a hang into a failure: on loopback each event
	// takes microseconds.
	o, err := f.connectDuring(context.Background(), ios, "deploy", func() error {
		select {
		case cmd := <-first:
			if cmd != "HELLO 2" {
				t.Errorf("first command %q, want HELLO 2", cmd)
			}
		case <-time.After(time.Minute):
			t.Error("discovery sent nothing while the checks ran")
		}
		return errChecks
	})
	if !errors.Is(err, errChecks) || o != nil {
		t.Fatalf("connectDuring with failing checks: %v, %v; want the checks' error", o, err)
	}
	select {
	case err := <-closed:
		if !errors.Is(err, io.EOF) && !strings.Contains(err.Error(), "reset") {
			t.Fatalf("the node's connection after the checks failed: %v, want EOF", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the connection in its handshake is still open a minute after the checks failed")
	}
	if errOut.Len() != 0 {
		t.Fatalf("a refused run named nodes on stderr:\n%s", errOut)
	}
}

// TestDiscoveryReportedAfterChecks: with --verbose the discovered nodes
// are named after the checks' own lines, as when one ran after the other,
// a node found unreachable included.
func TestDiscoveryReportedAfterChecks(t *testing.T) {
	s := redistest.Standalone(t)
	ios, _, _, errOut := iostreams.Test()
	ios.Verbose = true
	f := connFlags{URLs: []string{s.URL()}, Timeout: 5 * time.Second}
	checks := func() error {
		ios.Detail("deploy: pre-flight sum: ok")
		return nil
	}
	o, err := f.connectDuring(context.Background(), ios, "deploy", checks)
	if err != nil {
		t.Fatal(err)
	}
	defer o.topo.Close()
	if len(o.topo.Nodes) != 1 || !o.topo.Nodes[0].OK() || o.topo.Nodes[0].Addr != s.Addr {
		t.Fatalf("discovered %+v", o.topo.Nodes)
	}
	want := "deploy: pre-flight sum: ok\ndeploy: discovered 1 node(s) (standalone)\ndeploy: node " + s.Addr + ": primary, "
	if !strings.HasPrefix(errOut.String(), want) {
		t.Fatalf("stderr:\n%s\nwant it to start:\n%s", errOut, want)
	}

	// A closed port: the node is kept, not usable, named after the checks.
	errOut.Reset()
	f = connFlags{URLs: []string{"redis://127.0.0.1:1"}, Timeout: 5 * time.Second}
	o, err = f.connectDuring(context.Background(), ios, "deploy", checks)
	if err != nil {
		t.Fatal(err)
	}
	defer o.topo.Close()
	if len(o.topo.Nodes) != 1 || o.topo.Nodes[0].OK() {
		t.Fatalf("a closed port discovered as %+v", o.topo.Nodes)
	}
	want = "deploy: pre-flight sum: ok\ndeploy: discovered 1 node(s) (standalone)\ndeploy: node 127.0.0.1:1: unknown, not usable: connection refused"
	if !strings.HasPrefix(errOut.String(), want) {
		t.Fatalf("stderr:\n%s\nwant it to start:\n%s", errOut, want)
	}
}

// TestConnectionsEndWithTheRun: a deploy run inside a longer-lived process
// (run, as the tests call it) closes its connections before it returns;
// the binary (Main) leaves them to the kernel, which closes them as the
// process exits. Either way the server is left with none of them.
func TestConnectionsEndWithTheRun(t *testing.T) {
	s := redistest.Standalone(t)
	noConnEnv(t)
	path := loaderProject(t, "1")
	// clients is CLIENT LIST; others counts its connections besides the
	// one asking.
	clients := func() string {
		msg := s.MustDo("CLIENT", "LIST")
		text, err := msg.ToString()
		if err != nil {
			t.Fatal(err)
		}
		return text
	}
	others := func() int {
		n := 0
		for _, l := range strings.Split(strings.TrimSpace(clients()), "\n") {
			if !strings.Contains(l, " cmd=client|list ") {
				n++
			}
		}
		return n
	}
	// The bound only turns a connection left open into a failure: the
	// server sees a close on its next turn of its event loop.
	noneLeft := func(what string) {
		t.Helper()
		for deadline := time.Now().Add(time.Minute); others() != 0; time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%s left %d connection(s) open:\n%s", what, others(), clients())
			}
		}
	}
	if processExits {
		t.Fatal("processExits is set in the test process")
	}
	loaderExpect(t, 0, "deploy", "-m", path, "--url", s.URL())
	noneLeft("deploy inside the test process")

	// The binary: a link named scriptctl-process to the test binary runs
	// Main (TestMain).
	bin := filepath.Join(t.TempDir(), "scriptctl-process")
	if err := os.Symlink(os.Args[0], bin); err != nil {
		t.Fatal(err)
	}
	s.MustDo("FUNCTION", "FLUSH")
	cmd := exec.Command(bin, "deploy", "-m", path, "--url", s.URL())
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("scriptctl deploy: %v\n%s", err, out)
	}
	if libs := libraries(t, s); len(libs) != 1 {
		t.Fatalf("the process deployed %v", libs)
	}
	noneLeft("the scriptctl process")
}

// TestInterruptsWatchedAfterDiscovery: the binary (Main) watches for
// interrupts in an online command only once its nodes are discovered.
// Interrupted during discovery (a node that never answers its HELLO), the
// process ends as any does, by the signal, having changed nothing;
// interrupted while it waits for another deploy's lock, it stops cleanly:
// exit 3, the other holder's lock left as it was, nothing loaded.
func TestInterruptsWatchedAfterDiscovery(t *testing.T) {
	noConnEnv(t)
	path := loaderProject(t, "1")
	bin := filepath.Join(t.TempDir(), "scriptctl-process")
	if err := os.Symlink(os.Args[0], bin); err != nil {
		t.Fatal(err)
	}
	// The bounds only turn a hang into a failure.
	within := func(what string, ch <-chan struct{}) {
		t.Helper()
		select {
		case <-ch:
		case <-time.After(time.Minute):
			t.Fatalf("%s: not within a minute", what)
		}
	}

	addr, first, _ := redistest.Silent(t)
	hello := make(chan struct{})
	go func() {
		<-first
		close(hello)
	}()
	cmd := exec.Command(bin, "deploy", "-m", path, "--url", "redis://"+addr, "--timeout", "1h")
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	within("the HELLO of the discovery", hello)
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGINT {
		t.Fatalf("interrupted in discovery: %v (%v), want the process ended by SIGINT", err, cmd.ProcessState)
	}

	s := redistest.Standalone(t)
	const lock = "scriptctl:lock:{catalog_refresh}"
	s.MustDo("SET", lock, "other-deploy host=ci pid=1", "PX", "600000")
	cmd = exec.Command(bin, "deploy", "-m", path, "--url", s.URL(), "--lock-timeout", "1h")
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waiting := make(chan struct{})
	var lines []string
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			lines = append(lines, sc.Text())
			if strings.Contains(sc.Text(), "waiting up to ") {
				close(waiting)
			}
		}
	}()
	within("the wait for the lock", waiting)
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	<-done
	err = cmd.Wait()
	want := "Error: interrupted while waiting for the deploy lock " + lock + " on " + s.Addr + ": nothing was changed"
	if cmd.ProcessState.ExitCode() != cmdutil.ExitEnv || !slices.Contains(lines, want) {
		t.Fatalf("interrupted waiting for the lock: %v, want exit 3 and %q:\n%s", err, want, strings.Join(lines, "\n"))
	}
	held := s.MustDo("GET", lock)
	if v, err := held.ToString(); err != nil || v != "other-deploy host=ci pid=1" {
		t.Fatalf("the other deploy's lock is now %q (%v)", v, err)
	}
	if libs := libraries(t, s); len(libs) != 0 {
		t.Fatalf("an interrupted deploy loaded %v", libs)
	}
}

// TestOnlineCommandsWatchAfterDiscovery: the commands that take servers'
// flags are the ones marked to watch for interrupts after discovery, and
// `help exit-codes` names exactly them.
func TestOnlineCommandsWatchAfterDiscovery(t *testing.T) {
	ios, _, _, _ := iostreams.Test()
	var marked []string
	for _, c := range newRootCmd(ios).Commands() {
		if watchesAfterDiscovery(c) {
			marked = append(marked, c.Name())
		}
		if (c.Flags().Lookup("url") != nil) != watchesAfterDiscovery(c) {
			t.Errorf("%s: --url %v, watches after discovery %v", c.Name(), c.Flags().Lookup("url") != nil, watchesAfterDiscovery(c))
		}
	}
	slices.Sort(marked)
	if want := []string{"deploy", "diff", "inspect", "plan", "prune", "status", "unlock"}; !slices.Equal(marked, want) {
		t.Errorf("marked %v, want %v", marked, want)
	}
	if !strings.Contains(strings.Join(strings.Fields(exitCodesHelp), " "), "The online commands (plan, deploy, prune, unlock, status, inspect, diff) watch") {
		t.Errorf("help exit-codes does not name the marked commands:\n%s", exitCodesHelp)
	}
}
