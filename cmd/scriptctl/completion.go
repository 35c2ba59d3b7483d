package main

import (
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/scriptctl/scriptctl/internal/lazy"
	"github.com/scriptctl/scriptctl/internal/target"
	"github.com/scriptctl/scriptctl/manifest"
)

const completionLong = `Print a shell completion script for scriptctl: bash, zsh, fish or powershell.

Besides commands and flags, the shell completes names read from the manifest
(-m, default manifest.yaml): script names (sha, new scenario --script),
caller names (--caller), scenario files (verify, --scenario), model files
(--model), script files (lint, eval), target names (--target) and the values
of --format, --mode, --fail-on and the other flags with a fixed set of values.

  bash:        source <(scriptctl completion bash)
               (permanently: scriptctl completion bash > /etc/bash_completion.d/scriptctl)
  zsh:         scriptctl completion zsh > "${fpath[1]}/_scriptctl"
  fish:        scriptctl completion fish > ~/.config/fish/completions/scriptctl.fish
  powershell:  scriptctl completion powershell | Out-String | Invoke-Expression`

// addCompletion makes cobra's completion command visible and documented.
func addCompletion(root *cobra.Command) {
	root.CompletionOptions.HiddenDefaultCmd = false
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() == "completion" {
			c.Long = completionLong
			withoutManifest(c)
			for _, sub := range c.Commands() {
				withoutManifest(sub)
			}
		}
	}
}

// addDynamicCompletion attaches dynamic completion to every command's
// arguments and flags by name, so commands added later (in their own
// files) get it too: --target, --format and flags whose usage lists their
// values ("a, b or c"), --caller, --script, --scenario, --model, and the
// positional arguments of verify, sha, lint and eval. run calls it only
// for cobra's completion request (a process that runs a command does not
// pay for it).
func addDynamicCompletion(root *cobra.Command) {
	walkCommands(root, func(c *cobra.Command) {
		c.LocalNonPersistentFlags().VisitAll(func(f *pflag.Flag) { completeFlag(c, f) })
		if c.ValidArgsFunction != nil || c.ValidArgs != nil {
			return
		}
		switch c.CommandPath() {
		case "scriptctl verify":
			c.ValidArgsFunction = completeScenarios
		case "scriptctl sha":
			c.ValidArgsFunction = completeScripts
		case "scriptctl lint", "scriptctl eval":
			c.ValidArgsFunction = completeScriptFiles
		}
	})
}

func walkCommands(c *cobra.Command, fn func(*cobra.Command)) {
	fn(c)
	for _, sub := range c.Commands() {
		walkCommands(sub, fn)
	}
}

// valuesInUsage finds the fixed values a flag's usage names: "output
// format: text, json or sarif", "how scripts run: eval, function or both".
var valuesInUsage = lazy.Regexp(`: ([a-z0-9-]+(?:, [a-z0-9-]+)* or [a-z0-9-]+)`)

func completeFlag(c *cobra.Command, f *pflag.Flag) {
	if _, ok := c.GetFlagCompletionFunc(f.Name); ok {
		return
	}
	var fn cobra.CompletionFunc
	switch f.Name {
	case "target":
		fn = cobra.FixedCompletions(target.Names(), cobra.ShellCompDirectiveNoFileComp)
	case "caller":
		fn = completeCallers
	case "script":
		fn = completeScripts
	case "scenario":
		fn = completeScenarios
	case "model":
		fn = completeModels
	case "env":
		fn = completeEnvironments
	default:
		m := valuesInUsage.Get().FindStringSubmatch(f.Usage)
		if m == nil {
			return
		}
		vals := strings.Split(strings.ReplaceAll(m[1], " or ", ", "), ", ")
		if f.Name == "format" && !containsString(vals, "table") && containsString(vals, "text") {
			vals = append(vals, "table")
		}
		fn = cobra.FixedCompletions(vals, cobra.ShellCompDirectiveNoFileComp)
	}
	_ = c.RegisterFlagCompletionFunc(f.Name, fn)
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// completionManifest loads the manifest named by -m for a completion; nil
// when it cannot be loaded (completion then offers nothing).
func completionManifest(c *cobra.Command) *manifest.Manifest {
	path := "manifest.yaml"
	if f := c.Flags().Lookup("manifest"); f != nil {
		path = f.Value.String()
	}
	m, err := manifest.Load(path)
	if err != nil {
		return nil
	}
	return m
}

func completeEnvironments(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	var out []cobra.Completion
	if m := completionManifest(c); m != nil {
		out = append(out, m.EnvironmentNames()...)
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

func completeScripts(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	var out []cobra.Completion
	if m := completionManifest(c); m != nil {
		for _, s := range m.Scripts {
			if !containsString(args, s.Name) {
				out = append(out, s.Name)
			}
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

func completeCallers(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	var out []cobra.Completion
	if m := completionManifest(c); m != nil {
		for _, cl := range m.Callers {
			out = append(out, cl.Name)
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

func completeScriptFiles(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	var out []cobra.Completion
	if m := completionManifest(c); m != nil {
		for _, s := range m.Scripts {
			out = append(out, filepath.ToSlash(s.Path))
		}
	}
	// Files outside the manifest may be linted too.
	return out, cobra.ShellCompDirectiveDefault
}

// completeScenarios offers the scenario files beside the manifest
// (lua_test/*.yaml), as paths from the current folder.
func completeScenarios(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	return yamlFilesIn(c, "lua_test", args), cobra.ShellCompDirectiveDefault
}

// completeModels offers the model files beside the manifest (models/*.yaml
// and lua_test/models/*.yaml).
func completeModels(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	out := yamlFilesIn(c, "models", args)
	out = append(out, yamlFilesIn(c, filepath.Join("lua_test", "models"), args)...)
	return out, cobra.ShellCompDirectiveDefault
}

func yamlFilesIn(c *cobra.Command, dir string, skip []string) []cobra.Completion {
	base := "."
	if f := c.Flags().Lookup("manifest"); f != nil {
		base = filepath.Dir(f.Value.String())
	}
	found, _ := filepath.Glob(filepath.Join(base, dir, "*.yaml"))
	sort.Strings(found)
	var out []cobra.Completion
	for _, p := range found {
		p = filepath.ToSlash(p)
		if !containsString(skip, p) {
			out = append(out, p)
		}
	}
	return out
}
