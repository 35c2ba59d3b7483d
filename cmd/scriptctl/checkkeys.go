package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/scriptctl/scriptctl/internal/cmdutil"
	"github.com/scriptctl/scriptctl/internal/iostreams"
	"github.com/scriptctl/scriptctl/manifest"
	"github.com/scriptctl/scriptctl/slot"
)

type checkKeysOptions struct {
	IO       *iostreams.IOStreams
	Manifest string
	Format   string
	Values   string
}

func newCmdCheckKeys(g *globalOptions) *cobra.Command {
	opts := &checkKeysOptions{IO: g.IO}
	cmd := &cobra.Command{
		Use:   "check-keys",
		Short: "Check that the keys each caller passes to a script share one hash slot",
		Long: `Check, for every caller in the manifest and every script it uses, that the
keys the caller binds to the script land in one Redis Cluster hash slot for
every placeholder value. A script whose keys span slots fails on a cluster
with CROSSSLOT.

A check is "proven" statically when every key's template has a hash tag (a
literal '{' with a literal '}' after it) and the tag is the same expression in
all of them; with --values any (the default) the proof also needs no
placeholder before the '{' and a tag that starts with a literal, because a
value can carry a brace or be empty: "{<id>}" with id="" hashes the whole key.
Otherwise the samples, adversarial values ("", "{", "}", "{}", long, unicode,
binary) and random ones are tried: "mismatch" reports the first assignment
that splits the keys (exit 1); "tested" means none did, but nothing is
proven (a warning).

--values says which placeholder values the proof covers: any (every byte
string) or plain (non-empty, without '{' or '}'), for applications that
guarantee that of every value.

A caller can narrow one placeholder's values in the manifest:

  callers:
    worker:
      keys: {list: "queues:{<queue>}", notify: "queues:{<queue>}:notify"}
      placeholders:
        queue: {pattern: '^[a-z][a-z0-9_-]*$'}   # and/or non_empty: true

The check then covers those values only (within --values). non_empty: true
excludes "" (here queue="}" still empties the tag); pattern is a Go
regular expression (RE2) matched like regexp.MatchString, unanchored unless
it says ^ and $. The proof reads off the pattern whether a value can be
empty, hold a '{' or start with '}'; the search tries only values the
pattern accepts, including ones built from it that hold braces, so a
counterexample is always a value the caller declared. The empty-string
counterexample stays the default.

Warnings (exit 0): a template without a hash tag; a hash tag without a
placeholder (every entity lands in one hot slot); with --values plain, a
declared placeholder of which no plain value was found (empty-domain).
(Samples or placeholders for a placeholder no template uses, a sample
outside its declared values, and a pattern that does not compile or that
no value satisfies make the manifest invalid: exit 2.)

Output: one row per caller and script (caller, script, keys, status, detail)
on stdout; problems, warnings and a summary on stderr.`,
		Example: `  scriptctl check-keys
  scriptctl check-keys -m deploy/manifest.yaml --format json
  scriptctl check-keys --values plain`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(cmd, opts.Format, "text", "json"); err != nil {
				return err
			}
			if !slot.Values(opts.Values).Valid() {
				return cmdutil.Usage(fmt.Errorf("invalid --values %q: want any or plain", opts.Values), fmt.Sprintf("'%s --help'", cmd.CommandPath()))
			}
			opts.Manifest = g.Manifest
			return runCheckKeys(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Format, "format", "text", "output format: text, table or json (text piped: tab-separated rows, no header; table: aligned, with a header)")
	cmd.Flags().StringVar(&opts.Values, "values", "any", "placeholder values the proof covers: any or plain (non-empty, no braces)")
	return cmd
}

func runCheckKeys(_ context.Context, opts *checkKeysOptions) error {
	m, err := manifest.Load(opts.Manifest)
	if err != nil {
		return cmdutil.Input(err)
	}
	r := slot.CheckWith(m, slot.Options{Values: slot.Values(opts.Values)})
	if opts.Format == "json" {
		if err := writeJSONDoc(opts.IO, r.Document()); err != nil {
			return err
		}
	} else {
		t := opts.IO.NewTable("CALLER", "SCRIPT", "KEYS", "STATUS", "DETAIL")
		for _, c := range r.Checks {
			t.Row(c.Caller, c.Script, c.KeyNames(","), string(c.Status), c.Detail())
		}
		if err := t.Render(); err != nil {
			return err
		}
		if err := r.WriteText(opts.IO.ErrOut); err != nil {
			return err
		}
	}
	if r.Failed() {
		return cmdutil.Findings()
	}
	return nil
}

// checkKeysStep is check-keys as a step of scriptctl check: a mismatch is an
// error, a warning a warning.
func checkKeysStep(_ context.Context, m *manifest.Manifest) stepResult {
	r := slot.CheckManifest(m)
	var res stepResult
	for _, c := range r.Mismatches() {
		line, col, field := c.Position()
		msg := fmt.Sprintf("script %s: keys %s can hash to different slots: %s; counterexample %s", c.Script, c.KeyNames(", "), c.Reason, c.Detail())
		res.Findings = append(res.Findings, checkFinding{Severity: "error", File: r.Manifest, Line: line, Col: col, Field: field, Code: "cross-slot", Message: msg})
	}
	for _, w := range r.Warnings {
		res.Findings = append(res.Findings, checkFinding{Severity: "warning", File: w.File, Line: w.Line, Col: w.Col, Field: w.Field, Code: w.Code, Message: w.Message})
	}
	res.Summary = fmt.Sprintf("%d proven, %d tested, %d mismatch", r.Count(slot.Proven), r.Count(slot.Tested), r.Count(slot.Mismatch))
	return res
}
