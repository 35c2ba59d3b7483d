package loader

import (
	"slices"
	"strings"
	"testing"
)

// TestCVENotices: one notice per CVE, its nodes grouped by release in node
// order with each release's fixed version; an acknowledged CVE carries its
// reason; a release on a line the table has no row for is unknown, not
// judged; a fixed release is named nowhere; slot ranges print as ranges.
func TestCVENotices(t *testing.T) {
	node := func(addr, family, version string) *Node {
		return &Node{Addr: addr, Role: RolePrimary, Family: family, Version: version, conn: &conn{}}
	}
	a, b := node("a:1", FamilyRedis, "8.0.2"), node("b:1", FamilyRedis, "8.0.2")
	fixed := node("c:1", FamilyRedis, "8.0.6")
	v := node("d:1", FamilyValkey, "8.1.1")
	future := node("e:1", FamilyRedis, "8.6.1")
	tp := &Topology{Nodes: []*Node{a, fixed, v, b, future}}
	fs := CheckServers(tp, []string{"redis-8.0", "valkey-8.1"})
	notices := CVENotices(fs, map[string]string{"CVE-2025-46817": "patched build"})
	var ids []string
	for _, n := range notices {
		ids = append(ids, n.CVE.ID)
	}
	if want := []string{"CVE-2025-67733", "CVE-2025-49844", "CVE-2025-46817", "CVE-2025-46818", "CVE-2025-46819"}; !slices.Equal(ids, want) {
		t.Fatalf("notices %v, want %v", ids, want)
	}
	// CVE-2025-67733 was fixed in 8.0.6 and Valkey 8.1.6.
	if _, d := notices[0].Text(); len(d) < 2 || d[0] != "redis 8.0.2: a:1, b:1 (fixed in 8.0.6)" || d[1] != "valkey 8.1.1: d:1 (fixed in 8.1.6)" {
		t.Errorf("CVE-2025-67733 detail %q", d)
	}
	n := notices[1]
	if n.Accepted != "" || n.Nodes() != 3 || len(n.Releases) != 2 {
		t.Fatalf("CVE-2025-49844 notice %+v", n)
	}
	text, detail := n.Text()
	if !strings.HasPrefix(text, "CVE-2025-49844 (use-after-free in the Lua parser") || !strings.Contains(text, "upstream redis 8.0.2, valkey 8.1.1 are affected unless your build carries the fix") {
		t.Errorf("text %q", text)
	}
	want := []string{"redis 8.0.2: a:1, b:1 (fixed in 8.0.4)", "valkey 8.1.1: d:1 (fixed in 8.1.4)"}
	if len(detail) < 4 || !slices.Equal(detail[:2], want) || !strings.HasPrefix(detail[2], "advisory: https://github.com/advisories/GHSA-4789-qfc9-5f9q, https://github.com/valkey-io/valkey/") {
		t.Errorf("detail %q, want %q first, then the advisories", detail, want)
	}
	if !strings.Contains(strings.Join(detail, "\n"), "note: Valkey 8.0.6 and 7.2.11") {
		t.Errorf("detail %q lacks the Valkey rows' note", detail)
	}
	for _, nn := range notices {
		msg, d := nn.Text()
		if all := msg + strings.Join(d, " "); strings.Contains(all, fixed.Addr) || strings.Contains(all, future.Addr) {
			t.Errorf("a fixed or unknown release is named in %q", all)
		}
	}
	if notices[2].Accepted != "patched build" {
		t.Errorf("CVE-2025-46817 accepted %q", notices[2].Accepted)
	}
	// The unknown release: every CVE unjudged, named with its node.
	var unknown []ServerFinding
	for _, f := range fs {
		if len(f.Unknown) > 0 {
			unknown = append(unknown, f)
		}
	}
	if len(unknown) != 1 || unknown[0].Node != future || len(unknown[0].CVEs) != 0 {
		t.Fatalf("unknown findings %+v", unknown)
	}
	text, detail = UnknownText(unknown)
	if !strings.HasPrefix(text, "redis 8.6.1: scriptctl's Lua CVE table has no row for this release line; CVE-2025-67733, CVE-2025-49844, ") || detail[0] != "nodes: e:1" {
		t.Errorf("unknown text %q %q", text, detail)
	}

	// Slot ranges.
	p := &Node{Role: RolePrimary, slots: [][2]int{{0, 5460}, {10923, 10923}}}
	if got := p.SlotRanges(); got != "0-5460, 10923" {
		t.Errorf("SlotRanges = %q", got)
	}
	if got := (&Node{Role: RoleReplica, slots: [][2]int{{0, 1}}}).SlotRanges(); got != "" {
		t.Errorf("a replica's SlotRanges = %q", got)
	}
	if !strings.Contains(shardGap(p, KindLibrary), "slot migration does not carry Functions") || shardGap(&Node{Role: RolePrimary}, KindScript) != "" {
		t.Errorf("shardGap %q", shardGap(p, KindLibrary))
	}
}
