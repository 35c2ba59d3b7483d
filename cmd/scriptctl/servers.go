package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/scriptctl/scriptctl/internal/cmdutil"
	"github.com/scriptctl/scriptctl/internal/diag"
	"github.com/scriptctl/scriptctl/internal/iostreams"
	"github.com/scriptctl/scriptctl/internal/target"
	"github.com/scriptctl/scriptctl/loader"
	"github.com/scriptctl/scriptctl/manifest"
)

// The server checks' findings in the shared diagnostic shape, at the
// manifest's targets field (line 0 when the manifest has none: the default
// applies). Codes (stable, documented in docs/json.md):
const (
	codeUntargetedServer = "untargeted-server" // a node runs a server line the manifest's targets do not list
	codeLuaCVE           = "lua-cve"           // a Lua CVE lists the upstream release of one or more nodes as affected
	codeLuaCVEUnknown    = "lua-cve-unknown"   // the CVE table has no row for a node's release line
)

// serverCheck is what plan, deploy and status found about the nodes' server
// builds: nodes whose server line the manifest's targets do not list, and
// nodes whose upstream version is listed as affected by a Lua CVE.
type serverCheck struct {
	targets    []string
	byNode     map[*loader.Node]loader.ServerFinding
	untargeted []loader.ServerFinding
	// cves are the nodes affected by a Lua CVE the manifest does not
	// acknowledge; accepted maps the acknowledged ids to their reasons.
	cves     []loader.ServerFinding
	accepted map[string]string
	// diags are the findings as diagnostics: one untargeted-server per
	// node, one lua-cve per CVE (its nodes grouped by release in the
	// detail lines), one lua-cve-unknown per release the table cannot
	// judge. Acknowledged CVEs are not among them.
	diags []diag.Diagnostic
}

// serverSeverity says which of the server findings decide the command's
// exit code (severity error); the others are warnings.
type serverSeverity struct {
	untargeted, cve bool
}

func (s serverSeverity) of(decides bool) string {
	if decides {
		return diag.Error
	}
	return diag.Warning
}

// checkServers compares every reachable node with m's targets and keeps the
// findings for the JSON node fields and, as diagnostics of the severities
// sev gives, for the document's diagnostics. With text it also prints them
// on stderr at once, one line each (with its hint as detail).
func (o *online) checkServers(ios *iostreams.IOStreams, m *manifest.Manifest, text bool, sev serverSeverity) *serverCheck {
	// An environment's targets, when it lists some, are what its servers
	// are checked against.
	targets, targetsLine := m.Targets, m.TargetsLine
	if o.env != nil && len(o.env.Targets) > 0 {
		targets, targetsLine = o.env.Targets, o.env.TargetsLine
	}
	c := &serverCheck{targets: targets, byNode: map[*loader.Node]loader.ServerFinding{}, accepted: m.AcceptedCVEs()}
	file := displayPath(m.Path)
	add := func(code string, decides bool, text string, detail ...string) {
		for i := range detail {
			detail[i] = o.cfg.ScrubString(detail[i])
		}
		c.diags = append(c.diags, diag.Diagnostic{File: file, Line: targetsLine, Severity: sev.of(decides), Code: code,
			Message: o.cfg.ScrubString(text), Detail: detail})
	}
	var affected []loader.ServerFinding
	var releases []string // unknown releases, in node order
	unknown := map[string][]loader.ServerFinding{}
	for _, f := range loader.CheckServers(o.topo, targets) {
		c.byNode[f.Node] = f
		if f.Untargeted {
			c.untargeted = append(c.untargeted, f)
			msg, hint := f.UntargetedText(targets)
			add(codeUntargetedServer, sev.untargeted, msg, hint)
		}
		if slices.ContainsFunc(f.CVEs, func(cv target.CVE) bool { return c.accepted[cv.ID] == "" }) {
			c.cves = append(c.cves, f)
		}
		affected = append(affected, f)
		if len(f.Unknown) > 0 {
			r := f.Node.Family + " " + f.Node.Version
			if unknown[r] == nil {
				releases = append(releases, r)
			}
			unknown[r] = append(unknown[r], f)
		}
	}
	// One CVE finding per CVE, its nodes grouped by release: a 6-node
	// cluster of one version gets one per CVE, not six.
	var acked []string
	for _, n := range loader.CVENotices(affected, c.accepted) {
		if n.Accepted != "" {
			acked = append(acked, n.CVE.ID)
			continue
		}
		msg, detail := n.Text()
		add(codeLuaCVE, sev.cve, msg, detail...)
	}
	for _, r := range releases {
		msg, detail := loader.UnknownText(unknown[r])
		add(codeLuaCVEUnknown, false, msg, detail...)
	}
	// Acknowledged CVEs: one line on a terminal run without -q, never a
	// warning; JSON lists them per node (cves_accepted).
	if text && len(acked) > 0 && !ios.Quiet {
		ios.Notice("%s: note: %s acknowledged by accept_cves (no warning)", file, strings.Join(acked, ", "))
	}
	if text {
		printDiagnostics(ios, c.diags)
	}
	o.servers = c
	return c
}

// gate refuses a deploy before it changes anything: an untargeted node
// unless allowUntargeted, a CVE-listed version with failOnCVE. Exit 1, a
// finding, like check's.
func (c *serverCheck) gate(allowUntargeted, failOnCVE bool) error {
	switch {
	case len(c.untargeted) > 0 && !allowUntargeted:
		return &cmdutil.ExitError{Code: cmdutil.ExitFindings,
			Err:  fmt.Errorf("deploy refused: %d node(s) run a server the manifest's targets do not cover; nothing was changed", len(c.untargeted)),
			Hint: "prove the scripts on that server (add it to targets and run scriptctl check), or pass --allow-untargeted"}
	case len(c.cves) > 0 && failOnCVE:
		return &cmdutil.ExitError{Code: cmdutil.ExitFindings,
			Err: fmt.Errorf("deploy refused: %d node(s) run an upstream version listed as affected by a Lua CVE (--fail-on-cve); nothing was changed", len(c.cves))}
	}
	return nil
}

// findings is the exit-1 count for plan --exit-code and status: untargeted
// nodes always, CVE-listed ones with failOnCVE.
func (c *serverCheck) findings(failOnCVE bool) int {
	n := len(c.untargeted)
	if failOnCVE {
		n += len(c.cves)
	}
	return n
}

// nodeFields fills the JSON node fields the check adds.
func (c *serverCheck) nodeFields(n *loader.Node, j *nodeJSON) {
	if c == nil || !n.OK() {
		return
	}
	t := true
	j.Targeted = &t
	f, ok := c.byNode[n]
	if !ok {
		return
	}
	if f.Untargeted {
		no := false
		j.Targeted = &no
	}
	for _, cve := range f.CVEs {
		j.CVEs = append(j.CVEs, cve.ID)
		if c.accepted[cve.ID] != "" {
			j.CVEsAccepted = append(j.CVEsAccepted, cve.ID)
		}
	}
	for _, cve := range f.Unknown {
		j.CVEsUnknown = append(j.CVEsUnknown, cve.ID)
	}
}

// diagnostics are the findings as diagnostics; none when c is nil.
func (c *serverCheck) diagnostics() []diag.Diagnostic {
	if c == nil {
		return nil
	}
	return c.diags
}
