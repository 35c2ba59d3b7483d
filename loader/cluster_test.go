package loader

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/scriptctl/scriptctl/internal/connect"
	"github.com/scriptctl/scriptctl/internal/redistest"
	"github.com/scriptctl/scriptctl/manifest"
	"github.com/scriptctl/scriptctl/slot"
)

// TestCluster runs the cluster proofs on one shared 6-node cluster, in
// order: each subtest leaves the cluster as the next expects it.
func TestCluster(t *testing.T) {
	c := redistest.NewCluster(t)
	ctx := context.Background()
	m1 := loadManifest(t, 1)
	// One seed is enough: CLUSTER NODES names the rest.
	newTopo := func(t *testing.T) *Topology { t.Helper(); return topo(t, "", c.Primaries[1]) }

	t.Run("discover", func(t *testing.T) {
		tp := newTopo(t)
		if !tp.Cluster || len(tp.Nodes) != 6 {
			t.Fatalf("cluster %v with %d nodes, want a cluster of 6", tp.Cluster, len(tp.Nodes))
		}
		for i, p := range c.Primaries {
			n := tp.Nodes[slices.IndexFunc(tp.Nodes, func(n *Node) bool { return n.Addr == p.Addr })]
			if n.Role != RolePrimary || len(n.slots) == 0 {
				t.Errorf("%s: role %s slots %v", p.Addr, n.Role, n.slots)
			}
			r := tp.Nodes[slices.IndexFunc(tp.Nodes, func(n *Node) bool { return n.Addr == c.Replicas[i].Addr })]
			if r.Role != RoleReplica || r.Primary != p.Addr {
				t.Errorf("%s: role %s primary %s, want replica of %s", r.Addr, r.Role, r.Primary, p.Addr)
			}
		}
	})

	// ConnectFor sends a node CLUSTER NODES named only the probes it needs
	// there: the lock's only to the primary of the lock key's slot (and to
	// the seed, whose role is not known before its reply), so a missing
	// lock permission is still found there, with no round trip of the
	// check's own. A PTTL counts in a node's commandstats whether it ran,
	// was refused or redirected (MOVED, on a node that does not serve the
	// lock key).
	t.Run("ConnectFor probes each node for what it needs", func(t *testing.T) {
		w := DeployWork(m1, ModeBoth)
		ls := slot.Of(LockKey(m1.Library))
		var owner, seed *redistest.Server
		for i, p := range c.Primaries {
			if lo, hi := i*slot.Count/len(c.Primaries), (i+1)*slot.Count/len(c.Primaries)-1; ls >= lo && ls <= hi {
				owner = p
			} else if seed == nil {
				seed = p
			}
		}
		nodes := append(append([]*redistest.Server{}, c.Primaries...), c.Replicas...)
		for _, n := range nodes {
			n.MustDo("ACL", "SETUSER", "deployer", "reset", "on", ">deploy-pw", "resetkeys", "~scriptctl:lock:*", "-@all",
				"+info", "+role", "+cluster|nodes", "+script|exists", "+script|load", "+function|list", "+function|load",
				"+set", "+get", "+pttl", "+eval", "+del")
		}
		t.Cleanup(func() {
			for _, n := range nodes {
				n.MustDo("ACL", "DELUSER", "deployer")
			}
		})
		cfg, err := connect.Resolve(connect.Settings{URLs: []string{"redis://deployer@" + seed.Addr}, Password: "deploy-pw", Timeout: 5 * time.Second}, false)
		if err != nil {
			t.Fatal(err)
		}
		before := map[string]string{}
		for _, n := range nodes {
			before[n.Addr] = pttlStats(t, n)
		}
		tp, err := ConnectFor(ctx, cfg.Dial, cfg.Seeds, cfg.Timeout, w)
		if err != nil {
			t.Fatal(err)
		}
		defer tp.Close()
		after := map[string]string{}
		for _, n := range nodes {
			after[n.Addr] = pttlStats(t, n)
			if probed, want := after[n.Addr] != before[n.Addr], n == owner || n == seed; probed != want {
				t.Errorf("%s: lock probe sent %v, want %v (lock on %s, seed %s)", n.Addr, probed, want, owner.Addr, seed.Addr)
			}
		}
		var pe *PermissionError
		if err := CheckPermissions(ctx, tp, w); !errors.As(err, &pe) {
			t.Fatalf("CheckPermissions: %v, want a PermissionError", err)
		}
		if len(pe.Missing) != 1 || pe.Missing[0].Node != owner.Addr || pe.Missing[0].Permission != "pexpire (called by the lock's scripts)" {
			t.Fatalf("missing %+v, want pexpire on the lock's node %s", pe.Missing, owner.Addr)
		}
		for _, n := range nodes {
			if got := pttlStats(t, n); got != after[n.Addr] {
				t.Errorf("%s: CheckPermissions sent its probes again: PTTL %s, then %s", n.Addr, after[n.Addr], got)
			}
		}
	})

	t.Run("deploy", func(t *testing.T) {
		tp := newTopo(t)
		rep, err := Deploy(ctx, tp, m1, DeployOptions{})
		if err != nil {
			t.Fatalf("deploy: %v", err)
		}
		// 3 scripts on 6 nodes, the library on 3 primaries and confirmed on 3 replicas.
		if changed, failed := rep.Counts(); changed != 24 || failed != 0 {
			t.Fatalf("counts: changed %d failed %d, want 24 0", changed, failed)
		}
		assertLoaded(t, m1, c.Primaries, c.Replicas)
		st, err := Status(ctx, tp, m1, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if d := st.Drift(); len(d) != 0 {
			t.Fatalf("drift right after deploy: %v", d)
		}
	})

	t.Run("script flush is drift and deploy repairs it", func(t *testing.T) {
		victim := c.Replicas[1]
		victim.MustDo("SCRIPT", "FLUSH")
		tp := newTopo(t)
		st, err := Status(ctx, tp, m1, Options{})
		if err != nil {
			t.Fatal(err)
		}
		want := []string{
			victim.Addr + ": script acquire missing",
			victim.Addr + ": script publish missing",
			victim.Addr + ": script release missing",
		}
		if d := st.Drift(); !slices.Equal(d, want) {
			t.Fatalf("drift = %q, want %q", d, want)
		}
		rep, err := Deploy(ctx, tp, m1, DeployOptions{})
		if err != nil {
			t.Fatalf("deploy: %v", err)
		}
		for _, nr := range rep.Nodes {
			for _, it := range nr.Items {
				wantOutcome := OutcomeAlreadyLoaded
				if nr.Node.Addr == victim.Addr && it.Kind == KindScript {
					wantOutcome = OutcomeLoaded
				}
				if it.Outcome != wantOutcome {
					t.Errorf("%s %s %s: %s, want %s", nr.Node.Addr, it.Kind, it.Name, it.Outcome, wantOutcome)
				}
			}
		}
		assertLoaded(t, m1, c.Primaries, c.Replicas)
	})

	t.Run("failover then EVALSHA on the new primary", func(t *testing.T) {
		c.Failover(0)
		np := c.Primaries[0] // the former replica
		tag := tagOn(t, 0, 16384/3-1)
		lease, value := "catalog:{"+tag+"}:lease", "catalog:{"+tag+"}:value"
		v, err := np.Do(ctx, "EVALSHA", m1.Script("acquire").SHA, "2", lease, value, "tok1", "10000").ToMessage()
		if err != nil {
			t.Fatalf("EVALSHA acquire on the new primary %s: %v", np.Addr, err)
		}
		if arr, _ := v.AsStrSlice(); len(arr) != 1 || arr[0] != "acquired" {
			t.Fatalf("acquire = %v, want [acquired]", arr)
		}
		if n, err := np.Do(ctx, "EVALSHA", m1.Script("publish").SHA, "2", lease, value, "tok1", "fresh", "10000").AsInt64(); err != nil || n != 1 {
			t.Fatalf("EVALSHA publish = %d, %v; want 1", n, err)
		}
		if got, _ := np.Do(ctx, "GET", value).ToString(); got != "fresh" {
			t.Fatalf("value = %q after publish, want fresh", got)
		}
		if n, err := np.Do(ctx, "EVALSHA", m1.Script("release").SHA, "1", lease, "tok1").AsInt64(); err != nil || n != 0 {
			t.Fatalf("EVALSHA release = %d, %v; want 0 (publish ended the lease)", n, err)
		}
		if n, err := np.Do(ctx, "FCALL", m1.FunctionName("release"), "1", lease, "tok1").AsInt64(); err != nil || n != 0 {
			t.Fatalf("FCALL release = %d, %v; want 0", n, err)
		}
	})

	t.Run("library conflict refused", func(t *testing.T) {
		tp := newTopo(t)
		changed := changedManifest(t, 1)
		rep, err := Deploy(ctx, tp, changed, DeployOptions{})
		var ce *ConflictError
		if !errors.As(err, &ce) {
			t.Fatalf("deploy of changed code under the same version: %v, want a ConflictError", err)
		}
		if len(ce.Nodes) != 6 || !strings.Contains(err.Error(), "catalog_refresh_v1") {
			t.Fatalf("conflict names %v: %v", ce.Nodes, err)
		}
		if len(rep.Nodes) != 0 {
			t.Fatalf("a refused deploy reports %d node results", len(rep.Nodes))
		}
		// Nothing changed: not even the new script SHA was loaded.
		for _, n := range c.Nodes() {
			if got, _ := n.Do(ctx, "SCRIPT", "EXISTS", changed.Scripts[0].SHA).ToMessage(); fmt.Sprint(mustInts(t, &got)) != "[0]" {
				t.Errorf("%s: the refused deploy loaded the changed script", n.Addr)
			}
		}
		assertLoaded(t, m1, c.Primaries, c.Replicas)

		// --replace overwrites it, and back again.
		if _, err := Deploy(ctx, tp, changed, DeployOptions{Options: Options{Replace: true}}); err != nil {
			t.Fatalf("deploy --replace: %v", err)
		}
		assertLoaded(t, changed, c.Primaries, c.Replicas)
		if _, err := Deploy(ctx, tp, m1, DeployOptions{Options: Options{Replace: true}}); err != nil {
			t.Fatalf("deploy --replace back: %v", err)
		}
		assertLoaded(t, m1, c.Primaries, c.Replicas)
	})

	t.Run("deploy lock", func(t *testing.T) {
		tp := newTopo(t)
		m2 := loadManifest(t, 2)
		// A held lock: a deploy waits, then names the holder.
		hold, _, err := AcquireLock(ctx, tp, m2.Library, 0, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		_, err = Deploy(ctx, newTopo(t), m2, DeployOptions{LockTimeout: 1500 * time.Millisecond})
		var le *LockError
		if !errors.As(err, &le) {
			t.Fatalf("deploy under a held lock: %v, want a LockError", err)
		}
		// The 1s lease outlived the 1.5s wait: it was renewed.
		if waited := time.Since(start); waited < 1400*time.Millisecond {
			t.Fatalf("gave up after %s, want the full 1.5s wait", waited)
		}
		if !strings.Contains(le.Holder, fmt.Sprintf("pid=%d", os.Getpid())) || strings.Contains(le.Holder, hold.value[:32]) {
			t.Fatalf("holder %q: want host and pid, without the token", le.Holder)
		}
		if rawLibrary(t, c.Primaries[0], m2.LibraryName()) != "" {
			t.Fatal("the waiting deploy loaded the library")
		}
		if err := hold.Release(ctx); err != nil {
			t.Fatal(err)
		}

		// Two deploys at once: one loads everything, the other finds it loaded.
		type res struct {
			rep *DeployReport
			err error
		}
		ch := make(chan res, 2)
		for range 2 {
			go func() {
				tp := topo(t, "", c.Primaries[2])
				rep, err := Deploy(ctx, tp, m2, DeployOptions{LockTimeout: 20 * time.Second})
				ch <- res{rep, err}
			}()
		}
		total := 0
		for range 2 {
			r := <-ch
			if r.err != nil {
				t.Fatalf("concurrent deploy: %v", r.err)
			}
			changed, _ := r.rep.Counts()
			total += changed
		}
		// Version 2 has the same script bytes (cached already) and a new
		// library: loaded on 3 primaries, confirmed on 3 replicas, once.
		if total != 6 {
			t.Fatalf("two concurrent deploys changed %d items in all, want 6: they interleaved", total)
		}
		assertLoaded(t, m2, c.Primaries, c.Replicas)
	})

	t.Run("lock lost is token safe", func(t *testing.T) {
		tp := newTopo(t)
		l, lctx, err := AcquireLock(ctx, tp, "token_safety", 0, 600*time.Millisecond)
		if err != nil {
			t.Fatal(err)
		}
		owner, _ := tp.owner(LockKey("token_safety"))
		if _, err := owner.conn.Eval(ctx, "redis.call('SET', KEYS[1], 'someone-else') return 1", []string{l.Key}); err != nil {
			t.Fatal(err)
		}
		select {
		case <-lctx.Done():
		case <-time.After(time.Minute): // the next renewal finds it: well within, even on a busy machine
			t.Fatal("a taken-over lock was not reported lost")
		}
		if !errors.Is(context.Cause(lctx), ErrLockLost) {
			t.Fatalf("cause %v, want ErrLockLost", context.Cause(lctx))
		}
		if err := l.Release(ctx); err != nil {
			t.Fatal(err)
		}
		if got, _, _ := owner.conn.Get(ctx, l.Key); got != "someone-else" {
			t.Fatalf("release removed or changed the successor's lease: %q", got)
		}
	})

	t.Run("prune keeps N", func(t *testing.T) {
		tp := newTopo(t)
		m3 := loadManifest(t, 3)
		if _, err := Deploy(ctx, tp, m3, DeployOptions{}); err != nil {
			t.Fatal(err)
		}
		other := "#!lua name=other_v1\nredis.register_function('other_v1_fn', function() return 1 end)\n"
		near := "#!lua name=catalog_refresh_v1_extra\nredis.register_function('near_fn', function() return 1 end)\n"
		for _, p := range c.Primaries {
			p.MustDo("FUNCTION", "LOAD", other)
			p.MustDo("FUNCTION", "LOAD", near)
		}
		dry, err := Prune(ctx, tp, m3, PruneOptions{Keep: 2, DryRun: true})
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(dry.Keep, dry.Delete) != "[3 2] [1]" {
			t.Fatalf("dry run keeps %v deletes %v, want [3 2] [1]", dry.Keep, dry.Delete)
		}
		if rawLibrary(t, c.Primaries[0], m1.LibraryName()) == "" {
			t.Fatal("dry run deleted")
		}
		r, err := Prune(ctx, tp, m3, PruneOptions{Keep: 2})
		if err != nil {
			t.Fatalf("prune: %v", err)
		}
		deleted := 0
		for _, it := range r.Items {
			if it.Outcome == "deleted" {
				deleted++
				if it.Version != 1 {
					t.Errorf("deleted %s", it.Library)
				}
			}
		}
		if deleted != 3 {
			t.Fatalf("deleted %d libraries, want v1 on 3 primaries", deleted)
		}
		want := []string{"catalog_refresh_v1_extra", "catalog_refresh_v2", "catalog_refresh_v3", "other_v1"}
		for _, n := range c.Nodes() {
			got := rawLibraries(t, n)
			slices.Sort(got)
			if slices.Equal(got, want) {
				continue
			}
			// Replicas follow their primary's FUNCTION DELETE shortly:
			// poll, with a deadline a busy machine cannot reach.
			for deadline := time.Now().Add(time.Minute); !slices.Equal(sorted(got), want) && time.Now().Before(deadline); {
				time.Sleep(50 * time.Millisecond)
				got = rawLibraries(t, n)
			}
			if !slices.Equal(sorted(got), want) {
				t.Errorf("%s libraries %v, want %v", n.Addr, got, want)
			}
		}
		// The script cache is not flushed.
		assertLoaded(t, m3, c.Primaries, c.Replicas)
		assertScripts(t, m1, c.Nodes())
	})

	t.Run("failover after discovery is explained, nothing changed", func(t *testing.T) {
		tp := newTopo(t)
		owner, err := tp.owner(LockKey(m1.Library))
		if err != nil {
			t.Fatal(err)
		}
		c.Failover(slices.IndexFunc(c.Primaries, func(s *redistest.Server) bool { return s.Addr == owner.Addr }))
		m5 := loadManifest(t, 5)
		_, err = Deploy(ctx, tp, m5, DeployOptions{})
		var re *RedirectError
		if !errors.As(err, &re) || !strings.HasPrefix(re.Reply, "MOVED ") || re.Node != owner.Addr ||
			!strings.Contains(err.Error(), "the cluster's slots moved") || !strings.Contains(re.Hint(), "rerun") {
			t.Fatalf("deploy on a stale topology: %v, want a RedirectError from %s", err, owner.Addr)
		}
		for _, p := range c.Primaries {
			for _, lib := range libraryNames(t, p) {
				if lib == m5.LibraryName() {
					t.Errorf("%s: %s loaded by a refused deploy", p.Addr, lib)
				}
			}
		}
		// A new discovery sees the new primary: the rerun deploys.
		if _, err := Deploy(ctx, newTopo(t), m5, DeployOptions{}); err != nil {
			t.Fatalf("rerun: %v", err)
		}
		assertLoaded(t, m5, c.Primaries, c.Replicas)
	})

	t.Run("primary stopped before deploy", func(t *testing.T) {
		// Stop a primary that does not hold the deploy lock's slot.
		tp := newTopo(t)
		owner, err := tp.owner(LockKey(m1.Library))
		if err != nil {
			t.Fatal(err)
		}
		var down *redistest.Server
		for _, p := range c.Primaries {
			if p.Addr != owner.Addr {
				down = p
				break
			}
		}
		down.Stop()
		m4 := loadManifest(t, 4)
		seed := c.Primaries[slices.IndexFunc(c.Primaries, func(s *redistest.Server) bool { return s != down })]
		rep, err := Deploy(ctx, topo(t, "", seed), m4, DeployOptions{ReplicaWait: 2 * time.Second})
		var ne *NodesError
		if !errors.As(err, &ne) || !strings.Contains(err.Error(), down.Addr) {
			t.Fatalf("deploy with %s stopped: %v, want a NodesError naming it", down.Addr, err)
		}
		if rep == nil {
			t.Fatal("no report")
		}
		var running []*redistest.Server
		for _, n := range c.Nodes() {
			if n.Pid() != 0 {
				running = append(running, n)
			}
		}
		assertScripts(t, m4, running)

		down.Restart()
		c.WaitOK()
		if _, err := Deploy(ctx, topo(t, "", seed), m4, DeployOptions{}); err != nil {
			t.Fatalf("rerun after restart: %v", err)
		}
		assertLoaded(t, m4, c.Nodes(), nil)
	})
}

// assertScripts checks with SCRIPT EXISTS that every node caches m's scripts.
func assertScripts(t testing.TB, m *manifest.Manifest, nodes []*redistest.Server) {
	t.Helper()
	for _, n := range nodes {
		for _, s := range m.Scripts {
			got := n.MustDo("SCRIPT", "EXISTS", s.SHA)
			if fmt.Sprint(mustInts(t, &got)) != "[1]" {
				t.Errorf("%s: script %s (%s) not cached", n.Addr, s.Name, s.SHA)
			}
		}
	}
}

func mustInts(t testing.TB, msg interface {
	AsIntSlice() ([]int64, error)
}) []int64 {
	t.Helper()
	v, err := msg.AsIntSlice()
	if err != nil {
		t.Fatalf("reply: %v", err)
	}
	return v
}

func sorted(s []string) []string { slices.Sort(s); return s }

// tagOn returns a hash tag whose slot is in [lo, hi].
func tagOn(t testing.TB, lo, hi int) string {
	t.Helper()
	for i := 0; i < 100000; i++ {
		tag := fmt.Sprintf("product-%d", i)
		if s := slot.Of(tag); s >= lo && s <= hi {
			return tag
		}
	}
	t.Fatal("no tag found")
	return ""
}

// libraryNames lists the libraries n holds, with a raw command.
func libraryNames(t testing.TB, n *redistest.Server) []string {
	t.Helper()
	msg := n.MustDo("FUNCTION", "LIST")
	libs, err := msg.ToArray()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range libs {
		f, err := l.AsMap()
		if err != nil {
			t.Fatal(err)
		}
		v := f["library_name"]
		name, _ := v.ToString()
		out = append(out, name)
	}
	return out
}

// pttlStats is the server's commandstats line for PTTL (calls, refused and
// failed calls): it changes whenever a PTTL reaches the server.
func pttlStats(t *testing.T, s *redistest.Server) string {
	t.Helper()
	info, err := s.Do(context.Background(), "INFO", "commandstats").ToString()
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(info, "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "cmdstat_pttl:"); ok {
			return rest
		}
	}
	return ""
}
