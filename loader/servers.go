package loader

import (
	"fmt"
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
	CVEs       []target.CVE
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

// CVEText is the CVE warning for nodes of one server version, naming them,
// worded so that a distribution build with a backported fix is not called
// vulnerable for certain, and what to do about it.
func CVEText(fs []ServerFinding) (text, hint string) {
	if len(fs) == 0 {
		return "", ""
	}
	var addrs []string
	for _, f := range fs {
		addrs = append(addrs, f.Node.Addr)
	}
	n := fs[0].Node
	return fmt.Sprintf("%s: %s", strings.Join(addrs, ", "), target.CVEWarning(n.Family, n.Version, fs[0].CVEs)), target.CVEHint
}

// CheckServers returns a finding for every reachable node whose server is
// not covered by targets or whose upstream version is listed as affected by
// a Lua CVE, in the topology's node order.
func CheckServers(tp *Topology, targets []string) []ServerFinding {
	var out []ServerFinding
	for _, n := range tp.Nodes {
		if !n.OK() {
			continue
		}
		f := ServerFinding{Node: n, Line: target.Line(n.Family, n.Version)}
		f.Untargeted = !target.Covered(targets, n.Family, n.Version)
		f.CVEs = target.AffectingCVEs(n.Family, n.Version)
		if f.Untargeted || len(f.CVEs) > 0 {
			out = append(out, f)
		}
	}
	return out
}
