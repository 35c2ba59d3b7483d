package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/scriptctl/scriptctl/internal/cmdutil"
	"github.com/scriptctl/scriptctl/internal/iostreams"
)

//go:generate go run . docs markdown ../../docs/cli

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
	var err error
	if kind == "man" {
		var date time.Time
		if date, err = manDate(); err == nil {
			err = writeRefTree(root, dir, "-", ".1", func(c *cobra.Command) []byte { return manPage(c, date) })
		}
	} else {
		err = writeRefTree(root, dir, "_", ".md", markdownPage)
	}
	if err != nil {
		return cmdutil.Env(err)
	}
	ios.Progress("wrote the %s reference into %s", kind, dir)
	return nil
}

// The reference is written here rather than by cobra's doc package: that
// package brings a Markdown renderer and a YAML library whose package
// initialisation every run of scriptctl paid, `version` included. The
// Markdown pages are the ones cobra's generator writes (docs/cli holds
// them); the man pages are roff written directly.

// writeRefTree writes page(c) for c and each available command under it,
// children first, into dir, named by the command path joined with sep.
func writeRefTree(c *cobra.Command, dir, sep, ext string, page func(*cobra.Command) []byte) error {
	for _, sub := range c.Commands() {
		if !sub.IsAvailableCommand() || sub.IsAdditionalHelpTopicCommand() {
			continue
		}
		if err := writeRefTree(sub, dir, sep, ext, page); err != nil {
			return err
		}
	}
	name := strings.ReplaceAll(c.CommandPath(), " ", sep) + ext
	return os.WriteFile(filepath.Join(dir, name), page(c), 0o644)
}

// seeAlso lists the commands a page links to: its parent and its available
// children by name (none for a command without either).
func seeAlso(c *cobra.Command) (parent *cobra.Command, children []*cobra.Command) {
	for _, sub := range c.Commands() {
		if sub.IsAvailableCommand() && !sub.IsAdditionalHelpTopicCommand() {
			children = append(children, sub)
		}
	}
	sort.SliceStable(children, func(i, j int) bool { return children[i].Name() < children[j].Name() })
	return c.Parent(), children
}

// markdownPage is c's Markdown reference page.
func markdownPage(c *cobra.Command) []byte {
	c.InitDefaultHelpCmd()
	c.InitDefaultHelpFlag()
	var buf bytes.Buffer
	name := c.CommandPath()
	buf.WriteString("## " + name + "\n\n" + c.Short + "\n\n")
	if c.Long != "" {
		buf.WriteString("### Synopsis\n\n" + c.Long + "\n\n")
	}
	if c.Runnable() {
		fmt.Fprintf(&buf, "```\n%s\n```\n\n", c.UseLine())
	}
	if c.Example != "" {
		fmt.Fprintf(&buf, "### Examples\n\n```\n%s\n```\n\n", c.Example)
	}
	for _, fs := range []struct {
		title string
		flags *pflag.FlagSet
	}{{"Options", c.NonInheritedFlags()}, {"Options inherited from parent commands", c.InheritedFlags()}} {
		if fs.flags.HasAvailableFlags() {
			buf.WriteString("### " + fs.title + "\n\n```\n" + fs.flags.FlagUsages() + "```\n\n")
		}
	}
	parent, children := seeAlso(c)
	if parent == nil && len(children) == 0 {
		return buf.Bytes()
	}
	buf.WriteString("### SEE ALSO\n\n")
	link := func(path, short string) {
		fmt.Fprintf(&buf, "* [%s](%s)\t - %s\n", path, strings.ReplaceAll(path, " ", "_")+".md", short)
	}
	if parent != nil {
		link(parent.CommandPath(), parent.Short)
	}
	for _, sub := range children {
		link(name+" "+sub.Name(), sub.Short)
	}
	buf.WriteString("\n")
	return buf.Bytes()
}

// manDate is the date on the man pages: SOURCE_DATE_EPOCH when set (a
// reproducible build), else now.
func manDate() (time.Time, error) {
	epoch := os.Getenv("SOURCE_DATE_EPOCH")
	if epoch == "" {
		return time.Now(), nil
	}
	sec, err := strconv.ParseInt(epoch, 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("invalid SOURCE_DATE_EPOCH: %w", err)
	}
	return time.Unix(sec, 0), nil
}

// manPage is c's man page (section 1), in roff.
func manPage(c *cobra.Command, date time.Time) []byte {
	c.InitDefaultHelpCmd()
	c.InitDefaultHelpFlag()
	var buf bytes.Buffer
	dashed := strings.ReplaceAll(c.CommandPath(), " ", "-")
	fmt.Fprintf(&buf, ".nh\n.TH \"SCRIPTCTL\" \"1\" \"%s\" \"%s\" \"scriptctl manual\"\n", date.Format("Jan 2006"), roffEscape("scriptctl "+buildVersion().Version))
	fmt.Fprintf(&buf, ".SH NAME\n%s \\- %s\n", roffEscape(dashed), roffEscape(c.Short))
	fmt.Fprintf(&buf, ".SH SYNOPSIS\n\\fB%s\\fP\n", roffEscape(c.UseLine()))
	desc := c.Long
	if desc == "" {
		desc = c.Short
	}
	buf.WriteString(".SH DESCRIPTION\n")
	for i, para := range strings.Split(strings.TrimSpace(desc), "\n\n") {
		if i > 0 {
			buf.WriteString(".PP\n")
		}
		if indented(para) {
			buf.WriteString(".EX\n" + roffLines(para) + ".EE\n")
		} else {
			buf.WriteString(roffLines(para))
		}
	}
	for _, fs := range []struct {
		title string
		flags *pflag.FlagSet
	}{{"OPTIONS", c.NonInheritedFlags()}, {"OPTIONS INHERITED FROM PARENT COMMANDS", c.InheritedFlags()}} {
		if !fs.flags.HasAvailableFlags() {
			continue
		}
		buf.WriteString(".SH " + fs.title + "\n")
		fs.flags.VisitAll(func(f *pflag.Flag) {
			if f.Deprecated != "" || f.Hidden {
				return
			}
			head := `\fB--` + roffEscape(f.Name) + `\fP`
			if f.Shorthand != "" && f.ShorthandDeprecated == "" {
				head = `\fB-` + roffEscape(f.Shorthand) + `\fP, ` + head
			}
			def := f.DefValue
			if f.Value.Type() == "string" {
				def = strconv.Quote(def)
			}
			if f.NoOptDefVal != "" {
				head += "[=" + roffEscape(def) + "]"
			} else {
				head += "=" + roffEscape(def)
			}
			buf.WriteString(".TP\n" + head + "\n" + roffLines(f.Usage))
		})
	}
	if c.Example != "" {
		buf.WriteString(".SH EXAMPLE\n.EX\n" + roffLines(c.Example) + ".EE\n")
	}
	parent, children := seeAlso(c)
	if parent == nil && len(children) == 0 {
		return buf.Bytes()
	}
	var refs []string
	if parent != nil {
		refs = append(refs, `\fB`+roffEscape(strings.ReplaceAll(parent.CommandPath(), " ", "-"))+`(1)\fP`)
	}
	for _, sub := range children {
		refs = append(refs, `\fB`+roffEscape(dashed+"-"+sub.Name())+`(1)\fP`)
	}
	buf.WriteString(".SH SEE ALSO\n" + strings.Join(refs, ", ") + "\n")
	return buf.Bytes()
}

// indented says whether every line of para starts with a space: an
// example or a list laid out by hand, kept as it is.
func indented(para string) bool {
	for l := range strings.SplitSeq(para, "\n") {
		if !strings.HasPrefix(l, " ") {
			return false
		}
	}
	return true
}

// roffLines is text as roff input lines, each escaped, a line that would
// start with a control character guarded.
func roffLines(text string) string {
	var b strings.Builder
	for l := range strings.SplitSeq(strings.TrimRight(text, "\n"), "\n") {
		l = roffEscape(l)
		if strings.HasPrefix(l, ".") || strings.HasPrefix(l, "'") {
			b.WriteString(`\&`)
		}
		b.WriteString(l + "\n")
	}
	return b.String()
}

// roffEscape escapes text for roff: a backslash prints as one.
func roffEscape(s string) string {
	return strings.ReplaceAll(s, `\`, `\e`)
}
