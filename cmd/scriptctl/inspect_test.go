package main

import (
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/scriptctl/scriptctl/internal/redistest"
	"github.com/scriptctl/scriptctl/internal/testtier"
)

func sha1Hex(s string) string {
	sum := sha1.Sum([]byte(s))
	return hex.EncodeToString(sum[:])
}

const (
	inspTeamA = "#!lua name=teama_v1\nredis.register_function{function_name='teama_get', callback=function(keys) return redis.call('GET', keys[1]) end, flags={'no-writes'}}\n"
	inspTeamB = "#!lua name=teamb_v3\nredis.register_function('teamb_ping_v3', function() return 3 end)\n"
	inspOld   = "#!lua name=teamb_v2\nredis.register_function('teamb_ping_v2', function() return 2 end)\n"
	inspV1    = "return redis.call('GET', KEYS[1])\n"
	inspV2    = "return redis.call('GET', KEYS[1]) or ''\n"
)

// inspectSum writes a scripts.sum recording two versions of script get.
func inspectSum(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "scripts.sum")
	data := "1 get " + sha1Hex(inspV1) + "\n2 get " + sha1Hex(inspV2) + "\n"
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// cellRows splits piped table output into rows of cells, header left out.
func cellRows(out string) [][]string {
	var rows [][]string
	for _, l := range strings.Split(strings.TrimSpace(tableRows(out)), "\n") {
		rows = append(rows, strings.Split(l, "\t"))
	}
	return rows
}

// hasRow reports whether a row has the given node, kind, name and state.
func hasRow(rows [][]string, node, kind, name, state string) bool {
	return slices.ContainsFunc(rows, func(r []string) bool {
		return len(r) == 8 && r[0] == node && r[3] == kind && r[4] == name && r[6] == state
	})
}

func waitLibs(t *testing.T, n *redistest.Server, want int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for len(libraries(t, n)) != want {
		if time.Now().After(deadline) {
			t.Fatalf("%s: libraries %q, want %d", n.Addr, libraries(t, n), want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestInspectStandaloneCLI(t *testing.T) {
	s := redistest.Standalone(t)
	s.MustDo("FUNCTION", "LOAD", inspTeamA)
	s.MustDo("SCRIPT", "LOAD", inspV1)
	sum := inspectSum(t)
	r := loaderExpect(t, 0, "inspect", "--url", s.URL(), "--sum", sum, "--sha", strings.ToUpper(sha1Hex(inspV1)))
	rows := cellRows(r.out)
	if len(rows) != 3 {
		t.Fatalf("%d rows, want a library and two scripts:\n%s", len(rows), r.out)
	}
	if !hasRow(rows, s.Addr, "library", "teama_v1", "loaded") || rows[0][5] != sha1Hex(inspTeamA)[:12] || rows[0][7] != "teama_get [no-writes]" {
		t.Errorf("library row %q", rows[0])
	}
	// --sha and --sum name the same SHA: one row, labelled by the release.
	if !hasRow(rows, s.Addr, "script", "v1 get", "cached") || !hasRow(rows, s.Addr, "script", "v2 get", "missing") {
		t.Errorf("script rows:\n%s", r.out)
	}
	if r.errOut != "" {
		t.Errorf("stderr: %s", r.errOut)
	}
	// No manifest is read, and -m is refused.
	loaderExpect(t, 2, "inspect", "-m", "manifest.yaml", "--url", s.URL())
	// Redis cannot read a cached script back.
	if fam, _ := s.Family(t); fam == "redis" {
		r = loaderExpect(t, 3, "inspect", "--url", s.URL(), "--show", sha1Hex(inspV1))
		if !strings.Contains(r.errOut, "no node has SCRIPT SHOW") || r.out != "" {
			t.Errorf("--show on redis:\n%s", r.errOut)
		}
		// JSON exits as text does, with the document.
		r = loaderExpect(t, 3, "inspect", "--url", s.URL(), "--show", sha1Hex(inspV1), "--format", "json")
		if !strings.Contains(r.errOut, "no node has SCRIPT SHOW") || !strings.Contains(r.out, `"state": "unsupported"`) {
			t.Errorf("--show --format json on redis:\nstdout %s\nstderr %s", r.out, r.errOut)
		}
	}
}

func TestInspectShowValkey(t *testing.T) {
	k, _ := redistest.LookupKind("valkey-8.1")
	s := redistest.Standalone(t, redistest.WithKind(k))
	s.MustDo("SCRIPT", "LOAD", inspV2)
	r := loaderExpect(t, 0, "inspect", "--url", s.URL(), "--show", sha1Hex(inspV2))
	if r.out != inspV2 || !strings.Contains(r.errOut, "as "+s.Addr+" holds it") {
		t.Fatalf("--show printed %q, stderr %q", r.out, r.errOut)
	}
	r = loaderExpect(t, 1, "inspect", "--url", s.URL(), "--show", sha1Hex(inspV1))
	if !strings.Contains(r.errOut, "not in the script cache of "+s.Addr) {
		t.Fatalf("--show of an uncached script: %q", r.errOut)
	}
	// JSON exits as text does: 0 shown, 1 not cached (a diagnostic).
	r = loaderExpect(t, 0, "inspect", "--url", s.URL(), "--show", sha1Hex(inspV2), "--format", "json")
	if !strings.Contains(r.out, `"state": "shown"`) || !strings.Contains(r.out, `"diagnostics": []`) {
		t.Errorf("--show --format json:\n%s", r.out)
	}
	r = loaderExpect(t, 1, "inspect", "--url", s.URL(), "--show", sha1Hex(inspV1), "--format", "json")
	if !strings.Contains(r.out, `"state": "not_cached"`) || !strings.Contains(r.out, `"code": "not-cached"`) {
		t.Errorf("--show --format json of an uncached script:\n%s", r.out)
	}
}

func TestInspectReplicatedCLI(t *testing.T) {
	p, rep := redistest.Replicated(t)
	p.MustDo("FUNCTION", "LOAD", inspTeamA)
	waitLibs(t, rep, 1)
	p.MustDo("SCRIPT", "LOAD", inspV1)
	rep.MustDo("SCRIPT", "LOAD", inspV1)
	r := loaderExpect(t, 0, "inspect", "--url", p.URL(), "--sha", sha1Hex(inspV1), "--exit-code", "--format", "json")
	var doc inspectJSON
	if err := json.Unmarshal([]byte(r.out), &doc); err != nil {
		t.Fatalf("%v\n%s", err, r.out)
	}
	if len(doc.Nodes) != 2 || doc.Nodes[1].Role != "replica" || doc.Nodes[1].Primary != p.Addr || len(doc.Mismatches) != 0 {
		t.Fatalf("document %+v", doc)
	}
	for _, n := range doc.Nodes {
		if len(n.Libraries) != 1 || n.Libraries[0].CodeSHA != sha1Hex(inspTeamA) || !n.Scripts[0].Cached {
			t.Errorf("%s: %+v", n.Addr, n)
		}
	}
}

// TestInspectMixedClusterCLI: two teams' libraries on a 6-node cluster, an
// old library left on one primary, and one replica's script cache flushed,
// shown in text and JSON without a manifest.
func TestInspectMixedClusterCLI(t *testing.T) {
	testtier.Full(t, "a 6-node cluster")
	c := redistest.NewCluster(t)
	for _, p := range c.Primaries {
		p.MustDo("FUNCTION", "LOAD", inspTeamA)
		p.MustDo("FUNCTION", "LOAD", inspTeamB)
	}
	c.Primaries[1].MustDo("FUNCTION", "LOAD", inspOld)
	for _, n := range c.Nodes() {
		n.MustDo("SCRIPT", "LOAD", inspV1)
		n.MustDo("SCRIPT", "LOAD", inspV2)
	}
	for i, r := range c.Replicas {
		want := 2
		if i == 1 {
			want = 3
		}
		waitLibs(t, r, want)
	}
	flushed := c.Replicas[2]
	flushed.MustDo("SCRIPT", "FLUSH")
	sum := inspectSum(t)

	// Text: every node, its libraries and the released versions.
	r := loaderExpect(t, 0, "inspect", "--url", c.Primaries[0].URL(), "--sum", sum)
	rows := cellRows(r.out)
	for i, p := range c.Primaries {
		rp := c.Replicas[i]
		for _, n := range []*redistest.Server{p, rp} {
			for _, lib := range []string{"teama_v1", "teamb_v3"} {
				if !hasRow(rows, n.Addr, "library", lib, "loaded") {
					t.Errorf("%s: no loaded %s row", n.Addr, lib)
				}
			}
			state, script := "differs", "cached"
			if i == 1 {
				if !hasRow(rows, n.Addr, "library", "teamb_v2", state) {
					t.Errorf("%s: teamb_v2 not marked differs", n.Addr)
				}
			} else if !hasRow(rows, n.Addr, "library", "teamb_v2", "absent") {
				t.Errorf("%s: teamb_v2 not marked absent", n.Addr)
			}
			if n == flushed {
				script = "missing"
			}
			if !hasRow(rows, n.Addr, "script", "v1 get", script) || !hasRow(rows, n.Addr, "script", "v2 get", script) {
				t.Errorf("%s: scripts not %s", n.Addr, script)
			}
		}
	}
	if len(rows) != 6*5 {
		t.Errorf("%d rows, want 30 (6 nodes x 3 libraries and 2 scripts):\n%s", len(rows), r.out)
	}
	for _, want := range []string{
		"differs: library teamb_v2 differs in the cluster: absent on ",
		"differs: script " + sha1Hex(inspV1) + " differs in the cluster: cached on ",
		"; missing on " + flushed.Addr,
	} {
		if !strings.Contains(r.errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.errOut)
		}
	}

	// JSON, with --exit-code: exit 1.
	r = loaderExpect(t, 1, "inspect", "--url", c.Primaries[2].URL(), "--sum", sum, "--exit-code", "--format", "json")
	var doc inspectJSON
	if err := json.Unmarshal([]byte(r.out), &doc); err != nil {
		t.Fatalf("%v\n%s", err, r.out)
	}
	if !doc.Cluster || len(doc.Nodes) != 6 || len(doc.SHAs) != 2 || !slices.Equal(doc.SHAs[0].Releases, []string{"v1 get"}) {
		t.Fatalf("document: cluster %v, %d nodes, shas %+v", doc.Cluster, len(doc.Nodes), doc.SHAs)
	}
	if len(doc.Mismatches) != 3 {
		t.Fatalf("mismatches %+v, want teamb_v2 and the two scripts", doc.Mismatches)
	}
	m := doc.Mismatches[0]
	if m.Kind != "library" || m.Name != "teamb_v2" || m.Group != "cluster" || len(m.Variants) != 2 ||
		m.Variants[0].Value != "absent" || len(m.Variants[0].Nodes) != 4 ||
		m.Variants[1].Value != sha1Hex(inspOld) || !slices.Equal(m.Variants[1].Nodes, []string{c.Primaries[1].Addr, c.Replicas[1].Addr}) {
		t.Errorf("library mismatch %+v", m)
	}
	for _, n := range doc.Nodes {
		if n.Addr == flushed.Addr {
			if n.Scripts[0].Cached || !n.Scripts[0].Differs {
				t.Errorf("flushed replica's scripts: %+v", n.Scripts)
			}
		}
		var names []string
		for _, l := range n.Libraries {
			names = append(names, l.Name+":"+l.State)
		}
		want := []string{"teama_v1:loaded", "teamb_v3:loaded", "teamb_v2:absent"}
		if n.Addr == c.Primaries[1].Addr || n.Addr == c.Replicas[1].Addr {
			want = []string{"teama_v1:loaded", "teamb_v2:differs", "teamb_v3:loaded"}
		}
		if !slices.Equal(names, want) {
			t.Errorf("%s: libraries %q, want %q", n.Addr, names, want)
		}
	}
}
