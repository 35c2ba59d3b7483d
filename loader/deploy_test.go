package loader

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/scriptctl/scriptctl/internal/connect"
	"github.com/scriptctl/scriptctl/internal/redistest"
)

// TestDeployInterrupted cancels the context (as Ctrl-C does) when the first
// node is done: the run stops between nodes, reports what was done, leaves
// the other nodes untouched and releases the lock.
func TestDeployInterrupted(t *testing.T) {
	a, b, c := redistest.Standalone(t), redistest.Standalone(t), redistest.Standalone(t)
	m := loadManifest(t, 1)
	tp := topo(t, "", a, b, c)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var once sync.Once
	rep, err := Deploy(ctx, tp, m, DeployOptions{
		Options:  Options{Parallel: 1},
		Progress: func(string, ...any) { once.Do(cancel) },
	})
	if !errors.Is(err, ErrInterrupted) || !strings.Contains(err.Error(), "after 1 of 3 nodes") {
		t.Fatalf("deploy error = %v, want ErrInterrupted after 1 of 3 nodes", err)
	}
	var done []*redistest.Server
	byAddr := map[string]*redistest.Server{a.Addr: a, b.Addr: b, c.Addr: c}
	for _, nr := range rep.Nodes {
		s := byAddr[nr.Node.Addr]
		if nr.Interrupted {
			for _, it := range nr.Items {
				if it.Outcome != OutcomeSkipped {
					t.Errorf("%s: %s %s: %s, want skipped", s.Addr, it.Kind, it.Name, it.Outcome)
				}
			}
			for _, sc := range m.Scripts {
				if v, _ := s.Do(context.Background(), "SCRIPT", "EXISTS", sc.SHA).AsIntSlice(); v[0] != 0 {
					t.Errorf("%s: interrupted node has %s loaded", s.Addr, sc.Name)
				}
			}
			continue
		}
		if nr.Status() != "ok" {
			t.Errorf("%s: %s", s.Addr, nr.Status())
		}
		done = append(done, s)
	}
	if len(done) != 1 {
		t.Fatalf("%d nodes done, want 1", len(done))
	}
	assertLoaded(t, m, done, nil)
	owner, _ := tp.owner(LockKey(m.Library))
	if _, held, _ := owner.conn.Get(context.Background(), LockKey(m.Library)); held {
		t.Fatal("the lock was not released after the interruption")
	}
	// The rerun converges.
	if _, err := Deploy(context.Background(), tp, m, DeployOptions{}); err != nil {
		t.Fatal(err)
	}
	assertLoaded(t, m, []*redistest.Server{a, b, c}, nil)
}

// TestDeployShaMismatch: a node whose SCRIPT LOAD answers another SHA is
// aborted with a clear error (simulated by a manifest whose recorded SHA is
// not the file's).
func TestDeployShaMismatch(t *testing.T) {
	s := redistest.Standalone(t)
	m := loadManifest(t, 1)
	bad := *m.Scripts[1]
	bad.SHA = strings.Repeat("ab", 20)
	m.Scripts[1] = &bad
	tp := topo(t, "", s)
	rep, err := Deploy(context.Background(), tp, m, DeployOptions{Options: Options{Mode: ModeScripts}})
	var ne *NodesError
	if !errors.As(err, &ne) || !strings.Contains(err.Error(), "script load publish: publish: the node returned SHA fc8b776b71fe6b8221cd3f3c831499cd13951c0c, the file's bytes hash to abab") {
		t.Fatalf("err = %v", err)
	}
	outcomes := []Outcome{}
	for _, it := range rep.Nodes[0].Items {
		outcomes = append(outcomes, it.Outcome)
	}
	if len(outcomes) != 3 || outcomes[0] != OutcomeLoaded || outcomes[1] != OutcomeFailed || outcomes[2] != OutcomeLoaded {
		t.Fatalf("outcomes %v, want loaded failed loaded (one pipelined round trip)", outcomes)
	}
}

func TestModes(t *testing.T) {
	s := redistest.Standalone(t)
	m := loadManifest(t, 1)
	tp := topo(t, "", s)
	ctx := context.Background()
	if _, err := Deploy(ctx, tp, m, DeployOptions{Options: Options{Mode: ModeFunctions}}); err != nil {
		t.Fatal(err)
	}
	for _, sc := range m.Scripts {
		if v, _ := s.Do(ctx, "SCRIPT", "EXISTS", sc.SHA).AsIntSlice(); v[0] != 0 {
			t.Fatalf("--mode functions loaded script %s", sc.Name)
		}
	}
	if rawLibrary(t, s, m.LibraryName()) == "" {
		t.Fatal("--mode functions did not load the library")
	}
	p, err := Plan(ctx, tp, m, Options{Mode: ModeScripts})
	if err != nil {
		t.Fatal(err)
	}
	if got := actions(p); got != "script acquire load, script publish load, script release load" {
		t.Fatalf("--mode scripts plan: %s", got)
	}
	st, err := Status(ctx, tp, m, Options{Mode: ModeFunctions})
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Drift()) != 0 {
		t.Fatalf("--mode functions status drift: %v", st.Drift())
	}
	if _, err := ParseMode("all"); err == nil {
		t.Fatal("ParseMode(all) succeeded")
	}
}

// TestOlderServerSkipsFunctions: a server older than 7.0 (simulated by the
// version discovery read) gets the script cache only, with a notice, and
// status does not count the missing library as drift.
func TestOlderServerSkipsFunctions(t *testing.T) {
	for v, want := range map[string]bool{"6.2.14": false, "7.0.15": true, "7.2.4": true, "8.0.0": true, "": false, "x.y": false} {
		if got := (&Node{Version: v}).SupportsFunctions(); got != want {
			t.Errorf("SupportsFunctions(%q) = %v, want %v", v, got, want)
		}
	}
	if !(&Node{Family: FamilyValkey, Version: "7.2.5"}).SupportsFunctions() {
		t.Error("Valkey 7.2 has Functions")
	}
	s := redistest.Standalone(t)
	m := loadManifest(t, 1)
	tp := topo(t, "", s)
	tp.Nodes[0].Family, tp.Nodes[0].Version = FamilyRedis, "6.2.14"
	var notices []string
	opts := Options{Notice: func(format string, args ...any) { notices = append(notices, fmt.Sprintf(format, args...)) }}
	rep, err := Deploy(context.Background(), tp, m, DeployOptions{Options: opts})
	if err != nil {
		t.Fatal(err)
	}
	if len(notices) != 1 || !strings.Contains(notices[0], "functions skipped on 1 node(s) older than Redis 7.0") {
		t.Fatalf("notices %q", notices)
	}
	items := rep.Nodes[0].Items
	if len(items) != 4 || items[3].Kind != KindLibrary || items[3].Action != ActionUnsupported || items[3].Outcome != OutcomeUnsupported {
		t.Fatalf("items %+v", items)
	}
	if rawLibrary(t, s, m.LibraryName()) != "" {
		t.Fatal("the library was loaded on an 'older' server")
	}
	assertScripts(t, m, []*redistest.Server{s})
	st, err := Status(context.Background(), tp, m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Drift()) != 0 || st.Nodes[0].Items[3].State != StateUnsupported {
		t.Fatalf("status drift %v items %+v", st.Drift(), st.Nodes[0].Items)
	}
}

// TestDeployFrozenReplica freezes the replica (SIGSTOP) the moment its
// primary has loaded the library, so it stops answering while the library
// is confirmed: the run ends by the node timeout (1s), not by
// --replica-wait (60s), and says why.
func TestDeployFrozenReplica(t *testing.T) {
	primary, replica := redistest.Replicated(t)
	m := loadManifest(t, 1)
	cfg, err := connect.Resolve(connect.Settings{URLs: []string{primary.URL()}, Timeout: time.Second}, false)
	if err != nil {
		t.Fatal(err)
	}
	tp, err := Connect(context.Background(), cfg.Dial, cfg.Seeds, cfg.Timeout)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tp.Close)
	if len(tp.Nodes) != 2 {
		t.Fatalf("%d nodes, want the primary and its replica", len(tp.Nodes))
	}
	pid := replica.Pid()
	var once sync.Once
	freeze := func() {
		if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
			t.Error(err)
		}
		t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGCONT) })
	}
	start := time.Now()
	rep, err := Deploy(context.Background(), tp, m, DeployOptions{
		Options:     Options{Mode: ModeFunctions},
		ReplicaWait: 60 * time.Second,
		Progress: func(format string, args ...any) {
			if strings.HasPrefix(fmt.Sprintf(format, args...), "primary "+primary.Addr) {
				once.Do(freeze)
			}
		},
	})
	elapsed := time.Since(start)
	if err == nil || !strings.Contains(err.Error(), replica.Addr+": confirm replica: the replica did not answer FUNCTION LIST within --timeout 1s") {
		t.Fatalf("err = %v", err)
	}
	t.Logf("deploy ended after %s", elapsed)
	// Far below --replica-wait: the bound is the node timeout.
	if elapsed > 30*time.Second {
		t.Fatalf("deploy took %s: held by --replica-wait, not the 1s node timeout", elapsed)
	}
	if got := rep.Nodes[0].Status(); got != "ok" {
		t.Fatalf("primary: %s", got)
	}
	if got := rep.Nodes[1].Items[0].Outcome; got != OutcomeFailed {
		t.Fatalf("replica library outcome %s, want failed", got)
	}
}
