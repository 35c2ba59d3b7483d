package loader

import (
	"context"
	"strings"

	"github.com/scriptctl/scriptctl/manifest"
)

// StateNotOwned is the state of a library that status --all lists because
// it is on the node but is no version of the manifest's library (another
// team's, say). It is not drift.
const StateNotOwned State = "not_owned"

// StatusAll is Status plus, on every node with Functions, every library
// that is no version of the manifest's library, as an item in state
// StateNotOwned whose Detail lists its functions. It changes nothing.
func StatusAll(ctx context.Context, t *Topology, m *manifest.Manifest, opts Options) (*StatusReport, error) {
	r, err := Status(ctx, t, m, opts)
	if err != nil || !r.Mode.functions() {
		return r, err
	}
	parallel(len(r.Nodes), opts.Parallel, func(i int) {
		ns := r.Nodes[i]
		n := ns.Node
		if !n.OK() || !n.SupportsFunctions() {
			return
		}
		libs, err := n.conn.functionListInfo(ctx)
		if err != nil {
			ns.Items = nil
			n.Err = &NodeError{Node: n.Addr, Op: "function list", Err: err}
			return
		}
		for _, l := range libs {
			if _, owned := LibraryVersion(m.Library, l.Name); owned {
				continue
			}
			var fns []string
			for _, f := range l.Functions {
				fns = append(fns, f.Name)
			}
			ns.Items = append(ns.Items, StatusItem{Kind: KindLibrary, Name: l.Name, SHA: l.CodeSHA, State: StateNotOwned,
				Detail: "not owned by this manifest; functions: " + strings.Join(fns, ", ")})
		}
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return r, nil
}
