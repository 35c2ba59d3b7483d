package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/scriptctl/scriptctl/internal/cmdutil"
	"github.com/scriptctl/scriptctl/internal/diag"
	"github.com/scriptctl/scriptctl/internal/iostreams"
	"github.com/scriptctl/scriptctl/scaffold"
	"github.com/scriptctl/scriptctl/verify"
)

type initOptions struct {
	IO      *iostreams.IOStreams
	Dir     string
	Library string
	Targets []string
	Force   bool
	Format  string
}

func newCmdInit(g *globalOptions) *cobra.Command {
	opts := &initOptions{IO: g.IO}
	cmd := &cobra.Command{
		Use:   "init [DIR]",
		Short: "Start a repository of scripts: manifest, a script, scenarios, CI files",
		Long: `Write a working scriptctl repository into DIR (default: the current folder):

  manifest.yaml                    one script and one caller
  lua/release.lua                  the script: a token-safe lock release
  lua_test/release.yaml            a scenario for it
  lua_test/release_control.yaml    its negative control, with
  lua_test/controls/...            the unsafe variant it swaps in
  scripts.sum                      version 1 recorded
  .github/workflows/scriptctl.yml  GitHub Actions: check, SARIF, job summary
  .gitlab-ci.yml                   GitLab CI: check, JUnit test report
  README.md                        what to edit next

'scriptctl check' passes on the result. Existing files are never
overwritten: init refuses, reporting each as a file-exists error, and
exits 2, unless --force.`,
		Example: `  scriptctl init
  scriptctl init redis-scripts --library orders --target redis-7.0 --target valkey-8.1
  scriptctl init --format json`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 1 {
				return cmdutil.Usage(fmt.Errorf("unexpected argument %q", args[1]), fmt.Sprintf("'%s --help'", cmd.CommandPath()))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(cmd, opts.Format, "text", "json"); err != nil {
				return err
			}
			opts.Dir = "."
			if len(args) == 1 {
				opts.Dir = args[0]
			}
			if opts.Library != "" && !scaffold.IsLibraryName(opts.Library) {
				return cmdutil.Usage(fmt.Errorf("invalid --library %q: use letters, digits and _", opts.Library), fmt.Sprintf("'%s --help'", cmd.CommandPath()))
			}
			for _, t := range opts.Targets {
				if err := verify.CheckTarget(t); err != nil {
					return cmdutil.Usage(err, fmt.Sprintf("'%s --help'", cmd.CommandPath()))
				}
			}
			return runInit(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Library, "library", "", "the library `name` in the manifest (default: DIR's name)")
	cmd.Flags().StringSliceVar(&opts.Targets, "target", nil, "a server the scripts are proven on (`name`: redis-7.0, redis-8.0, valkey-8.1, ...); repeat or comma-separate; default redis-7.0")
	cmd.Flags().BoolVar(&opts.Force, "force", false, "overwrite files that already exist")
	cmd.Flags().StringVar(&opts.Format, "format", "text", "output format: text or json")
	return cmd
}

// scaffoldJSON is the --format json document of init, new scenario and new
// script (docs/json.md).
type scaffoldJSON struct {
	FormatVersion string            `json:"format_version"`
	Command       string            `json:"command"`
	Dir           string            `json:"dir,omitempty"` // init's folder
	Created       []string          `json:"created"`
	Updated       []string          `json:"updated"`
	Diagnostics   []diag.Diagnostic `json:"diagnostics"`
}

func newScaffoldJSON(command string) scaffoldJSON {
	return scaffoldJSON{FormatVersion: diag.FormatVersion, Command: command, Created: []string{}, Updated: []string{}, Diagnostics: []diag.Diagnostic{}}
}

// refuseExisting reports the files of ee as file-exists diagnostics, hint
// in their detail, in doc with --format json; invalid input (exit 2).
func refuseExisting(ee *scaffold.ExistsError, doc scaffoldJSON, hint string) error {
	ds := make([]diag.Diagnostic, len(ee.Files))
	for i, f := range ee.Files {
		ds[i] = diag.Diagnostic{
			File: filepath.Join(ee.Dir, filepath.FromSlash(f)), Severity: diag.Error, Code: "file-exists",
			Message: "exists; " + doc.Command + " does not overwrite it", Detail: []string{hint},
		}
	}
	doc.Diagnostics = diag.Normalize(ds)
	return cmdutil.Input(&diagError{ds: ds, doc: doc, err: ee})
}

func runInit(ctx context.Context, opts *initOptions) error {
	files, err := scaffold.Init(scaffold.InitOptions{
		Dir: opts.Dir, Library: opts.Library, Targets: opts.Targets, Force: opts.Force,
		Version: releaseVersion(),
	})
	doc := newScaffoldJSON("init")
	doc.Dir = opts.Dir
	var ee *scaffold.ExistsError
	if errors.As(err, &ee) {
		return refuseExisting(ee, doc, "--force overwrites it; or init another folder")
	}
	if err != nil {
		return cmdutil.Env(err)
	}
	for _, f := range files {
		doc.Created = append(doc.Created, filepath.ToSlash(filepath.Join(opts.Dir, f)))
	}
	if opts.Format == "json" {
		return writeJSONDoc(opts.IO, doc)
	}
	p := &iostreams.Printer{W: opts.IO.Out}
	for _, f := range doc.Created {
		p.Printf("created %s\n", f)
	}
	cd := ""
	if opts.Dir != "." {
		cd = fmt.Sprintf("cd %s && ", opts.Dir)
	}
	p.Printf("\nNext: %sscriptctl check; then edit lua/release.lua and manifest.yaml (README.md says how).\n", cd)
	return p.Err
}

// releaseVersion is the version CI files should install: this build's
// release version, or "latest" for a development build.
func releaseVersion() string {
	v := buildVersion().Version
	if strings.HasPrefix(v, "v") && !strings.Contains(v, "-0.") && !strings.Contains(v, "+dirty") && strings.Count(v, ".") == 2 {
		return v
	}
	return "latest"
}
