package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/spf13/cobra"

	"github.com/scriptctl/scriptctl/internal/cmdutil"
	"github.com/scriptctl/scriptctl/internal/diag"
	"github.com/scriptctl/scriptctl/internal/iostreams"
	"github.com/scriptctl/scriptctl/internal/lazy"
	"github.com/scriptctl/scriptctl/loader"
	"github.com/scriptctl/scriptctl/manifest"
)

type inspectOptions struct {
	IO       *iostreams.IOStreams
	Conn     connFlags
	SHAs     []string
	Sums     []string
	Show     string
	ExitCode bool
}

func newCmdInspect(g *globalOptions) *cobra.Command {
	opts := &inspectOptions{IO: g.IO}
	cmd := &cobra.Command{
		Use:   "inspect",
		Short: "Show what the servers hold, without a manifest: nodes, libraries, scripts",
		Long: `Show, for every node of a deployment (discovered as status does: the
replicas of a standalone primary, every node of a cluster), its role, server
and version, every Functions library it holds with its functions, their
flags and the SHA1 of the library's code (FUNCTION LIST WITHCODE), and
whether each script SHA asked about is in its script cache. No manifest is
needed: this is the on-call view of what is loaded.

The script cache cannot be listed (the servers have no SCRIPT LIST), so
scripts are looked up by SHA: name them with --sha, or point --sum at a
scripts.sum to look up every SHA of every version it records and see which
released versions are loaded where.

Nodes that should agree are compared: the replicas of a primary with it, and
every node of a cluster with the others (Functions are loaded on each
primary; scripts on every node). A library or script on which they differ is
marked "differs" (or "absent" on a node missing a library its peers hold)
and named on stderr as a finding, "NAME: warning differs: ..." (NAME the
library, or the --sum file and line that records the script's SHA, else
the SHA); with --exit-code it is an error and exits 1.

--show SHA prints the source of a cached script instead, from the first node
that has SCRIPT SHOW (Valkey 8.0 and later; Redis has no way to read a
cached script back); a script no such node holds is the finding
"error not-cached". With --format json the document carries the findings
as "diagnostics" and the exit status is the same as in text.

Exit status: 0; 1 with --exit-code when nodes that should agree differ, or
with --show when no node holds the script; 2 on invalid flags; 3 when a node
cannot be reached (the others are still shown) or, with --show, when no
node has SCRIPT SHOW.`,
		Example: `  scriptctl inspect --url redis://10.0.0.5:6379
  scriptctl inspect --url redis://10.0.0.5:6379 --sum scripts.sum --exit-code
  scriptctl inspect --url redis://10.0.0.5:6379 --sha 418f8f98dba7f69c6f575e91e1ff83650f541da4 --format json
  scriptctl inspect --url redis://valkey-0:6379 --show 418f8f98dba7f69c6f575e91e1ff83650f541da4`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := opts.Conn.checkOnline(cmd); err != nil {
				return err
			}
			for i, s := range opts.SHAs {
				if !shaPattern.Get().MatchString(s) {
					return cmdutil.Usage(fmt.Errorf("--sha %q is not a SHA1 (40 hex digits)", s), "'scriptctl sha' prints the SHA of each script")
				}
				opts.SHAs[i] = strings.ToLower(s)
			}
			if opts.Show != "" && !shaPattern.Get().MatchString(opts.Show) {
				return cmdutil.Usage(fmt.Errorf("--show %q is not a SHA1 (40 hex digits)", opts.Show), "'scriptctl inspect --help'")
			}
			opts.Show = strings.ToLower(opts.Show)
			return runInspect(cmd.Context(), opts)
		},
	}
	registerOnline(cmd, &opts.Conn)
	cmd.Flags().StringArrayVar(&opts.SHAs, "sha", nil, "look up script `SHA` in every node's script cache; repeatable")
	cmd.Flags().StringArrayVar(&opts.Sums, "sum", nil, "look up every SHA the scripts.sum `FILE` records, all versions; repeatable")
	cmd.Flags().StringVar(&opts.Show, "show", "", "print the source of the cached script `SHA` (servers with SCRIPT SHOW: Valkey 8.0+)")
	cmd.Flags().BoolVar(&opts.ExitCode, "exit-code", false, "exit 1 when nodes that should agree hold different libraries or scripts")
	return withoutManifest(cmd)
}

var shaPattern = lazy.Regexp(`^[0-9a-fA-F]{40}$`)

// registerOnline adds --url, the password, TLS and timeout flags, and
// --format to an online command that has no --mode (inspect, diff).
func registerOnline(cmd *cobra.Command, f *connFlags) {
	markDiscoversNodes(cmd)
	cmd.Flags().StringArrayVar(&f.URLs, "url", nil, "server `URL`, redis://[user@]host:port or rediss://...; repeatable (env SCRIPTCTL_URL)")
	f.registerSecurity(cmd, "the servers")
	cmd.Flags().StringVar(&f.Format, "format", "table", "output format: table or json")
	cmd.Flags().StringVar(&f.Env, "env", "", "connect to the manifest's environment `NAME` (environments:); --url and the password and TLS flags override its fields")
	cmd.Long += "\n" + connHelp + "\n" + envHelp
}

// checkOnline validates --format and --timeout of a command registered with
// registerOnline.
func (f *connFlags) checkOnline(cmd *cobra.Command) error {
	f.Mode = string(loader.ModeBoth)
	_, err := f.check(cmd)
	return err
}

// sumLabels reads each scripts.sum and returns its SHAs, in the file's
// order, for each SHA the releases that record it ("v1 acquire"), and
// where it is first recorded (file and line).
func sumLabels(paths []string) ([]string, map[string][]string, map[string]diag.Diagnostic, error) {
	var shas []string
	labels := map[string][]string{}
	at := map[string]diag.Diagnostic{}
	for _, p := range paths {
		sum, err := manifest.ReadSum(p)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil, nil, cmdutil.Usage(fmt.Errorf("--sum %s: no such file", p), "give the path of a scripts.sum")
		}
		if err != nil {
			return nil, nil, nil, cmdutil.Input(err)
		}
		for _, e := range sum.Entries {
			sha := strings.ToLower(e.SHA)
			if labels[sha] == nil {
				shas = append(shas, sha)
				at[sha] = diag.Diagnostic{File: displayPath(p), Line: e.Line}
			}
			labels[sha] = append(labels[sha], fmt.Sprintf("v%d %s", e.Version, e.Script))
		}
	}
	return shas, labels, at, nil
}

// Inspect's diagnostic codes.
const (
	codeInspectDiffers = "differs"    // nodes that should agree hold different code
	codeNotCached      = "not-cached" // --show: no node holds the script
)

func runInspect(ctx context.Context, opts *inspectOptions) error {
	sumSHAs, labels, at, err := sumLabels(opts.Sums)
	if err != nil {
		return err
	}
	o, err := opts.Conn.discover(ctx, opts.IO, "inspect", "", loader.ModeBoth)
	if err != nil {
		return err
	}
	defer o.close()
	iopts := loader.InspectOptions{SHAs: append(append([]string{}, opts.SHAs...), sumSHAs...)}
	if opts.Show != "" {
		iopts.Show = []string{opts.Show}
	}
	rep, err := loader.Inspect(ctx, o.topo, iopts)
	if err != nil {
		return o.envErr(err)
	}
	var show showOutcome
	if opts.Show != "" {
		show = showResult(rep)
	}
	ds := inspectDiagnostics(rep, at, opts.ExitCode)
	if d, ok := show.diagnostic(opts.Show, at); ok {
		ds = append(ds, d)
	}
	switch {
	case opts.Conn.Format == "json":
		doc := o.inspectJSON(rep, labels)
		doc.Diagnostics = diag.Normalize(ds)
		err = writeJSONDoc(opts.IO, doc)
	case opts.Show != "":
		err = show.write(opts.IO, opts.Show)
	default:
		err = o.inspectTable(opts.IO, rep, labels)
	}
	if err != nil {
		return err
	}
	if opts.Conn.Format != "json" {
		for _, d := range ds {
			opts.IO.Notice("%s", d)
		}
	}
	// A shown script needs only the node that showed it.
	if err := rep.Unreachable(); err != nil && show.source == nil {
		return o.envErr(err)
	}
	if opts.Show != "" && show.source == nil && len(show.notCached) == 0 {
		return &cmdutil.ExitError{Code: cmdutil.ExitEnv,
			Err:  fmt.Errorf("cannot show script %s: no node has SCRIPT SHOW (Valkey 8.0 and later have it; Redis cannot read a cached script back): %s", opts.Show, strings.Join(show.unsupported, ", ")),
			Hint: "find the SHA in your repository's scripts.sum: 'scriptctl inspect --sum scripts.sum' labels every released SHA"}
	}
	if opts.ExitCode && len(rep.Mismatches) > 0 {
		opts.IO.Notice("%d item(s) differ between nodes that should agree", len(rep.Mismatches))
	}
	if diag.Count(ds, diag.Error) > 0 {
		return cmdutil.Findings()
	}
	return nil
}

// inspectDiagnostics are the mismatches as shared diagnostics, code
// differs: severity error with --exit-code (they exit 1), else warning.
// Inspect reads no manifest: a script's position is the --sum file and
// line that first records its SHA, else the SHA itself; a library's is its
// name.
func inspectDiagnostics(rep *loader.InspectReport, at map[string]diag.Diagnostic, exitCode bool) []diag.Diagnostic {
	sev := diag.Warning
	if exitCode {
		sev = diag.Error
	}
	var ds []diag.Diagnostic
	for _, m := range rep.Mismatches {
		d := inspectPos(m.Kind, m.Name, at)
		d.Severity, d.Code, d.Message = sev, codeInspectDiffers, m.String()
		ds = append(ds, d)
	}
	return ds
}

// inspectPos is where inspect reports a finding about a library or script
// (inspectDiagnostics).
func inspectPos(kind, name string, at map[string]diag.Diagnostic) diag.Diagnostic {
	if d, ok := at[name]; ok && kind == loader.KindScript {
		return d
	}
	return diag.Diagnostic{File: name}
}

// showOutcome is what the nodes answered to --show: the source from the
// first node that showed it, the nodes that do not cache it and those that
// cannot show scripts.
type showOutcome struct {
	source                 []byte
	node                   string
	notCached, unsupported []string
}

func showResult(rep *loader.InspectReport) showOutcome {
	var out showOutcome
	for _, ni := range rep.Nodes {
		if !ni.Node.OK() {
			continue
		}
		for _, s := range ni.Sources {
			switch s.State {
			case loader.SourceShown:
				if out.source == nil {
					out.source, out.node = s.Source, ni.Node.Addr
				}
			case loader.SourceUnsupported:
				out.unsupported = append(out.unsupported, fmt.Sprintf("%s (%s %s)", ni.Node.Addr, ni.Node.Family, ni.Node.Version))
			default:
				out.notCached = append(out.notCached, ni.Node.Addr)
			}
		}
	}
	return out
}

// diagnostic is a script that no node able to show it holds (exit 1).
func (s showOutcome) diagnostic(sha string, at map[string]diag.Diagnostic) (diag.Diagnostic, bool) {
	if s.source != nil || len(s.notCached) == 0 {
		return diag.Diagnostic{}, false
	}
	d := inspectPos(loader.KindScript, sha, at)
	d.Severity, d.Code = diag.Error, codeNotCached
	d.Message = fmt.Sprintf("script %s is not in the script cache of %s", sha, strings.Join(s.notCached, ", "))
	if len(s.unsupported) > 0 {
		d.Detail = []string{fmt.Sprintf("and %s cannot show scripts (no SCRIPT SHOW)", strings.Join(s.unsupported, ", "))}
	}
	return d, true
}

// write prints the shown source on stdout, exactly.
func (s showOutcome) write(ios *iostreams.IOStreams, sha string) error {
	if s.source == nil {
		return nil
	}
	ios.Notice("script %s, as %s holds it", sha, s.node)
	src := string(s.source)
	if ios.StdoutTTY {
		src = iostreams.Safe(src, true)
	}
	_, err := fmt.Fprint(ios.Out, src)
	return err
}

func (o *online) inspectTable(ios *iostreams.IOStreams, rep *loader.InspectReport, labels map[string][]string) error {
	t := ios.NewTable("NODE", "ROLE", "SERVER", "KIND", "NAME", "SHA", colorCell(ios, "", "STATE"), "DETAIL")
	for _, ni := range rep.Nodes {
		n := ni.Node
		if !n.OK() {
			t.Row(n.Addr, string(n.Role), serverCell(n), "-", "-", "-", colorCell(ios, iostreams.Red, loader.Class(n.Err)), oneLineCell(o.errString(n.Err)))
			continue
		}
		rows := 0
		row := func(kind, name, sha, state string, differs bool, detail string) {
			color := ""
			if differs {
				color = iostreams.Red
			}
			t.Row(n.Addr, string(n.Role), serverCell(n), kind, name, sha, colorCell(ios, color, state), cellOrDash(oneLineCell(detail)))
			rows++
		}
		if !ni.Functions {
			row(loader.KindLibrary, "-", "-", "unsupported", false, fmt.Sprintf("%s %s has no Functions (Redis 7.0+)", n.Family, n.Version))
		}
		for _, l := range ni.Libraries {
			differs := ni.LibraryDiffers[strings.ToLower(l.Name)]
			state := "loaded"
			if differs {
				state = "differs"
			}
			row(loader.KindLibrary, l.Name, abbrevSHA(l.CodeSHA), state, differs, functionsCell(l.Functions))
		}
		for _, name := range ni.Absent {
			row(loader.KindLibrary, name, "-", "absent", true, "other nodes that should agree hold it")
		}
		for i, sha := range rep.SHAs {
			state := loader.ValueMissing
			if ni.Scripts[i] {
				state = loader.ValueCached
			}
			label := strings.Join(labels[sha], ", ")
			row(loader.KindScript, cellOrDash(label), abbrevSHA(sha), state, ni.ScriptDiffers[i], "")
		}
		if rows == 0 {
			row("-", "-", "-", "empty", false, "no libraries")
		}
	}
	return t.Render()
}

// functionsCell lists a library's functions with their flags:
// "get [no-writes], set".
func functionsCell(fns []loader.FunctionInfo) string {
	var parts []string
	for _, f := range fns {
		s := f.Name
		if len(f.Flags) > 0 {
			s += " [" + strings.Join(f.Flags, ",") + "]"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", ")
}

// inspectJSON is the --format json document of inspect (docs/json.md).
type inspectJSON struct {
	FormatVersion string             `json:"format_version"`
	Command       string             `json:"command"`
	Cluster       bool               `json:"cluster"`
	SHAs          []inspectSHAJSON   `json:"shas"`
	Mismatches    []mismatchJSON     `json:"mismatches"`
	Nodes         []inspectNodeJSON  `json:"nodes"`
	Shown         *inspectSourceJSON `json:"shown,omitempty"`
	Diagnostics   []diag.Diagnostic  `json:"diagnostics"`
}

type inspectSHAJSON struct {
	SHA      string   `json:"sha"`
	Releases []string `json:"releases"`
}

type mismatchJSON struct {
	Kind     string        `json:"kind"`
	Name     string        `json:"name"`
	Group    string        `json:"group"`
	Variants []variantJSON `json:"variants"`
	// Gaps: the cluster primaries serving slots without the item, "addr
	// (slots a-b)"; omitted when none.
	Gaps []string `json:"gaps,omitempty"`
}

type variantJSON struct {
	Value string   `json:"value"`
	Nodes []string `json:"nodes"`
}

type inspectNodeJSON struct {
	nodeJSON
	Functions bool                 `json:"functions"`
	Libraries []inspectLibraryJSON `json:"libraries"`
	Scripts   []inspectScriptJSON  `json:"scripts"`
}

type inspectLibraryJSON struct {
	Name      string            `json:"name"`
	State     string            `json:"state"`
	Engine    string            `json:"engine,omitempty"`
	CodeSHA   string            `json:"code_sha,omitempty"`
	Functions []inspectFuncJSON `json:"functions"`
	Differs   bool              `json:"differs"`
}

type inspectFuncJSON struct {
	Name        string   `json:"name"`
	Description string   `json:"description,omitempty"`
	Flags       []string `json:"flags"`
}

type inspectScriptJSON struct {
	SHA     string `json:"sha"`
	Cached  bool   `json:"cached"`
	Differs bool   `json:"differs"`
}

type inspectSourceJSON struct {
	SHA    string `json:"sha"`
	Node   string `json:"node,omitempty"`
	Source string `json:"source,omitempty"`
	// State: shown, not_cached (no node holds it), unsupported (no node
	// has SCRIPT SHOW).
	State string `json:"state"`
}

func (o *online) inspectJSON(rep *loader.InspectReport, labels map[string][]string) inspectJSON {
	out := inspectJSON{FormatVersion: jsonFormatVersion, Command: "inspect", Cluster: rep.Cluster,
		SHAs: []inspectSHAJSON{}, Mismatches: []mismatchJSON{}, Nodes: []inspectNodeJSON{}, Diagnostics: []diag.Diagnostic{}}
	for _, sha := range rep.SHAs {
		out.SHAs = append(out.SHAs, inspectSHAJSON{SHA: sha, Releases: append([]string{}, labels[sha]...)})
	}
	for _, m := range rep.Mismatches {
		mj := mismatchJSON{Kind: m.Kind, Name: m.Name, Group: m.Group, Gaps: m.Gaps}
		for _, v := range m.Variants {
			mj.Variants = append(mj.Variants, variantJSON{Value: v.Value, Nodes: v.Nodes})
		}
		out.Mismatches = append(out.Mismatches, mj)
	}
	for _, ni := range rep.Nodes {
		nj := inspectNodeJSON{nodeJSON: o.node(ni.Node), Functions: ni.Functions, Libraries: []inspectLibraryJSON{}, Scripts: []inspectScriptJSON{}}
		if ni.Node.OK() {
			for _, l := range ni.Libraries {
				lj := inspectLibraryJSON{Name: l.Name, State: "loaded", Engine: l.Engine, CodeSHA: l.CodeSHA,
					Functions: []inspectFuncJSON{}, Differs: ni.LibraryDiffers[strings.ToLower(l.Name)]}
				if lj.Differs {
					lj.State = "differs"
				}
				for _, f := range l.Functions {
					lj.Functions = append(lj.Functions, inspectFuncJSON{Name: f.Name, Description: f.Description, Flags: append([]string{}, f.Flags...)})
				}
				nj.Libraries = append(nj.Libraries, lj)
			}
			for _, name := range ni.Absent {
				nj.Libraries = append(nj.Libraries, inspectLibraryJSON{Name: name, State: loader.ValueAbsent, Functions: []inspectFuncJSON{}, Differs: true})
			}
			for i, sha := range rep.SHAs {
				nj.Scripts = append(nj.Scripts, inspectScriptJSON{SHA: sha, Cached: ni.Scripts[i], Differs: ni.ScriptDiffers[i]})
			}
			for _, s := range ni.Sources {
				switch {
				case s.State == loader.SourceShown && (out.Shown == nil || out.Shown.State != loader.SourceShown):
					out.Shown = &inspectSourceJSON{SHA: s.SHA, Node: ni.Node.Addr, Source: string(s.Source), State: s.State}
				case out.Shown == nil || (out.Shown.State == loader.SourceUnsupported && s.State == loader.SourceNotCached):
					out.Shown = &inspectSourceJSON{SHA: s.SHA, State: s.State}
				}
			}
		}
		out.Nodes = append(out.Nodes, nj)
	}
	return out
}
