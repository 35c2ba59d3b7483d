package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"

	"github.com/spf13/cobra"

	"github.com/scriptctl/scriptctl/internal/cmdutil"
	"github.com/scriptctl/scriptctl/internal/iostreams"
	"github.com/scriptctl/scriptctl/manifest"
)

type sumOptions struct {
	IO       *iostreams.IOStreams
	Manifest string
	Format   string
	Force    bool
}

func newCmdSum(g *globalOptions) *cobra.Command {
	opts := &sumOptions{IO: g.IO}
	cmd := &cobra.Command{
		Use:   "sum",
		Short: "Record the current version's script SHA1s in scripts.sum",
		Long: `Record the manifest's current version in scripts.sum, beside the manifest:
one line "<version> <script> <sha1>" per script, the SHA1 of the file's exact
bytes. Lines of earlier versions are kept, so the file is the release history.

A released version is immutable: when scripts.sum already records the
current version with other bytes (or other scripts), sum refuses and exits 2.
Bump version in the manifest instead; --force rewrites the version's lines
(for a version that was never deployed).

The file is written atomically (a temporary file renamed over it). Prints one
row per script of the current version: version, script, sha1, and whether the
line was added, unchanged, changed or removed.`,
		Example: `  scriptctl sum
  scriptctl sum --force --format json`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(cmd, opts.Format, "text", "json"); err != nil {
				return err
			}
			opts.Manifest = g.Manifest
			return runSum(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.Force, "force", false, "rewrite the lines of an already recorded version")
	cmd.Flags().StringVar(&opts.Format, "format", "text", "output format: text, table or json (text piped: tab-separated rows, no header; table: aligned, with a header)")
	return cmd
}

// sumJSON is the --format json document of scriptctl sum (docs/json.md).
type sumJSON struct {
	FormatVersion string          `json:"format_version"`
	Path          string          `json:"path"`
	Version       int             `json:"version"`
	Written       bool            `json:"written"`
	Forced        bool            `json:"forced"`
	Scripts       []sumScriptJSON `json:"scripts"`
}

type sumScriptJSON struct {
	Script       string `json:"script"`
	File         string `json:"file"`
	SHA1         string `json:"sha1"`
	PreviousSHA1 string `json:"previous_sha1"`
	State        string `json:"state"`
}

func runSum(ctx context.Context, opts *sumOptions) error {
	m, err := manifest.Load(opts.Manifest)
	if err != nil {
		return err
	}
	path := m.SumPath()
	sum, err := manifest.ReadSum(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		sum = &manifest.Sum{Path: path}
	case err != nil:
		return err
	}
	released := len(sum.Version(m.Version)) > 0
	changes, err := sum.Record(m, opts.Force)
	var re *manifest.ReleasedError
	if errors.As(err, &re) {
		return cmdutil.Usage(err, fmt.Sprintf("bump version in %s (a released version is immutable), or 'scriptctl sum --force' to rewrite version %d if it was never deployed", m.Path, m.Version))
	}
	if err != nil {
		return err
	}
	written := false
	for _, c := range changes {
		written = written || c.State() != "unchanged"
	}
	forced := written && released
	if written {
		if err := manifest.WriteSum(path, sum); err != nil {
			return cmdutil.Env(err)
		}
		if forced {
			opts.IO.Notice("Rewrote the lines of version %d in %s (--force)", m.Version, path)
		} else {
			opts.IO.Progress("Recorded version %d in %s", m.Version, path)
		}
	} else {
		opts.IO.Progress("%s already records version %d", path, m.Version)
	}
	if opts.Format == "json" {
		doc := sumJSON{FormatVersion: "1", Path: path, Version: m.Version, Written: written, Forced: forced, Scripts: []sumScriptJSON{}}
		for _, c := range changes {
			doc.Scripts = append(doc.Scripts, sumScriptJSON{Script: c.Script, File: c.File, SHA1: c.New, PreviousSHA1: c.Old, State: c.State()})
		}
		return writeJSONDoc(opts.IO, doc)
	}
	t := opts.IO.NewTable("VERSION", "SCRIPT", "SHA1", "STATE")
	for _, c := range changes {
		sha := c.New
		if sha == "" {
			sha = c.Old
		}
		t.Row(fmt.Sprint(m.Version), c.Script, sha, c.State())
	}
	return t.Render()
}
