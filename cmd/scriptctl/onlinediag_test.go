package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/scriptctl/scriptctl/internal/diag"
	"github.com/scriptctl/scriptctl/internal/iostreams"
	"github.com/scriptctl/scriptctl/internal/redistest"
)

// TestDeployVerboseItems: deploy --verbose names every item it loaded, one
// line per item and node on stderr (scripts on both nodes, the library
// loaded on the primary and replicated to the replica); without --verbose,
// and on a rerun that loads nothing, there is no such line.
func TestDeployVerboseItems(t *testing.T) {
	p, r := redistest.Replicated(t)
	noConnEnv(t)
	path := loaderProject(t, "1")
	m := loadFor(t, path)
	urls := []string{"-m", path, "--url", p.URL(), "--url", r.URL()}
	itemLines := func(stderr string) []string {
		var out []string
		for _, l := range strings.Split(stderr, "\n") {
			if strings.HasPrefix(l, "deploy: primary ") || strings.HasPrefix(l, "deploy: replica ") {
				out = append(out, l)
			}
		}
		slices.Sort(out)
		return out
	}

	res := loaderExpect(t, 0, append([]string{"deploy", "--verbose", "--mode", "scripts"}, urls...)...)
	var want []string
	for _, n := range []struct{ role, addr string }{{"primary", p.Addr}, {"replica", r.Addr}} {
		for _, sc := range m.Scripts {
			want = append(want, fmt.Sprintf("deploy: %s %s: script %s %s loaded", n.role, n.addr, sc.Name, sc.SHA))
		}
	}
	slices.Sort(want)
	if got := itemLines(res.errOut); !slices.Equal(got, want) {
		t.Fatalf("deploy --verbose item lines:\n%s\nwant:\n%s\nstderr:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"), res.errOut)
	}

	// The library: loaded on the primary, replicated on the replica; the
	// scripts are already there and not named again.
	res = loaderExpect(t, 0, append([]string{"deploy", "--verbose"}, urls...)...)
	want = []string{
		fmt.Sprintf("deploy: primary %s: library %s loaded", p.Addr, m.LibraryName()),
		fmt.Sprintf("deploy: replica %s: library %s replicated", r.Addr, m.LibraryName()),
	}
	if got := itemLines(res.errOut); !slices.Equal(got, want) {
		t.Fatalf("deploy --verbose item lines:\n%s\nwant:\n%s\nstderr:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"), res.errOut)
	}
	// Each node's progress line follows its item lines.
	if i, j := strings.Index(res.errOut, want[0]), strings.Index(res.errOut, "primary "+p.Addr+": ok"); i < 0 || j < i {
		t.Errorf("the primary's progress line does not follow its items:\n%s", res.errOut)
	}

	// Nothing loaded: no item line; without --verbose: none either.
	res = loaderExpect(t, 0, append([]string{"deploy", "--verbose"}, urls...)...)
	if got := itemLines(res.errOut); len(got) != 0 || !strings.Contains(res.errOut, "primary "+p.Addr+": ok") {
		t.Errorf("a deploy that loaded nothing:\n%s", res.errOut)
	}
	p.MustDo("SCRIPT", "FLUSH")
	res = loaderExpect(t, 0, append([]string{"deploy"}, urls...)...)
	if got := itemLines(res.errOut); len(got) != 0 || strings.Contains(res.errOut, "primary "+p.Addr+": ok") {
		t.Errorf("deploy without --verbose printed progress:\n%s", res.errOut)
	}
	if !scriptExists(t, p, m.Scripts[0].SHA) {
		t.Fatal("deploy did not reload the flushed scripts")
	}
}

// TestStatusAllListsEachLibraryOnce: status --all on a primary and its
// replica, holding the manifest's version, an older one and another team's
// library, lists every item once per node, in the table and in JSON.
func TestStatusAllListsEachLibraryOnce(t *testing.T) {
	p, r := redistest.Replicated(t)
	noConnEnv(t)
	path := loaderProject(t, "1")
	urls := []string{"-m", path, "--url", p.URL(), "--url", r.URL()}
	loaderExpect(t, 0, append([]string{"deploy"}, urls...)...)
	setVersion(t, path, "2")
	loaderExpect(t, 0, append([]string{"deploy"}, urls...)...)
	p.MustDo("FUNCTION", "LOAD", inspTeamA)
	waitLibs(t, r, 3)

	// Items: 3 scripts of v2 (v1's are the same files, listed once), the
	// manifest's library, v1 older, teama_v1 not owned.
	want := []string{"library catalog_refresh_v1", "library catalog_refresh_v2", "library teama_v1",
		"script acquire", "script publish", "script release"}
	res := loaderExpect(t, 0, append([]string{"status", "--all"}, urls...)...)
	for _, n := range []*redistest.Server{p, r} {
		var got []string
		for _, row := range cellRows(res.out) {
			if row[0] == n.Addr {
				got = append(got, row[3]+" "+strings.Fields(row[4])[0])
			}
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("%s: status --all rows %v, want %v:\n%s", n.Addr, got, want, res.out)
		}
	}
	res = loaderExpect(t, 0, append([]string{"status", "--all", "--format", "json"}, urls...)...)
	var st statusJSON
	if err := json.Unmarshal([]byte(res.out), &st); err != nil {
		t.Fatal(err)
	}
	if len(st.Nodes) != 2 {
		t.Fatalf("status --all JSON: %d nodes, want 2:\n%s", len(st.Nodes), res.out)
	}
	for _, n := range st.Nodes {
		var got []string
		for _, it := range n.Items {
			got = append(got, it.Kind+" "+it.Name)
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("%s: status --all JSON items %v, want %v", n.Addr, got, want)
		}
	}
}

// countWrites counts the writes made to it and keeps what they wrote.
type countWrites struct {
	n    int
	text strings.Builder
}

func (w *countWrites) Write(p []byte) (int, error) {
	w.n++
	return w.text.Write(p)
}

// TestPrintDiagnosticsOneWrite: a block of findings (a deploy to Redis
// 7.0.15 prints seven CVE warnings) goes to stderr in one write, each
// finding with its detail lines as it prints alone, a control character
// in one escaped as Notice escapes it.
func TestPrintDiagnosticsOneWrite(t *testing.T) {
	ds := []diag.Diagnostic{
		{File: "manifest.yaml", Line: 8, Severity: diag.Warning, Code: "lua-cve", Message: "CVE-1", Detail: []string{"redis 7.0.15: a:1", "advisory: x"}},
		{File: "manifest.yaml", Line: 8, Severity: diag.Warning, Code: "lua-cve", Message: "CVE-2\x1b[2J"},
		{File: "lua/a.lua", Severity: diag.Error, Code: "load-failed", Message: "FUNCTION LOAD failed", Detail: []string{"ERR x"}},
	}
	ios, _, _, _ := iostreams.Test()
	w := &countWrites{}
	ios.ErrOut = w
	printDiagnostics(ios, ds)
	var want strings.Builder
	for _, d := range ds {
		want.WriteString(iostreams.Safe(d.String(), true) + "\n")
	}
	if w.n != 1 || w.text.String() != want.String() {
		t.Fatalf("%d writes of:\n%s\nwant 1 of:\n%s", w.n, w.text.String(), want.String())
	}
	if !strings.Contains(w.text.String(), `CVE-2\x1b[2J`) {
		t.Fatalf("the escape sequence is not escaped:\n%q", w.text.String())
	}
	printDiagnostics(ios, nil)
	if w.n != 1 {
		t.Fatalf("no findings wrote %d times", w.n-1)
	}
}
