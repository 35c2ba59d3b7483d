package main

import (
	"context"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/scriptctl/scriptctl/internal/cmdutil"
	"github.com/scriptctl/scriptctl/internal/diag"
	"github.com/scriptctl/scriptctl/internal/iostreams"
	"github.com/scriptctl/scriptctl/internal/target"
	"github.com/scriptctl/scriptctl/loader"
)

type planOptions struct {
	IO         *iostreams.IOStreams
	Manifest   string
	Conn       connFlags
	Mode       loader.Mode
	ExitCode   bool
	Replace    bool
	FailOnCVE  bool
	SkipChecks bool
	Out        string // --out: the saved plan file
}

func newCmdPlan(g *globalOptions) *cobra.Command {
	opts := &planOptions{IO: g.IO}
	cmd := &cobra.Command{
		Use:   "plan",
		Short: "Show what a deploy would load on each node, changing nothing",
		Long: `Show, per node and per item (each script, and the Functions library
<library>_v<version>), what 'scriptctl deploy' would do:

  load            missing: deploy loads it (on a replica, the library arrives
                  by replication from its primary)
  already_loaded  present with the same SHA, or the same library code
  conflict        the library name is loaded with different code: deploy
                  refuses unless --replace (bump version instead)
  unsupported     the server is older than Redis 7.0: no Functions

Scripts are checked with SCRIPT EXISTS on every node, replicas included (the
script cache is per node); the library with FUNCTION LIST WITHCODE.

Every node's server and version is compared with the manifest's targets,
each finding on stderr (in JSON, in diagnostics) at the manifest's targets
field: code untargeted-server for a node whose server line they do not list
(deploy refuses it without --allow-untargeted), lua-cve once per Lua CVE
that lists the release of some nodes as affected (the nodes grouped by
release in its detail lines; a distribution build may carry the fix, and
the manifest's accept_cves acknowledges it), lua-cve-unknown for a release
the CVE table has no row for. Each is an error when it sets the exit status
(below), else a warning.

Exit status: 0 when a deploy would change nothing (or without --exit-code);
with --exit-code, 4 when a deploy would load something and nothing is wrong
(changes pending), 1 when a library conflicts (without --replace) or a node
is untargeted (or, with --fail-on-cve, CVE-listed); 1 or 2 when the
pre-flight checks refuse (the nodes' discovery, which only reads, runs
meanwhile); 3 when a node cannot be reached (the others are still shown).
Only 4 means "deploy now": 0 and 4 never stand for a failure.

With --out FILE the plan is also saved (written only when every node was
reached): what would load on each node, the manifest's and scripts.sum's
digests and each node's identity (run_id), never a password. 'scriptctl
deploy FILE' applies exactly that plan, or refuses when anything changed
since.

With --exit-code each item that would load or conflict is a finding on
stderr (in JSON, in diagnostics), one per node: code pending-change or
conflict, at the script's file, or the manifest's library field.`,
		Example: `  scriptctl plan --url redis://10.0.0.5:6379
  SCRIPTCTL_URL=redis://redis-0:6379 scriptctl plan --exit-code --format json
  scriptctl plan --env staging --out staging.plan`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			mode, err := opts.Conn.check(cmd)
			if err != nil {
				return err
			}
			opts.Mode = mode
			opts.Manifest = g.Manifest
			return runPlan(cmd.Context(), opts)
		},
	}
	opts.Conn.register(cmd)
	cmd.Flags().BoolVar(&opts.ExitCode, "exit-code", false, "exit 4 when a deploy would change anything (1 when it would refuse)")
	cmd.Flags().BoolVar(&opts.Replace, "replace", false, "plan as deploy --replace would: a differing library is loaded over")
	cmd.Flags().BoolVar(&opts.SkipChecks, "skip-checks", false, "do not run the pre-flight checks (scripts.sum, syntax, check-keys, shebang-flags) first; said on stderr every time")
	cmd.Flags().StringVar(&opts.Out, "out", "", "also save the plan to `FILE` for 'scriptctl deploy FILE' to apply exactly (docs/json.md: saved plan)")
	cmd.Flags().BoolVar(&opts.FailOnCVE, "fail-on-cve", false, "with --exit-code, also exit 1 for a node whose upstream version is listed as affected by a Lua CVE")
	return cmd
}

func runPlan(ctx context.Context, opts *planOptions) error {
	m, err := loadManifestFor(opts.Manifest)
	if err != nil {
		return err
	}
	opts.Mode = opts.Conn.modeFor(m, opts.Mode)
	if err := opts.Conn.validate("plan"); err != nil {
		return err
	}
	// The nodes are discovered while the checks run.
	o, err := opts.Conn.connectDuring(ctx, opts.IO, "plan", func() error {
		return preflight(ctx, opts.IO, m, opts.Mode, "plan", opts.Conn.Format, opts.SkipChecks)
	})
	if err != nil {
		return err
	}
	defer o.close()
	// A node outside the targets (or, with --fail-on-cve, a CVE-listed
	// one) is an error when it decides the exit code: with --exit-code.
	servers := o.checkServers(opts.IO, m, opts.Conn.Format != "json",
		serverSeverity{untargeted: opts.ExitCode, cve: opts.ExitCode && opts.FailOnCVE})
	p, err := loader.Plan(ctx, o.topo, m, loader.Options{Mode: opts.Mode, Replace: opts.Replace, Notice: opts.IO.Notice})
	if err != nil {
		return o.envErr(err)
	}
	// The changes are findings only when asked for (--exit-code).
	var ds []diag.Diagnostic
	if opts.ExitCode {
		ds = planDiagnostics(m, p)
	}
	if opts.Conn.Format == "json" {
		doc := o.planJSON(p)
		doc.Checks = checksState(opts.SkipChecks)
		doc.Diagnostics = diag.Normalize(slices.Concat(servers.diagnostics(), ds))
		err = writeJSONDoc(opts.IO, doc)
	} else {
		err = o.planTable(opts.IO, p, ds)
	}
	if err != nil {
		return err
	}
	setIfeqNotes(opts.IO, p)
	if err := p.Unreachable(); err != nil {
		return o.envErr(err)
	}
	if opts.Out != "" {
		if err := savePlan(opts.IO, opts.Out, opts.Manifest, opts.Conn.Env, m, o, p); err != nil {
			return err
		}
	}
	if !opts.ExitCode {
		return nil
	}
	// A deploy that would refuse is a finding (1); one that would only
	// load is a pending change (4), a code no failure uses.
	if p.Conflicts() != nil || servers.findings(opts.FailOnCVE) > 0 {
		return cmdutil.Findings()
	}
	if p.Changes() > 0 {
		return cmdutil.Pending()
	}
	return nil
}

// planTable prints the plan, then ds (its findings) on stderr, then the
// summary.
func (o *online) planTable(ios *iostreams.IOStreams, p *loader.PlanReport, ds []diag.Diagnostic) error {
	t := ios.NewTable("NODE", "ROLE", "SERVER", "KIND", "ITEM", colorCell(ios, "", "ACTION"), "DETAIL")
	counts := map[loader.Action]int{}
	for _, np := range p.Nodes {
		n := np.Node
		if !n.OK() {
			t.Row(n.Addr, string(n.Role), serverCell(n), "-", "-", colorCell(ios, iostreams.Red, loader.Class(n.Err)), oneLineCell(o.errString(n.Err)))
			continue
		}
		for _, it := range np.Items {
			counts[it.Action]++
			t.Row(n.Addr, string(n.Role), serverCell(n), it.Kind, it.Name, paintAction(ios, it.Action), cellOrDash(oneLineCell(it.Detail)))
		}
	}
	if err := t.Render(); err != nil {
		return err
	}
	printDiagnostics(ios, ds)
	ios.Notice("Plan: %d to load, %d conflict(s), %d already loaded, %d unsupported on %d node(s).",
		counts[loader.ActionLoad], counts[loader.ActionConflict], counts[loader.ActionAlreadyLoaded], counts[loader.ActionUnsupported], len(p.Nodes))
	return nil
}

func paintAction(ios *iostreams.IOStreams, a loader.Action) string {
	switch a {
	case loader.ActionLoad:
		return colorCell(ios, iostreams.Yellow, string(a))
	case loader.ActionConflict:
		return colorCell(ios, iostreams.Red, string(a))
	case loader.ActionAlreadyLoaded:
		return colorCell(ios, iostreams.Green, string(a))
	}
	return colorCell(ios, "", string(a))
}

// planJSON is the --format json document of plan (docs/json.md).
type planJSON struct {
	libraryDocJSON
	Checks  string         `json:"checks"`
	Changes int            `json:"changes"`
	Nodes   []planNodeJSON `json:"nodes"`
	// Diagnostics are the changes as findings, with --exit-code.
	Diagnostics []diag.Diagnostic `json:"diagnostics"`
}

type planNodeJSON struct {
	nodeJSON
	Items []planItemJSON `json:"items"`
}

type planItemJSON struct {
	Kind   string `json:"kind"`
	Name   string `json:"name"`
	SHA    string `json:"sha,omitempty"`
	Action string `json:"action"`
	Detail string `json:"detail,omitempty"`
}

func (o *online) planJSON(p *loader.PlanReport) planJSON {
	out := planJSON{libraryDocJSON: libraryDoc("plan", p.Library, p.LibraryName, p.Version, p.Mode), Changes: p.Changes(), Nodes: []planNodeJSON{}, Diagnostics: []diag.Diagnostic{}}
	for _, np := range p.Nodes {
		nj := planNodeJSON{nodeJSON: o.node(np.Node), Items: []planItemJSON{}}
		for _, it := range np.Items {
			nj.Items = append(nj.Items, planItemJSON{Kind: it.Kind, Name: it.Name, SHA: it.SHA, Action: string(it.Action), Detail: it.Detail})
		}
		out.Nodes = append(out.Nodes, nj)
	}
	return out
}

// setIfeqNotes prints one note per server family whose reachable nodes
// have SET ... IFEQ (Valkey 8.1 and later, Redis 8.4 and later): there,
// package refresh renews leases natively instead of with the renew script.
// The script is deployed all the same (other callers, and older nodes).
func setIfeqNotes(ios *iostreams.IOStreams, p *loader.PlanReport) {
	versions := map[string][]string{} // family -> versions with IFEQ
	counts := map[string]int{}
	for _, np := range p.Nodes {
		n := np.Node
		if !n.OK() || !hasSetIfeq(n.Family, n.Version) {
			continue
		}
		if !slices.Contains(versions[n.Family], n.Version) {
			versions[n.Family] = append(versions[n.Family], n.Version)
		}
		counts[n.Family]++
	}
	for _, fam := range []string{loader.FamilyRedis, loader.FamilyValkey} {
		if counts[fam] == 0 {
			continue
		}
		ios.Notice("note: %s %s (%d node(s)) has SET ... IFEQ: package refresh renews leases there without the renew script",
			fam, strings.Join(versions[fam], ", "), counts[fam])
	}
	// DELIFEQ (Valkey 9.0 and later): refresh releases natively where
	// every node has it.
	var dv []string
	dn := 0
	for _, np := range p.Nodes {
		n := np.Node
		if !n.OK() || !hasDelifeq(n.Family, n.Version) {
			continue
		}
		if !slices.Contains(dv, n.Version) {
			dv = append(dv, n.Version)
		}
		dn++
	}
	if dn > 0 {
		ios.Notice("note: %s %s (%d node(s)) has DELIFEQ: package refresh releases leases there without the release script",
			loader.FamilyValkey, strings.Join(dv, ", "), dn)
	}
}

// hasDelifeq reports whether a server family and version has the DELIFEQ
// command: Valkey from 9.0.
func hasDelifeq(family, version string) bool {
	v, ok := target.ParseVersion(version)
	return ok && family == loader.FamilyValkey && !v.Less(target.Version{Major: 9})
}

// hasSetIfeq reports whether a server family and version has SET's IFEQ
// option: Valkey from 8.1, Redis from 8.4.
func hasSetIfeq(family, version string) bool {
	v, ok := target.ParseVersion(version)
	if !ok {
		return false
	}
	switch family {
	case loader.FamilyValkey:
		return !v.Less(target.Version{Major: 8, Minor: 1})
	case loader.FamilyRedis:
		return !v.Less(target.Version{Major: 8, Minor: 4})
	}
	return false
}
