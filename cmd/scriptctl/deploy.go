package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/scriptctl/scriptctl/internal/cmdutil"
	"github.com/scriptctl/scriptctl/internal/diag"
	"github.com/scriptctl/scriptctl/internal/iostreams"
	"github.com/scriptctl/scriptctl/loader"
	"github.com/scriptctl/scriptctl/manifest"
)

type deployOptions struct {
	IO          *iostreams.IOStreams
	Manifest    string
	Conn        connFlags
	Mode        loader.Mode
	DryRun      bool
	Parallel    int
	Replace     bool
	LockTimeout time.Duration
	ReplicaWait time.Duration
	// AllowUntargeted deploys to nodes outside the manifest's targets;
	// FailOnCVE refuses nodes whose upstream version a Lua CVE lists.
	AllowUntargeted bool
	FailOnCVE       bool
	SkipChecks      bool
	// PlanFile is deploy FILE: a saved plan to apply exactly;
	// ReleaseVersion is --version N (a rollback); Yes skips the
	// confirmation.
	PlanFile       string
	ManifestGiven  bool
	ReleaseVersion int
	Yes            bool
}

func newCmdDeploy(g *globalOptions) *cobra.Command {
	opts := &deployOptions{IO: g.IO}
	cmd := &cobra.Command{
		Use:   "deploy [PLAN-FILE]",
		Short: "Load the manifest's scripts and library on every node",
		Long: `Load the manifest's scripts into the script cache of every node, replicas
included (SCRIPT LOAD; the SHA each node returns must equal the SHA of the
file's exact bytes), and the Functions library <library>_v<version> on every
primary (FUNCTION LOAD), then wait until every replica lists it (bounded by
--replica-wait overall and by --timeout for each poll: a replica that stops
answering fails at once). Older library versions stay until 'scriptctl
prune', so old and new application builds run side by side during a
rollout.

Deploy is idempotent: what is loaded already is left alone and reported as
already_loaded, so a rerun converges. Nodes are worked on in parallel
(--parallel); a node that fails does not stop the others. A library of the
same name with different code is a conflict: deploy refuses before changing
anything, unless --replace.

A deploy lock (a lease key with a random token on one primary, renewed while
the deploy runs, released token-safely) keeps two deploys to the same servers
from interleaving: the second waits up to --lock-timeout, then exits 3 naming
the holder. Ctrl-C stops between nodes and reports what was done.

Before changing anything, deploy confirms on every node that the connected
user may run every command it needs (docs/deploy.md, "Least privilege"): a missing
permission refuses the run, naming each node and permission. A cluster
whose slots moved after discovery (MOVED on the lock's command) is
discovered again once; a second time, deploy stops and says so.

Every node's server and version is compared with the manifest's targets
first, as in plan: a node whose server line they do not list refuses the
deploy (exit 1, nothing changed) unless --allow-untargeted, and so does a
node whose upstream release a Lua CVE lists (unless the manifest's
accept_cves acknowledges it), with --fail-on-cve. Each is a
finding on stderr (in JSON, in diagnostics) at the manifest's targets field,
code untargeted-server or lua-cve: an error when it refuses, else a warning.

With --verbose, every item loaded is named on stderr, one line per item and
node, as each node finishes.

Exit status: 0 when every node converged; 3 when any node failed (each is
named with the reason), on a missing permission, a conflict, a held lock or
an interruption. Each failed item and each conflict is a finding on stderr
(in JSON, in diagnostics), one per node: code load-failed (SCRIPT LOAD or
FUNCTION LOAD failed; the server's error follows), not-replicated (a
replica does not show the library its primary loaded) or conflict, at the
script's file, or the manifest's library field.

Saved plans: 'scriptctl deploy FILE' applies a plan written by 'scriptctl
plan --out FILE', exactly: its mode and --replace, its servers (its URLs,
else --url or --env), and nothing else. It refuses, exit 1 with nothing
sent, when the manifest, a script or scripts.sum changed since (their
digests differ); and, under the deploy lock, exit 1 with nothing changed
and each difference on stderr, when the servers did: a node added, gone,
restarted (another run_id), with another role or server version, or an
item whose action is no longer the planned one. A file that is not a plan
is invalid input (exit 2). --mode, --replace and --version do not combine
with a plan file.

Rollback: --version N deploys released version N instead of the current
one: the manifest kept for it where the manifest's releases field says
(releases: lua/v<version>/manifest.yaml), whose files must be the bytes
scripts.sum records for version N (else exit 1), after the same checks as
a normal deploy. Its library <library>_vN is loaded beside the current one
(or found already loaded); applications then call version N's scripts.

Confirmation: on a terminal (stdin and stdout or stderr), a deploy that
would change something shows the plan and asks before it loads anything,
under the lock; anything but y or yes cancels (exit 1, nothing changed).
--yes skips the question; --dry-run, --format json and runs whose stdin is
not a terminal (CI) never ask.`,
		Example: `  scriptctl deploy --url redis://redis-0:6379 --dry-run
  scriptctl plan --env prod --out prod.plan && scriptctl deploy prod.plan
  scriptctl deploy --env prod --version 1 --yes
  scriptctl deploy --url redis://primary:6379 --url redis://replica:6379
  SCRIPTCTL_PASSWORD=... scriptctl deploy --url rediss://cluster-0:6380 --tls-ca ca.pem`,
		Args: maxArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			mode, err := opts.Conn.check(cmd)
			if err != nil {
				return err
			}
			hint := fmt.Sprintf("'%s --help'", cmd.CommandPath())
			if len(args) == 1 {
				opts.PlanFile = args[0]
				for _, f := range []string{"mode", "replace", "version"} {
					if cmd.Flags().Changed(f) {
						return cmdutil.Usage(fmt.Errorf("--%s does not combine with a plan file: the plan decides", f), hint)
					}
				}
			}
			if cmd.Flags().Changed("version") && opts.ReleaseVersion < 1 {
				return cmdutil.Usage(fmt.Errorf("--version must be a released version number, not %d", opts.ReleaseVersion), hint)
			}
			opts.ManifestGiven = cmd.Flags().Changed("manifest")
			if opts.Parallel < 1 {
				return cmdutil.Usage(fmt.Errorf("--parallel must be at least 1, not %d", opts.Parallel), hint)
			}
			if opts.LockTimeout < 0 || opts.ReplicaWait <= 0 {
				return cmdutil.Usage(fmt.Errorf("--lock-timeout must not be negative and --replica-wait must be positive"), hint)
			}
			opts.Mode = mode
			opts.Manifest = g.Manifest
			return runDeploy(cmd.Context(), opts)
		},
	}
	opts.Conn.register(cmd)
	fs := cmd.Flags()
	fs.BoolVar(&opts.DryRun, "dry-run", false, "show the plan, take no lock, change nothing")
	fs.BoolVar(&opts.SkipChecks, "skip-checks", false, "do not run the pre-flight checks (scripts.sum, syntax, check-keys, shebang-flags) first; said on stderr every time")
	fs.BoolVar(&opts.AllowUntargeted, "allow-untargeted", false, "deploy to nodes whose server the manifest's targets do not cover")
	fs.BoolVar(&opts.FailOnCVE, "fail-on-cve", false, "refuse nodes whose upstream version is listed as affected by a Lua CVE")
	fs.IntVar(&opts.Parallel, "parallel", loader.DefaultParallel, "nodes worked on at once")
	fs.IntVar(&opts.ReleaseVersion, "version", 0, "deploy released version `N` (a rollback) from the files kept for it (the manifest's releases field), checked against scripts.sum")
	fs.BoolVarP(&opts.Yes, "yes", "y", false, "do not ask for confirmation on a terminal")
	fs.BoolVar(&opts.Replace, "replace", false, "load over a library of the same name with different code")
	fs.DurationVar(&opts.LockTimeout, "lock-timeout", loader.DefaultLockTimeout, "how long to wait for another deploy's lock")
	fs.DurationVar(&opts.ReplicaWait, "replica-wait", loader.DefaultReplicaWait, "how long to wait for the replicas to show the library (each poll is bounded by --timeout)")
	return cmd
}

func runDeploy(ctx context.Context, opts *deployOptions) error {
	var sp *loader.SavedPlan
	if opts.PlanFile != "" {
		var err error
		if sp, err = readPlanFile(opts.PlanFile); err != nil {
			return err
		}
		if !opts.ManifestGiven && sp.Manifest != "" {
			opts.Manifest = sp.Manifest
		}
	}
	m, err := loadManifestFor(opts.Manifest)
	if err != nil {
		return err
	}
	opts.Mode = opts.Conn.modeFor(m, opts.Mode)
	if sp != nil {
		if err := checkPlanRepository(opts.IO, opts.PlanFile, sp, m); err != nil {
			return err
		}
		opts.Mode, _ = loader.ParseMode(sp.Mode)
		opts.Replace = sp.Replace
		// The plan's servers, unless --url or --env name others (the
		// run_ids then tell).
		if len(opts.Conn.URLs) == 0 && opts.Conn.Env == "" {
			if sp.Environment != "" {
				opts.Conn.Env = sp.Environment
			} else {
				opts.Conn.URLs = sp.URLs
			}
		}
	}
	var steps []checkStep
	if opts.ReleaseVersion != 0 && opts.ReleaseVersion != m.Version {
		if m, steps, err = releaseManifest(m, opts.ReleaseVersion, opts.Mode); err != nil {
			return err
		}
		opts.IO.Notice("Rolling back: deploying released version %d of %s from %s", m.Version, m.Library, m.Path)
	}
	if err := opts.Conn.validate("deploy"); err != nil {
		return err
	}
	if steps == nil {
		steps = preflightSteps(opts.Mode)
	}
	if !opts.DryRun {
		w := loader.DeployWork(m, opts.Mode)
		opts.Conn.work = &w
	}
	// The nodes are discovered while the checks run: nothing is loaded
	// or locked before they pass.
	o, err := opts.Conn.connectDuring(ctx, opts.IO, "deploy", func() error {
		return runPreflight(ctx, opts.IO, m, steps, "deploy", opts.Conn.Format, opts.SkipChecks)
	})
	if err != nil {
		return err
	}
	defer func() { o.close() }()
	deploy := func(o *online) (*loader.DeployReport, error) {
		// What the gate refuses is an error; the rest are warnings.
		sev := serverSeverity{untargeted: !opts.AllowUntargeted, cve: opts.FailOnCVE}
		if err := o.checkServers(opts.IO, m, opts.Conn.Format != "json", sev).gate(opts.AllowUntargeted, opts.FailOnCVE); err != nil {
			return nil, err
		}
		return loader.Deploy(ctx, o.topo, m, loader.DeployOptions{
			Options:     loader.Options{Mode: opts.Mode, Replace: opts.Replace, Parallel: opts.Parallel, Notice: opts.IO.Notice},
			DryRun:      opts.DryRun,
			LockTimeout: opts.LockTimeout,
			ReplicaWait: opts.ReplicaWait,
			Progress:    opts.IO.Progress,
			ItemProgress: func(format string, args ...any) {
				opts.IO.Detail("deploy: "+format, args...)
			},
			Approve: func(p *loader.PlanReport) error {
				if sp != nil {
					if d := sp.Differences(p); len(d) > 0 {
						return stalePlan(opts.IO, opts.PlanFile, d)
					}
				}
				return confirmDeploy(opts.IO, o, opts, p)
			},
		})
	}
	rep, err := deploy(o)
	if err == nil && sp != nil && rep != nil && rep.DryRun {
		// A dry run takes no lock: the plan is compared here.
		if d := sp.Differences(rep.Plan); len(d) > 0 {
			err = stalePlan(opts.IO, opts.PlanFile, d)
		}
	}
	if o2, retry, rerr := opts.Conn.rediscover(ctx, opts.IO, o, err, "deploy"); retry {
		if rerr != nil {
			return rerr
		}
		o = o2
		rep, err = deploy(o)
	}
	var exit *cmdutil.ExitError
	if errors.As(err, &exit) {
		// The server gate refused: in JSON, a document of the nodes and
		// the findings, nothing planned.
		if opts.Conn.Format == "json" {
			doc := o.refusedDeployJSON(m, opts, err)
			if perr := writeJSONDoc(opts.IO, doc); perr != nil {
				return perr
			}
		}
		return err
	}
	if rep != nil {
		ds := o.deployDiagnostics(m, rep)
		var perr error
		switch {
		case opts.Conn.Format == "json":
			// The server findings join the document's; in text they
			// printed when found.
			doc := o.deployJSON(rep, err)
			doc.Checks = checksState(opts.SkipChecks)
			doc.Diagnostics = diag.Normalize(slices.Concat(o.servers.diagnostics(), ds))
			perr = writeJSONDoc(opts.IO, doc)
		case rep.DryRun || len(rep.Nodes) == 0:
			perr = o.planTable(opts.IO, rep.Plan, ds)
		default:
			perr = o.deployTable(opts.IO, rep, ds)
		}
		if perr != nil && err == nil {
			return perr
		}
	}
	return o.envErr(err)
}

// deployTable prints what the deploy did, then ds (its findings) on
// stderr, then the summary.
func (o *online) deployTable(ios *iostreams.IOStreams, rep *loader.DeployReport, ds []diag.Diagnostic) error {
	t := ios.NewTable("NODE", "ROLE", "SERVER", "SCRIPTS", "LIBRARY", colorCell(ios, "", "RESULT"), "ERROR")
	for _, nr := range rep.Nodes {
		n := nr.Node
		scripts := map[loader.Outcome]int{}
		total := 0
		library := "-"
		for _, it := range nr.Items {
			if it.Kind == loader.KindScript {
				scripts[it.Outcome]++
				total++
			} else {
				library = it.Name + " " + string(it.Outcome)
			}
		}
		var sc []string
		for _, oc := range []loader.Outcome{loader.OutcomeLoaded, loader.OutcomeAlreadyLoaded, loader.OutcomeFailed, loader.OutcomeUnknown, loader.OutcomeSkipped} {
			if scripts[oc] > 0 {
				sc = append(sc, strconv.Itoa(scripts[oc])+" "+string(oc))
			}
		}
		errText := ""
		if nr.Err != nil {
			errText = oneLineCell(o.errString(nr.Err.Err))
			if nr.Err.Op != "connect" {
				errText = nr.Err.Op + ": " + errText
			}
		}
		status := nr.Status()
		if !n.OK() && nr.Err != nil && nr.Err.Op == "connect" {
			status = loader.Class(n.Err)
		}
		t.Row(n.Addr, string(n.Role), serverCell(n), cellOrDash(strings.Join(sc, ", ")), library, paintStatus(ios, status), cellOrDash(errText))
	}
	if err := t.Render(); err != nil {
		return err
	}
	printDiagnostics(ios, ds)
	changed, failed := rep.Counts()
	// Nodes count apart from items: an unreachable node has no items. The
	// failed nodes are the ones the final error names ("1 node failed").
	failedNodes, notDone := 0, 0
	for _, nr := range rep.Nodes {
		switch {
		case nr.Status() == "ok":
		case nr.Err != nil:
			failedNodes++
		default:
			notDone++ // interrupted before its turn
		}
	}
	summary := fmt.Sprintf("Deploy: %d item(s) loaded, %d item(s) failed, on %d node(s)", changed, failed, len(rep.Nodes))
	if failedNodes > 0 {
		summary += fmt.Sprintf("; %d node(s) failed", failedNodes)
	}
	if notDone > 0 {
		summary += fmt.Sprintf("; %d node(s) not done (interrupted)", notDone)
	}
	if changed == 0 && failed == 0 && failedNodes == 0 && notDone == 0 {
		summary = fmt.Sprintf("Deploy: nothing to do, everything already loaded on %d node(s)", len(rep.Nodes))
	}
	ios.Notice("%s.", summary)
	return nil
}

func paintStatus(ios *iostreams.IOStreams, s string) string {
	switch s {
	case "ok":
		return colorCell(ios, iostreams.Green, s)
	case "failed", loader.ClassUnreachable, loader.ClassAuth, loader.ClassNotRedis:
		return colorCell(ios, iostreams.Red, s)
	}
	return colorCell(ios, iostreams.Yellow, s)
}

// deployJSON is the --format json document of deploy (docs/json.md).
type deployJSON struct {
	FormatVersion string           `json:"format_version"`
	Command       string           `json:"command"`
	DryRun        bool             `json:"dry_run"`
	Library       string           `json:"library"`
	LibraryName   string           `json:"library_name"`
	Version       int              `json:"version"`
	Mode          string           `json:"mode"`
	Checks        string           `json:"checks"`
	Lock          string           `json:"lock,omitempty"`
	Loaded        int              `json:"loaded"`
	Failed        int              `json:"failed"`
	Error         string           `json:"error,omitempty"`
	Nodes         []deployNodeJSON `json:"nodes"`
	// Diagnostics are the failed items, or a refused deploy's conflicts.
	Diagnostics []diag.Diagnostic `json:"diagnostics"`
}

type deployNodeJSON struct {
	nodeJSON
	Status string           `json:"status"`
	Items  []deployItemJSON `json:"items"`
}

type deployItemJSON struct {
	Kind    string `json:"kind"`
	Name    string `json:"name"`
	SHA     string `json:"sha,omitempty"`
	Action  string `json:"action"`
	Outcome string `json:"outcome,omitempty"`
	Error   string `json:"error,omitempty"`
}

// refusedDeployJSON is the document of a deploy the server gate refused
// (err): every node with status refused (or unreachable) and no items, and
// the server findings.
func (o *online) refusedDeployJSON(m *manifest.Manifest, opts *deployOptions, err error) deployJSON {
	out := deployJSON{FormatVersion: jsonFormatVersion, Command: "deploy", DryRun: opts.DryRun, Library: m.Library,
		LibraryName: m.LibraryName(), Version: m.Version, Mode: string(opts.Mode), Checks: checksState(opts.SkipChecks),
		Error: o.errString(err), Nodes: []deployNodeJSON{}, Diagnostics: diag.Normalize(o.servers.diagnostics())}
	for _, n := range o.topo.Nodes {
		nj := deployNodeJSON{nodeJSON: o.node(n), Status: "refused", Items: []deployItemJSON{}}
		if !n.OK() {
			nj.Status = "unreachable"
		}
		out.Nodes = append(out.Nodes, nj)
	}
	return out
}

func (o *online) deployJSON(rep *loader.DeployReport, err error) deployJSON {
	p := rep.Plan
	out := deployJSON{FormatVersion: jsonFormatVersion, Command: "deploy", DryRun: rep.DryRun, Library: p.Library,
		LibraryName: p.LibraryName, Version: p.Version, Mode: string(p.Mode), Lock: rep.Lock, Error: o.errString(err),
		Nodes: []deployNodeJSON{}, Diagnostics: []diag.Diagnostic{}}
	out.Loaded, out.Failed = rep.Counts()
	if len(rep.Nodes) == 0 {
		// A dry run, or a refused deploy: the plan.
		for _, np := range p.Nodes {
			nj := deployNodeJSON{nodeJSON: o.node(np.Node), Status: "planned", Items: []deployItemJSON{}}
			if !np.Node.OK() {
				nj.Status = "unreachable"
			}
			for _, it := range np.Items {
				nj.Items = append(nj.Items, deployItemJSON{Kind: it.Kind, Name: it.Name, SHA: it.SHA, Action: string(it.Action)})
			}
			out.Nodes = append(out.Nodes, nj)
		}
		return out
	}
	for _, nr := range rep.Nodes {
		nj := deployNodeJSON{nodeJSON: o.node(nr.Node), Status: nr.Status(), Items: []deployItemJSON{}}
		if !nr.Node.OK() {
			nj.Status = "unreachable"
		} else if nr.Err != nil {
			nj.Error = o.cfg.ScrubString(nr.Err.Op + ": " + nr.Err.Err.Error())
		}
		for _, it := range nr.Items {
			nj.Items = append(nj.Items, deployItemJSON{Kind: it.Kind, Name: it.Name, SHA: it.SHA, Action: string(it.Action),
				Outcome: string(it.Outcome), Error: o.errString(it.Err)})
		}
		out.Nodes = append(out.Nodes, nj)
	}
	return out
}
