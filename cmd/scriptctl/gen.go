package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/scriptctl/scriptctl/gen"
	"github.com/scriptctl/scriptctl/internal/atomicfile"
	"github.com/scriptctl/scriptctl/internal/cmdutil"
	"github.com/scriptctl/scriptctl/internal/iostreams"
	"github.com/scriptctl/scriptctl/manifest"
)

type genOptions struct {
	IO       *iostreams.IOStreams
	Manifest string
	Lang     string
	Out      string
	Check    bool
	Package  string
	Clients  []string
	Format   string
}

func newCmdGen(g *globalOptions) *cobra.Command {
	opts := &genOptions{IO: g.IO}
	cmd := &cobra.Command{
		Use:   "gen go|ts|python",
		Short: "Write typed bindings that call the manifest's scripts",
		Long: `Write a binding for the manifest's library. gen go writes one self-contained package with
a method per script (named keys and args, a typed reply from the script's
reply: contract, typed errors for the error replies the contract declares),
a key builder per caller (For<Caller>(placeholders...) fills its key
templates, returning a *PlaceholderError for a value the caller's
placeholders: exclude or that would break a key's hash tag), and adapters
for rueidis and go-redis.

The binding embeds the SHA1s that scripts.sum records for the current
version (no SHA1 is computed at run time) and each script's body. It sends
EVALSHA, and EVAL once when a node replies NOSCRIPT (matched by the code);
EVALSHA_RO / EVAL_RO for no-writes scripts; FCALL (FCALL_RO) of the
versioned function name in functions mode (the default with deploy:
functions). It never sends a script again after a timeout unless the
manifest marks it idempotent: true. A call whose keys do not hash to one
cluster slot is refused before anything is sent.

The files go to --out, else to the folder the manifest's bindings: names
for the language. --check writes nothing and exits 1 when a file there is
missing or differs (as go generate drift checks do). scripts.sum must record
the current version's scripts (exit 1 otherwise: run 'scriptctl sum').
docs/bindings.md has an example.

gen ts writes one TypeScript module (<library>.ts) with the same calls,
protocol and errors: a method per script on Client returning a typed reply
(discriminated unions with a kind field, literal unions), a key builder per
caller, and adapters for ioredis (ioredisConn) and node-redis
(nodeRedisConn, nodeRedisClusterConn) typed structurally, so it imports
neither. It compiles with tsc --strict.

gen python writes one module (<library>.py) for redis-py: a Client (sync)
and an AsyncClient (asyncio) with a method per script (keys as <name>_key,
then the args), dataclasses and Literal types for the replies, a key
builder per caller (for_<caller>(placeholders...)), and the adapters
RedisPyConn and AsyncRedisPyConn. It passes mypy --strict.`,
		Example: `  scriptctl gen go --out internal/catalogdb
  scriptctl gen go --check
  scriptctl gen go --out gen/ratelimit --package ratelimit --client go-redis
  scriptctl gen ts --out src/scripts
  scriptctl gen python --out app/scripts`,
		Args:      cobra.ExactArgs(1),
		ValidArgs: gen.Languages,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(cmd, opts.Format, "text", "json"); err != nil {
				return err
			}
			opts.Lang = args[0]
			opts.Manifest = g.Manifest
			return runGen(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Out, "out", "", "the folder to write to (default: the manifest's bindings: folder for the language)")
	cmd.Flags().BoolVar(&opts.Check, "check", false, "write nothing; exit 1 when the folder's files are stale")
	cmd.Flags().StringVar(&opts.Package, "package", "", "the Go package name (default: the library name, lowercase, without underscores)")
	cmd.Flags().StringSliceVar(&opts.Clients, "client", nil, "the client adapters to write: rueidis, go-redis (default: both)")
	cmd.Flags().StringVar(&opts.Format, "format", "text", "output format: text, table or json")
	return cmd
}

// genJSON is the --format json document of scriptctl gen (docs/json.md).
type genJSON struct {
	FormatVersion string        `json:"format_version"`
	Language      string        `json:"language"`
	Out           string        `json:"out"`
	Check         bool          `json:"check"`
	Files         []genFileJSON `json:"files"`
	Stale         bool          `json:"stale"`
}

type genFileJSON struct {
	Name  string `json:"name"`
	State string `json:"state"`
}

func runGen(ctx context.Context, opts *genOptions) error {
	if !slices.Contains(gen.Languages, opts.Lang) {
		return cmdutil.Usage(fmt.Errorf("gen: unknown language %q: want %s", opts.Lang, strings.Join(gen.Languages, " or ")), "scriptctl gen go")
	}
	if opts.Lang != "go" && (opts.Package != "" || opts.Clients != nil) {
		return cmdutil.Usage(fmt.Errorf("gen %s: --package and --client are for gen go", opts.Lang), "scriptctl gen "+opts.Lang+" --out DIR")
	}
	m, err := manifest.Load(opts.Manifest)
	if err != nil {
		return err
	}
	out := opts.Out
	if out == "" {
		dir, ok := m.Bindings[opts.Lang]
		if !ok {
			return cmdutil.Usage(fmt.Errorf("no --out, and %s has no bindings: folder for %s", m.Path, opts.Lang), fmt.Sprintf("scriptctl gen %s --out DIR, or add 'bindings: {%s: DIR}' to the manifest", opts.Lang, opts.Lang))
		}
		if out, err = manifest.Inside(m.Dir, dir); err != nil {
			return cmdutil.Input(err)
		}
	}
	files, stale, err := generateBinding(m, opts.Lang, out, gen.Options{Package: opts.Package, Clients: opts.Clients})
	if err != nil {
		return err
	}
	doc := genJSON{FormatVersion: "1", Language: opts.Lang, Out: out, Check: opts.Check, Files: []genFileJSON{}}
	states := map[string]string{}
	for _, d := range stale {
		states[d.Name] = d.State
	}
	t := opts.IO.NewTable("FILE", "STATE")
	for _, f := range files {
		st := states[f.Name]
		if st == "" {
			st = "unchanged"
		} else if !opts.Check {
			if err := os.MkdirAll(out, 0o755); err != nil {
				return cmdutil.Env(err)
			}
			if err := atomicfile.Write(filepath.Join(out, f.Name), f.Data); err != nil {
				return cmdutil.Env(err)
			}
			st = map[string]string{"missing": "written", "differs": "updated"}[st]
		}
		doc.Files = append(doc.Files, genFileJSON{Name: filepath.Join(out, f.Name), State: st})
		t.Row(filepath.Join(out, f.Name), st)
	}
	doc.Stale = opts.Check && len(stale) > 0
	if opts.Format == "json" {
		if err := writeJSONDoc(opts.IO, doc); err != nil {
			return err
		}
	} else if err := t.Render(); err != nil {
		return err
	}
	if doc.Stale {
		fmt.Fprintf(opts.IO.ErrOut, "%s: the %s binding is stale: run 'scriptctl gen %s'\n", out, opts.Lang, opts.Lang)
		return cmdutil.Findings()
	}
	return nil
}

// generateBinding generates lang's binding of m and compares it with the
// folder out. An unreleased manifest is a finding (exit 1).
func generateBinding(m *manifest.Manifest, lang, out string, opts gen.Options) ([]gen.File, []gen.Difference, error) {
	if opts.Package == "" {
		abs, err := filepath.Abs(out)
		if err != nil {
			return nil, nil, cmdutil.Env(err)
		}
		opts.Package = gen.GoPackage(filepath.Base(abs))
	}
	sum, err := manifest.ReadSum(m.SumPath())
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, nil, err
	}
	files, err := gen.Generate(lang, m, sum, opts)
	switch {
	case errors.Is(err, gen.ErrUnreleased):
		return nil, nil, &cmdutil.ExitError{Code: cmdutil.ExitFindings, Err: err, Hint: "scriptctl sum"}
	case err != nil:
		return nil, nil, cmdutil.Usage(err, "scriptctl gen --help")
	}
	stale, err := gen.Stale(out, files)
	if err != nil {
		return nil, nil, cmdutil.Env(err)
	}
	return files, stale, nil
}

// checkBindingsStep is check's bindings step: every binding the manifest's
// bindings: lists must be what gen writes now (code bindings-stale), and
// the ledger must record the scripts (code sum).
func checkBindingsStep(ctx context.Context, m *manifest.Manifest) stepResult {
	if len(m.Bindings) == 0 {
		return stepResult{Summary: "none listed in the manifest"}
	}
	var fs []checkFinding
	for _, lang := range m.BindingLangs() {
		out, err := manifest.Inside(m.Dir, m.Bindings[lang])
		if err != nil {
			return stepResult{Err: cmdutil.Input(err)}
		}
		_, stale, err := generateBinding(m, lang, out, gen.Options{})
		var ee *cmdutil.ExitError
		switch {
		case errors.As(err, &ee) && ee.Code == cmdutil.ExitFindings:
			fs = append(fs, checkFinding{Severity: "error", File: m.Path, Line: m.BindingsLine, Code: "sum", Message: fmt.Sprintf("the %s binding cannot be generated: %v", lang, ee.Err)})
			continue
		case err != nil:
			return stepResult{Err: err}
		}
		for _, d := range stale {
			fs = append(fs, checkFinding{Severity: "error", File: filepath.Join(out, d.Name), Code: "bindings-stale", Message: fmt.Sprintf("the %s binding is stale (%s): run 'scriptctl gen %s'", lang, d.State, lang)})
		}
	}
	if len(fs) > 0 {
		return stepResult{Findings: fs}
	}
	return stepResult{Summary: fmt.Sprintf("%s current", strings.Join(m.BindingLangs(), ", "))}
}
