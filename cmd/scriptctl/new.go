package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/scriptctl/scriptctl/internal/cmdutil"
	"github.com/scriptctl/scriptctl/internal/iostreams"
	"github.com/scriptctl/scriptctl/manifest"
	"github.com/scriptctl/scriptctl/scaffold"
)

type newOptions struct {
	IO       *iostreams.IOStreams
	Manifest string
	Name     string
	Script   string   // new scenario --script
	Keys     []string // new script --keys (nil: the default)
	Args     []string // new script --args (nil: the default)
	Force    bool
	Format   string
}

func newCmdNew(g *globalOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "new",
		Short: "Add a scenario or a script to the repository",
		Long: `Add a file from a template: a scenario (scriptctl new scenario NAME) or a
script registered in the manifest (scriptctl new script NAME).`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return cmdutil.Usage(fmt.Errorf("unknown command %q for %q", args[0], cmd.CommandPath()), "'scriptctl new scenario NAME' or 'scriptctl new script NAME'")
			}
			return cmd.Help()
		},
	}
	cmd.AddCommand(newCmdNewScenario(g), newCmdNewScript(g))
	return cmd
}

func newCmdNewScenario(g *globalOptions) *cobra.Command {
	opts := &newOptions{IO: g.IO}
	cmd := &cobra.Command{
		Use:   "scenario NAME",
		Short: "Write lua_test/NAME.yaml: a scenario that calls a script once",
		Long: `Write lua_test/NAME.yaml beside the manifest: a scenario with one worker
that calls a script once (--script, default the first caller's first script)
with the caller's sample values and "1" for each arg, and checks nothing yet.
Fill in its keys, steps and expectations (format: lua_test/README.md);
'scriptctl verify' finds it without changing the manifest.

An existing file is never overwritten (a file-exists error, exit 2) unless
--force.`,
		Example: `  scriptctl new scenario double_release
  scriptctl new scenario slow_worker --script acquire
  scriptctl new scenario double_release --format json`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(cmd, opts.Format, "text", "json"); err != nil {
				return err
			}
			opts.Manifest, opts.Name = g.Manifest, args[0]
			if !scaffold.IsFileName(opts.Name) {
				return cmdutil.Usage(fmt.Errorf("invalid scenario name %q: use lowercase letters, digits, _ and -", opts.Name), fmt.Sprintf("'%s --help'", cmd.CommandPath()))
			}
			return runNewScenario(opts)
		},
	}
	cmd.Flags().StringVar(&opts.Script, "script", "", "the script the scenario calls (`name`); default the first caller's first script")
	cmd.Flags().BoolVar(&opts.Force, "force", false, "overwrite the file if it exists")
	cmd.Flags().StringVar(&opts.Format, "format", "text", "output format: text or json")
	return cmd
}

func runNewScenario(opts *newOptions) error {
	m, err := manifest.Load(opts.Manifest)
	if err != nil {
		return err
	}
	if opts.Script != "" && m.Script(opts.Script) == nil {
		return cmdutil.Usage(fmt.Errorf("%s declares no script %q", m.Path, opts.Script), "'scriptctl sha' lists the scripts")
	}
	doc := newScaffoldJSON("new scenario")
	path, err := scaffold.NewScenario(m, opts.Name, opts.Script, opts.Force)
	if err != nil {
		return newFileError(err, doc)
	}
	doc.Created = append(doc.Created, path)
	if opts.Format == "json" {
		return writeJSONDoc(opts.IO, doc)
	}
	_, err = fmt.Fprintf(opts.IO.Out, "created %s\n", path)
	return err
}

func newCmdNewScript(g *globalOptions) *cobra.Command {
	opts := &newOptions{IO: g.IO}
	cmd := &cobra.Command{
		Use:   "script NAME",
		Short: "Write lua/NAME.lua and register it in the manifest",
		Long: `Write lua/NAME.lua beside the manifest (a script with the keys and args of
--keys and --args, by default one key "key" and one arg "value") and add it
to the manifest's scripts: (file, keys, args), keeping the
manifest's comments and layout. The edited manifest is validated before it is
written; nothing is written when it does not validate. An existing
lua/NAME.lua is never overwritten (a file-exists error, exit 2) unless
--force.

Then: describe its keys and args, bind its keys in a caller, write a
scenario ('scriptctl new scenario NAME --script NAME'), and record the new
version (bump version, 'scriptctl sum').`,
		Example: `  scriptctl new script renew
  scriptctl new script renew --keys lease --args token,ttl_ms
  scriptctl new script ping --keys '' --args ''`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(cmd, opts.Format, "text", "json"); err != nil {
				return err
			}
			opts.Manifest, opts.Name = g.Manifest, args[0]
			if !scaffold.IsScriptName(opts.Name) {
				return cmdutil.Usage(fmt.Errorf("invalid script name %q: use lowercase letters, digits and _", opts.Name), fmt.Sprintf("'%s --help'", cmd.CommandPath()))
			}
			for _, f := range []struct {
				flag string
				list *[]string
			}{{"keys", &opts.Keys}, {"args", &opts.Args}} {
				if !cmd.Flags().Changed(f.flag) {
					*f.list = nil
					continue
				}
				if *f.list == nil {
					*f.list = []string{} // --keys '': none
				}
				for _, n := range *f.list {
					if !scaffold.IsScriptName(n) {
						return cmdutil.Usage(fmt.Errorf("invalid name %q in --%s: use lowercase letters, digits and _", n, f.flag), fmt.Sprintf("'%s --help'", cmd.CommandPath()))
					}
				}
			}
			return runNewScript(opts)
		},
	}
	cmd.Flags().StringSliceVar(&opts.Keys, "keys", nil, "the script's key `names`, in KEYS order, comma-separated ('' for none; default key)")
	cmd.Flags().StringSliceVar(&opts.Args, "args", nil, "the script's arg `names`, in ARGV order, comma-separated ('' for none; default value)")
	cmd.Flags().BoolVar(&opts.Force, "force", false, "overwrite the script file if it exists")
	cmd.Flags().StringVar(&opts.Format, "format", "text", "output format: text or json")
	return cmd
}

func runNewScript(opts *newOptions) error {
	doc := newScaffoldJSON("new script")
	paths, err := scaffold.NewScript(opts.Manifest, opts.Name, opts.Keys, opts.Args, opts.Force)
	if err != nil {
		return newFileError(err, doc)
	}
	doc.Created = append(doc.Created, paths[0])
	doc.Updated = append(doc.Updated, paths[1])
	if opts.Format == "json" {
		return writeJSONDoc(opts.IO, doc)
	}
	p := &iostreams.Printer{W: opts.IO.Out}
	p.Printf("created %s\nupdated %s (scripts.%s)\n", paths[0], paths[1], opts.Name)
	p.Printf("\nNext: bump version in %s and run 'scriptctl sum'; 'scriptctl new scenario NAME --script %s' to test it.\n", paths[1], opts.Name)
	return p.Err
}

// newFileError maps a scaffold error to its exit code: an existing file
// (reported as file-exists diagnostics, in doc with --format json) or an
// invalid manifest is invalid input (2), a failed write the environment.
func newFileError(err error, doc scaffoldJSON) error {
	var ee *scaffold.ExistsError
	if errors.As(err, &ee) {
		return refuseExisting(ee, doc, "--force overwrites it; or pick another name")
	}
	if errors.Is(err, manifest.ErrInvalid) {
		return err
	}
	return cmdutil.Input(err)
}

// exactArgs is cobra.ExactArgs with a usage error (exit 2).
func exactArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return cmdutil.Usage(fmt.Errorf("%s takes %d argument(s), got %d", cmd.CommandPath(), n, len(args)), fmt.Sprintf("'%s --help'", cmd.CommandPath()))
		}
		return nil
	}
}
