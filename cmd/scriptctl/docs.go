package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"

	"github.com/scriptctl/scriptctl/internal/cmdutil"
	"github.com/scriptctl/scriptctl/internal/iostreams"
)

//go:generate go run . docs markdown ../../docs/cli

func init() {
	commands = append(commands, func(g *globalOptions) *cobra.Command { return withoutManifest(newCmdDocs(g)) })
}

func newCmdDocs(g *globalOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "docs",
		Short: "Write the CLI reference: man pages or Markdown",
		Long: `Write the reference of every scriptctl command, generated from the commands
themselves: man pages (section 1) or Markdown, one file per command, into DIR
(created when missing). The repository keeps the Markdown form in docs/cli/,
regenerated with 'go generate ./cmd/scriptctl'.`,
		Example: `  scriptctl docs man /usr/local/share/man/man1
  scriptctl docs markdown docs/cli`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return cmdutil.Usage(fmt.Errorf("unknown command %q for %q", args[0], cmd.CommandPath()), "'scriptctl docs man DIR' or 'scriptctl docs markdown DIR'")
			}
			return cmd.Help()
		},
	}
	for _, kind := range []string{"man", "markdown"} {
		var format string
		sub := &cobra.Command{
			Use:   kind + " DIR",
			Short: map[string]string{"man": "Write a man page per command into DIR", "markdown": "Write a Markdown page per command into DIR"}[kind],
			Long: map[string]string{"man": "Write a man page (section 1) per command into DIR, created when missing.",
				"markdown": "Write a Markdown page per command into DIR, created when missing."}[kind] + `
With --format json, print the files written:
{"format_version": "1", "command": "docs ` + kind + `", "dir": DIR, "files": [...]}.`,
			Args: exactArgs(1),
			RunE: func(c *cobra.Command, args []string) error {
				if err := checkFormat(c, format, "text", "json"); err != nil {
					return err
				}
				if err := runDocs(g.IO, c.Root(), kind, args[0]); err != nil {
					return err
				}
				if format != "json" {
					return nil
				}
				return writeJSONDoc(g.IO, docsJSON{FormatVersion: "1", Command: "docs " + kind, Dir: args[0], Files: docFiles(c.Root(), kind)})
			},
		}
		sub.Flags().StringVar(&format, "format", "text", "output format: text or json")
		cmd.AddCommand(withoutManifest(sub))
	}
	return cmd
}

// docsJSON is the --format json document of docs man and docs markdown.
type docsJSON struct {
	FormatVersion string   `json:"format_version"`
	Command       string   `json:"command"`
	Dir           string   `json:"dir"`
	Files         []string `json:"files"` // base names, in command order
}

// docFiles names the files cobra's generator writes for root's commands:
// one per available command that is not a help topic, named by its path
// ("scriptctl_new_script.md", "scriptctl-new-script.1").
func docFiles(root *cobra.Command, kind string) []string {
	var out []string
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c != root && (!c.IsAvailableCommand() || c.IsAdditionalHelpTopicCommand()) {
			return
		}
		if kind == "man" {
			out = append(out, strings.ReplaceAll(c.CommandPath(), " ", "-")+".1")
		} else {
			out = append(out, strings.ReplaceAll(c.CommandPath(), " ", "_")+".md")
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	return out
}

// runDocs writes the reference of root's commands into dir.
func runDocs(ios *iostreams.IOStreams, root *cobra.Command, kind, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return cmdutil.Env(err)
	}
	disableAutoGenTag(root)
	var err error
	if kind == "man" {
		err = doc.GenManTree(root, &doc.GenManHeader{Title: "SCRIPTCTL", Section: "1", Source: "scriptctl " + buildVersion().Version, Manual: "scriptctl manual"}, dir)
	} else {
		err = doc.GenMarkdownTree(root, dir)
	}
	if err != nil {
		return cmdutil.Env(err)
	}
	ios.Progress("wrote the %s reference into %s", kind, dir)
	return nil
}

// disableAutoGenTag leaves out cobra's "Auto generated ... on <date>" line,
// so the reference changes only when the commands do.
func disableAutoGenTag(c *cobra.Command) {
	c.DisableAutoGenTag = true
	for _, sub := range c.Commands() {
		disableAutoGenTag(sub)
	}
}
