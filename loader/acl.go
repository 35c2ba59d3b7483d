package loader

import (
	"context"
	"fmt"
	"strings"

	"github.com/redis/rueidis"

	"github.com/scriptctl/scriptctl/manifest"
)

// Work says what a run is about to change, so CheckPermissions knows which
// commands the connected user must be allowed to run.
type Work struct {
	Mode   Mode
	Lock   string // the library whose deploy lock the run takes; "" for none
	Load   bool   // SCRIPT LOAD / FUNCTION LOAD
	Delete bool   // FUNCTION DELETE (prune)
}

// DeployWork is the work of a deploy of m in mode (ConnectFor's, for the
// permission check Deploy makes).
func DeployWork(m *manifest.Manifest, mode Mode) Work {
	return Work{Mode: mode, Lock: m.Library, Load: true}
}

// PruneWork is the work of a prune of m.
func PruneWork(m *manifest.Manifest) Work {
	return Work{Mode: ModeFunctions, Lock: m.Library, Delete: true}
}

// Missing is one permission the connected user lacks on one node.
type Missing struct {
	Node       string
	Permission string // as ACL SETUSER spells it: "function|load", "eval", "~scriptctl:lock:*" ...
	Reply      string // the server's refusal, for the record
}

// PermissionError is a run refused before it changed anything, because the
// connected user may not run every command the run needs.
type PermissionError struct {
	Missing []Missing
}

func (e *PermissionError) Error() string {
	var b strings.Builder
	b.WriteString("the connected user may not run every command this needs; nothing was changed:")
	for _, m := range e.Missing {
		fmt.Fprintf(&b, "\n  %s: missing %s", m.Node, m.Permission)
	}
	return b.String()
}

// Hint says how to fix it.
func (e *PermissionError) Hint() string {
	return "grant the missing permissions to the user (the least-privilege ACL in docs/deploy.md lists every one), then rerun"
}

// aclProbeLibrary is the library name the FUNCTION probes use; nothing of
// that name is ever loaded (the code does not compile).
const aclProbeLibrary = "scriptctl_acl_probe"

// aclInnerScript asks, inside EVAL, whether the user may run the commands
// the lock's renew and release scripts call (redis.acl_check_cmd, Redis 7.0
// and every Valkey). It returns the first one refused, or "".
const aclInnerScript = `for _, c in ipairs({{'GET', KEYS[1]}, {'PEXPIRE', KEYS[1], '1'}, {'DEL', KEYS[1]}}) do
  if not redis.acl_check_cmd(unpack(c)) then return string.lower(c[1]) end
end
return ''`

// aclProbe is one command sent to learn whether a permission is granted.
// Every probe is rejected by the server after its ACL check and before it
// can change anything (a script that does not compile, SET with both NX and
// XX, a library that does not exist), so any reply but NOPERM means the
// permission is granted.
type aclProbe struct {
	perm string
	args []string
	// inner marks the EVAL of aclInnerScript: its reply names a refused
	// inner command.
	inner bool
}

// CheckPermissions confirms, before anything is changed, that the
// connected user may run every command the work needs on every reachable
// node, with one pipelined round trip per node, nodes in parallel (none
// when the topology came from ConnectFor with the same work: the
// discovery's round trips carried the probes). The error is a
// *PermissionError naming each missing permission per node, or a node's
// failure to answer.
//
// Redis 7.0 and Valkey have ACL DRYRUN, but it is an admin command a
// least-privilege user should not hold; the probes need nothing beyond the
// permissions checked.
func CheckPermissions(ctx context.Context, t *Topology, w Work) error {
	var lockNode *Node
	if w.Lock != "" {
		n, err := t.owner(LockKey(w.Lock))
		if err == nil && n.OK() {
			lockNode = n
		}
	}
	missing := make([][]Missing, len(t.Nodes))
	errs := make([]error, len(t.Nodes))
	parallel(len(t.Nodes), DefaultParallel, func(i int) {
		n := t.Nodes[i]
		if !n.OK() {
			return
		}
		probes := permissionProbes(n, w, n == lockNode)
		if len(probes) == 0 {
			return
		}
		res := t.probed(n, w, probes)
		if res == nil {
			cmds := make([]rueidis.Completed, len(probes))
			for j, p := range probes {
				cmds[j] = n.conn.arbitrary(p.args...)
			}
			res = n.conn.doMulti(ctx, cmds...)
		}
		for j, r := range res {
			p := probes[j]
			err := r.Error()
			if rueidis.IsRedisNil(err) {
				continue
			}
			if err != nil {
				if _, ok := rueidis.IsRedisErr(err); !ok {
					errs[i] = &NodeError{Node: n.Addr, Op: "check permissions", Err: classify(err)}
					return
				}
				if msg := err.Error(); strings.HasPrefix(msg, "NOPERM") {
					perm := p.perm
					if strings.Contains(msg, "key") {
						perm = "access to the key " + LockKey(w.Lock)
					}
					missing[i] = addMissing(missing[i], Missing{Node: n.Addr, Permission: perm, Reply: msg})
				}
				continue
			}
			if p.inner {
				if s, _ := r.ToString(); s != "" {
					missing[i] = addMissing(missing[i], Missing{Node: n.Addr, Permission: s + " (called by the lock's scripts)", Reply: "redis.acl_check_cmd"})
				}
			}
		}
	})
	var pe PermissionError
	var ne NodesError
	for i := range t.Nodes {
		pe.Missing = append(pe.Missing, missing[i]...)
		if errs[i] != nil {
			ne.Errs = append(ne.Errs, errs[i].(*NodeError))
		}
	}
	if len(pe.Missing) > 0 {
		return &pe
	}
	if len(ne.Errs) > 0 {
		return &ne
	}
	return ctx.Err()
}

// probed returns the replies to probes that n's discovery already read
// (ConnectFor, for the same work), or nil when it read not all of them.
func (t *Topology) probed(n *Node, w Work, probes []aclProbe) []rueidis.RedisResult {
	if t.work == nil || *t.work != w || n.probed == nil {
		return nil
	}
	res := make([]rueidis.RedisResult, len(probes))
	for i, p := range probes {
		r, ok := n.probed[probeKey(p.args)]
		if !ok {
			return nil
		}
		res[i] = r
	}
	return res
}

// probeKey names a probe by its command.
func probeKey(args []string) string { return strings.Join(args, "\x00") }

// allProbes is every probe work w may need on any node: those of a
// primary with Functions that holds the deploy lock.
func allProbes(w Work) []aclProbe {
	return permissionProbes(&Node{Role: RolePrimary, Family: FamilyValkey}, w, w.Lock != "")
}

// permissionProbes lists the probes for the work on node n.
func permissionProbes(n *Node, w Work, lockNode bool) []aclProbe {
	var ps []aclProbe
	functions := w.Mode.functions() && n.SupportsFunctions()
	if w.Load && w.Mode.scripts() {
		ps = append(ps,
			aclProbe{perm: "script|exists", args: []string{"SCRIPT", "EXISTS", "0000000000000000000000000000000000000000"}},
			aclProbe{perm: "script|load", args: []string{"SCRIPT", "LOAD", "return +"}})
	}
	if (w.Load || w.Delete) && functions {
		ps = append(ps, aclProbe{perm: "function|list", args: []string{"FUNCTION", "LIST", "LIBRARYNAME", aclProbeLibrary}})
		if w.Load && n.Role == RolePrimary {
			ps = append(ps, aclProbe{perm: "function|load", args: []string{"FUNCTION", "LOAD", "#!lua name=" + aclProbeLibrary + "\nreturn +"}})
		}
	}
	if w.Delete && n.Role == RolePrimary && n.SupportsFunctions() {
		ps = append(ps, aclProbe{perm: "function|delete", args: []string{"FUNCTION", "DELETE", aclProbeLibrary}})
	}
	if lockNode {
		key := LockKey(w.Lock)
		ps = append(ps,
			aclProbe{perm: "set", args: []string{"SET", key, "", "NX", "XX"}},
			aclProbe{perm: "get", args: []string{"GET", key}},
			aclProbe{perm: "pttl", args: []string{"PTTL", key}},
			aclProbe{perm: "eval", args: []string{"EVAL", "return +", "1", key}},
		)
		if n.SupportsFunctions() {
			ps = append(ps, aclProbe{perm: "eval", args: []string{"EVAL", aclInnerScript, "1", key}, inner: true})
		}
	}
	return ps
}

// addMissing appends m unless the node already lacks that permission.
func addMissing(ms []Missing, m Missing) []Missing {
	for _, x := range ms {
		if x.Permission == m.Permission {
			return ms
		}
	}
	return append(ms, m)
}
