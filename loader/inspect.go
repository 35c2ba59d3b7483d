package loader

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// FunctionInfo is one function of a library, as FUNCTION LIST reports it.
type FunctionInfo struct {
	Name        string
	Description string
	Flags       []string
}

// LibraryInfo is one library of FUNCTION LIST WITHCODE, with the SHA1 of
// its code (two nodes hold the same library when their code SHAs agree).
type LibraryInfo struct {
	Name      string
	Engine    string
	Functions []FunctionInfo
	Code      []byte
	CodeSHA   string
}

// ScriptSource is what SCRIPT SHOW returned for one SHA on one node.
type ScriptSource struct {
	SHA    string
	State  string // SourceShown, SourceNotCached or SourceUnsupported
	Source []byte // when shown
}

// Script source states.
const (
	SourceShown       = "shown"
	SourceNotCached   = "not_cached"
	SourceUnsupported = "unsupported"
)

// InspectOptions says what Inspect asks besides the libraries.
type InspectOptions struct {
	SHAs     []string // scripts whose presence to report (lowercase hex)
	Show     []string // scripts whose source SCRIPT SHOW fetches, where the server has it
	Parallel int
}

// NodeInspect is what one node holds.
type NodeInspect struct {
	Node      *Node
	Functions bool          // the server has Functions (Redis 7.0+, Valkey)
	Libraries []LibraryInfo // by name
	// Absent names libraries other nodes of its group hold and this node
	// does not (each is also a Mismatch).
	Absent  []string
	Scripts []bool // Scripts[i]: the report's SHAs[i] is in the script cache
	Sources []ScriptSource
	// LibraryDiffers and ScriptDiffers mark the items on which the node
	// disagrees with a node of its group: by library name, by index into
	// SHAs.
	LibraryDiffers map[string]bool
	ScriptDiffers  []bool
}

// Mismatch is one library or script on which nodes that should agree do
// not: the replicas of one primary and the primary, or every node of a
// cluster (its primaries must all hold the same, and each replica what its
// primary holds).
type Mismatch struct {
	Kind     string // KindLibrary or KindScript
	Name     string // the library name, or the script's SHA
	Group    string // GroupCluster, or the primary whose replicas disagree
	Variants []Variant
	// Gaps are the cluster primaries that serve slots without the item
	// (absent library, missing script), as "addr (slots a-b)": calls on
	// keys of those slots fail there. A new shard starts empty, and slot
	// migration carries neither scripts nor Functions.
	Gaps []string
}

// GroupCluster is the Group of a mismatch among the nodes of a cluster.
const GroupCluster = "cluster"

// Variant is one value an item has on some nodes: a library's code SHA or
// "absent"; a script's "cached" or "missing".
type Variant struct {
	Value string
	Nodes []string
}

// Variant values besides a library's code SHA.
const (
	ValueAbsent  = "absent"
	ValueCached  = "cached"
	ValueMissing = "missing"
)

// String is the mismatch as one line: "library x_v1 differs in the
// cluster: code 1a2b3c4d5e6f on a, b; absent on c".
func (m Mismatch) String() string {
	where := "in the cluster"
	if m.Group != GroupCluster {
		where = "between " + m.Group + " and its replicas"
	}
	name := m.Kind + " " + m.Name
	var parts []string
	for _, v := range m.Variants {
		val := v.Value
		if m.Kind == KindLibrary && val != ValueAbsent {
			val = "code " + abbrev(val)
		}
		parts = append(parts, fmt.Sprintf("%s on %s", val, strings.Join(v.Nodes, ", ")))
	}
	out := fmt.Sprintf("%s differs %s: %s", name, where, strings.Join(parts, "; "))
	if len(m.Gaps) > 0 {
		out += fmt.Sprintf("; primaries serving slots without it: %s (deploy loads it)", strings.Join(m.Gaps, ", "))
	}
	return out
}

// gaps lists the nodes of ns whose value is absent or missing and that are
// cluster primaries serving slots, as "addr (slots a-b)".
func gaps(ns []*NodeInspect, vals []string) []string {
	var out []string
	for i, ni := range ns {
		if vals[i] != ValueAbsent && vals[i] != ValueMissing {
			continue
		}
		if slots := ni.Node.SlotRanges(); slots != "" {
			out = append(out, fmt.Sprintf("%s (slots %s)", ni.Node.Addr, slots))
		}
	}
	return out
}

func abbrev(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

// InspectReport is what every node holds: its libraries, the presence of
// each SHA asked about, and where nodes that should agree do not.
type InspectReport struct {
	Cluster    bool
	SHAs       []string
	Nodes      []*NodeInspect
	Mismatches []Mismatch
}

// Unreachable returns a NodesError naming every node that could not be
// used, or nil.
func (r *InspectReport) Unreachable() error {
	nodes := make([]*Node, len(r.Nodes))
	for i, ni := range r.Nodes {
		nodes[i] = ni.Node
	}
	return unreachable(nodes)
}

// unreachable returns a NodesError naming every node of nodes that could
// not be used, or nil.
func unreachable(nodes []*Node) error {
	var ne NodesError
	for _, n := range nodes {
		if !n.OK() {
			ne.Errs = append(ne.Errs, nodeErr(n))
		}
	}
	if len(ne.Errs) == 0 {
		return nil
	}
	return &ne
}

// Inspect reads every node's Functions libraries (FUNCTION LIST WITHCODE)
// and whether each of opts.SHAs is in its script cache, fetches the source
// of opts.Show where the server has SCRIPT SHOW, and compares the nodes
// that should agree. It needs no manifest and changes nothing.
func Inspect(ctx context.Context, t *Topology, opts InspectOptions) (*InspectReport, error) {
	r := &InspectReport{Cluster: t.Cluster}
	seen := map[string]bool{}
	for _, s := range opts.SHAs {
		s = strings.ToLower(s)
		if !seen[s] {
			seen[s] = true
			r.SHAs = append(r.SHAs, s)
		}
	}
	r.Nodes = make([]*NodeInspect, len(t.Nodes))
	for i, n := range t.Nodes {
		r.Nodes[i] = &NodeInspect{Node: n}
	}
	parallel(len(r.Nodes), opts.Parallel, func(i int) {
		ni := r.Nodes[i]
		if !ni.Node.OK() {
			return
		}
		if err := inspectNode(ctx, ni, r.SHAs, opts.Show); err != nil {
			*ni = NodeInspect{Node: ni.Node}
			ni.Node.Err = err
		}
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	r.compare(t)
	return r, nil
}

func inspectNode(ctx context.Context, ni *NodeInspect, shas, show []string) error {
	n := ni.Node
	ni.Functions = n.SupportsFunctions()
	if ni.Functions {
		libs, err := n.conn.functionListInfo(ctx)
		if err != nil {
			return &NodeError{Node: n.Addr, Op: "function list", Err: err}
		}
		ni.Libraries = libs
	}
	exists, err := n.conn.ScriptExists(ctx, shas)
	if err != nil {
		return &NodeError{Node: n.Addr, Op: "script exists", Err: err}
	}
	ni.Scripts = exists
	ni.ScriptDiffers = make([]bool, len(shas))
	for _, sha := range show {
		src, ok, err := n.conn.scriptShow(ctx, sha)
		s := ScriptSource{SHA: strings.ToLower(sha)}
		switch {
		case errors.Is(err, ErrNoScriptShow):
			s.State = SourceUnsupported
		case err != nil:
			return &NodeError{Node: n.Addr, Op: "script show", Err: err}
		case !ok:
			s.State = SourceNotCached
		default:
			s.State, s.Source = SourceShown, src
		}
		ni.Sources = append(ni.Sources, s)
	}
	return nil
}

// groupOf is the agreement group of a node: every node of a cluster
// agrees; standalone, a primary and its replicas.
func groupOf(cluster bool, n *Node) string {
	switch {
	case cluster:
		return GroupCluster
	case n.Role == RoleReplica && n.Primary != "":
		return n.Primary
	}
	return n.Addr
}

// compare finds the mismatches within each group of reachable nodes.
func (r *InspectReport) compare(t *Topology) {
	var groups []string
	members := map[string][]*NodeInspect{}
	for _, ni := range r.Nodes {
		if !ni.Node.OK() {
			continue
		}
		g := groupOf(t.Cluster, ni.Node)
		if members[g] == nil {
			groups = append(groups, g)
		}
		members[g] = append(members[g], ni)
	}
	for _, g := range groups {
		ms := members[g]
		if len(ms) < 2 {
			continue
		}
		// Libraries, among the nodes that have Functions.
		var withFn []*NodeInspect
		names := map[string]bool{}
		for _, ni := range ms {
			if !ni.Functions {
				continue
			}
			withFn = append(withFn, ni)
			for _, l := range ni.Libraries {
				names[strings.ToLower(l.Name)] = true
			}
		}
		for _, name := range sortedKeys(names) {
			vals := make([]string, len(withFn))
			display := name
			for i, ni := range withFn {
				vals[i] = ValueAbsent
				for _, l := range ni.Libraries {
					if strings.EqualFold(l.Name, name) {
						vals[i], display = l.CodeSHA, l.Name
					}
				}
			}
			vs := variants(withFn, vals)
			if len(vs) < 2 {
				continue
			}
			r.Mismatches = append(r.Mismatches, Mismatch{Kind: KindLibrary, Name: display, Group: g, Variants: vs, Gaps: gaps(withFn, vals)})
			for i, ni := range withFn {
				if ni.LibraryDiffers == nil {
					ni.LibraryDiffers = map[string]bool{}
				}
				ni.LibraryDiffers[strings.ToLower(display)] = true
				if vals[i] == ValueAbsent {
					ni.Absent = append(ni.Absent, display)
				}
			}
		}
		// Scripts: a SHA cached on one node of the group and not another.
		for i, sha := range r.SHAs {
			vals := make([]string, len(ms))
			for j, ni := range ms {
				vals[j] = ValueMissing
				if ni.Scripts[i] {
					vals[j] = ValueCached
				}
			}
			vs := variants(ms, vals)
			if len(vs) < 2 {
				continue
			}
			r.Mismatches = append(r.Mismatches, Mismatch{Kind: KindScript, Name: sha, Group: g, Variants: vs, Gaps: gaps(ms, vals)})
			for _, ni := range ms {
				ni.ScriptDiffers[i] = true
			}
		}
	}
}

// variants groups the nodes by value: the most common value first, then by
// value.
func variants(ns []*NodeInspect, vals []string) []Variant {
	by := map[string][]string{}
	for i, v := range vals {
		by[v] = append(by[v], ns[i].Node.Addr)
	}
	out := make([]Variant, 0, len(by))
	for v, nodes := range by {
		out = append(out, Variant{Value: v, Nodes: nodes})
	}
	sort.Slice(out, func(i, j int) bool {
		if len(out[i].Nodes) != len(out[j].Nodes) {
			return len(out[i].Nodes) > len(out[j].Nodes)
		}
		return out[i].Value < out[j].Value
	})
	return out
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Library returns the node's library called name (compared
// case-insensitively, as Redis does), or nil.
func (ni *NodeInspect) Library(name string) *LibraryInfo {
	for i := range ni.Libraries {
		if strings.EqualFold(ni.Libraries[i].Name, name) {
			return &ni.Libraries[i]
		}
	}
	return nil
}
