package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/spf13/cobra"

	"github.com/scriptctl/scriptctl/internal/cmdutil"
	"github.com/scriptctl/scriptctl/internal/iostreams"
	"github.com/scriptctl/scriptctl/internal/lazy"
	"github.com/scriptctl/scriptctl/loader"
	"github.com/scriptctl/scriptctl/manifest"
)

func init() { commands = append(commands, newCmdInspect) }

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
marked "differs" (or "absent" on a node missing a library its peers hold),
named on stderr, and exits 1 with --exit-code.

--show SHA prints the source of a cached script instead, from the first node
that has SCRIPT SHOW (Valkey 8.0 and later; Redis has no way to read a
cached script back).

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
				if !shaPattern().MatchString(s) {
					return cmdutil.Usage(fmt.Errorf("--sha %q is not a SHA1 (40 hex digits)", s), "'scriptctl sha' prints the SHA of each script")
				}
				opts.SHAs[i] = strings.ToLower(s)
			}
			if opts.Show != "" && !shaPattern().MatchString(opts.Show) {
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
	cmd.Flags().StringArrayVar(&f.URLs, "url", nil, "server `URL`, redis://[user@]host:port or rediss://...; repeatable (env SCRIPTCTL_URL)")
	f.registerSecurity(cmd, "the servers")
	cmd.Flags().StringVar(&f.Format, "format", "table", "output format: table or json")
	cmd.Long += "\n" + connHelp
}

// checkOnline validates --format and --timeout of a command registered with
// registerOnline.
func (f *connFlags) checkOnline(cmd *cobra.Command) error {
	f.Mode = string(loader.ModeBoth)
	_, err := f.check(cmd)
	return err
}

// sumLabels reads each scripts.sum and returns its SHAs, in the file's
// order, and for each SHA the releases that record it ("v1 acquire").
func sumLabels(paths []string) ([]string, map[string][]string, error) {
	var shas []string
	labels := map[string][]string{}
	for _, p := range paths {
		sum, err := manifest.ReadSum(p)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil, cmdutil.Usage(fmt.Errorf("--sum %s: no such file", p), "give the path of a scripts.sum")
		}
		if err != nil {
			return nil, nil, cmdutil.Input(err)
		}
		for _, e := range sum.Entries {
			sha := strings.ToLower(e.SHA)
			if labels[sha] == nil {
				shas = append(shas, sha)
			}
			labels[sha] = append(labels[sha], fmt.Sprintf("v%d %s", e.Version, e.Script))
		}
	}
	return shas, labels, nil
}

func runInspect(ctx context.Context, opts *inspectOptions) error {
	sumSHAs, labels, err := sumLabels(opts.Sums)
	if err != nil {
		return err
	}
	o, err := opts.Conn.connectAll(ctx, "inspect")
	if err != nil {
		return err
	}
	defer o.topo.Close()
	iopts := loader.InspectOptions{SHAs: append(append([]string{}, opts.SHAs...), sumSHAs...)}
	if opts.Show != "" {
		iopts.Show = []string{opts.Show}
	}
	rep, err := loader.Inspect(ctx, o.topo, iopts)
	if err != nil {
		return o.envErr(err)
	}
	if opts.Show != "" && opts.Conn.Format != "json" {
		return o.showSource(opts.IO, rep, opts.Show)
	}
	if opts.Conn.Format == "json" {
		err = writeJSONDoc(opts.IO, o.inspectJSON(rep, labels))
	} else {
		err = o.inspectTable(opts.IO, rep, labels)
	}
	if err != nil {
		return err
	}
	for _, m := range rep.Mismatches {
		opts.IO.Notice("differs: %s", m)
	}
	if err := rep.Unreachable(); err != nil {
		return o.envErr(err)
	}
	if opts.ExitCode && len(rep.Mismatches) > 0 {
		opts.IO.Notice("%d item(s) differ between nodes that should agree", len(rep.Mismatches))
		return cmdutil.Findings()
	}
	return nil
}

// showSource prints the source of sha from the first node that shows it.
func (o *online) showSource(ios *iostreams.IOStreams, rep *loader.InspectReport, sha string) error {
	var unsupported, notCached []string
	for _, ni := range rep.Nodes {
		if !ni.Node.OK() {
			continue
		}
		for _, s := range ni.Sources {
			switch s.State {
			case loader.SourceShown:
				ios.Notice("script %s, as %s holds it", sha, ni.Node.Addr)
				src := string(s.Source)
				if ios.StdoutTTY {
					src = iostreams.Safe(src, true)
				}
				_, err := fmt.Fprint(ios.Out, src)
				return err
			case loader.SourceUnsupported:
				unsupported = append(unsupported, fmt.Sprintf("%s (%s %s)", ni.Node.Addr, ni.Node.Family, ni.Node.Version))
			default:
				notCached = append(notCached, ni.Node.Addr)
			}
		}
	}
	if err := rep.Unreachable(); err != nil {
		return o.envErr(err)
	}
	if len(notCached) > 0 {
		ios.Notice("script %s is not in the script cache of %s", sha, strings.Join(notCached, ", "))
		if len(unsupported) > 0 {
			ios.Notice("and %s cannot show scripts (no SCRIPT SHOW)", strings.Join(unsupported, ", "))
		}
		return cmdutil.Findings()
	}
	return &cmdutil.ExitError{Code: cmdutil.ExitEnv,
		Err:  fmt.Errorf("cannot show script %s: no node has SCRIPT SHOW (Valkey 8.0 and later have it; Redis cannot read a cached script back): %s", sha, strings.Join(unsupported, ", ")),
		Hint: "find the SHA in your repository's scripts.sum: 'scriptctl inspect --sum scripts.sum' labels every released SHA"}
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
		SHAs: []inspectSHAJSON{}, Mismatches: []mismatchJSON{}, Nodes: []inspectNodeJSON{}}
	for _, sha := range rep.SHAs {
		out.SHAs = append(out.SHAs, inspectSHAJSON{SHA: sha, Releases: append([]string{}, labels[sha]...)})
	}
	for _, m := range rep.Mismatches {
		mj := mismatchJSON{Kind: m.Kind, Name: m.Name, Group: m.Group}
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
