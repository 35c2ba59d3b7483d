package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/scriptctl/scriptctl/internal/cmdutil"
	"github.com/scriptctl/scriptctl/manifest"
)

// resolveManifest settles -m for every command that reads a manifest, in one
// place (the root's pre-run): when -m is not given, manifest.yaml is searched
// in the current folder and its parents, up to the repository root (.git)
// or the filesystem root (manifest.Find). A manifest found above the current
// folder is named on stderr and used through its relative path, so that
// paths inside it still resolve from its own folder.
//
// When none is found, -m keeps its default and the command runs: its flag
// errors come first, and a command that can do without a manifest (lint
// FILE...) does. Only when the command then fails because manifest.yaml does
// not exist is its error replaced by a usage error (exit 2) that names the
// folders searched and points to -m and to inspect.
func resolveManifest(c *cobra.Command, g *globalOptions) error {
	if readsNoManifest(c) || c.Flags().Changed("manifest") || completionCommand(c) || c.RunE == nil {
		return nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return cmdutil.Env(fmt.Errorf("find the manifest: %w", err))
	}
	path, err := manifest.Find(wd)
	var nf *manifest.NotFoundError
	switch {
	case errors.As(err, &nf):
		runE := c.RunE
		c.RunE = func(cmd *cobra.Command, args []string) error {
			err := runE(cmd, args)
			var pe *fs.PathError
			if errors.As(err, &pe) && pe.Path == g.Manifest && errors.Is(pe.Err, fs.ErrNotExist) {
				return cmdutil.Usage(nf, fmt.Sprintf("'%s -m path/to/manifest.yaml'; to see what servers hold without a manifest, 'scriptctl inspect --url URL'", cmd.CommandPath()))
			}
			return err
		}
		return nil
	case err != nil:
		return cmdutil.Env(fmt.Errorf("find the manifest: %w", err))
	}
	if filepath.Dir(path) == wd {
		return nil // ./manifest.yaml, the default
	}
	if rel, err := filepath.Rel(wd, path); err == nil {
		g.Manifest = rel
	} else {
		g.Manifest = path
	}
	g.IO.Notice("using %s (found above the current folder)", path)
	return nil
}

// completionCommand reports whether c is one of cobra's completion
// commands, which read no manifest.
func completionCommand(c *cobra.Command) bool {
	for p := c; p != nil; p = p.Parent() {
		if strings.HasPrefix(p.Name(), "__") || p.Name() == "completion" {
			return true
		}
	}
	return false
}
