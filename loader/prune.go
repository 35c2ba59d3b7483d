package loader

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/scriptctl/scriptctl/manifest"
)

// PruneOptions tune Prune.
type PruneOptions struct {
	Keep        int  // keep the newest Keep versions (at least 1)
	DryRun      bool // list what would go, take no lock, delete nothing
	LockTimeout time.Duration
	LockTTL     time.Duration
	// Notice, when set, is told when another run holds the lock.
	Notice func(format string, args ...any)
}

// PruneItem is one library version on one primary.
type PruneItem struct {
	Node    string
	Library string
	Version int
	Outcome string // "deleted", "would_delete", "kept", "failed"
	Err     error
}

// PruneReport is what prune found and did.
type PruneReport struct {
	Library  string
	Keep     []int // versions kept, newest first
	Delete   []int // versions deleted (or that would be), newest first
	Items    []PruneItem
	DryRun   bool
	Skipped  []string // primaries without Functions (older than 7.0)
	Lock     string
	Failures *NodesError // nil when every primary was pruned
}

// Prune deletes this manifest's libraries <library>_v<k> older than the
// newest Keep versions found on any primary, on every primary (replicas
// follow by replication). The manifest's own version is always kept. Other
// libraries are never touched, and the script cache is never flushed. The
// error names every primary that could not be pruned.
func Prune(ctx context.Context, t *Topology, m *manifest.Manifest, opts PruneOptions) (*PruneReport, error) {
	if opts.Keep < 1 {
		return nil, fmt.Errorf("prune: --keep must be at least 1, not %d", opts.Keep)
	}
	r := &PruneReport{Library: m.Library, DryRun: opts.DryRun}
	if opts.DryRun {
		return r, prune(ctx, t, m, opts, r)
	}
	if err := CheckPermissions(ctx, t, PruneWork(m)); err != nil {
		return nil, err
	}
	err := withLock(ctx, t, m.Library, opts.LockTimeout, opts.LockTTL, opts.Notice, func(ctx context.Context, lock string) error {
		r.Lock = lock
		return prune(ctx, t, m, opts, r)
	})
	if r.Lock == "" {
		return nil, err // the lock was not taken
	}
	return r, err
}

// prune fills r with what Prune found and did; the error names every
// primary that could not be pruned.
func prune(ctx context.Context, t *Topology, m *manifest.Manifest, opts PruneOptions, r *PruneReport) error {
	var ne NodesError
	type found struct {
		n    *Node
		libs map[int]string // version -> name as loaded
	}
	var fs []found
	all := map[int]bool{}
	for _, n := range t.Nodes {
		if !n.OK() {
			// An unreachable node may be a primary: prune cannot vouch for it.
			if n.Role != RoleReplica {
				ne.Errs = append(ne.Errs, nodeErr(n))
			}
			continue
		}
		if n.Role != RolePrimary {
			continue
		}
		if !n.SupportsFunctions() {
			r.Skipped = append(r.Skipped, n.Addr)
			continue
		}
		libs, err := n.conn.FunctionList(ctx, m.Library+"_v*", false)
		if err != nil {
			ne.Errs = append(ne.Errs, &NodeError{Node: n.Addr, Op: "function list", Err: err})
			continue
		}
		f := found{n: n, libs: map[int]string{}}
		for _, lib := range libs {
			if v, ok := LibraryVersion(m.Library, lib.Name); ok {
				f.libs[v] = lib.Name
				all[v] = true
			}
		}
		fs = append(fs, f)
	}
	versions := make([]int, 0, len(all))
	for v := range all {
		versions = append(versions, v)
	}
	sort.Sort(sort.Reverse(sort.IntSlice(versions)))
	keep := map[int]bool{m.Version: true}
	for i, v := range versions {
		if i < opts.Keep || v == m.Version {
			keep[v] = true
			r.Keep = append(r.Keep, v)
		} else {
			r.Delete = append(r.Delete, v)
		}
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, f := range fs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var items []PruneItem
			var failed *NodeError
			for _, v := range versions {
				name, ok := f.libs[v]
				if !ok {
					continue
				}
				it := PruneItem{Node: f.n.Addr, Library: name, Version: v, Outcome: "kept"}
				switch {
				case keep[v]:
				case opts.DryRun:
					it.Outcome = "would_delete"
				case ctx.Err() != nil:
					it.Outcome, it.Err = "failed", interrupted(ctx, ctx.Err())
				default:
					if err := f.n.conn.FunctionDelete(context.WithoutCancel(ctx), name); err != nil {
						it.Outcome, it.Err = "failed", err
						if failed == nil {
							failed = &NodeError{Node: f.n.Addr, Op: "function delete " + name, Err: err}
						}
					} else {
						it.Outcome = "deleted"
					}
				}
				items = append(items, it)
			}
			mu.Lock()
			r.Items = append(r.Items, items...)
			if failed != nil {
				ne.Errs = append(ne.Errs, failed)
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	sort.SliceStable(r.Items, func(i, j int) bool {
		if r.Items[i].Node != r.Items[j].Node {
			return addrLess(r.Items[i].Node, r.Items[j].Node)
		}
		return r.Items[i].Version > r.Items[j].Version
	})
	if len(ne.Errs) > 0 {
		sort.Slice(ne.Errs, func(i, j int) bool { return addrLess(ne.Errs[i].Node, ne.Errs[j].Node) })
		r.Failures = &ne
		return &ne
	}
	return nil
}
