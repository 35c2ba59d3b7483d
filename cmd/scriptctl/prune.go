package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/scriptctl/scriptctl/internal/cmdutil"
	"github.com/scriptctl/scriptctl/internal/diag"
	"github.com/scriptctl/scriptctl/internal/iostreams"
	"github.com/scriptctl/scriptctl/loader"
)

type pruneOptions struct {
	IO          *iostreams.IOStreams
	Manifest    string
	Conn        connFlags
	Keep        int
	DryRun      bool
	LockTimeout time.Duration
}

func newCmdPrune(g *globalOptions) *cobra.Command {
	opts := &pruneOptions{IO: g.IO}
	cmd := &cobra.Command{
		Use:   "prune --keep N",
		Short: "Delete old versions of the manifest's library",
		Long: `Delete this manifest's Functions libraries <library>_v<k> older than the newest
--keep versions found on any primary, on every primary (replicas follow by
replication). The manifest's own version is always kept. Libraries of other
names are never touched, and the script cache is never flushed (Redis cannot
delete one cached script; a restart or SCRIPT FLUSH empties the cache, and
'scriptctl deploy' refills it).

Prune takes the deploy lock, so it never runs while a deploy does.

Exit status: 0; 3 when a primary cannot be reached or a delete fails. Each
failed delete is a finding on stderr (in JSON, in diagnostics): code
delete-failed, at the manifest's library field, the server's error
following.`,
		Example: `  scriptctl prune --keep 2 --dry-run --url redis://redis-0:6379
  scriptctl prune --keep 2 --url redis://redis-0:6379`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if _, err := opts.Conn.check(cmd); err != nil {
				return err
			}
			hint := fmt.Sprintf("'%s --help'", cmd.CommandPath())
			if !cmd.Flags().Changed("keep") {
				return cmdutil.Usage(fmt.Errorf("--keep is required: how many of the newest versions to keep"), hint)
			}
			if opts.Keep < 1 {
				return cmdutil.Usage(fmt.Errorf("--keep must be at least 1, not %d", opts.Keep), hint)
			}
			if opts.Conn.Mode != "both" && opts.Conn.Mode != "functions" {
				return cmdutil.Usage(fmt.Errorf("prune works on libraries only: --mode %s does not apply", opts.Conn.Mode), hint)
			}
			opts.Manifest = g.Manifest
			return runPrune(cmd.Context(), opts)
		},
	}
	opts.Conn.register(cmd)
	fs := cmd.Flags()
	// Prune only deletes libraries: --mode (shared with plan, deploy and
	// status) is accepted as functions or both but not advertised.
	_ = fs.MarkHidden("mode")
	fs.IntVar(&opts.Keep, "keep", 0, "keep the newest `N` versions (required, at least 1)")
	fs.BoolVar(&opts.DryRun, "dry-run", false, "list what would be deleted, take no lock, delete nothing")
	fs.DurationVar(&opts.LockTimeout, "lock-timeout", loader.DefaultLockTimeout, "how long to wait for a running deploy's lock")
	return cmd
}

func runPrune(ctx context.Context, opts *pruneOptions) error {
	m, err := loadManifestFor(opts.Manifest)
	if err != nil {
		return err
	}
	if !opts.DryRun {
		w := loader.PruneWork(m)
		opts.Conn.work = &w
	}
	o, err := opts.Conn.connectAll(ctx, opts.IO, "prune")
	if err != nil {
		return err
	}
	defer func() { o.close() }()
	popts := loader.PruneOptions{Keep: opts.Keep, DryRun: opts.DryRun, LockTimeout: opts.LockTimeout, Notice: opts.IO.Notice}
	r, err := loader.Prune(ctx, o.topo, m, popts)
	if o2, retry, rerr := opts.Conn.rediscover(ctx, opts.IO, o, err, "prune"); retry {
		if rerr != nil {
			return rerr
		}
		o = o2
		r, err = loader.Prune(ctx, o.topo, m, popts)
	}
	if r != nil {
		ds := o.pruneDiagnostics(m, r)
		var perr error
		if opts.Conn.Format == "json" {
			doc := o.pruneJSON(r, err)
			doc.Diagnostics = diag.Normalize(ds)
			perr = writeJSONDoc(opts.IO, doc)
		} else {
			perr = o.pruneTable(opts.IO, r, ds)
		}
		if perr != nil && err == nil {
			return perr
		}
	}
	return o.envErr(err)
}

// pruneTable prints what prune found and did, then ds (its findings) on
// stderr, then the summary.
func (o *online) pruneTable(ios *iostreams.IOStreams, r *loader.PruneReport, ds []diag.Diagnostic) error {
	t := ios.NewTable("NODE", "LIBRARY", "VERSION", colorCell(ios, "", "RESULT"), "ERROR")
	for _, it := range r.Items {
		color := ""
		switch it.Outcome {
		case "deleted", "would_delete":
			color = iostreams.Yellow
		case "failed":
			color = iostreams.Red
		}
		res := colorCell(ios, color, it.Outcome)
		t.Row(it.Node, it.Library, strconv.Itoa(it.Version), res, cellOrDash(oneLineCell(o.errString(it.Err))))
	}
	if err := t.Render(); err != nil {
		return err
	}
	for _, addr := range r.Skipped {
		ios.Notice("%s: skipped: older than Redis 7.0, no Functions", addr)
	}
	printDiagnostics(ios, ds)
	verb := "deleted"
	if r.DryRun {
		verb = "would delete"
	}
	ios.Notice("Prune: keep version(s) %s; %s version(s) %s.", versionList(r.Keep), verb, versionList(r.Delete))
	return nil
}

func versionList(v []int) string {
	if len(v) == 0 {
		return "none"
	}
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ", ")
}

// pruneJSON is the --format json document of prune (docs/json.md).
type pruneJSON struct {
	FormatVersion string          `json:"format_version"`
	Command       string          `json:"command"`
	DryRun        bool            `json:"dry_run"`
	Library       string          `json:"library"`
	Keep          []int           `json:"keep"`
	Delete        []int           `json:"delete"`
	Lock          string          `json:"lock,omitempty"`
	Skipped       []string        `json:"skipped"`
	Error         string          `json:"error,omitempty"`
	Items         []pruneItemJSON `json:"items"`
	// Diagnostics are the deletes that failed.
	Diagnostics []diag.Diagnostic `json:"diagnostics"`
}

type pruneItemJSON struct {
	Node    string `json:"node"`
	Library string `json:"library"`
	Version int    `json:"version"`
	Outcome string `json:"outcome"`
	Error   string `json:"error,omitempty"`
}

func (o *online) pruneJSON(r *loader.PruneReport, err error) pruneJSON {
	out := pruneJSON{FormatVersion: jsonFormatVersion, Command: "prune", DryRun: r.DryRun, Library: r.Library,
		Keep: intsOrEmpty(r.Keep), Delete: intsOrEmpty(r.Delete), Lock: r.Lock, Skipped: r.Skipped, Error: o.errString(err), Items: []pruneItemJSON{},
		Diagnostics: []diag.Diagnostic{}}
	if out.Skipped == nil {
		out.Skipped = []string{}
	}
	for _, it := range r.Items {
		out.Items = append(out.Items, pruneItemJSON{Node: it.Node, Library: it.Library, Version: it.Version, Outcome: it.Outcome, Error: o.errString(it.Err)})
	}
	return out
}

func intsOrEmpty(v []int) []int {
	if v == nil {
		return []int{}
	}
	return v
}
