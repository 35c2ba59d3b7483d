package loader

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/scriptctl/scriptctl/internal/connect"
	"github.com/scriptctl/scriptctl/internal/redistest"
	"github.com/scriptctl/scriptctl/manifest"
)

// loadManifest loads version 1 of the repository's manifest (kept as
// history in lua/v1: three scripts) with its version set to version.
func loadManifest(t testing.TB, version int) *manifest.Manifest {
	t.Helper()
	m, err := manifest.Load("../lua/v1/manifest.yaml")
	if err != nil {
		t.Fatalf("load manifest: %v", err)
	}
	m.Version = version
	return m
}

// changedManifest returns the manifest with the body of its first script
// changed, so its SHA and its library code differ.
func changedManifest(t testing.TB, version int) *manifest.Manifest {
	t.Helper()
	m := loadManifest(t, version)
	s := *m.Scripts[0]
	s.Source = append(append([]byte{}, s.Source...), []byte("-- changed\n")...)
	s.SHA = manifest.SHA1Hex(s.Source)
	m.Scripts = append([]*manifest.Script{&s}, m.Scripts[1:]...)
	return m
}

// topo connects to the given servers (the password, if any, from the first)
// and closes the topology in t.Cleanup.
func topo(t testing.TB, password string, servers ...*redistest.Server) *Topology {
	t.Helper()
	var urls []string
	for _, s := range servers {
		urls = append(urls, s.URL())
	}
	cfg, err := connect.Resolve(connect.Settings{URLs: urls, Password: password, Timeout: 5 * time.Second}, false)
	if err != nil {
		t.Fatalf("resolve: %v", err)
	}
	tp, err := Connect(context.Background(), cfg.Dial, cfg.Seeds, cfg.Timeout)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(tp.Close)
	return tp
}

// assertLoaded checks with raw commands, independently of the loader, that
// every given node answers SCRIPT EXISTS 1 for every SHA of m and that every
// given primary lists m's library with the generated code.
func assertLoaded(t testing.TB, m *manifest.Manifest, primaries, replicas []*redistest.Server) {
	t.Helper()
	args := []string{"SCRIPT", "EXISTS"}
	for _, s := range m.Scripts {
		args = append(args, s.SHA)
	}
	for _, n := range append(append([]*redistest.Server{}, primaries...), replicas...) {
		msg := n.MustDo(args...)
		vals, err := msg.ToArray()
		if err != nil {
			t.Fatalf("%s SCRIPT EXISTS: %v", n.Addr, err)
		}
		for i, v := range vals {
			if got, _ := v.AsInt64(); got != 1 {
				t.Errorf("%s: SCRIPT EXISTS %s (%s) = %d, want 1", n.Addr, m.Scripts[i].SHA, m.Scripts[i].Name, got)
			}
		}
	}
	for _, n := range append(append([]*redistest.Server{}, primaries...), replicas...) {
		lib := rawLibrary(t, n, m.LibraryName())
		if lib == "" {
			t.Errorf("%s: FUNCTION LIST does not list %s", n.Addr, m.LibraryName())
		} else if lib != string(m.FunctionsLibrary()) {
			t.Errorf("%s: %s code differs from the manifest's", n.Addr, m.LibraryName())
		}
	}
}

// rawLibrary returns the code of library name on n, or "".
func rawLibrary(t testing.TB, n *redistest.Server, name string) string {
	t.Helper()
	msg := n.MustDo("FUNCTION", "LIST", "LIBRARYNAME", name, "WITHCODE")
	libs, _ := msg.ToArray()
	for _, l := range libs {
		f, err := l.AsMap()
		if err != nil {
			t.Fatalf("FUNCTION LIST: %v", err)
		}
		ln := f["library_name"]
		got, _ := ln.ToString()
		if got == name {
			c := f["library_code"]
			code, _ := c.ToString()
			return code
		}
	}
	return ""
}

// rawLibraries returns the names of every library on n.
func rawLibraries(t testing.TB, n *redistest.Server) []string {
	t.Helper()
	msg := n.MustDo("FUNCTION", "LIST")
	libs, _ := msg.ToArray()
	var out []string
	for _, l := range libs {
		f, _ := l.AsMap()
		ln := f["library_name"]
		name, _ := ln.ToString()
		out = append(out, name)
	}
	return out
}

func TestDeployStandalone(t *testing.T) {
	s := redistest.Standalone(t)
	m := loadManifest(t, 1)
	tp := topo(t, "", s)
	ctx := context.Background()

	p, err := Plan(ctx, tp, m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := actions(p); got != "script acquire load, script publish load, script release load, library catalog_refresh_v1 load" {
		t.Fatalf("plan before deploy: %s", got)
	}
	if p.Changes() != 4 {
		t.Fatalf("Changes() = %d, want 4", p.Changes())
	}

	rep, err := Deploy(ctx, tp, m, DeployOptions{})
	if err != nil {
		t.Fatalf("deploy: %v", err)
	}
	if changed, failed := rep.Counts(); changed != 4 || failed != 0 {
		t.Fatalf("deploy counts: changed %d failed %d, want 4 0", changed, failed)
	}
	assertLoaded(t, m, []*redistest.Server{s}, nil)
	if _, ok, _ := tp.Nodes[0].conn.Get(ctx, LockKey(m.Library)); ok {
		t.Fatal("deploy lock still held after deploy")
	}

	// A rerun converges: nothing to do, reported as already_loaded.
	rep, err = Deploy(ctx, tp, m, DeployOptions{})
	if err != nil {
		t.Fatalf("second deploy: %v", err)
	}
	if changed, _ := rep.Counts(); changed != 0 {
		t.Fatalf("second deploy changed %d items, want 0", changed)
	}
	for _, it := range rep.Nodes[0].Items {
		if it.Outcome != OutcomeAlreadyLoaded {
			t.Errorf("second deploy: %s %s: %s, want already_loaded", it.Kind, it.Name, it.Outcome)
		}
	}
	// The deployed scripts run.
	if v, err := s.Do(ctx, "EVALSHA", m.Script("release").SHA, "1", "k", "tok").AsInt64(); err != nil || v != 0 {
		t.Fatalf("EVALSHA release = %d, %v; want 0", v, err)
	}
	if v, err := s.Do(ctx, "FCALL", m.FunctionName("release"), "1", "k", "tok").AsInt64(); err != nil || v != 0 {
		t.Fatalf("FCALL release = %d, %v; want 0", v, err)
	}
}

// actions renders a one-node plan as "kind name action, ...".
func actions(p *PlanReport) string {
	var parts []string
	for _, np := range p.Nodes {
		for _, it := range np.Items {
			parts = append(parts, it.Kind+" "+it.Name+" "+string(it.Action))
		}
	}
	return strings.Join(parts, ", ")
}

func itoa(v int) string { return strconv.Itoa(v) }
