package loader

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/redis/rueidis"

	"github.com/scriptctl/scriptctl/manifest"
)

// Mode selects what a command loads or inspects.
type Mode string

// Modes. ModeBoth is the default.
const (
	ModeScripts   Mode = "scripts"   // the script cache: SCRIPT LOAD on every node
	ModeFunctions Mode = "functions" // the Functions library: FUNCTION LOAD on every primary
	ModeBoth      Mode = "both"
)

// ParseMode parses a --mode value.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case ModeScripts, ModeFunctions, ModeBoth:
		return m, nil
	}
	return "", fmt.Errorf("invalid mode %q: want scripts, functions or both", s)
}

func (m Mode) scripts() bool   { return m == ModeScripts || m == ModeBoth || m == "" }
func (m Mode) functions() bool { return m == ModeFunctions || m == ModeBoth || m == "" }

// Kinds of item.
const (
	KindScript  = "script"
	KindLibrary = "library"
)

// Action is what a deploy would do with one item on one node.
type Action string

// Actions, as plan prints them.
const (
	ActionLoad          Action = "load"           // missing: a deploy loads it
	ActionAlreadyLoaded Action = "already_loaded" // present with the same SHA or code
	ActionConflict      Action = "conflict"       // a library of the same name with different code
	ActionUnsupported   Action = "unsupported"    // the server is older than 7.0: no Functions
)

// Item is one script or the library on one node.
type Item struct {
	Kind   string // KindScript or KindLibrary
	Name   string // the script's name, or the library's name
	SHA    string // scripts: SHA1 of the file's exact bytes
	Action Action
	Detail string // why, for anything but already_loaded
	// Replace is set on a library loaded over different code (--replace).
	Replace bool
}

// NodePlan is the plan for one node. A node that could not be reached has
// no items; Node.Err says why.
type NodePlan struct {
	Node  *Node
	Items []Item
}

// PlanReport is what a deploy would do, per node and item.
type PlanReport struct {
	Library     string // the library's base name from the manifest
	LibraryName string // <library>_v<version>
	Version     int
	Mode        Mode
	Replace     bool
	Nodes       []*NodePlan
}

// Changes counts the items a deploy would change or refuse: load and
// conflict.
func (p *PlanReport) Changes() int {
	n := 0
	for _, np := range p.Nodes {
		for _, it := range np.Items {
			if it.Action == ActionLoad || it.Action == ActionConflict {
				n++
			}
		}
	}
	return n
}

// Conflicts returns a ConflictError when the plan holds a conflict that
// Replace does not resolve, else nil.
func (p *PlanReport) Conflicts() error {
	if p.Replace {
		return nil
	}
	var ce ConflictError
	ce.Library = p.LibraryName
	for _, np := range p.Nodes {
		for _, it := range np.Items {
			if it.Action == ActionConflict {
				ce.Nodes = append(ce.Nodes, np.Node.Addr)
			}
		}
	}
	if len(ce.Nodes) == 0 {
		return nil
	}
	return &ce
}

// Unreachable returns a NodesError naming every node that could not be
// used, or nil.
func (p *PlanReport) Unreachable() error {
	var ne NodesError
	for _, np := range p.Nodes {
		if !np.Node.OK() {
			ne.Errs = append(ne.Errs, nodeErr(np.Node))
		}
	}
	if len(ne.Errs) == 0 {
		return nil
	}
	return &ne
}

// Options tune Plan, Deploy, Status and Prune.
type Options struct {
	Mode     Mode
	Replace  bool // load over a library of the same name with different code
	Parallel int  // nodes worked on at once (default DefaultParallel)
	// Ledger is scripts.sum: version -> script -> SHA. Status uses it to
	// recognise older versions; it may be nil.
	Ledger map[int]map[string]string
	// Notice, when set, receives notices such as "functions skipped".
	Notice func(format string, args ...any)
}

func (o *Options) notice(format string, args ...any) {
	if o.Notice != nil {
		o.Notice(format, args...)
	}
}

// Plan inspects every node and says, per script and for the library, what a
// deploy would do. It changes nothing. Unreachable nodes are listed with
// their error and no items; Plan fails only when ctx ends.
func Plan(ctx context.Context, t *Topology, m *manifest.Manifest, opts Options) (*PlanReport, error) {
	return plan(ctx, t, m, opts, m.FunctionsLibrary())
}

// plan is Plan with the manifest's library text, built once by the caller.
func plan(ctx context.Context, t *Topology, m *manifest.Manifest, opts Options, code []byte) (*PlanReport, error) {
	p := &PlanReport{
		Library:     m.Library,
		LibraryName: m.LibraryName(),
		Version:     m.Version,
		Mode:        opts.Mode,
		Replace:     opts.Replace,
	}
	if p.Mode == "" {
		p.Mode = ModeBoth
	}
	shas := make([]string, len(m.Scripts))
	for i, s := range m.Scripts {
		shas[i] = s.SHA
	}
	p.Nodes = make([]*NodePlan, len(t.Nodes))
	for i, n := range t.Nodes {
		p.Nodes[i] = &NodePlan{Node: n}
	}
	parallel(len(p.Nodes), opts.Parallel, func(i int) {
		np := p.Nodes[i]
		if !np.Node.OK() {
			return
		}
		if err := planNode(ctx, np, m, shas, code, p.Mode, opts.Replace); err != nil {
			np.Items = nil
			np.Node.Err = err
		}
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if p.Mode.functions() {
		old := 0
		for _, np := range p.Nodes {
			if np.Node.OK() && !np.Node.SupportsFunctions() {
				old++
			}
		}
		if old > 0 {
			opts.notice("functions skipped on %d node(s) older than Redis 7.0: they get the script cache only", old)
		}
	}
	return p, nil
}

// planNode asks the node, in one pipelined round trip, which scripts its
// cache holds and what it has under the library's name.
func planNode(ctx context.Context, np *NodePlan, m *manifest.Manifest, shas []string, code []byte, mode Mode, replace bool) error {
	n := np.Node
	var cmds []rueidis.Completed
	scripts := mode.scripts() && len(shas) > 0
	if scripts {
		cmds = append(cmds, n.conn.scriptExists(shas))
	}
	functions := mode.functions() && n.SupportsFunctions()
	if functions {
		cmds = append(cmds, n.conn.functionList(m.LibraryName(), true))
	}
	res := n.conn.doMulti(ctx, cmds...)
	if scripts {
		exists, err := parseScriptExists(res[0], len(shas))
		if err != nil {
			return &NodeError{Node: n.Addr, Op: "script exists", Err: err}
		}
		res = res[1:]
		for i, s := range m.Scripts {
			it := Item{Kind: KindScript, Name: s.Name, SHA: s.SHA, Action: ActionAlreadyLoaded}
			if !exists[i] {
				it.Action, it.Detail = ActionLoad, "not in the script cache"
			}
			np.Items = append(np.Items, it)
		}
	}
	if mode.functions() {
		it := Item{Kind: KindLibrary, Name: m.LibraryName()}
		if !functions {
			it.Action, it.Detail = ActionUnsupported, fmt.Sprintf("Redis %s has no Functions (7.0+)", n.Version)
			np.Items = append(np.Items, it)
			return nil
		}
		libs, err := parseFunctionList(res[0])
		if err != nil {
			return &NodeError{Node: n.Addr, Op: "function list", Err: err}
		}
		lib := libraryNamed(libs, m.LibraryName())
		switch {
		case lib == nil && n.Role == RoleReplica:
			it.Action, it.Detail = ActionLoad, "replicated from "+n.Primary
		case lib == nil:
			it.Action, it.Detail = ActionLoad, "not loaded"
		case bytes.Equal(lib.Code, code):
			it.Action = ActionAlreadyLoaded
		case replace:
			it.Action, it.Detail, it.Replace = ActionLoad, "replace: the loaded code differs from the manifest", true
		default:
			it.Action, it.Detail = ActionConflict, "loaded with different code: bump the manifest version or deploy --replace"
		}
		np.Items = append(np.Items, it)
	}
	return nil
}

// findLibrary returns the library named name (compared case-insensitively,
// as Redis does) with its code, or nil.
func findLibrary(ctx context.Context, n *Node, name string) (*Library, error) {
	libs, err := n.conn.FunctionList(ctx, name, true)
	if err != nil {
		return nil, &NodeError{Node: n.Addr, Op: "function list", Err: err}
	}
	return libraryNamed(libs, name), nil
}

// libraryNamed returns the library named name (compared
// case-insensitively, as Redis does), or nil.
func libraryNamed(libs []Library, name string) *Library {
	for i := range libs {
		if strings.EqualFold(libs[i].Name, name) {
			return &libs[i]
		}
	}
	return nil
}
