package main

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/scriptctl/scriptctl/internal/redistest"
	"github.com/scriptctl/scriptctl/internal/testtier"
)

// waitCode waits until n holds library name with code (a replica receives
// FUNCTION LOAD through replication).
func waitCode(t *testing.T, n *redistest.Server, name, code string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		msg := n.MustDo("FUNCTION", "LIST", "WITHCODE")
		libs, _ := msg.ToArray()
		for _, l := range libs {
			f, _ := l.AsMap()
			ln, lc := f["library_name"], f["library_code"]
			gotName, _ := ln.ToString()
			gotCode, _ := lc.ToString()
			if gotName == name && gotCode == code {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never held %s with the expected code", n.Addr, name)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestDiffCluster: a library replaced by other code on one primary of a
// 6-node cluster shows as a unified diff for that primary and its replica,
// and status --all shows another team's library as not owned.
func TestDiffCluster(t *testing.T) {
	testtier.Full(t, "a 6-node cluster")
	c := redistest.NewCluster(t)
	noConnEnv(t)
	path := loaderProject(t, "1")
	m := loadFor(t, path)
	seed := c.Primaries[0].URL()
	loaderExpect(t, 0, "deploy", "-m", path, "--url", seed)

	r := loaderExpect(t, 0, "diff", "-m", path, "--url", seed)
	want := "library catalog_refresh_v1: same on all 6 nodes\n"
	for _, s := range m.Scripts {
		want += "script " + s.Name + " " + s.SHA[:12] + ": same on all 6 nodes\n"
	}
	if r.out != want {
		t.Fatalf("diff of a fresh deploy:\n%s\nwant:\n%s", r.out, want)
	}

	// Another team's library on the same nodes: status lists only the
	// manifest's items, status --all the other library too, not owned.
	for i, p := range c.Primaries {
		p.MustDo("FUNCTION", "LOAD", inspTeamA)
		waitLibs(t, c.Replicas[i], 2)
	}
	r = loaderExpect(t, 0, "status", "-m", path, "--url", seed)
	if strings.Contains(r.out, "teama_v1") {
		t.Errorf("status without --all lists another team's library:\n%s", r.out)
	}
	r = loaderExpect(t, 0, "status", "-m", path, "--url", seed, "--all")
	rows := cellRows(r.out)
	for _, n := range c.Nodes() {
		if !hasRow(rows, n.Addr, "library", "teama_v1", "not_owned") || !hasRow(rows, n.Addr, "library", m.LibraryName(), "loaded") {
			t.Errorf("%s: status --all rows:\n%s", n.Addr, r.out)
		}
	}
	r = loaderExpect(t, 0, "status", "-m", path, "--url", seed, "--all", "--mode", "functions", "--format", "json")
	var st statusJSON
	if err := json.Unmarshal([]byte(r.out), &st); err != nil {
		t.Fatal(err)
	}
	for _, n := range st.Nodes {
		if len(n.Items) != 2 || n.Items[1].Name != "teama_v1" || n.Items[1].State != "not_owned" || n.Items[1].Drift ||
			n.Items[1].SHA != sha1Hex(inspTeamA) || n.Items[1].Version != 0 || !strings.Contains(n.Items[1].Detail, "teama_get") {
			t.Errorf("%s: items %+v", n.Addr, n.Items)
		}
	}
	if !strings.Contains(r.out, `"state": "not_owned"`) || strings.Contains(r.out, `"version": 0`) {
		t.Errorf("status --all JSON:\n%s", r.out)
	}

	// A hand-made hotfix on one primary, replicated to its replica.
	code := string(m.FunctionsLibrary())
	first, rest, _ := strings.Cut(code, "\n")
	hot := first + "\n-- hotfixed by hand\n" + rest
	p, rep := c.Primaries[1], c.Replicas[1]
	p.MustDo("FUNCTION", "LOAD", "REPLACE", hot)
	waitCode(t, rep, m.LibraryName(), hot)
	// And one replica lost its script cache.
	flushed := c.Replicas[2]
	flushed.MustDo("SCRIPT", "FLUSH")

	r = loaderExpect(t, 1, "diff", "-m", path, "--url", seed)
	// The four unchanged nodes first (in topology order), then the group
	// that differs, with its diff.
	sameLine, rest, _ := strings.Cut(r.out, "\n")
	others := []string{c.Primaries[0].Addr, c.Replicas[0].Addr, c.Primaries[2].Addr, c.Replicas[2].Addr}
	addrs, ok := strings.CutPrefix(sameLine, "library catalog_refresh_v1: same on ")
	if got := strings.Split(addrs, ", "); !ok || len(got) != 4 || !sameSet(got, others) {
		t.Fatalf("first line %q, want the four unchanged nodes %q", sameLine, others)
	}
	wantStart := "library catalog_refresh_v1: differs on " + p.Addr + ", " + rep.Addr + " (code " + sha1Hex(hot)[:12] + ")\n" +
		"--- repository catalog_refresh_v1\n" +
		"+++ " + p.Addr + ", " + rep.Addr + " catalog_refresh_v1\n" +
		"@@ -1,4 +1,5 @@\n" +
		" " + first + "\n" +
		"+-- hotfixed by hand\n"
	if !strings.HasPrefix(rest, wantStart) {
		t.Fatalf("diff:\n%s\nwant after the first line:\n%s", r.out, wantStart)
	}
	s0 := m.Scripts[0]
	if !strings.Contains(r.out, "script "+s0.Name+" "+s0.SHA[:12]+": missing on "+flushed.Addr+"\n") {
		t.Errorf("diff does not name the flushed replica:\n%s", r.out)
	}
	if !strings.Contains(r.errOut, "4 item(s) differ from the repository") {
		t.Errorf("stderr: %s", r.errOut)
	}

	r = loaderExpect(t, 1, "diff", "-m", path, "--url", seed, "--mode", "functions", "--format", "json")
	var doc diffJSON
	if err := json.Unmarshal([]byte(r.out), &doc); err != nil {
		t.Fatalf("%v\n%s", err, r.out)
	}
	if !doc.Differs || len(doc.Items) != 1 || len(doc.Items[0].Groups) != 2 || len(doc.Nodes) != 6 {
		t.Fatalf("document %+v", doc)
	}
	g := doc.Items[0].Groups[1]
	if g.State != "differs" || g.CodeSHA != sha1Hex(hot) || !strings.Contains(g.Diff, "\n+-- hotfixed by hand\n") || len(g.Nodes) != 2 {
		t.Errorf("differing group %+v", g)
	}
	if g0 := doc.Items[0].Groups[0]; g0.State != "same" || g0.Diff != "" || len(g0.Nodes) != 4 {
		t.Errorf("same group %+v", g0)
	}
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}
