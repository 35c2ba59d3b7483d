package main

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/scriptctl/scriptctl/internal/redistest"
	"github.com/scriptctl/scriptctl/internal/testtier"
)

// TestClusterShardGap: on a 6-node cluster, one primary loses the library
// (FUNCTION FLUSH, as a new shard or Valkey 9's atomic slot migration
// leaves it) and another the scripts (SCRIPT FLUSH). status exits 1 naming
// each primary with the slots it serves, inspect names them as gaps,
// deploy repairs exactly that, and status is clean again.
func TestClusterShardGap(t *testing.T) {
	testtier.Full(t, "a 6-node cluster")
	c := redistest.NewCluster(t)
	noConnEnv(t)
	path := loaderProject(t, "1")
	m := loadFor(t, path)
	kind := c.Primaries[0].Kind
	setTargets(t, path, "["+kind.Target()+"]")
	seed := c.Primaries[0].URL()
	loaderExpect(t, 0, "deploy", "-m", path, "--url", seed)
	loaderExpect(t, 0, "status", "-m", path, "--url", seed)

	noLib, noScripts := c.Primaries[1], c.Primaries[2]
	noLib.MustDo("FUNCTION", "FLUSH")
	noScripts.MustDo("SCRIPT", "FLUSH")
	if got := libraries(t, noLib); len(got) != 0 {
		t.Fatalf("%s holds %v after FUNCTION FLUSH", noLib.Addr, got)
	}

	res := loaderExpect(t, 1, "status", "-m", path, "--url", seed)
	for _, want := range []string{
		"error drift: " + noLib.Addr + ": library " + m.LibraryName() + " missing\n    primary serving slots ",
		"error drift: " + noScripts.Addr + ": script acquire missing\n    primary serving slots ",
	} {
		if !strings.Contains(res.errOut, want) {
			t.Errorf("status stderr lacks %q:\n%s", want, res.errOut)
		}
	}
	res = loaderExpect(t, 1, "status", "-m", path, "--url", seed, "--format", "json")
	var doc struct {
		Drift []string `json:"drift"`
		Nodes []struct {
			Addr  string `json:"addr"`
			Items []struct {
				Kind   string `json:"kind"`
				Name   string `json:"name"`
				State  string `json:"state"`
				Detail string `json:"detail"`
			} `json:"items"`
		} `json:"nodes"`
	}
	if err := json.Unmarshal([]byte(res.out), &doc); err != nil {
		t.Fatalf("status json: %v\n%s", err, res.out)
	}
	if !slices.Contains(doc.Drift, noLib.Addr+": library "+m.LibraryName()+" missing") || !slices.Contains(doc.Drift, noScripts.Addr+": script acquire missing") {
		t.Fatalf("status json drift %q names neither gap", doc.Drift)
	}
	gaps := 0
	for _, n := range doc.Nodes {
		for _, it := range n.Items {
			if it.State != "missing" {
				continue
			}
			switch {
			case n.Addr == noLib.Addr && it.Kind == "library", n.Addr == noScripts.Addr && it.Kind == "script":
				if !strings.Contains(it.Detail, "primary serving slots ") || !strings.Contains(it.Detail, "deploy loads it") {
					t.Errorf("%s %s %s detail %q does not name the slots", n.Addr, it.Kind, it.Name, it.Detail)
				}
				gaps++
			case strings.Contains(it.Detail, "primary serving slots"):
				t.Errorf("%s (not a primary that lost it) %s %s detail %q", n.Addr, it.Kind, it.Name, it.Detail)
			}
		}
	}
	if gaps != 1+len(m.Scripts) {
		t.Fatalf("%d missing items on the two primaries, want the library and %d scripts", gaps, len(m.Scripts))
	}

	// inspect, without the manifest: the library and each script differ in
	// the cluster, with the primaries serving slots without them named.
	args := []string{"inspect", "--url", seed, "--exit-code"}
	for _, s := range m.Scripts {
		args = append(args, "--sha", s.SHA)
	}
	res = loaderExpect(t, 1, args...)
	if !strings.Contains(res.errOut, "library "+m.LibraryName()+" differs in the cluster") ||
		!strings.Contains(res.errOut, "primaries serving slots without it: "+noLib.Addr+" (slots ") {
		t.Errorf("inspect stderr does not name %s as a gap for the library:\n%s", noLib.Addr, res.errOut)
	}
	if !strings.Contains(res.errOut, "primaries serving slots without it: "+noScripts.Addr+" (slots ") {
		t.Errorf("inspect stderr does not name %s as a gap for the scripts:\n%s", noScripts.Addr, res.errOut)
	}

	// deploy repairs the gaps: the library on noLib, the scripts on
	// noScripts; status is clean.
	loaderExpect(t, 0, "deploy", "-m", path, "--url", seed)
	if got := libraries(t, noLib); !slices.Contains(got, m.LibraryName()) {
		t.Errorf("%s: %v after deploy, want %s", noLib.Addr, got, m.LibraryName())
	}
	for _, s := range m.Scripts {
		if !scriptExists(t, noScripts, s.SHA) {
			t.Errorf("%s: %s not cached after deploy", noScripts.Addr, s.Name)
		}
	}
	res = loaderExpect(t, 0, "status", "-m", path, "--url", seed)
	if strings.Contains(res.errOut, "drift") {
		t.Fatalf("status after the repair:\n%s", res.errOut)
	}
}
