package loader

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/scriptctl/scriptctl/internal/redistest"
)

// Two teams' libraries and scripts, as an on-call engineer finds them.
const (
	teamA = "#!lua name=teama_v1\n" +
		"redis.register_function{function_name='teama_get', callback=function(keys) return redis.call('GET', keys[1]) end, flags={'no-writes'}, description='read'}\n" +
		"redis.register_function('teama_set', function(keys, args) return redis.call('SET', keys[1], args[1]) end)\n"
	teamB1  = "#!lua name=teamb_v1\nredis.register_function('teamb_ping_v1', function() return 1 end)\n"
	teamB2  = "#!lua name=teamb_v2\nredis.register_function('teamb_ping_v2', function() return 2 end)\n"
	scriptA = "return redis.call('GET', KEYS[1])"
	scriptB = "return 'b'"
)

func sha1Of(s string) string {
	sum := sha1.Sum([]byte(s))
	return hex.EncodeToString(sum[:])
}

// waitLibraries waits until n lists exactly the libraries named (a replica
// receives FUNCTION LOAD through replication).
func waitLibraries(t *testing.T, n *redistest.Server, names ...string) {
	t.Helper()
	slices.Sort(names)
	deadline := time.Now().Add(10 * time.Second)
	for {
		got := rawLibraries(t, n)
		slices.Sort(got)
		if slices.Equal(got, names) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s lists libraries %q, want %q", n.Addr, got, names)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func nodeOf(t *testing.T, r *InspectReport, addr string) *NodeInspect {
	t.Helper()
	for _, ni := range r.Nodes {
		if ni.Node.Addr == addr {
			return ni
		}
	}
	t.Fatalf("no node %s in the report", addr)
	return nil
}

func libNames(ni *NodeInspect) []string {
	var out []string
	for _, l := range ni.Libraries {
		out = append(out, l.Name)
	}
	return out
}

func TestInspectStandalone(t *testing.T) {
	s := redistest.Standalone(t)
	s.MustDo("FUNCTION", "LOAD", teamA)
	s.MustDo("SCRIPT", "LOAD", scriptA)
	tp := topo(t, "", s)
	unknown := strings.Repeat("0", 40)
	r, err := Inspect(context.Background(), tp, InspectOptions{SHAs: []string{strings.ToUpper(sha1Of(scriptA)), unknown}, Show: []string{sha1Of(scriptA)}})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Nodes) != 1 || r.Cluster {
		t.Fatalf("%d nodes, cluster %v; want one standalone node", len(r.Nodes), r.Cluster)
	}
	ni := r.Nodes[0]
	if !ni.Functions || len(ni.Libraries) != 1 {
		t.Fatalf("libraries %q, want teama_v1", libNames(ni))
	}
	lib := ni.Libraries[0]
	if lib.Name != "teama_v1" || lib.Engine != "LUA" || string(lib.Code) != teamA || lib.CodeSHA != sha1Of(teamA) {
		t.Fatalf("library %+v", lib)
	}
	want := []FunctionInfo{
		{Name: "teama_get", Description: "read", Flags: []string{"no-writes"}},
		{Name: "teama_set", Flags: []string{}},
	}
	for i, f := range lib.Functions {
		if f.Name != want[i].Name || f.Description != want[i].Description || !slices.Equal(f.Flags, want[i].Flags) {
			t.Errorf("function %d = %+v, want %+v", i, f, want[i])
		}
	}
	if !slices.Equal(r.SHAs, []string{sha1Of(scriptA), unknown}) || !slices.Equal(ni.Scripts, []bool{true, false}) {
		t.Fatalf("SHAs %q cached %v, want the first cached", r.SHAs, ni.Scripts)
	}
	if len(r.Mismatches) != 0 {
		t.Fatalf("mismatches on one node: %v", r.Mismatches)
	}
	// SCRIPT SHOW: Valkey 8 shows the source; Redis has no such subcommand.
	src := ni.Sources[0]
	if fam, _ := s.Family(t); fam == FamilyValkey {
		if src.State != SourceShown || string(src.Source) != scriptA {
			t.Fatalf("SCRIPT SHOW on valkey: %+v", src)
		}
	} else if src.State != SourceUnsupported {
		t.Fatalf("SCRIPT SHOW on redis: %+v, want unsupported", src)
	}
}

func TestInspectReplicated(t *testing.T) {
	p, rep := redistest.Replicated(t)
	p.MustDo("FUNCTION", "LOAD", teamA)
	waitLibraries(t, rep, "teama_v1")
	// Scripts are not replicated: loaded on the primary only, the replica
	// misses it (EVALSHA after a failover fails).
	p.MustDo("SCRIPT", "LOAD", scriptA)
	tp := topo(t, "", p)
	r, err := Inspect(context.Background(), tp, InspectOptions{SHAs: []string{sha1Of(scriptA)}})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Nodes) != 2 {
		t.Fatalf("%d nodes, want the primary and its replica", len(r.Nodes))
	}
	pn, rn := nodeOf(t, r, p.Addr), nodeOf(t, r, rep.Addr)
	if !slices.Equal(libNames(pn), []string{"teama_v1"}) || !slices.Equal(libNames(rn), []string{"teama_v1"}) {
		t.Fatalf("libraries %q and %q, want teama_v1 on both", libNames(pn), libNames(rn))
	}
	if len(r.Mismatches) != 1 {
		t.Fatalf("mismatches %v, want the script", r.Mismatches)
	}
	m := r.Mismatches[0]
	want := "script " + sha1Of(scriptA) + " differs between " + p.Addr + " and its replicas: cached on " + p.Addr + "; missing on " + rep.Addr
	if m.String() != want {
		t.Fatalf("mismatch %q, want %q", m, want)
	}
	if !pn.ScriptDiffers[0] || !rn.ScriptDiffers[0] || pn.LibraryDiffers["teama_v1"] {
		t.Fatalf("highlights: primary %v replica %v library %v", pn.ScriptDiffers, rn.ScriptDiffers, pn.LibraryDiffers)
	}
}

// TestInspectMixedCluster: two teams' libraries on a 6-node cluster, a
// leftover library on one primary, and one replica's script cache flushed.
func TestInspectMixedCluster(t *testing.T) {
	c := redistest.NewCluster(t)
	for _, p := range c.Primaries {
		p.MustDo("FUNCTION", "LOAD", teamA)
		p.MustDo("FUNCTION", "LOAD", teamB2)
	}
	c.Primaries[2].MustDo("FUNCTION", "LOAD", teamB1)
	for _, n := range c.Nodes() {
		n.MustDo("SCRIPT", "LOAD", scriptA)
		n.MustDo("SCRIPT", "LOAD", scriptB)
	}
	for i, r := range c.Replicas {
		names := []string{"teama_v1", "teamb_v2"}
		if i == 2 {
			names = append(names, "teamb_v1")
		}
		waitLibraries(t, r, names...)
	}
	flushed := c.Replicas[0]
	flushed.MustDo("SCRIPT", "FLUSH")

	tp := topo(t, "", c.Primaries[1])
	r, err := Inspect(context.Background(), tp, InspectOptions{SHAs: []string{sha1Of(scriptA), sha1Of(scriptB)}})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Cluster || len(r.Nodes) != 6 {
		t.Fatalf("cluster %v with %d nodes, want 6", r.Cluster, len(r.Nodes))
	}
	for _, n := range c.Nodes() {
		ni := nodeOf(t, r, n.Addr)
		wantLibs := []string{"teama_v1", "teamb_v2"}
		if n == c.Primaries[2] || n == c.Replicas[2] {
			wantLibs = []string{"teama_v1", "teamb_v1", "teamb_v2"}
		}
		if got := libNames(ni); !slices.Equal(got, wantLibs) {
			t.Errorf("%s: libraries %q, want %q", n.Addr, got, wantLibs)
		}
		if l := ni.Library("TEAMA_V1"); l == nil || l.CodeSHA != sha1Of(teamA) {
			t.Errorf("%s: teama_v1 %+v", n.Addr, l)
		}
		cached := n != flushed
		if !slices.Equal(ni.Scripts, []bool{cached, cached}) {
			t.Errorf("%s: scripts cached %v, want %v", n.Addr, ni.Scripts, cached)
		}
		absent := n != c.Primaries[2] && n != c.Replicas[2]
		if got := slices.Contains(ni.Absent, "teamb_v1"); got != absent {
			t.Errorf("%s: teamb_v1 absent %v, want %v", n.Addr, got, absent)
		}
		if !ni.LibraryDiffers["teamb_v1"] || ni.LibraryDiffers["teama_v1"] || !ni.ScriptDiffers[0] {
			t.Errorf("%s: highlights %v %v", n.Addr, ni.LibraryDiffers, ni.ScriptDiffers)
		}
	}
	var got []string
	for _, m := range r.Mismatches {
		got = append(got, m.Kind+" "+m.Name+" "+m.Variants[len(m.Variants)-1].Value+" "+strings.Join(m.Variants[len(m.Variants)-1].Nodes, ","))
	}
	want := []string{
		"library teamb_v1 " + sha1Of(teamB1) + " " + c.Primaries[2].Addr + "," + c.Replicas[2].Addr,
		"script " + sha1Of(scriptA) + " missing " + flushed.Addr,
		"script " + sha1Of(scriptB) + " missing " + flushed.Addr,
	}
	if !slices.Equal(got, want) {
		t.Fatalf("mismatches\n%q\nwant\n%q", got, want)
	}
}
