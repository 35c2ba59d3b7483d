package loader

import (
	"context"
	"strings"
	"testing"

	"github.com/scriptctl/scriptctl/internal/redistest"
)

// TestDecideMode covers every way INFO can describe a node's mode: Redis's
// redis_mode, Valkey's server_mode, and INFO cluster's cluster_enabled, which
// settles it when both are missing and must agree when one is there.
func TestDecideMode(t *testing.T) {
	cases := []struct {
		name            string
		server, cluster map[string]string
		want, wantErr   string
	}{
		{"redis cluster", map[string]string{"redis_mode": "cluster"}, map[string]string{"cluster_enabled": "1"}, "cluster", ""},
		{"redis standalone", map[string]string{"redis_mode": "standalone"}, map[string]string{"cluster_enabled": "0"}, "standalone", ""},
		{"valkey cluster", map[string]string{"server_mode": "cluster", "server_name": "valkey"}, map[string]string{"cluster_enabled": "1"}, "cluster", ""},
		{"valkey standalone", map[string]string{"server_mode": "standalone"}, map[string]string{"cluster_enabled": "0"}, "standalone", ""},
		{"no mode field, cluster enabled", map[string]string{}, map[string]string{"cluster_enabled": "1"}, "cluster", ""},
		{"no mode field, cluster disabled", map[string]string{}, map[string]string{"cluster_enabled": "0"}, "standalone", ""},
		{"mode only", map[string]string{"redis_mode": "cluster"}, map[string]string{}, "cluster", ""},
		{"sentinel", map[string]string{"redis_mode": "sentinel"}, map[string]string{}, "sentinel", ""},
		{"nothing to tell", map[string]string{}, map[string]string{}, "", "cannot tell whether this is a cluster node"},
		{"disagreement", map[string]string{"redis_mode": "standalone"}, map[string]string{"cluster_enabled": "1"}, "", "disagrees"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := decideMode(tc.server, tc.cluster)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("got %q, %v; want an error containing %q", got, err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("got %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

func TestServerFamily(t *testing.T) {
	cases := []struct {
		info            map[string]string
		family, version string
	}{
		{map[string]string{"redis_version": "7.0.15"}, "redis", "7.0.15"},
		{map[string]string{"redis_version": "8.0.2", "server_name": "redis"}, "redis", "8.0.2"},
		{map[string]string{"redis_version": "7.2.4", "server_name": "valkey", "valkey_version": "8.1.1"}, "valkey", "8.1.1"},
		{map[string]string{"redis_version": "7.2.4", "valkey_version": "7.2.5"}, "valkey", "7.2.5"},
	}
	for _, tc := range cases {
		f, v := serverFamily(tc.info)
		if f != tc.family || v != tc.version {
			t.Errorf("%v: got %s %s, want %s %s", tc.info, f, v, tc.family, tc.version)
		}
	}
}

// TestClusterDiscoveryEveryServer deploys to a 6-node cluster of every
// server build from one seed: every node must be found and loaded. On Valkey
// 8.1 this once loaded 2 of 6 nodes and reported success, because Valkey's
// INFO says server_mode, not redis_mode.
func TestClusterDiscoveryEveryServer(t *testing.T) {
	for _, k := range redistest.Kinds {
		t.Run(k.Name, func(t *testing.T) {
			c := redistest.NewCluster(t, redistest.WithKind(k))
			m := loadManifest(t, 1)
			tp := topo(t, "", c.Primaries[1])
			if !tp.Cluster {
				t.Fatalf("%s cluster taken for a standalone server", k.Name)
			}
			if len(tp.Nodes) != 6 {
				t.Fatalf("discovered %d nodes, want 6", len(tp.Nodes))
			}
			family, version, _ := strings.Cut(k.Target(), "-")
			for _, n := range tp.Nodes {
				if n.Family != family || !strings.HasPrefix(n.Version, version+".") {
					t.Fatalf("%s: family %q version %q, want %s %s.x", n.Addr, n.Family, n.Version, family, version)
				}
			}
			rep, err := Deploy(context.Background(), tp, m, DeployOptions{})
			if err != nil {
				t.Fatalf("deploy: %v", err)
			}
			if len(rep.Nodes) != 6 {
				t.Fatalf("deploy reported %d nodes, want 6", len(rep.Nodes))
			}
			assertLoaded(t, m, c.Primaries, c.Replicas)
		})
	}
}
