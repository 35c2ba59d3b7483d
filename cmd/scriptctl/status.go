package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/scriptctl/scriptctl/internal/cmdutil"
	"github.com/scriptctl/scriptctl/internal/diag"
	"github.com/scriptctl/scriptctl/internal/iostreams"
	"github.com/scriptctl/scriptctl/loader"
	"github.com/scriptctl/scriptctl/manifest"
)

type statusOptions struct {
	IO        *iostreams.IOStreams
	Manifest  string
	Conn      connFlags
	Mode      loader.Mode
	FailOnCVE bool
	All       bool
}

func newCmdStatus(g *globalOptions) *cobra.Command {
	opts := &statusOptions{IO: g.IO}
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show what is loaded where, and exit 1 on drift",
		Long: `Show, for every node, its role, whether each of the manifest's scripts is in
its script cache, and which versions of the manifest's library it holds:

  loaded       the manifest's script, or its library byte for byte
  missing      drift: not there (EVALSHA fails with NOSCRIPT, FCALL fails)
  differs      drift: the library name is loaded with other code
  older        an older version recorded in scripts.sum (prune removes
               older libraries; cached scripts of older versions are listed
               when still present)
  unknown      an older library version scripts.sum does not record
  newer        a version newer than the manifest's
  unsupported  the server is older than Redis 7.0: no Functions
  not_owned    with --all: a library on the node that is no version of the
               manifest's library (another team's); not drift

Every node's server and version is compared with the manifest's targets,
each finding on stderr (in JSON, in diagnostics) at the manifest's targets
field: code untargeted-server (an error) for a node whose server line they
do not list, lua-cve once per Lua CVE that lists the release of some nodes
as affected, the nodes grouped by release in its detail lines ("unless your
build carries the fix": distributions backport fixes under the same
version; an error with --fail-on-cve, else a warning; silent for an id the
manifest's accept_cves acknowledges), and lua-cve-unknown (a warning) for a
release the CVE table has no row for.

In a cluster, a primary that serves slots without the library or the
scripts (a new shard starts empty; slot migration carries neither) is
drift on that node, its detail naming the slots.

Exit status: 0 without drift; 1 on drift, each drifted node and item named on
stderr ('scriptctl deploy' repairs it), or on an untargeted node (with
--fail-on-cve, a CVE-listed one too); 3 when a node cannot be reached.`,
		Example: `  scriptctl status --url redis://redis-0:6379
  scriptctl status --mode scripts --format json`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			mode, err := opts.Conn.check(cmd)
			if err != nil {
				return err
			}
			opts.Mode = mode
			opts.Manifest = g.Manifest
			return runStatus(cmd.Context(), opts)
		},
	}
	opts.Conn.register(cmd)
	cmd.Flags().BoolVar(&opts.All, "all", false, "also list every other library on the nodes, marked not_owned")
	cmd.Flags().BoolVar(&opts.FailOnCVE, "fail-on-cve", false, "exit 1 for a node whose upstream version is listed as affected by a Lua CVE")
	return cmd
}

func runStatus(ctx context.Context, opts *statusOptions) error {
	o, err := opts.Conn.discover(ctx, opts.IO, "status", opts.Manifest, opts.Mode)
	if err != nil {
		return err
	}
	defer o.close()
	m, ledger := o.m, o.ledger
	// A node outside the targets always decides the exit code; a
	// CVE-listed one with --fail-on-cve.
	servers := o.checkServers(opts.IO, m, opts.Conn.Format != "json", serverSeverity{untargeted: true, cve: opts.FailOnCVE})
	status := loader.Status
	if opts.All {
		status = loader.StatusAll
	}
	st, err := status(ctx, o.topo, m, loader.Options{Mode: o.mode, Ledger: ledger})
	if err != nil {
		return o.envErr(err)
	}
	drift := statusDiagnostics(m, st, ledger)
	if opts.Conn.Format == "json" {
		doc := o.statusJSON(st)
		doc.Diagnostics = diag.Normalize(slices.Concat(servers.diagnostics(), drift))
		err = writeJSONDoc(opts.IO, doc)
	} else {
		err = o.statusTable(opts.IO, st)
	}
	if err != nil {
		return err
	}
	if err := st.Unreachable(); err != nil {
		return o.envErr(err)
	}
	if opts.Conn.Format != "json" {
		// With --format json the findings are in the document only, as
		// plan and deploy do.
		for _, d := range drift {
			opts.IO.Notice("%s", d)
		}
	}
	if n := len(st.Drift()); n > 0 {
		opts.IO.Notice("%d drifted item(s): %s", n, repairHint(st))
		return cmdutil.Findings()
	}
	if len(drift) > 0 || servers.findings(opts.FailOnCVE) > 0 {
		return cmdutil.Findings()
	}
	return nil
}

// statusDiagnostics are status's findings in the shared diagnostic shape,
// severity error, code drift: every drifted item (a script at its file, the
// library at the manifest's library field; the message names the node), then every script
// edited under a released version (what is loaded may match the files, but
// it is not what scripts.sum records as that release).
func statusDiagnostics(m *manifest.Manifest, st *loader.StatusReport, ledger map[int]map[string]string) []diag.Diagnostic {
	files := map[string]string{}
	for _, sc := range m.Scripts {
		files[sc.Name] = displayPath(sc.Path)
	}
	var out []diag.Diagnostic
	for _, ns := range st.Nodes {
		for _, it := range ns.Items {
			if !it.State.Drift() {
				continue
			}
			file, line := itemPos(m, it.Kind, it.Name)
			d := diag.Diagnostic{File: file, Line: line, Severity: diag.Error, Code: "drift",
				Message: fmt.Sprintf("%s: %s %s %s", ns.Node.Addr, it.Kind, it.Name, it.State)}
			if it.Gap != "" {
				d.Detail = []string{it.Gap}
			}
			out = append(out, d)
		}
	}
	for _, sc := range m.Scripts {
		if sha, ok := ledger[m.Version][sc.Name]; ok && sha != sc.SHA {
			out = append(out, diag.Diagnostic{File: files[sc.Name], Severity: diag.Error, Code: "drift",
				Message: fmt.Sprintf("script %s: %s is not the code scripts.sum records for version %d (%s): bump version and run 'scriptctl sum', then deploy", sc.Name, sc.SHA, m.Version, sha)})
		}
	}
	return out
}

// readLedger reads scripts.sum beside the manifest as version -> script ->
// SHA; a missing file is an empty ledger.
func readLedger(m *manifest.Manifest) (map[int]map[string]string, error) {
	sum, err := manifest.ReadSum(m.SumPath())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, cmdutil.Input(err)
	}
	out := map[int]map[string]string{}
	for _, e := range sum.Entries {
		if out[e.Version] == nil {
			out[e.Version] = map[string]string{}
		}
		out[e.Version][e.Script] = e.SHA
	}
	return out, nil
}

func (o *online) statusTable(ios *iostreams.IOStreams, st *loader.StatusReport) error {
	t := ios.NewTable("NODE", "ROLE", "SERVER", "KIND", "ITEM", "VERSION", colorCell(ios, "", "STATE"), "DETAIL")
	for _, ns := range st.Nodes {
		n := ns.Node
		if !n.OK() {
			t.Row(n.Addr, string(n.Role), serverCell(n), "-", "-", "-", colorCell(ios, iostreams.Red, loader.Class(n.Err)), oneLineCell(o.errString(n.Err)))
			continue
		}
		for _, it := range ns.Items {
			name := it.Name
			if it.Kind == loader.KindScript {
				name += " " + abbrevSHA(it.SHA)
			}
			color := ""
			switch {
			case it.State.Drift():
				color = iostreams.Red
			case it.State == loader.StateLoaded:
				color = iostreams.Green
			}
			state := colorCell(ios, color, string(it.State))
			version := "-"
			if it.Version > 0 {
				version = strconv.Itoa(it.Version)
			}
			t.Row(n.Addr, string(n.Role), serverCell(n), it.Kind, name, version, state, cellOrDash(oneLineCell(it.Detail)))
		}
	}
	return t.Render()
}

// statusJSON is the --format json document of status (docs/json.md).
type statusJSON struct {
	libraryDocJSON
	Drift []string         `json:"drift"`
	Nodes []statusNodeJSON `json:"nodes"`
	// Diagnostics are the drift findings in the shared shape.
	Diagnostics []diag.Diagnostic `json:"diagnostics"`
}

type statusNodeJSON struct {
	nodeJSON
	Items []statusItemJSON `json:"items"`
}

type statusItemJSON struct {
	Kind    string `json:"kind"`
	Name    string `json:"name"`
	Version int    `json:"version,omitempty"` // 0 (omitted) for a not_owned library
	SHA     string `json:"sha,omitempty"`
	State   string `json:"state"`
	Drift   bool   `json:"drift"`
	Detail  string `json:"detail,omitempty"`
}

func (o *online) statusJSON(st *loader.StatusReport) statusJSON {
	out := statusJSON{libraryDocJSON: libraryDoc("status", st.Library, st.LibraryName, st.Version, st.Mode), Drift: st.Drift(), Nodes: []statusNodeJSON{}}
	if out.Drift == nil {
		out.Drift = []string{}
	}
	for _, ns := range st.Nodes {
		nj := statusNodeJSON{nodeJSON: o.node(ns.Node), Items: []statusItemJSON{}}
		for _, it := range ns.Items {
			nj.Items = append(nj.Items, statusItemJSON{Kind: it.Kind, Name: it.Name, Version: it.Version, SHA: it.SHA,
				State: string(it.State), Drift: it.State.Drift(), Detail: it.Detail})
		}
		out.Nodes = append(out.Nodes, nj)
	}
	return out
}

// repairHint says what repairs the drift: a library loaded with other code
// is a conflict plain deploy refuses, so it needs --replace (or a new
// version); anything else a deploy reloads.
func repairHint(st *loader.StatusReport) string {
	for _, ns := range st.Nodes {
		for _, it := range ns.Items {
			if it.State == loader.StateDiffers {
				return "run 'scriptctl deploy --replace' to repair (the library is loaded with other code, which plain deploy refuses), or bump version and deploy"
			}
		}
	}
	return "run 'scriptctl deploy' to repair"
}
