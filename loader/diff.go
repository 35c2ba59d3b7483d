package loader

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/scriptctl/scriptctl/manifest"
)

// Diff states: what a group of nodes holds of one item, compared with the
// repository.
const (
	DiffSame        = "same"        // the repository's code, byte for byte
	DiffDiffers     = "differs"     // the library name holds other code
	DiffAbsent      = "absent"      // the library is not loaded
	DiffMissing     = "missing"     // the script's SHA is not in the cache
	DiffUnsupported = "unsupported" // no Functions before Redis 7.0
)

// DiffGroup is the nodes that hold the same thing for one item.
type DiffGroup struct {
	State string
	Nodes []string
	// Code is what the nodes hold when it is not the repository's: a
	// library's code (DiffDiffers), or, for a missing script, the source of
	// the older release they hold, where SCRIPT SHOW could read it back.
	Code    []byte
	CodeSHA string
	// Holds says what the nodes hold instead, for an absent library (other
	// versions of it) or a missing script (older releases scripts.sum
	// records that are still cached: "v1 1a2b3c4d5e6f").
	Holds []string
}

// DiffItem is one library or script of the manifest compared on every
// reachable node.
type DiffItem struct {
	Kind   string // KindLibrary or KindScript
	Name   string // the library's versioned name, or the script's name
	SHA    string // the repository's: the script's SHA1, or the library code's
	Code   []byte // the repository's code
	Groups []DiffGroup
}

// Differs reports whether any node does not hold the repository's code
// (a node without Functions does not count).
func (it DiffItem) Differs() bool {
	for _, g := range it.Groups {
		if g.State != DiffSame && g.State != DiffUnsupported {
			return true
		}
	}
	return false
}

// DiffReport compares the code on every node with the repository's.
type DiffReport struct {
	Library     string
	LibraryName string
	Version     int
	Mode        Mode
	Items       []DiffItem
	Nodes       []*Node
}

// Differs reports whether any item differs on any node.
func (r *DiffReport) Differs() bool {
	for _, it := range r.Items {
		if it.Differs() {
			return true
		}
	}
	return false
}

// Unreachable returns a NodesError naming every node that could not be
// used, or nil.
func (r *DiffReport) Unreachable() error { return unreachable(r.Nodes) }

// nodeDiff is what one node holds of the manifest.
type nodeDiff struct {
	functions bool
	lib       *LibraryInfo // the manifest's library name; nil when absent
	others    []string     // other versions of the library
	cached    []bool       // per manifest script
	holds     [][]string   // per manifest script: cached older releases
	shown     [][]byte     // per manifest script: the newest cached older release's source, when SCRIPT SHOW has it
	shownSHA  []string
}

// Diff compares, on every node, the manifest's library (FUNCTION LIST
// WITHCODE) and scripts (by SHA: SCRIPT EXISTS) with the repository's. For
// a missing script it names the older releases opts.Ledger records that the
// node still caches, and reads the newest back with SCRIPT SHOW where the
// server has it. It changes nothing.
func Diff(ctx context.Context, t *Topology, m *manifest.Manifest, opts Options) (*DiffReport, error) {
	r := &DiffReport{Library: m.Library, LibraryName: m.LibraryName(), Version: m.Version, Mode: opts.Mode, Nodes: t.Nodes}
	if r.Mode == "" {
		r.Mode = ModeBoth
	}
	// Older releases of each script, newest first.
	older := make([][]string, len(m.Scripts))
	olderVer := make([][]int, len(m.Scripts))
	versions := sortedVersions(opts.Ledger)
	for i, s := range m.Scripts {
		for j := len(versions) - 1; j >= 0; j-- {
			v := versions[j]
			sha := strings.ToLower(opts.Ledger[v][s.Name])
			if v == m.Version || sha == "" || sha == strings.ToLower(s.SHA) || slices.Contains(older[i], sha) {
				continue
			}
			older[i] = append(older[i], sha)
			olderVer[i] = append(olderVer[i], v)
		}
	}
	diffs := make([]*nodeDiff, len(t.Nodes))
	parallel(len(t.Nodes), opts.Parallel, func(i int) {
		n := t.Nodes[i]
		if !n.OK() {
			return
		}
		d, err := diffNode(ctx, n, m, r.Mode, older, olderVer)
		if err != nil {
			n.Err = err
			return
		}
		diffs[i] = d
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if r.Mode.functions() {
		code := m.FunctionsLibrary()
		it := DiffItem{Kind: KindLibrary, Name: m.LibraryName(), SHA: manifest.SHA1Hex(code), Code: code}
		keys := make([]string, len(t.Nodes))
		for i, d := range diffs {
			switch {
			case d == nil:
				continue
			case !d.functions:
				keys[i] = DiffUnsupported
			case d.lib == nil:
				keys[i] = DiffAbsent + " " + strings.Join(d.others, ",")
			case d.lib.CodeSHA == it.SHA:
				keys[i] = DiffSame
			default:
				keys[i] = DiffDiffers + " " + d.lib.CodeSHA
			}
		}
		it.Groups = groupBy(t.Nodes, keys, func(i int) DiffGroup {
			d := diffs[i]
			switch {
			case !d.functions:
				return DiffGroup{State: DiffUnsupported}
			case d.lib == nil:
				return DiffGroup{State: DiffAbsent, Holds: d.others}
			case d.lib.CodeSHA == it.SHA:
				return DiffGroup{State: DiffSame}
			}
			return DiffGroup{State: DiffDiffers, Code: d.lib.Code, CodeSHA: d.lib.CodeSHA}
		})
		r.Items = append(r.Items, it)
	}
	if r.Mode.scripts() {
		for si, s := range m.Scripts {
			it := DiffItem{Kind: KindScript, Name: s.Name, SHA: strings.ToLower(s.SHA), Code: s.Source}
			keys := make([]string, len(t.Nodes))
			for i, d := range diffs {
				switch {
				case d == nil:
				case d.cached[si]:
					keys[i] = DiffSame
				default:
					keys[i] = DiffMissing + " " + strings.Join(d.holds[si], ",") + " " + d.shownSHA[si]
				}
			}
			it.Groups = groupBy(t.Nodes, keys, func(i int) DiffGroup {
				d := diffs[i]
				if d.cached[si] {
					return DiffGroup{State: DiffSame}
				}
				return DiffGroup{State: DiffMissing, Holds: d.holds[si], Code: d.shown[si], CodeSHA: d.shownSHA[si]}
			})
			r.Items = append(r.Items, it)
		}
	}
	return r, nil
}

func diffNode(ctx context.Context, n *Node, m *manifest.Manifest, mode Mode, older [][]string, olderVer [][]int) (*nodeDiff, error) {
	d := &nodeDiff{functions: n.SupportsFunctions()}
	if mode.functions() && d.functions {
		libs, err := n.conn.functionListInfo(ctx)
		if err != nil {
			return nil, &NodeError{Node: n.Addr, Op: "function list", Err: err}
		}
		for i := range libs {
			if strings.EqualFold(libs[i].Name, m.LibraryName()) {
				d.lib = &libs[i]
			} else if _, ok := LibraryVersion(m.Library, libs[i].Name); ok {
				d.others = append(d.others, libs[i].Name)
			}
		}
	}
	if !mode.scripts() {
		return d, nil
	}
	var shas []string
	for i, s := range m.Scripts {
		shas = append(shas, strings.ToLower(s.SHA))
		shas = append(shas, older[i]...)
	}
	exists, err := n.conn.ScriptExists(ctx, shas)
	if err != nil {
		return nil, &NodeError{Node: n.Addr, Op: "script exists", Err: err}
	}
	k := 0
	d.cached = make([]bool, len(m.Scripts))
	d.holds = make([][]string, len(m.Scripts))
	d.shown = make([][]byte, len(m.Scripts))
	d.shownSHA = make([]string, len(m.Scripts))
	for i := range m.Scripts {
		d.cached[i] = exists[k]
		k++
		for j, sha := range older[i] {
			if exists[k] {
				d.holds[i] = append(d.holds[i], fmt.Sprintf("v%d %s", olderVer[i][j], sha))
				if d.shownSHA[i] == "" && !d.cached[i] {
					src, ok, err := n.conn.scriptShow(ctx, sha)
					switch {
					case errors.Is(err, ErrNoScriptShow):
					case err != nil:
						return nil, &NodeError{Node: n.Addr, Op: "script show", Err: err}
					case ok:
						d.shown[i], d.shownSHA[i] = src, sha
					}
				}
			}
			k++
		}
	}
	return d, nil
}

// groupBy groups the nodes with a non-empty key by key, in node order of
// each group's first node; mk builds a group from one of its nodes.
func groupBy(nodes []*Node, keys []string, mk func(i int) DiffGroup) []DiffGroup {
	var out []DiffGroup
	at := map[string]int{}
	for i, k := range keys {
		if k == "" {
			continue
		}
		j, ok := at[k]
		if !ok {
			j = len(out)
			at[k] = j
			out = append(out, mk(i))
		}
		out[j].Nodes = append(out[j].Nodes, nodes[i].Addr)
	}
	// Same first, then by size.
	sort.SliceStable(out, func(i, j int) bool {
		if (out[i].State == DiffSame) != (out[j].State == DiffSame) {
			return out[i].State == DiffSame
		}
		return len(out[i].Nodes) > len(out[j].Nodes)
	})
	return out
}
