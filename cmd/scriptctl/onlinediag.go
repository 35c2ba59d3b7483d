package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/scriptctl/scriptctl/internal/diag"
	"github.com/scriptctl/scriptctl/internal/iostreams"
	"github.com/scriptctl/scriptctl/loader"
	"github.com/scriptctl/scriptctl/manifest"
)

// The online commands' findings in the shared diagnostic shape. Each
// message leads with the node it is about; the position is what a fix
// edits: a script's file, or the manifest's library field for the library.
// Codes (stable, documented in docs/json.md):
const (
	codePendingChange = "pending-change" // plan --exit-code: deploy would load the item
	codeConflict      = "conflict"       // the library name holds other code: deploy refuses without --replace
	codeLoadFailed    = "load-failed"    // deploy: SCRIPT LOAD or FUNCTION LOAD failed on a node
	codeNotReplicated = "not-replicated" // deploy: a replica did not show the library its primary loaded
	codeDeleteFailed  = "delete-failed"  // prune: FUNCTION DELETE failed on a primary
	codeLockHeld      = "lock-held"      // unlock --holder: another token holds the lock
)

// itemPos is where a finding about an item of m points: a script's file,
// or the manifest at its library field.
func itemPos(m *manifest.Manifest, kind, name string) (file string, line int) {
	if kind == loader.KindScript {
		if sc := m.Script(name); sc != nil {
			return displayPath(sc.Path), 0
		}
	}
	return displayPath(m.Path), m.LibraryLine
}

// itemDiag is a finding of severity error about one item on one node.
func itemDiag(m *manifest.Manifest, code, node, kind, name, msg string, detail []string) diag.Diagnostic {
	file, line := itemPos(m, kind, name)
	return diag.Diagnostic{File: file, Line: line, Severity: diag.Error, Code: code,
		Message: fmt.Sprintf("%s: %s %s: %s", node, kind, name, msg), Detail: detail}
}

// errDetail is an error text as diagnostic detail lines: scrubbed of any
// password, one line per line, control characters escaped.
func (o *online) errDetail(err error) []string {
	if err == nil {
		return nil
	}
	var out []string
	for _, l := range strings.Split(strings.TrimRight(o.errString(err), "\n"), "\n") {
		out = append(out, iostreams.Safe(l, false))
	}
	return out
}

// planDiagnostics are plan --exit-code's findings: every item a deploy
// would load (pending-change) and every library conflict, per node.
func planDiagnostics(m *manifest.Manifest, p *loader.PlanReport) []diag.Diagnostic {
	var out []diag.Diagnostic
	for _, np := range p.Nodes {
		for _, it := range np.Items {
			switch it.Action {
			case loader.ActionLoad:
				msg := "deploy would load it"
				if it.Detail != "" {
					msg += " (" + it.Detail + ")"
				}
				out = append(out, itemDiag(m, codePendingChange, np.Node.Addr, it.Kind, it.Name, msg, nil))
			case loader.ActionConflict:
				out = append(out, itemDiag(m, codeConflict, np.Node.Addr, it.Kind, it.Name, it.Detail, nil))
			}
		}
	}
	return out
}

// conflictDiagnostics are the library conflicts that refuse a deploy.
func conflictDiagnostics(m *manifest.Manifest, p *loader.PlanReport) []diag.Diagnostic {
	var out []diag.Diagnostic
	for _, np := range p.Nodes {
		for _, it := range np.Items {
			if it.Action == loader.ActionConflict {
				out = append(out, itemDiag(m, codeConflict, np.Node.Addr, it.Kind, it.Name, it.Detail, nil))
			}
		}
	}
	return out
}

// deployDiagnostics are deploy's findings: the conflicts of a refused
// deploy or dry run, else every item that failed on a node (load-failed,
// or not-replicated for a replica's library), the server's error as
// detail. An unreachable node is no finding: the error names it.
func (o *online) deployDiagnostics(m *manifest.Manifest, rep *loader.DeployReport) []diag.Diagnostic {
	if len(rep.Nodes) == 0 {
		return conflictDiagnostics(m, rep.Plan)
	}
	var out []diag.Diagnostic
	for _, nr := range rep.Nodes {
		for _, it := range nr.Items {
			if it.Outcome != loader.OutcomeFailed && it.Outcome != loader.OutcomeUnknown {
				continue
			}
			code, msg := codeLoadFailed, "SCRIPT LOAD failed"
			switch {
			case it.Kind == loader.KindLibrary && nr.Node.Role == loader.RoleReplica:
				code, msg = codeNotReplicated, "the replica does not show the library its primary "+nr.Node.Primary+" loaded"
			case it.Kind == loader.KindLibrary:
				msg = "FUNCTION LOAD failed"
			}
			if it.Outcome == loader.OutcomeUnknown {
				msg = strings.Replace(msg, "failed", "sent, its reply unread: applied or not, unknown", 1)
			}
			out = append(out, itemDiag(m, code, nr.Node.Addr, it.Kind, it.Name, msg, o.errDetail(it.Err)))
		}
	}
	return out
}

// pruneDiagnostics are prune's findings: every library version whose
// delete failed on a primary (not one an interruption left alone).
func (o *online) pruneDiagnostics(m *manifest.Manifest, r *loader.PruneReport) []diag.Diagnostic {
	var out []diag.Diagnostic
	for _, it := range r.Items {
		if it.Outcome != "failed" || errors.Is(it.Err, loader.ErrInterrupted) || errors.Is(it.Err, loader.ErrLockLost) {
			continue
		}
		out = append(out, itemDiag(m, codeDeleteFailed, it.Node, loader.KindLibrary, it.Library, "FUNCTION DELETE failed", o.errDetail(it.Err)))
	}
	return out
}

// printDiagnostics prints findings on stderr, one line each (and their
// detail lines), as status does.
func printDiagnostics(ios *iostreams.IOStreams, ds []diag.Diagnostic) {
	if len(ds) == 0 {
		return
	}
	// One write for the block (a deploy to Redis 7.0.15 prints seven
	// CVE warnings): a reader at the other end of a pipe is woken once.
	text := make([]string, len(ds))
	for i, d := range ds {
		text[i] = d.String()
	}
	ios.Notice("%s", strings.Join(text, "\n"))
}
