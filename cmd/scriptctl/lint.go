package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/scriptctl/scriptctl/internal/cmdutil"
	"github.com/scriptctl/scriptctl/internal/diag"
	"github.com/scriptctl/scriptctl/internal/iostreams"
	"github.com/scriptctl/scriptctl/lint"
	"github.com/scriptctl/scriptctl/manifest"
)

type lintOptions struct {
	IO *iostreams.IOStreams

	Manifest    string
	ManifestSet bool // -m given explicitly
	Format      string
	FailOn      lint.Severity
	Files       []string
	Profile     string // turns on default-off rules: strict-proxy
	// StrictKeys makes dynamic-key an error; StrictKeysSet records that
	// --strict-keys was given (else the manifest's strict_keys applies).
	StrictKeys    bool
	StrictKeysSet bool
}

func newCmdLint(g *globalOptions) *cobra.Command {
	opts := &lintOptions{IO: g.IO}
	var failOn string
	cmd := &cobra.Command{
		Use:   "lint [FILE...]",
		Short: "Check Lua scripts offline for what breaks in a cluster or in Redis's sandbox",
		Long: `Lint Redis Lua scripts without a server: parse them as Redis 7's Lua 5.1 does
(shebang stripped), track values through locals, and report what would break
in Redis Cluster or in the script sandbox: keys not passed in KEYS, globals,
forbidden or blocking commands, writes in no-writes scripts, unchecked TTLs
and more. Every rule, with a bad and a good example, is documented in
lint/README.md.

Without FILE arguments every script of the manifest is linted with the
manifest's declarations (key and arg counts, flags). A FILE the manifest does
not list gets every rule that does not need the manifest.

Output: "file:line:col: severity code: message" lines, each finding once at
the position of its cause, with an indented "reached from" line per call
path when the cause lies in a local function; --format json prints
{"format_version": "2", "diagnostics": [...]}, each {file, line, column,
severity, code, message, detail, related}; --format sarif prints SARIF 2.1.0
for GitHub code scanning (paths relative to the current directory, which
should be the repository root; call paths as relatedLocations).

A key not passed in KEYS (dynamic-key) is a warning: a standalone server
runs the script, and a cluster node does while the key hashes to the slot of
the declared keys (a shared hash tag such as {q}); otherwise the node refuses
it ("Script attempted to access a non local key in a cluster node", or
"... keys that do not hash to the same slot" for scripts with a shebang and
functions). With strict keys, --strict-keys or the manifest's strict_keys:
true, it is an error, as proxies that demand declared keys refuse it always.

--profile strict-proxy turns on key-alias, the rule of managed proxies
that read scripts: every key argument written KEYS[i], and keys declared;
it implies strict keys.

Silence one finding with a comment on its line or the line above:
  -- scriptctl:ignore <code> <reason>
A suppression without a reason is itself an error.

Exit codes: 0 no findings at or above --fail-on, 1 findings, 2 unreadable
input or invalid manifest.`,
		Example: `  scriptctl lint
  scriptctl lint --fail-on warning
  scriptctl lint lua/publish.lua
  scriptctl lint --format sarif > lint.sarif
  scriptctl lint --profile strict-proxy
  scriptctl lint --strict-keys`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(cmd, opts.Format, "text", "json", "sarif"); err != nil {
				return err
			}
			sev, err := lint.ParseSeverity(failOn)
			if err != nil {
				return cmdutil.Usage(fmt.Errorf("invalid --fail-on %q: want error or warning", failOn), fmt.Sprintf("'%s --help'", cmd.CommandPath()))
			}
			opts.FailOn = sev
			if opts.Profile != "" && !slices.Contains(lint.Profiles, opts.Profile) {
				return cmdutil.Usage(fmt.Errorf("invalid --profile %q: want %s", opts.Profile, strings.Join(lint.Profiles, ", ")), fmt.Sprintf("'%s --help'", cmd.CommandPath()))
			}
			opts.Manifest = g.Manifest
			opts.ManifestSet = cmd.Flags().Changed("manifest")
			opts.StrictKeysSet = cmd.Flags().Changed("strict-keys")
			opts.Files = args
			return runLint(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Format, "format", "text", "output format: text, json or sarif")
	cmd.Flags().StringVar(&failOn, "fail-on", "error", "exit 1 on findings of this severity or above: error or warning")
	cmd.Flags().StringVar(&opts.Profile, "profile", "", "turn on the rules of a deployment profile: strict-proxy (key-alias: every key argument written KEYS[i], numkeys > 0; strict keys)")
	cmd.Flags().BoolVar(&opts.StrictKeys, "strict-keys", false, "a key not declared in KEYS (dynamic-key) is an error, as proxies that demand declared keys refuse it; default the manifest's strict_keys, else a warning")
	return cmd
}

func runLint(ctx context.Context, opts *lintOptions) error {
	files, m, err := lintFiles(opts)
	if err != nil {
		return err
	}
	strict := opts.StrictKeys
	if !opts.StrictKeysSet && m != nil {
		strict = m.StrictKeys
	}
	ds, err := lint.Run(ctx, lint.Config{Files: files, Profile: opts.Profile, StrictKeys: strict})
	if err != nil {
		if errors.Is(err, lint.ErrUnreadable) {
			return cmdutil.Input(err)
		}
		return err
	}
	switch opts.Format {
	case "json":
		err = diag.WriteJSON(opts.IO.Out, lintDiagnostics(ds))
	case "sarif":
		err = lint.WriteSARIF(opts.IO.Out, ds, version)
	default:
		err = writeLintText(opts.IO, ds)
	}
	if err != nil {
		return err
	}
	errs, warns := lint.Count(ds, lint.Error), len(ds)-lint.Count(ds, lint.Error)
	if opts.Format == "text" {
		if len(ds) == 0 {
			opts.IO.Progress("%d script(s) linted: no findings", len(files))
		} else {
			opts.IO.Progress("%d script(s) linted: %d error(s), %d warning(s)", len(files), errs, warns)
		}
	}
	if lint.Count(ds, opts.FailOn) > 0 {
		return cmdutil.Findings()
	}
	return nil
}

func writeLintText(io *iostreams.IOStreams, ds []lint.Diagnostic) error {
	return diag.WriteText(io.Out, lintDiagnostics(ds), severityPainter(io))
}

// lintDiagnostics are lint's findings in the shared format.
func lintDiagnostics(ds []lint.Diagnostic) []diag.Diagnostic {
	out := make([]diag.Diagnostic, 0, len(ds))
	for _, d := range ds {
		out = append(out, lintDiagnostic(d))
	}
	return out
}

// lintFiles resolves what to lint: the manifest's scripts, or the FILE
// arguments with the manifest's declaration for those it lists. The
// manifest is nil when FILE arguments are linted without one.
func lintFiles(opts *lintOptions) ([]lint.File, *manifest.Manifest, error) {
	m, err := manifest.Load(opts.Manifest)
	if err != nil {
		var pe *os.PathError
		missing := errors.As(err, &pe) && errors.Is(err, os.ErrNotExist)
		switch {
		case missing && len(opts.Files) > 0 && !opts.ManifestSet:
			m = nil // lint the files on their own
		case missing && len(opts.Files) > 0:
			return nil, nil, cmdutil.Usage(err, "fix the -m path, or drop -m to lint the files on their own")
		case missing:
			return nil, nil, cmdutil.Usage(err, "'scriptctl lint -m path/to/manifest.yaml', or name the files to lint")
		default:
			return nil, nil, cmdutil.Input(err)
		}
	}
	if len(opts.Files) == 0 {
		files := lint.ManifestFiles(m)
		for i := range files {
			files[i].Path = displayPath(files[i].Path)
		}
		return files, m, nil
	}
	var files []lint.File
	seen := map[string]bool{}
	for _, f := range opts.Files {
		lf := lint.File{Path: displayPath(f)}
		if seen[lf.Path] {
			continue
		}
		seen[lf.Path] = true
		if m != nil {
			for _, s := range m.Scripts {
				if samePath(s.Path, f) {
					lf.Decl = lint.DeclOf(s)
				}
			}
		}
		files = append(files, lf)
	}
	return files, m, nil
}

// displayPath returns path relative to the current directory when it lies
// below it, with forward slashes: what SARIF and editors expect.
func displayPath(path string) string {
	if filepath.IsAbs(path) {
		if wd, err := os.Getwd(); err == nil {
			if rel, err := filepath.Rel(wd, path); err == nil && !strings.HasPrefix(rel, "..") {
				path = rel
			}
		}
	}
	return filepath.ToSlash(filepath.Clean(path))
}

func samePath(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	aa, err1 := filepath.Abs(a)
	bb, err2 := filepath.Abs(b)
	return err1 == nil && err2 == nil && aa == bb
}

// checkLintStep is the lint step of scriptctl check: every script of the
// manifest with its declarations. Errors are problems (exit 1), warnings
// are reported only. Wire it into checkSteps as {"lint", checkLintStep}.
func checkLintStep(ctx context.Context, m *manifest.Manifest) stepResult {
	r := lintStep(ctx, m, nil)
	if r.Err == nil && len(r.Findings) == 0 {
		r.Summary = fmt.Sprintf("%d scripts, no findings", len(m.Scripts))
	}
	return r
}

// lintStep lints every script of m with its declarations (only the rules
// in only, when given) and returns the findings as a check step's. The
// manifest's strict_keys (which check's --strict-keys overrides) makes
// dynamic-key an error.
func lintStep(ctx context.Context, m *manifest.Manifest, only []string) stepResult {
	return lintFilesStep(ctx, lint.ManifestFiles(m), only, m.StrictKeys)
}

// lintFilesStep lints files (only some rules when only is set) as a check
// step; strict makes dynamic-key an error.
func lintFilesStep(ctx context.Context, files []lint.File, only []string, strict bool) stepResult {
	for i := range files {
		files[i].Path = displayPath(files[i].Path)
	}
	ds, err := lint.Run(ctx, lint.Config{Files: files, Only: only, StrictKeys: strict})
	if err != nil {
		if errors.Is(err, lint.ErrUnreadable) {
			err = cmdutil.Input(err)
		}
		return stepResult{Err: err}
	}
	r := stepResult{}
	for _, d := range ds {
		ld := lintDiagnostic(d)
		r.Findings = append(r.Findings, checkFinding{Severity: ld.Severity, File: ld.File, Line: ld.Line, Col: ld.Column, Code: ld.Code, Message: ld.Message, Detail: ld.Detail, Related: ld.Related})
	}
	return r
}

// lintDiagnostic is one lint finding in the shared format: its call paths
// become detail lines and related positions.
func lintDiagnostic(d lint.Diagnostic) diag.Diagnostic {
	out := diag.Diagnostic{File: d.Pos.File, Line: d.Pos.Line, Column: d.Pos.Col, Severity: string(d.Severity), Code: d.Code, Message: d.Message}
	for _, r := range d.Related {
		out.Detail = append(out.Detail, r.Message)
		out.Related = append(out.Related, diag.Related{File: r.Pos.File, Line: r.Pos.Line, Column: r.Pos.Col, Message: r.Message})
	}
	return out
}
