package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/scriptctl/scriptctl/internal/cmdutil"
	"github.com/scriptctl/scriptctl/internal/diag"
	"github.com/scriptctl/scriptctl/internal/iostreams"
	"github.com/scriptctl/scriptctl/internal/udiff"
	"github.com/scriptctl/scriptctl/loader"
)

type diffOptions struct {
	IO       *iostreams.IOStreams
	Manifest string
	Conn     connFlags
	Mode     loader.Mode
}

func newCmdDiff(g *globalOptions) *cobra.Command {
	opts := &diffOptions{IO: g.IO}
	cmd := &cobra.Command{
		Use:   "diff",
		Short: "Show how the code on the servers differs from the repository's",
		Long: `Compare, on every node, the code the servers hold with the repository's:
the manifest's Functions library <library>_v<version> (FUNCTION LIST
WITHCODE), printed as a unified diff of the library code per group of nodes
holding the same code ("---" the repository, "+++" the nodes); and each
script, by its SHA in the script cache. A node missing a script is named with
the older releases scripts.sum records that it still caches, and where the
server can read a cached script back (SCRIPT SHOW: Valkey 8.0 and later) the
newest of them is diffed against the repository's file.

Each group of nodes that does not hold the repository's code is also a
finding on stderr, "FILE: error STATE: ..." (STATE differs, absent or
missing; FILE the script's, or the manifest for the library), and the
"diagnostics" of --format json.

Exit status: 0 when every node holds the repository's code; 1 when anything
differs, is absent or missing; 3 when a node cannot be reached (the others
are still compared).`,
		Example: `  scriptctl diff --url redis://10.0.0.5:6379
  scriptctl diff --url redis://10.0.0.5:6379 --mode functions --format json`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			mode, err := opts.Conn.check(cmd)
			if err != nil {
				return err
			}
			opts.Mode = mode
			opts.Manifest = g.Manifest
			return runDiff(cmd.Context(), opts)
		},
	}
	opts.Conn.register(cmd)
	return cmd
}

func runDiff(ctx context.Context, opts *diffOptions) error {
	o, err := opts.Conn.discover(ctx, opts.IO, "diff", opts.Manifest, opts.Mode)
	if err != nil {
		return err
	}
	defer o.close()
	m := o.m
	rep, err := loader.Diff(ctx, o.topo, m, loader.Options{Mode: o.mode, Ledger: o.ledger})
	if err != nil {
		return o.envErr(err)
	}
	scripts, paths := map[string]string{}, map[string]string{}
	for _, s := range m.Scripts {
		scripts[s.Name] = s.File
		paths[s.Name] = displayPath(s.Path)
	}
	ds := diffDiagnostics(rep, displayPath(m.Path), paths)
	if opts.Conn.Format == "json" {
		doc := o.diffJSON(rep, scripts)
		doc.Diagnostics = diag.Normalize(ds)
		err = writeJSONDoc(opts.IO, doc)
	} else {
		err = writeDiffText(opts.IO, rep, scripts)
		for _, d := range ds {
			opts.IO.Notice("%s", d)
		}
	}
	if err != nil {
		return err
	}
	if err := rep.Unreachable(); err != nil {
		return o.envErr(err)
	}
	if rep.Differs() {
		n := 0
		for _, it := range rep.Items {
			if it.Differs() {
				n++
			}
		}
		opts.IO.Notice("%d item(s) differ from the repository: 'scriptctl plan' shows what a deploy would load", n)
		return cmdutil.Findings()
	}
	return nil
}

// diffDiagnostics are diff's findings in the shared shape, severity
// error, one per group of nodes whose code is not the repository's: code
// the group's state (differs, absent, missing), at the script's file or,
// for the library, the manifest; the message is the text report's line
// for the group.
func diffDiagnostics(rep *loader.DiffReport, manifestPath string, paths map[string]string) []diag.Diagnostic {
	var ds []diag.Diagnostic
	for _, it := range rep.Items {
		for _, g := range it.Groups {
			if g.State == loader.DiffSame || g.State == loader.DiffUnsupported {
				continue
			}
			file := manifestPath
			if p, ok := paths[it.Name]; ok && it.Kind == loader.KindScript {
				file = p
			}
			ds = append(ds, diag.Diagnostic{File: file, Severity: diag.Error, Code: g.State,
				Message: fmt.Sprintf("%s: %s on %s%s", itemLabel(it), g.State, strings.Join(g.Nodes, ", "), groupExtra(it, g))})
		}
	}
	return ds
}

// groupExtra is what the text report says a group holds: " (code ...)",
// " (caches v1 ...)", " (holds x_v1)" or "".
func groupExtra(it loader.DiffItem, g loader.DiffGroup) string {
	switch {
	case g.State == loader.DiffDiffers:
		return " (code " + abbrevSHA(g.CodeSHA) + ")"
	case len(g.Holds) > 0 && it.Kind == loader.KindScript:
		var hs []string
		for _, h := range g.Holds {
			v, sha, _ := strings.Cut(h, " ")
			hs = append(hs, v+" "+abbrevSHA(sha))
		}
		return " (caches " + strings.Join(hs, ", ") + ")"
	case len(g.Holds) > 0:
		return " (holds " + strings.Join(g.Holds, ", ") + ")"
	}
	return ""
}

// itemLabel names an item for the text report: "library x_v1", "script
// acquire 418f8f98dba7".
func itemLabel(it loader.DiffItem) string {
	if it.Kind == loader.KindScript {
		return fmt.Sprintf("script %s %s", it.Name, abbrevSHA(it.SHA))
	}
	return "library " + it.Name
}

// groupDiff is the unified diff of a group's code against the repository's,
// or "" when the group holds none to compare.
func groupDiff(it loader.DiffItem, g loader.DiffGroup, scripts map[string]string) string {
	if g.Code == nil {
		return ""
	}
	repo := "repository " + it.Name
	theirs := strings.Join(g.Nodes, ", ") + " " + it.Name
	if it.Kind == loader.KindScript {
		repo = "repository " + scripts[it.Name]
		theirs = strings.Join(g.Nodes, ", ") + " " + abbrevSHA(g.CodeSHA) + " (SCRIPT SHOW)"
	}
	return udiff.Unified(repo, theirs, string(it.Code), string(g.Code))
}

func writeDiffText(ios *iostreams.IOStreams, rep *loader.DiffReport, scripts map[string]string) error {
	p := &iostreams.Printer{W: ios.Out}
	reachable := 0
	for _, n := range rep.Nodes {
		if n.OK() {
			reachable++
		}
	}
	for _, it := range rep.Items {
		for _, g := range it.Groups {
			where := "on " + strings.Join(g.Nodes, ", ")
			if len(g.Nodes) == reachable && reachable > 2 {
				where = fmt.Sprintf("on all %d nodes", reachable)
			}
			extra := groupExtra(it, g)
			state := g.State
			if g.State != loader.DiffSame && g.State != loader.DiffUnsupported {
				state = ios.Paint(iostreams.Red, state)
			}
			p.Printf("%s: %s %s%s\n", itemLabel(it), state, where, extra)
			if d := groupDiff(it, g, scripts); d != "" {
				if ios.StdoutTTY {
					d = iostreams.Safe(d, true)
				}
				p.Printf("%s", d)
			}
		}
	}
	return p.Err
}

// diffJSON is the --format json document of diff (docs/json.md).
type diffJSON struct {
	libraryDocJSON
	Differs     bool              `json:"differs"`
	Items       []diffItemJSON    `json:"items"`
	Nodes       []nodeJSON        `json:"nodes"`
	Diagnostics []diag.Diagnostic `json:"diagnostics"`
}

type diffItemJSON struct {
	Kind    string          `json:"kind"`
	Name    string          `json:"name"`
	SHA     string          `json:"sha"`
	Differs bool            `json:"differs"`
	Groups  []diffGroupJSON `json:"groups"`
}

type diffGroupJSON struct {
	State   string   `json:"state"`
	Nodes   []string `json:"nodes"`
	CodeSHA string   `json:"code_sha,omitempty"`
	Holds   []string `json:"holds,omitempty"`
	Diff    string   `json:"diff,omitempty"`
}

func (o *online) diffJSON(rep *loader.DiffReport, scripts map[string]string) diffJSON {
	out := diffJSON{libraryDocJSON: libraryDoc("diff", rep.Library, rep.LibraryName, rep.Version, rep.Mode), Differs: rep.Differs(), Items: []diffItemJSON{}, Nodes: []nodeJSON{},
		Diagnostics: []diag.Diagnostic{}}
	for _, it := range rep.Items {
		ij := diffItemJSON{Kind: it.Kind, Name: it.Name, SHA: it.SHA, Differs: it.Differs(), Groups: []diffGroupJSON{}}
		for _, g := range it.Groups {
			ij.Groups = append(ij.Groups, diffGroupJSON{State: g.State, Nodes: g.Nodes, CodeSHA: g.CodeSHA, Holds: g.Holds, Diff: groupDiff(it, g, scripts)})
		}
		out.Items = append(out.Items, ij)
	}
	for _, n := range rep.Nodes {
		out.Nodes = append(out.Nodes, o.node(n))
	}
	return out
}
