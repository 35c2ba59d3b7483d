package loader

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/scriptctl/scriptctl/internal/redistest"
)

// TestShardGap: on a 6-node cluster of the run's build (Valkey 9.1 with
// SCRIPTCTL_TEST_SERVER=valkey-9.1), a primary whose Functions were flushed
// (as a new shard, or one that took slots by atomic slot migration, holds
// none) is drift on that primary with the slots it serves, inspect names it
// as a gap, and Deploy loads the library there and nowhere else.
func TestShardGap(t *testing.T) {
	c := redistest.NewCluster(t)
	ctx := context.Background()
	m := loadManifest(t, 1)
	newTopo := func() *Topology { t.Helper(); return topo(t, "", c.Primaries[0]) }
	if _, err := Deploy(ctx, newTopo(), m, DeployOptions{}); err != nil {
		t.Fatalf("deploy: %v", err)
	}
	gap := c.Primaries[2]
	gap.MustDo("FUNCTION", "FLUSH")

	tp := newTopo()
	st, err := Status(ctx, tp, m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if d := st.Drift(); !slices.Contains(d, gap.Addr+": library "+m.LibraryName()+" missing") {
		t.Fatalf("drift %q does not name %s", d, gap.Addr)
	}
	for _, ns := range st.Nodes {
		for _, it := range ns.Items {
			if it.Kind != KindLibrary || it.State != StateMissing {
				continue
			}
			wantGap := ns.Node.Addr == gap.Addr
			if (it.Gap != "") != wantGap || wantGap && !strings.HasPrefix(it.Gap, "primary serving slots "+ns.Node.SlotRanges()+": ") {
				t.Errorf("%s (%s): gap %q", ns.Node.Addr, ns.Node.Role, it.Gap)
			}
		}
	}
	ir, err := Inspect(ctx, tp, InspectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, mm := range ir.Mismatches {
		if mm.Kind == KindLibrary && strings.EqualFold(mm.Name, m.LibraryName()) {
			found = len(mm.Gaps) == 1 && strings.HasPrefix(mm.Gaps[0], gap.Addr+" (slots ")
			if !found {
				t.Errorf("mismatch gaps %q, want %s alone", mm.Gaps, gap.Addr)
			}
		}
	}
	if !found {
		t.Fatalf("inspect reports no library mismatch: %v", ir.Mismatches)
	}
	rep, err := Deploy(ctx, tp, m, DeployOptions{})
	if err != nil {
		t.Fatalf("repair deploy: %v", err)
	}
	for _, nr := range rep.Nodes {
		for _, it := range nr.Items {
			if it.Kind == KindLibrary && (it.Outcome == OutcomeLoaded) != (nr.Node.Addr == gap.Addr) {
				t.Errorf("%s library: %s", nr.Node.Addr, it.Outcome)
			}
		}
	}
	st, err = Status(ctx, newTopo(), m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if d := st.Drift(); len(d) != 0 {
		t.Fatalf("drift after the repair: %q", d)
	}
}
