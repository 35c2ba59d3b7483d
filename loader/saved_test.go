package loader

import (
	"errors"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

func savedTestPlan(runID string, action Action, extra ...*Node) *PlanReport {
	n := &Node{Addr: "10.0.0.1:6379", Role: RolePrimary, Family: FamilyRedis, Version: "7.0.15", runID: runID}
	p := &PlanReport{Library: "lib", LibraryName: "lib_v1", Version: 1, Mode: ModeBoth,
		Nodes: []*NodePlan{{Node: n, Items: []Item{{Kind: KindScript, Name: "a", SHA: "aa", Action: action}, {Kind: KindLibrary, Name: "lib_v1", Action: ActionLoad}}}}}
	for _, e := range extra {
		p.Nodes = append(p.Nodes, &NodePlan{Node: e})
	}
	return p
}

func TestSavedPlanDifferences(t *testing.T) {
	saved := NewSavedPlan(savedTestPlan("r1", ActionLoad), &Topology{}, time.Unix(0, 0))
	for _, tc := range []struct {
		name string
		now  *PlanReport
		want []string
	}{
		{"same", savedTestPlan("r1", ActionLoad), nil},
		{"restarted", savedTestPlan("r2", ActionLoad), []string{"node 10.0.0.1:6379: restarted or replaced since the plan (run_id r2, was r1)"}},
		{"action", savedTestPlan("r1", ActionAlreadyLoaded), []string{"node 10.0.0.1:6379: script a: now already_loaded, was load"}},
		{"node added", savedTestPlan("r1", ActionLoad, &Node{Addr: "10.0.0.2:6379", Role: RoleReplica, Primary: "10.0.0.1:6379"}),
			[]string{"node 10.0.0.2:6379: among the servers now, not in the plan"}},
		{"mode", func() *PlanReport { p := savedTestPlan("r1", ActionLoad); p.Mode = ModeScripts; return p }(),
			[]string{"the plan is for lib_v1 (mode both, replace false), this deploy for lib_v1 (mode scripts, replace false)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := saved.Differences(tc.now); !slices.Equal(got, tc.want) {
				t.Fatalf("Differences = %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestSavedPlanFile(t *testing.T) {
	sp := NewSavedPlan(savedTestPlan("r1", ActionLoad), &Topology{Cluster: true}, time.Unix(0, 0))
	sp.ManifestDigest = "sha256:00"
	path := filepath.Join(t.TempDir(), "p.plan")
	if err := WriteSavedPlan(path, sp); err != nil {
		t.Fatal(err)
	}
	got, err := ReadSavedPlan(path)
	if err != nil || !got.Cluster || got.Nodes[0].RunID != "r1" || got.Changes != 2 {
		t.Fatalf("read back %+v, %v", got, err)
	}
	for _, bad := range []string{`[]`, `{"kind":"other"}`, `{"kind":"scriptctl-plan","format_version":"9"}`,
		`{"kind":"scriptctl-plan","format_version":"1","manifest_digest":"x","library_name":"l","mode":"both"}`,
		`{"kind":"scriptctl-plan","format_version":"1","manifest_digest":"x","library_name":"l","mode":"all","nodes":[{}]}`} {
		if _, err := ParseSavedPlan("p", []byte(bad)); !errors.Is(err, ErrSavedPlan) {
			t.Errorf("ParseSavedPlan(%s) = %v, want ErrSavedPlan", bad, err)
		}
	}
}
