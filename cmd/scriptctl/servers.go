package main

import (
	"fmt"

	"github.com/scriptctl/scriptctl/internal/cmdutil"
	"github.com/scriptctl/scriptctl/internal/iostreams"
	"github.com/scriptctl/scriptctl/loader"
	"github.com/scriptctl/scriptctl/manifest"
)

// serverCheck is what plan, deploy and status found about the nodes' server
// builds: nodes whose server line the manifest's targets do not list, and
// nodes whose upstream version is listed as affected by a Lua CVE.
type serverCheck struct {
	targets    []string
	byNode     map[*loader.Node]loader.ServerFinding
	untargeted []loader.ServerFinding
	cves       []loader.ServerFinding
}

// checkServers compares every reachable node with m's targets, prints one
// warning line per finding on stderr, and keeps the findings for the JSON
// node fields.
func (o *online) checkServers(ios *iostreams.IOStreams, m *manifest.Manifest) *serverCheck {
	c := &serverCheck{targets: m.Targets, byNode: map[*loader.Node]loader.ServerFinding{}}
	// One CVE line per server version, naming its nodes: a 6-node cluster
	// of one version gets one line, not six.
	var versions []string
	byVersion := map[string][]loader.ServerFinding{}
	for _, f := range loader.CheckServers(o.topo, m.Targets) {
		c.byNode[f.Node] = f
		if f.Untargeted {
			c.untargeted = append(c.untargeted, f)
			ios.Notice("warning: untargeted server: %s", o.cfg.ScrubString(f.UntargetedText(m.Targets)))
		}
		if len(f.CVEs) > 0 {
			c.cves = append(c.cves, f)
			v := f.Node.Family + " " + f.Node.Version
			if byVersion[v] == nil {
				versions = append(versions, v)
			}
			byVersion[v] = append(byVersion[v], f)
		}
	}
	for _, v := range versions {
		fs := byVersion[v]
		ios.Notice("warning: %s", o.cfg.ScrubString(loader.CVEText(fs)))
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
	}
}
