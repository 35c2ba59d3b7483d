package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"sync"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/scriptctl/scriptctl/internal/cmdutil"
	"github.com/scriptctl/scriptctl/internal/iostreams"
	"github.com/scriptctl/scriptctl/internal/textdist"
)

// globalOptions are the flags every command shares.
type globalOptions struct {
	IO       *iostreams.IOStreams
	Manifest string // -m, --manifest
	Quiet    bool   // -q, --quiet: no progress lines
	Verbose  bool   // --verbose: progress off a terminal too, and detail lines
	JQ       string // --jq, on every command with --format json

	// versionErr is a failed write of -v/--version's line: the help func
	// that prints it cannot return an error, so run reads it from here.
	versionErr error
}

// Main runs scriptctl with os.Args and returns the exit code. The first
// SIGINT/SIGTERM cancels the run's context (online commands stop between
// nodes and report what was done); a second one exits at once with 130.
// The online commands watch for them once their nodes are discovered
// (discoversNodes), the others from their pre-run.
func Main() int {
	if os.Getenv("GOGC") == "" {
		// A run is short and allocates most of what it needs at start
		// (Lua states, command tables): collecting at twice the live heap
		// spends a tenth of a deploy's CPU on the collector. GOGC set in
		// the environment wins.
		debug.SetGCPercent(400)
	}
	processExits = true
	args := os.Args[1:]
	if len(args) == 1 && args[0] == "version" {
		ios := iostreams.System()
		if printVersion(ios) == nil {
			return cmdutil.ExitOK
		}
		// A failed write goes through the command, which reports it.
		return run(context.Background(), ios, args)
	}
	_ = growStack(len(args))
	if builtinOnly(args) {
		// version and exit-codes print a few lines and stop: they have
		// nothing to cancel, and the signal handling below (a goroutine
		// and a thread of its own) is most of what they would add to the
		// process start. An interrupt stops them as it stops any process.
		return run(context.Background(), iostreams.System(), args)
	}
	ctx, cancel := withInterrupts(context.Background())
	defer cancel()
	return run(ctx, iostreams.System(), args)
}

// interruptKey is the context key of a run's watchInterrupts.
type interruptKey struct{}

// withInterrupts returns a context that the first SIGINT or SIGTERM
// cancels once watchInterrupts has been called with it; the second one
// exits at once with 130. Until then an interrupt ends the process as it
// ends any.
func withInterrupts(parent context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(parent)
	watch := sync.OnceFunc(func() {
		sig := make(chan os.Signal, 2)
		signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
		go func() {
			<-sig
			cancel()
			<-sig
			os.Exit(130)
		}()
	})
	return context.WithValue(ctx, interruptKey{}, watch), cancel
}

// watchInterrupts makes the first interrupt cancel ctx from now on (see
// withInterrupts); calling it again does nothing, and a context without
// interrupt handling (a run inside the tests) is left as it is.
func watchInterrupts(ctx context.Context) {
	if watch, ok := ctx.Value(interruptKey{}).(func()); ok {
		watch()
	}
}

// discoversNodes is the annotation of an online command (the flags of its
// servers, registerOnline or connFlags.register): it watches for
// interrupts only once its nodes are discovered (connectDuring), not from
// its pre-run, as it has only read until then; an interrupt before that
// ends it as it ends any process, with nothing changed. Watching costs
// os/signal's set-up (a goroutine locked to a thread of its own, another
// waiting for signals): at the start it held up the main goroutine 0.2
// ms, and a functions-only deploy to 6 nodes took 0.2 ms longer than with
// the watch begun after discovery (the same threads are started either
// way; docs/performance.md, "Eighth pass").
const discoversNodes = "scriptctl.discovers-nodes"

func markDiscoversNodes(cmd *cobra.Command) {
	if cmd.Annotations == nil {
		cmd.Annotations = map[string]string{}
	}
	cmd.Annotations[discoversNodes] = "true"
}

func watchesAfterDiscovery(cmd *cobra.Command) bool {
	return cmd.Annotations[discoversNodes] != ""
}

func run(ctx context.Context, ios *iostreams.IOStreams, args []string) int {
	alone := aloneCommand(args)
	g := &globalOptions{IO: ios}
	root := newRootFor(g, !builtinOnly(args) && alone == nil, alone)
	if len(args) > 0 && strings.HasPrefix(args[0], cobra.ShellCompRequestCmd) {
		// Only a shell asking for completions needs them attached.
		addDynamicCompletion(root)
	}
	root.SetArgs(args)
	cmd, err := root.ExecuteContextC(ctx)
	if err == nil && g.versionErr != nil {
		err = g.versionErr
	}
	// --jq's results print whatever the exit code (plan --exit-code's 4
	// comes with its document).
	if jerr := finishJQ(ios); jerr != nil && err == nil {
		err = jerr
	}
	ios.ClearProgress()
	if err == nil {
		return cmdutil.ExitOK
	}
	err = unknownCommand(root, err)
	code := exitCode(err)
	var ee *cmdutil.ExitError
	if errors.As(err, &ee) && ee.Silent {
		return code
	}
	// Invalid input with positions (a manifest, scenario, scripts.sum or
	// model file, a file init or new will not overwrite) prints as shared
	// diagnostics, in JSON with --format json.
	if ds := inputDiagnostics(err); code == cmdutil.ExitInput && len(ds) > 0 {
		reportInputDiagnostics(ios, cmd, err, ds)
		return code
	}
	// Errors carry text servers supplied (a lock holder, an error reply):
	// escape control characters so none reaches the terminal raw.
	fmt.Fprintf(ios.ErrOut, "Error: %s\n", iostreams.Safe(err.Error(), true))
	if errors.As(err, &ee) && ee.Hint != "" {
		fmt.Fprintf(ios.ErrOut, "Try: %s\n", iostreams.Safe(ee.Hint, true))
	}
	return code
}

// builtinOnly says whether args run one of the commands this file defines
// (version, exit-codes): those need none of the other commands, whose
// constructors and flag sets would be built only to be discarded (most of
// the cost of `scriptctl version` after the process start).
func builtinOnly(args []string) bool {
	return len(args) > 0 && (args[0] == "version" || args[0] == "exit-codes")
}

// aloneCommand returns the constructor of the command args run when that
// command is built alone beside the ones this file defines, else nil:
// deploy, whose run is timed against one redis-cli process
// (docs/performance.md), and which needs none of the other commands.
func aloneCommand(args []string) func(*globalOptions) *cobra.Command {
	if len(args) > 0 && args[0] == "deploy" {
		return newCmdDeploy
	}
	return nil
}

func newRootCmd(ios *iostreams.IOStreams) *cobra.Command { return newRoot(ios, true) }

// newRoot is the root command; with all false it holds only the commands
// this file defines (see builtinOnly).
func newRoot(ios *iostreams.IOStreams, all bool) *cobra.Command {
	return newRootWith(ios, all, nil)
}

// newRootWith is newRoot; with all false and alone set, it holds the
// command alone builds too (see aloneCommand).
func newRootWith(ios *iostreams.IOStreams, all bool, alone func(*globalOptions) *cobra.Command) *cobra.Command {
	return newRootFor(&globalOptions{IO: ios}, all, alone)
}

// newRootFor is newRootWith over the global options g (run reads what the
// command left in them).
func newRootFor(g *globalOptions, all bool, alone func(*globalOptions) *cobra.Command) *cobra.Command {
	ios := g.IO
	root := &cobra.Command{
		Use:   "scriptctl",
		Short: "Own the Redis Lua scripts and Functions your services depend on",
		Long: `scriptctl checks Redis Lua scripts offline (lint, verify, check-keys) and
rolls them out to standalone Redis and Redis Cluster (plan, deploy, status,
prune), driven by a manifest.yaml that declares every script's keys, args and
flags and the key templates each caller uses.

Exit codes: 0 success, 1 the check found a problem, 2 invalid input,
3 the environment failed, 4 changes pending (plan --exit-code). See
'scriptctl help exit-codes'.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetIn(ios.In)
	root.SetOut(ios.Out)
	root.SetErr(ios.ErrOut)
	root.PersistentFlags().StringVarP(&g.Manifest, "manifest", "m", "manifest.yaml", "path of the manifest; script paths in it resolve from its folder (default: manifest.yaml in the current folder or the nearest parent, up to the repository root)")
	root.PersistentFlags().BoolVarP(&g.Quiet, "quiet", "q", false, "print no progress lines on stderr (warnings and errors still print)")
	root.PersistentFlags().BoolVar(&g.Verbose, "verbose", false, "print progress on stderr even when it is not a terminal, and what each step does")
	// -v, --version prints the line of `scriptctl version`. The flag is the
	// one cobra adds for Command.Version (name, shorthand, usage, and the
	// annotation completion looks for), declared here because cobra prints
	// another line than "scriptctl version X" only through
	// SetVersionTemplate, that is text/template (see deps_test.go). The
	// root runs nothing, so cobra asks it for help: the help func prints
	// the version instead when it was asked for and --help was not.
	root.Flags().BoolP("version", "v", false, "version for scriptctl")
	_ = root.Flags().SetAnnotation("version", cobra.FlagSetByCobraAnnotation, []string{"true"})
	defaultHelp := root.HelpFunc()
	root.SetHelpFunc(func(c *cobra.Command, args []string) {
		askedVersion, _ := c.Flags().GetBool("version")
		askedHelp, _ := c.Flags().GetBool("help")
		if !c.HasParent() && askedVersion && !askedHelp {
			g.versionErr = printVersion(ios)
			return
		}
		if readsNoManifest(c) {
			f := c.Root().PersistentFlags().Lookup("manifest")
			f.Hidden = true
			defer func() { f.Hidden = false }()
		}
		defaultHelp(c, args)
	})
	root.PersistentPreRunE = func(c *cobra.Command, args []string) error {
		if !watchesAfterDiscovery(c) {
			watchInterrupts(c.Context())
		}
		if readsNoManifest(c) && c.Flags().Changed("manifest") {
			return cmdutil.Usage(fmt.Errorf("%s reads no manifest: -m/--manifest does not apply", c.CommandPath()), fmt.Sprintf("'%s --help'", c.CommandPath()))
		}
		if g.Quiet && g.Verbose {
			return cmdutil.Usage(errors.New("--quiet and --verbose exclude each other"), fmt.Sprintf("'%s --help'", c.CommandPath()))
		}
		ios.Quiet, ios.Verbose = g.Quiet, g.Verbose
		if c.Flags().Changed(jqFlag) {
			if err := startJQ(c, ios, g.JQ); err != nil {
				return err
			}
		}
		// --format table is text with its tables aligned under a header
		// even when stdout is not a terminal.
		if f := c.Flags().Lookup("format"); f != nil && f.Value.String() == "table" {
			if err := f.Value.Set("text"); err != nil {
				return err
			}
			ios.TableFormat = true
		}
		return resolveManifest(c, g)
	}
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return cmdutil.Usage(err, fmt.Sprintf("'%s --help'", c.CommandPath()))
	})
	root.SetHelpCommand(withoutManifest(newCmdHelp()))

	root.AddCommand(
		withoutManifest(newCmdVersion(g)),
		withoutManifest(newCmdExitCodes()),
	)
	if !all {
		// Nor the completion command cobra would add (its four shells'
		// commands and help texts built at every start): `scriptctl
		// completion` builds the whole tree.
		root.CompletionOptions.DisableDefaultCmd = true
		if alone != nil {
			root.AddCommand(alone(g))
		}
		addJQFlags(root, &g.JQ)
		return root
	}
	for _, add := range commands() {
		root.AddCommand(add(g))
	}
	addJQFlags(root, &g.JQ)
	addCompletion(root)
	return root
}

// noManifest is the annotation of a command that reads no manifest: the
// global -m/--manifest flag is left out of its help and refused when given.
const noManifest = "scriptctl.no-manifest"

func withoutManifest(cmd *cobra.Command) *cobra.Command {
	if cmd.Annotations == nil {
		cmd.Annotations = map[string]string{}
	}
	cmd.Annotations[noManifest] = "true"
	return cmd
}

func readsNoManifest(cmd *cobra.Command) bool {
	return cmd.Annotations[noManifest] != ""
}

// commands returns the constructors of the commands defined in the other
// files of this package, one per file. A list here, not an init function
// in each file: every package initialiser is paid by every start, `version`
// included (docs/performance.md, sixth pass).
func commands() []func(*globalOptions) *cobra.Command {
	return []func(*globalOptions) *cobra.Command{
		newCmdCheck,
		newCmdCheckKeys,
		newCmdDeploy,
		newCmdDiff,
		func(g *globalOptions) *cobra.Command { return withoutManifest(newCmdDocs(g)) },
		newCmdEval,
		newCmdExplore,
		newCmdGen,
		func(g *globalOptions) *cobra.Command { return withoutManifest(newCmdInit(g)) },
		newCmdInspect,
		newCmdLint,
		newCmdMutate,
		newCmdNew,
		newCmdPlan,
		newCmdPrune,
		newCmdSha,
		newCmdSlot,
		newCmdStatus,
		newCmdSum,
		newCmdUnlock,
		newCmdVerify,
	}
}

// unknownCommand turns cobra's plain error for a word after scriptctl that
// names no command ("unknown command ...", found before flags are parsed)
// into a usage error (exit 2). The hint names the command closest by edit
// distance when one is close (at most one edit in four letters), else it
// lists the commands.
func unknownCommand(root *cobra.Command, err error) error {
	var ee *cmdutil.ExitError
	if errors.As(err, &ee) || !strings.HasPrefix(err.Error(), "unknown command ") {
		return err
	}
	msg, _, _ := strings.Cut(err.Error(), "\n")
	word, _, _ := strings.Cut(strings.TrimPrefix(msg, "unknown command "), " for ")
	word = strings.Trim(word, `"`)
	if name := closestCommand(root, word); name != "" {
		return cmdutil.Usage(errors.New(msg), fmt.Sprintf("'%s %s --help'", root.CommandPath(), name))
	}
	var names []string
	for _, c := range root.Commands() {
		if c.IsAvailableCommand() {
			names = append(names, c.Name())
		}
	}
	return cmdutil.Usage(errors.New(msg), fmt.Sprintf("one of the commands: %s ('%s --help' says what each does)", strings.Join(names, ", "), root.CommandPath()))
}

// closestCommand returns the visible command whose name (or alias) is
// nearest to word by edit distance, when that distance is small: at most
// one edit per four letters of word, and at least one. Ties go to the
// first in name order; no close command returns "".
func closestCommand(root *cobra.Command, word string) string {
	limit := max(1, len(word)/4)
	best, bestD := "", limit+1
	for _, c := range root.Commands() {
		if !c.IsAvailableCommand() {
			continue
		}
		for _, n := range append([]string{c.Name()}, c.Aliases...) {
			if d := textdist.Distance(strings.ToLower(word), n); d < bestD {
				best, bestD = c.Name(), d
			}
		}
	}
	return best
}

// newCmdHelp is cobra's help command, except that an unknown topic is a
// usage error (exit 2) instead of the usage text and exit 0.
func newCmdHelp() *cobra.Command {
	return &cobra.Command{
		Use:   "help [command]",
		Short: "Help about any command",
		Long:  "Help provides help for any command in the application.\nSimply type scriptctl help [path to command] for full details.",
		RunE: func(c *cobra.Command, args []string) error {
			cmd, rest, err := c.Root().Find(args)
			if cmd == nil || err != nil || len(rest) > 0 {
				return cmdutil.Usage(fmt.Errorf("unknown help topic %q", strings.Join(args, " ")), fmt.Sprintf("'%s --help' lists the commands and topics", c.Root().CommandPath()))
			}
			cmd.InitDefaultHelpFlag()
			cmd.InitDefaultVersionFlag()
			return cmd.Help()
		},
	}
}

// noArgs is cobra.NoArgs with a usage error (exit 2).
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return cmdutil.Usage(fmt.Errorf("unexpected argument %q", args[0]), fmt.Sprintf("'%s --help'", cmd.CommandPath()))
	}
	return nil
}

// maxArgs is cobra.MaximumNArgs with a usage error (exit 2).
func maxArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) > n {
			return cmdutil.Usage(fmt.Errorf("unexpected argument %q", args[n]), fmt.Sprintf("'%s --help'", cmd.CommandPath()))
		}
		return nil
	}
}

// minArgs is cobra.MinimumNArgs with a usage error (exit 2).
func minArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) < n {
			return cmdutil.Usage(fmt.Errorf("%s needs at least %d argument(s)", cmd.CommandPath(), n), fmt.Sprintf("'%s --help'", cmd.CommandPath()))
		}
		return nil
	}
}

// checkFormat validates a --format value against the allowed ones; "table"
// is accepted wherever "text" is (the root turns it into "text" before a
// command runs).
func checkFormat(cmd *cobra.Command, format string, allowed ...string) error {
	for _, a := range allowed {
		if format == a || format == "table" && a == "text" {
			return nil
		}
	}
	return cmdutil.Usage(fmt.Errorf("invalid --format %q: want one of %v", format, allowed), fmt.Sprintf("'%s --help'", cmd.CommandPath()))
}
