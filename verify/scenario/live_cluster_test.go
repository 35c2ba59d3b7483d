package scenario

import (
	"context"
	"strings"
	"testing"

	"github.com/scriptctl/scriptctl/internal/redistest"
	"github.com/scriptctl/scriptctl/slot"
)

// multiSlot calls the manifest's scripts for two products (two slots),
// and runs raw commands on keys without a hash tag (more slots): setup,
// calls and readback all land on different primaries.
const multiSlot = `caller: catalog_summary
vars: {id: "42"}
keys:
  "catalog:{product-7}:value": {value: old7, ttl_ms: 60000}
  counter-a: {value: "5"}
  counter-b: {hash: {n: "1"}}
workers: {w: {token: tok-w}}
steps:
  - worker: w
    call: acquire
    args: {lease_ttl_ms: 2000}
    expect:
      reply: [acquired, "0"]
      keys:
        lease: {value: tok-w, ttl_ms: 2000}
  - worker: w
    call: acquire
    keys: {lease: "catalog:{product-7}:lease", value: "catalog:{product-7}:value", gen: "catalog:{product-7}:gen"}
    args: {lease_ttl_ms: 3000}
    expect:
      reply: [cached, old7, "0"]
  - worker: w
    call: publish
    args: {candidate: v42, cache_ttl_ms: 60000, gen: "0", revision: ""}
    expect:
      reply: 1
  - do: [INCR, counter-a]
    expect: {reply: 6}
  - do: [HINCRBY, counter-b, n, "2"]
    expect: {reply: 3}
  - do: [GET, "catalog:{product-7}:value"]
    expect: {reply: old7}
  - worker: w
    call: release
    keys: ["counter-a"]
    expect:
      reply: 0
`

// TestLiveClusterAgrees runs the bundled scenarios and a scenario whose
// keys are in several slots on a 6-node cluster, seeded with one node, and
// requires the live runs to agree with the offline ones 20 times in a row:
// every key reaches its slot's primary, setup and readback included, and no
// reply is a redirect.
func TestLiveClusterAgrees(t *testing.T) {
	c := redistest.NewCluster(t)
	m := repoManifest(t)
	// Seed with a replica: the cluster is discovered from any node.
	srv := dial(t, c.Replicas[1])
	if !strings.HasSuffix(srv.Addr, "(cluster)") {
		t.Fatalf("Addr = %q, want a cluster", srv.Addr)
	}
	sc, err := Parse("multi_slot.yaml", []byte(multiSlot))
	if err != nil {
		t.Fatal(err)
	}
	if err := sc.Bind(m); err != nil {
		t.Fatal(err)
	}
	if slot.Of("counter-a") == slot.Of("counter-b") || slot.Of("{product-7}") == slot.Of("{product-42}") {
		t.Fatal("the scenario's keys must be in several slots")
	}
	ctx := context.Background()
	check := func(round int, rep *Report) {
		t.Helper()
		for _, r := range rep.Results {
			if len(r.Live) == 0 {
				t.Errorf("round %d: %s [%s]: no live run", round, r.File, r.Mode)
			}
			for _, lv := range r.Live {
				for _, st := range lv.Steps {
					if st.Reply != nil && (strings.Contains(st.Reply.String(), "MOVED") || strings.Contains(st.Reply.String(), "ASK ")) {
						t.Errorf("round %d: %s step %d: a redirect as the reply: %s", round, r.File, st.Index, st.Reply)
					}
				}
			}
		}
		if !rep.OK() {
			t.Fatalf("round %d: not every result passed:\n%s", round, problems(rep))
		}
	}
	rep, err := RunAll(ctx, m, bundled(t, m), Options{Live: srv, Parallel: 8, Target: c.Primaries[0].Kind.Target()})
	if err != nil {
		t.Fatal(err)
	}
	check(0, rep)
	for round := 1; round <= 20; round++ {
		rep, err := RunAll(ctx, m, []*Scenario{sc}, Options{Live: srv, Target: c.Primaries[0].Kind.Target()})
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		check(round, rep)
	}
	// Every run cleaned up on every primary.
	for _, p := range c.Primaries {
		if keys := p.MustDo("KEYS", "*"); len(mustArray(t, keys)) != 0 {
			t.Errorf("%s: keys left: %s", p.Addr, keys.String())
		}
		if libs := p.MustDo("FUNCTION", "LIST"); len(mustArray(t, libs)) != 0 {
			t.Errorf("%s: functions left: %s", p.Addr, libs.String())
		}
	}
}
