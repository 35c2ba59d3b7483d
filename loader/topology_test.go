package loader

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/scriptctl/scriptctl/internal/redistest"
)

func TestDeployReplicatedDiscoversReplica(t *testing.T) {
	p, r := redistest.Replicated(t)
	m := loadManifest(t, 1)
	// Only the primary is given: its ROLE names the replica.
	tp := topo(t, "", p)
	if tp.Cluster {
		t.Fatal("standalone servers seen as a cluster")
	}
	if len(tp.Nodes) != 2 || tp.Nodes[0].Addr != p.Addr || tp.Nodes[0].Role != RolePrimary ||
		tp.Nodes[1].Role != RoleReplica || tp.Nodes[1].Primary != p.Addr {
		t.Fatalf("nodes: %+v %+v", tp.Nodes[0], tp.Nodes[len(tp.Nodes)-1])
	}
	if tp.Nodes[0].Version == "" || tp.Nodes[0].Family == "" {
		t.Fatalf("version %q", tp.Nodes[0].Version)
	}
	rep, err := Deploy(context.Background(), tp, m, DeployOptions{})
	if err != nil {
		t.Fatalf("deploy: %v", err)
	}
	var outcomes []string
	for _, nr := range rep.Nodes {
		for _, it := range nr.Items {
			if it.Kind == KindLibrary {
				outcomes = append(outcomes, string(nr.Node.Role)+" "+string(it.Outcome))
			}
		}
	}
	if got := strings.Join(outcomes, ", "); got != "primary loaded, replica replicated" {
		t.Fatalf("library outcomes: %s", got)
	}
	assertLoaded(t, m, []*redistest.Server{p}, []*redistest.Server{r})
}

func TestSeedsGivenTwiceAndBothNodes(t *testing.T) {
	p, r := redistest.Replicated(t)
	// The replica first, the primary under another spelling: one node each.
	tp := topo(t, "", r, p)
	if len(tp.Nodes) != 2 {
		var addrs []string
		for _, n := range tp.Nodes {
			addrs = append(addrs, n.Addr+"/"+string(n.Role))
		}
		t.Fatalf("got nodes %v, want the primary and the replica", addrs)
	}
	if tp.Nodes[0].Role != RolePrimary || tp.Nodes[1].Role != RoleReplica {
		t.Fatalf("order: %s %s", tp.Nodes[0].Role, tp.Nodes[1].Role)
	}
}

func TestUnreachableNode(t *testing.T) {
	s := redistest.Standalone(t)
	down := redistest.Standalone(t)
	down.Stop()
	m := loadManifest(t, 1)
	tp := topo(t, "", s, down)
	rep, err := Deploy(context.Background(), tp, m, DeployOptions{})
	var ne *NodesError
	if !errors.As(err, &ne) || len(ne.Errs) != 1 || ne.Errs[0].Node != down.Addr {
		t.Fatalf("deploy error = %v, want one NodesError naming %s", err, down.Addr)
	}
	if !strings.Contains(err.Error(), "connection refused") {
		t.Fatalf("error does not say why: %v", err)
	}
	// The reachable node is loaded all the same.
	assertLoaded(t, m, []*redistest.Server{s}, nil)
	if rep.Nodes[0].Status() != "ok" {
		t.Fatalf("reachable node status %s", rep.Nodes[0].Status())
	}
}

func TestParseClusterNodes(t *testing.T) {
	text := `07c37dfeb235213a872192d90877d0cd55635b91 127.0.0.1:30004@31004,hostname4 slave e7d1eecce10fd6bb5eb35b9f99a514335d9ba9ca 0 1426238317239 4 connected
67ed2db8d677e59ec4a4cefb06858cf2a1a89fa1 127.0.0.1:30002@31002 master - 0 1426238316232 2 connected 5461-10922
292f8b365bb7edb5e285caf0b7e6ddc7265d2f4f 127.0.0.1:30003@31003 master - 0 1426238318243 3 connected 10923-16383
6ec23923021cf3ffec47632106199cb7f496ce01 127.0.0.1:30005@31005 slave 67ed2db8d677e59ec4a4cefb06858cf2a1a89fa1 0 1426238316232 5 connected
824fe116063bc5fcf9f4ffd895bc17aee7731ac3 127.0.0.1:30006@31006 slave,fail 292f8b365bb7edb5e285caf0b7e6ddc7265d2f4f 0 1426238317741 6 disconnected
e7d1eecce10fd6bb5eb35b9f99a514335d9ba9ca 127.0.0.1:30001@31001 myself,master - 0 0 1 connected 0-5000 5001 5002-5460 [5461->-67ed2db8d677e59ec4a4cefb06858cf2a1a89fa1]
abcdef :0@0 master,noaddr - 0 0 0 disconnected
`
	got, err := parseClusterNodes(text)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 6 {
		t.Fatalf("got %d nodes, want 6 (noaddr skipped)", len(got))
	}
	if got[0].addr != "127.0.0.1:30004" || got[0].primary || got[0].primaryID != "e7d1eecce10fd6bb5eb35b9f99a514335d9ba9ca" {
		t.Errorf("replica line: %+v", got[0])
	}
	if !got[4].failed {
		t.Errorf("fail flag not read: %+v", got[4])
	}
	me := got[5]
	if !me.myself || !me.primary || len(me.slots) != 3 || me.slots[0] != [2]int{0, 5000} || me.slots[1] != [2]int{5001, 5001} || me.slots[2] != [2]int{5002, 5460} {
		t.Errorf("myself line: %+v", me)
	}
	for _, bad := range []string{
		"a 127.0.0.1:1@2 master - 0 0 1 connected 99999",
		"a 127.0.0.1:1@2 master - 0 0 1 connected 10-5",
		"a 127.0.0.1:1@2 master",
	} {
		if _, err := parseClusterNodes(bad); err == nil {
			t.Errorf("parseClusterNodes(%q) succeeded", bad)
		}
	}
}

func FuzzClusterNodes(f *testing.F) {
	f.Add("e7d1 127.0.0.1:30001@31001 myself,master - 0 0 1 connected 0-5460\n")
	f.Add("07c3 127.0.0.1:30004@31004,h slave e7d1 0 1 4 connected\n")
	f.Add("abc :0@0 master,noaddr - 0 0 0 disconnected\n")
	f.Add("a [::1]:7000@17000 master - 0 0 1 connected 1 [2->-b]\n")
	f.Fuzz(func(t *testing.T, text string) {
		nodes, err := parseClusterNodes(text)
		if err != nil {
			return
		}
		for _, n := range nodes {
			if n.addr == "" {
				t.Fatalf("node without address from %q", text)
			}
			for _, r := range n.slots {
				if r[0] < 0 || r[1] >= 16384 || r[0] > r[1] {
					t.Fatalf("bad slot range %v from %q", r, text)
				}
			}
		}
	})
}

func TestLibraryVersion(t *testing.T) {
	for _, tc := range []struct {
		name string
		v    int
		ok   bool
	}{
		{"catalog_refresh_v1", 1, true},
		{"catalog_refresh_v12", 12, true},
		{"CATALOG_REFRESH_V3", 3, true},
		{"catalog_refresh_v0", 0, false},
		{"catalog_refresh_v01", 0, false},
		{"catalog_refresh_v+1", 0, false},
		{"catalog_refresh_v", 0, false},
		{"catalog_refresh_v1_extra", 0, false},
		{"catalog_refreshed_v1", 0, false},
		{"catalog_v1", 0, false},
		{"other_v1", 0, false},
	} {
		v, ok := LibraryVersion("catalog_refresh", tc.name)
		if v != tc.v || ok != tc.ok {
			t.Errorf("LibraryVersion(%q) = %d, %v; want %d, %v", tc.name, v, ok, tc.v, tc.ok)
		}
	}
}

func FuzzLibraryVersion(f *testing.F) {
	f.Add("catalog_refresh", "catalog_refresh_v1")
	f.Add("lib", "LIB_V20")
	f.Add("a", "a_v01")
	f.Fuzz(func(t *testing.T, library, name string) {
		v, ok := LibraryVersion(library, name)
		if !ok {
			return
		}
		if v <= 0 {
			t.Fatalf("version %d accepted", v)
		}
		if want := library + "_v" + itoa(v); !strings.EqualFold(want, name) {
			t.Fatalf("LibraryVersion(%q, %q) = %d, but %q is not the name", library, name, v, want)
		}
	})
}

// TestReplicaAnnouncingAnotherAddress: a replica that announces an address
// scriptctl cannot dial is reported when only the primary is given, and
// recognised as the replica given by --url otherwise.
func TestReplicaAnnouncingAnotherAddress(t *testing.T) {
	p, r := redistest.Replicated(t, redistest.WithArgs("--replica-announce-ip", "127.0.0.2"))
	m := loadManifest(t, 1)

	tp := topo(t, "", p)
	if len(tp.Nodes) != 2 || tp.Nodes[1].OK() || !strings.HasPrefix(tp.Nodes[1].Addr, "127.0.0.2:") {
		t.Fatalf("primary only: nodes %d, second %+v", len(tp.Nodes), tp.Nodes[len(tp.Nodes)-1])
	}
	if _, err := Deploy(context.Background(), tp, m, DeployOptions{}); err == nil || !strings.Contains(err.Error(), "127.0.0.2:") {
		t.Fatalf("deploy with an unreachable replica: %v", err)
	}

	tp = topo(t, "", p, r)
	if len(tp.Nodes) != 2 || !tp.Nodes[1].OK() || tp.Nodes[1].Addr != r.Addr || tp.Nodes[1].Primary != p.Addr {
		var got []string
		for _, n := range tp.Nodes {
			got = append(got, n.Addr)
		}
		t.Fatalf("primary and replica given: nodes %v", got)
	}
	if _, err := Deploy(context.Background(), tp, m, DeployOptions{}); err != nil {
		t.Fatal(err)
	}
	assertLoaded(t, m, []*redistest.Server{p}, []*redistest.Server{r})
}
