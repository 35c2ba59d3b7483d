package loader

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/scriptctl/scriptctl/internal/connect"
	"github.com/scriptctl/scriptctl/internal/redistest"
)

// pttlCalls is how many PTTL commands the server has run (INFO
// commandstats): the lock probe's, here.
func pttlCalls(t *testing.T, s *redistest.Server) string {
	t.Helper()
	calls, _, _ := strings.Cut(pttlStats(t, s), ",")
	return calls
}

// TestConnectForCarriesProbes: a topology from ConnectFor answers
// CheckPermissions for the same work from the replies its discovery read,
// with no round trip of its own, and finds what a separate check finds (a
// missing permission, named); for other work it probes as before.
func TestConnectForCarriesProbes(t *testing.T) {
	s := redistest.Standalone(t)
	s.MustDo("ACL", "SETUSER", "deployer", "reset", "on", ">deploy-pw", "resetkeys", "~scriptctl:lock:*", "-@all",
		"+info", "+role", "+script|exists", "+script|load", "+function|list", "+set", "+get", "+pttl", "+eval", "+pexpire", "+del")
	cfg, err := connect.Resolve(connect.Settings{URLs: []string{"redis://deployer@" + s.Addr}, Password: "deploy-pw", Timeout: 5 * time.Second}, false)
	if err != nil {
		t.Fatal(err)
	}
	m := loadManifest(t, 1)
	ctx := context.Background()
	w := DeployWork(m, ModeBoth)

	before := pttlCalls(t, s)
	tp, err := ConnectFor(ctx, cfg.Dial, cfg.Seeds, cfg.Timeout, w)
	if err != nil {
		t.Fatal(err)
	}
	defer tp.Close()
	discovered := pttlCalls(t, s)
	if discovered == before {
		t.Fatalf("ConnectFor's discovery sent no lock probe (PTTL %s)", discovered)
	}
	check := func(tp *Topology, w Work) []Missing {
		t.Helper()
		var pe *PermissionError
		if err := CheckPermissions(ctx, tp, w); !errors.As(err, &pe) {
			t.Fatalf("CheckPermissions: %v, want a PermissionError", err)
		}
		return pe.Missing
	}
	got := check(tp, w)
	if after := pttlCalls(t, s); after != discovered {
		t.Fatalf("CheckPermissions sent its probes again: PTTL %s, then %s", discovered, after)
	}
	if len(got) != 1 || got[0].Permission != "function|load" || got[0].Node != s.Addr {
		t.Fatalf("missing %+v, want function|load on %s", got, s.Addr)
	}

	// The same check on a topology from Connect probes, and finds the same.
	plain, err := Connect(ctx, cfg.Dial, cfg.Seeds, cfg.Timeout)
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	if again := check(plain, w); len(again) != 1 || again[0] != got[0] {
		t.Fatalf("Connect then CheckPermissions: missing %+v, want %+v", again, got)
	}
	if after := pttlCalls(t, s); after == discovered {
		t.Fatalf("CheckPermissions after Connect sent no probe: PTTL %s", after)
	}

	// Other work than ConnectFor's is probed: prune needs function|delete.
	probed := pttlCalls(t, s)
	if got := check(tp, PruneWork(m)); len(got) != 1 || got[0].Permission != "function|delete" {
		t.Fatalf("prune: missing %+v, want function|delete", got)
	}
	if after := pttlCalls(t, s); after == probed {
		t.Fatalf("CheckPermissions for other work sent no probe: PTTL %s", after)
	}
}
