package loader

import (
	"bytes"
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/scriptctl/scriptctl/manifest"
)

// State is what status found for one item on one node.
type State string

// States. StateMissing and StateDiffers are drift; the others are not.
const (
	StateLoaded      State = "loaded"      // the manifest's script or library, byte for byte
	StateMissing     State = "missing"     // drift: not on the node
	StateDiffers     State = "differs"     // drift: the library name is loaded with other code
	StateOlder       State = "older"       // an older version recorded in scripts.sum
	StateNewer       State = "newer"       // a version newer than the manifest's
	StateUnknown     State = "unknown"     // an older version scripts.sum does not record
	StateUnsupported State = "unsupported" // no Functions before Redis 7.0
)

// Drift reports whether the state is drift.
func (s State) Drift() bool { return s == StateMissing || s == StateDiffers }

// StatusItem is one script or library on one node.
type StatusItem struct {
	Kind    string // KindScript or KindLibrary
	Name    string // script name, or library name
	Version int    // the manifest version the item belongs to
	SHA     string // scripts
	State   State
	Detail  string
	// Gap explains a missing item on a cluster primary that serves slots
	// (also at the end of Detail); "" otherwise.
	Gap string
}

// NodeStatus is what one node holds. A node that could not be reached has
// no items; Node.Err says why.
type NodeStatus struct {
	Node  *Node
	Items []StatusItem
}

// StatusReport is what every node holds of the manifest.
type StatusReport struct {
	Library     string
	LibraryName string
	Version     int
	Mode        Mode
	Nodes       []*NodeStatus
}

// Drift returns every drifted item, as "node: kind name state".
func (r *StatusReport) Drift() []string {
	var out []string
	for _, ns := range r.Nodes {
		for _, it := range ns.Items {
			if it.State.Drift() {
				out = append(out, fmt.Sprintf("%s: %s %s %s", ns.Node.Addr, it.Kind, it.Name, it.State))
			}
		}
	}
	return out
}

// Unreachable returns a NodesError naming every node that could not be
// used, or nil.
func (r *StatusReport) Unreachable() error {
	var ne NodesError
	for _, ns := range r.Nodes {
		if !ns.Node.OK() {
			ne.Errs = append(ne.Errs, nodeErr(ns.Node))
		}
	}
	if len(ne.Errs) == 0 {
		return nil
	}
	return &ne
}

// Status reports, per node, whether each of the manifest's scripts is in
// the script cache and which versions of the manifest's library are loaded,
// recognising older versions from opts.Ledger. It changes nothing.
func Status(ctx context.Context, t *Topology, m *manifest.Manifest, opts Options) (*StatusReport, error) {
	r := &StatusReport{Library: m.Library, LibraryName: m.LibraryName(), Version: m.Version, Mode: opts.Mode}
	if r.Mode == "" {
		r.Mode = ModeBoth
	}
	code := m.FunctionsLibrary()
	r.Nodes = make([]*NodeStatus, len(t.Nodes))
	for i, n := range t.Nodes {
		r.Nodes[i] = &NodeStatus{Node: n}
	}
	parallel(len(r.Nodes), opts.Parallel, func(i int) {
		ns := r.Nodes[i]
		if !ns.Node.OK() {
			return
		}
		if err := statusNode(ctx, ns, m, code, r.Mode, opts.Ledger); err != nil {
			ns.Items = nil
			ns.Node.Err = err
		}
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return r, nil
}

func statusNode(ctx context.Context, ns *NodeStatus, m *manifest.Manifest, code []byte, mode Mode, ledger map[int]map[string]string) error {
	n := ns.Node
	if mode.scripts() {
		// The manifest's scripts, then the older SHAs scripts.sum records
		// (listed only when still cached).
		type want struct {
			name    string
			sha     string
			version int
		}
		var ws []want
		seen := map[string]bool{}
		for _, s := range m.Scripts {
			ws = append(ws, want{s.Name, s.SHA, m.Version})
			seen[strings.ToLower(s.SHA)] = true
		}
		for _, v := range sortedVersions(ledger) {
			if v == m.Version {
				continue
			}
			names := make([]string, 0, len(ledger[v]))
			for name := range ledger[v] {
				names = append(names, name)
			}
			sort.Strings(names)
			for _, name := range names {
				sha := strings.ToLower(ledger[v][name])
				if !seen[sha] {
					seen[sha] = true
					ws = append(ws, want{name, sha, v})
				}
			}
		}
		shas := make([]string, len(ws))
		for i, w := range ws {
			shas[i] = w.sha
		}
		exists, err := n.conn.ScriptExists(ctx, shas)
		if err != nil {
			return &NodeError{Node: n.Addr, Op: "script exists", Err: err}
		}
		for i, w := range ws {
			it := StatusItem{Kind: KindScript, Name: w.name, Version: w.version, SHA: w.sha, State: StateLoaded}
			switch {
			case w.version == m.Version && !exists[i]:
				it.State, it.Detail = StateMissing, "not in the script cache: EVALSHA fails with NOSCRIPT"
				if it.Gap = shardGap(n, KindScript); it.Gap != "" {
					it.Detail += "; " + it.Gap
				}
			case w.version == m.Version:
			case !exists[i]:
				continue
			case w.version < m.Version:
				it.State, it.Detail = StateOlder, fmt.Sprintf("version %d per scripts.sum", w.version)
			default:
				it.State, it.Detail = StateNewer, fmt.Sprintf("version %d per scripts.sum", w.version)
			}
			ns.Items = append(ns.Items, it)
		}
	}
	if mode.functions() {
		if !n.SupportsFunctions() {
			ns.Items = append(ns.Items, StatusItem{Kind: KindLibrary, Name: m.LibraryName(), Version: m.Version, State: StateUnsupported,
				Detail: fmt.Sprintf("Redis %s has no Functions (7.0+)", n.Version)})
			return nil
		}
		libs, err := n.conn.FunctionList(ctx, m.Library+"_v*", true)
		if err != nil {
			return &NodeError{Node: n.Addr, Op: "function list", Err: err}
		}
		current := StatusItem{Kind: KindLibrary, Name: m.LibraryName(), Version: m.Version, State: StateMissing, Detail: "not loaded: FCALL fails"}
		var others []StatusItem
		for _, lib := range libs {
			v, ok := LibraryVersion(m.Library, lib.Name)
			if !ok {
				continue
			}
			if v == m.Version {
				current.Name = lib.Name
				if bytes.Equal(lib.Code, code) {
					current.State, current.Detail = StateLoaded, ""
				} else {
					current.State, current.Detail = StateDiffers, "loaded with code that differs from the manifest"
				}
				continue
			}
			it := StatusItem{Kind: KindLibrary, Name: lib.Name, Version: v}
			_, known := ledger[v]
			switch {
			case v > m.Version:
				it.State, it.Detail = StateNewer, "newer than the manifest"
			case known:
				it.State, it.Detail = StateOlder, "recorded in scripts.sum; prune removes it"
			default:
				it.State, it.Detail = StateUnknown, "older version not recorded in scripts.sum"
			}
			others = append(others, it)
		}
		sort.Slice(others, func(i, j int) bool { return others[i].Version > others[j].Version })
		if gap := shardGap(n, KindLibrary); current.State == StateMissing && gap != "" {
			current.Detail += "; " + gap
			current.Gap = gap
		}
		ns.Items = append(ns.Items, current)
		ns.Items = append(ns.Items, others...)
	}
	return nil
}

// LibraryVersion parses a library name <library>_v<version> of the given
// base name (compared case-insensitively, as Redis compares library names).
// ok is false for any other library, including a version with a leading
// zero or a sign.
func LibraryVersion(library, name string) (int, bool) {
	if len(name) < len(library)+3 || !strings.EqualFold(name[:len(library)], library) {
		return 0, false
	}
	rest := name[len(library):]
	if !strings.HasPrefix(rest, "_v") && !strings.HasPrefix(rest, "_V") {
		return 0, false
	}
	digits := rest[2:]
	v, err := strconv.Atoi(digits)
	if err != nil || v <= 0 || strconv.Itoa(v) != digits {
		return 0, false
	}
	return v, true
}

func sortedVersions(ledger map[int]map[string]string) []int {
	out := make([]int, 0, len(ledger))
	for v := range ledger {
		out = append(out, v)
	}
	sort.Ints(out)
	return out
}
