package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/scriptctl/scriptctl/internal/cmdutil"
	"github.com/scriptctl/scriptctl/internal/iostreams"
	"github.com/scriptctl/scriptctl/manifest"
)

type shaOptions struct {
	IO       *iostreams.IOStreams
	Manifest string
	Format   string
	Scripts  []string
}

func newCmdSha(g *globalOptions) *cobra.Command {
	opts := &shaOptions{IO: g.IO}
	cmd := &cobra.Command{
		Use:   "sha [SCRIPT...]",
		Short: "Print the SHA1 of every script, as SCRIPT LOAD returns it",
		Long: `Print the SHA1 of each script's exact file bytes: the SHA that SCRIPT LOAD
returns and EVALSHA expects. Piped, one "<sha1><TAB><script><TAB><file>" line
per script and no header; on a terminal (or with --format table) an aligned
table with a header. With SCRIPT arguments, only those scripts.`,
		Example: `  scriptctl sha
  scriptctl sha acquire --format json`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(cmd, opts.Format, "text", "json"); err != nil {
				return err
			}
			opts.Manifest = g.Manifest
			opts.Scripts = args
			return runSha(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Format, "format", "text", "output format: text, table or json (text piped: tab-separated rows, no header; table: aligned, with a header)")
	return cmd
}

// shaJSON is the --format json document of scriptctl sha (docs/json.md).
type shaJSON struct {
	FormatVersion string          `json:"format_version"`
	Library       string          `json:"library"`
	Version       int             `json:"version"`
	Scripts       []shaScriptJSON `json:"scripts"`
}

type shaScriptJSON struct {
	Script string `json:"script"`
	File   string `json:"file"`
	SHA1   string `json:"sha1"`
}

func runSha(ctx context.Context, opts *shaOptions) error {
	m, err := manifest.Load(opts.Manifest)
	if err != nil {
		return err
	}
	scripts := m.Scripts
	if len(opts.Scripts) > 0 {
		scripts = nil
		for _, name := range opts.Scripts {
			s := m.Script(name)
			if s == nil {
				names := make([]string, len(m.Scripts))
				for i, sc := range m.Scripts {
					names[i] = sc.Name
				}
				mean := ""
				if sug := manifest.Suggest(name, names); sug != "" {
					mean = fmt.Sprintf(" (did you mean %q?)", sug)
				}
				return cmdutil.Usage(fmt.Errorf("unknown script %q%s: %s declares %s", name, mean, m.Path, shaScriptNames(m)), "'scriptctl sha' without arguments lists every script")
			}
			scripts = append(scripts, s)
		}
	}
	if opts.Format == "json" {
		doc := shaJSON{FormatVersion: "1", Library: m.Library, Version: m.Version, Scripts: []shaScriptJSON{}}
		for _, s := range scripts {
			doc.Scripts = append(doc.Scripts, shaScriptJSON{Script: s.Name, File: s.Path, SHA1: s.SHA})
		}
		return writeJSONDoc(opts.IO, doc)
	}
	t := opts.IO.NewTable("SHA1", "SCRIPT", "FILE")
	for _, s := range scripts {
		t.Row(s.SHA, s.Name, s.Path)
	}
	return t.Render()
}

func shaScriptNames(m *manifest.Manifest) string { return strings.Join(m.ScriptNames(), ", ") }

// writeJSONDoc writes v as indented JSON on stdout, without HTML escaping
// (key templates such as catalog:{product-<id>}:lease stay readable).
func writeJSONDoc(ios *iostreams.IOStreams, v any) error {
	enc := json.NewEncoder(ios.Out)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
