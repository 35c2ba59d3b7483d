package loader

import (
	"fmt"
	"slices"
	"strings"

	"github.com/scriptctl/scriptctl/internal/target"
)

// ServerFinding is what one reachable node's server build means for the
// manifest: a server line its targets do not list (its scripts were never
// proven there), or an upstream version listed as affected by a Lua CVE.
type ServerFinding struct {
	Node       *Node
	Line       string // the node's target line, "valkey-8.1"; "" when its version cannot be read
	Untargeted bool
	CVEs       []target.CVE // the Lua CVEs upstream lists the node's release as affected by
	Unknown    []target.CVE // the Lua CVEs the table cannot judge for the release
}

// UntargetedText is the finding's sentence, naming the node, its server and
// the manifest's targets, and what to do about it.
func (f ServerFinding) UntargetedText(targets []string) (text, hint string) {
	hint = fmt.Sprintf("add %s to the manifest's targets once its scenarios pass", f.Line)
	if _, known := target.Lookup(f.Line); !known {
		hint = fmt.Sprintf("scriptctl knows no target for it (known: %s)", strings.Join(target.Names(), ", "))
	}
	return fmt.Sprintf("%s runs %s %s, which the manifest's targets (%s) do not cover",
		f.Node.Addr, f.Node.Family, f.Node.Version, strings.Join(targets, ", ")), hint
}

// CVENotice is one Lua CVE finding of a deployment: the CVE, and the nodes
// it concerns grouped by server release, in node order. A 6-node cluster
// of one release gets one notice naming the six nodes, not six.
type CVENotice struct {
	CVE      target.CVE
	Releases []CVERelease
	// Accepted is the manifest's reason when its accept_cves lists the
	// CVE (the notice is acknowledged); "" otherwise.
	Accepted string
}

// CVERelease is one server release a CVENotice concerns, and its nodes.
type CVERelease struct {
	Family, Version string
	FixedIn         string // CVE.FixedIn for the release
	Nodes           []*Node
}

// Name is "redis 8.0.2".
func (r CVERelease) Name() string { return r.Family + " " + r.Version }

// CVENotices groups the findings' affected CVEs into one notice per CVE,
// in the table's order; accepted maps the ids the manifest acknowledges to
// its reasons.
func CVENotices(fs []ServerFinding, accepted map[string]string) []CVENotice {
	byID := map[string]*CVENotice{}
	for _, f := range fs {
		for _, c := range f.CVEs {
			n := byID[c.ID]
			if n == nil {
				n = &CVENotice{CVE: c, Accepted: accepted[c.ID]}
				byID[c.ID] = n
			}
			i := slices.IndexFunc(n.Releases, func(r CVERelease) bool {
				return r.Family == f.Node.Family && r.Version == f.Node.Version
			})
			if i < 0 {
				n.Releases = append(n.Releases, CVERelease{Family: f.Node.Family, Version: f.Node.Version, FixedIn: c.FixedIn(f.Node.Family, f.Node.Version)})
				i = len(n.Releases) - 1
			}
			n.Releases[i].Nodes = append(n.Releases[i].Nodes, f.Node)
		}
	}
	var out []CVENotice
	for _, c := range target.CVEs() {
		if n := byID[c.ID]; n != nil {
			out = append(out, *n)
		}
	}
	return out
}

// Text is the notice's sentence, naming the CVE and the releases, and its
// detail lines: one per release with its fixed release and nodes, the
// advisories, and what to do.
func (n CVENotice) Text() (text string, detail []string) {
	var names []string
	for _, r := range n.Releases {
		names = append(names, r.Name())
		var addrs []string
		for _, node := range r.Nodes {
			addrs = append(addrs, node.Addr)
		}
		fix := "fixed in " + r.FixedIn
		if r.FixedIn == "" {
			fix = "no release of its line is fixed: move to a supported line"
		}
		detail = append(detail, fmt.Sprintf("%s: %s (%s)", r.Name(), strings.Join(addrs, ", "), fix))
	}
	var urls, notes []string
	var families []string
	for _, r := range n.Releases {
		if !slices.Contains(families, r.Family) {
			families = append(families, r.Family)
		}
	}
	for _, f := range families {
		for _, a := range n.CVE.Advisories[f] {
			urls = append(urls, target.AdvisoryURL(a))
		}
		if note := n.CVE.Notes[f]; note != "" {
			notes = append(notes, note)
		}
	}
	if len(urls) > 0 {
		detail = append(detail, "advisory: "+strings.Join(urls, ", "))
	}
	for _, note := range notes {
		detail = append(detail, "note: "+note)
	}
	detail = append(detail, target.CVEHint)
	return target.CVEWarning(n.CVE, names), detail
}

// Nodes counts the nodes the notice concerns.
func (n CVENotice) Nodes() int {
	k := 0
	for _, r := range n.Releases {
		k += len(r.Nodes)
	}
	return k
}

// UnknownText is the finding for nodes of one release the CVE table has no
// row for: which CVEs it cannot judge, and that it does not guess.
func UnknownText(fs []ServerFinding) (text string, detail []string) {
	var addrs []string
	for _, f := range fs {
		addrs = append(addrs, f.Node.Addr)
	}
	n := fs[0].Node
	var ids []string
	for _, c := range fs[0].Unknown {
		ids = append(ids, c.ID)
	}
	return fmt.Sprintf("%s %s: scriptctl's Lua CVE table has no row for this release line; %s not judged", n.Family, n.Version, strings.Join(ids, ", ")),
		[]string{"nodes: " + strings.Join(addrs, ", "), "check the server's release notes for Lua fixes, or use a scriptctl whose table knows the line"}
}

// CheckServers returns a finding for every reachable node whose server is
// not covered by targets, whose upstream version is listed as affected by
// a Lua CVE, or whose release the CVE table cannot judge, in the topology's
// node order.
func CheckServers(tp *Topology, targets []string) []ServerFinding {
	var out []ServerFinding
	for _, n := range tp.Nodes {
		if !n.OK() {
			continue
		}
		f := ServerFinding{Node: n, Line: target.Line(n.Family, n.Version)}
		f.Untargeted = !target.Covered(targets, n.Family, n.Version)
		f.CVEs = target.AffectingCVEs(n.Family, n.Version)
		f.Unknown = target.UnknownCVEs(n.Family, n.Version)
		if f.Untargeted || len(f.CVEs) > 0 || len(f.Unknown) > 0 {
			out = append(out, f)
		}
	}
	return out
}
