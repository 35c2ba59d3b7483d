package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/scriptctl/scriptctl/internal/safefile"
	"github.com/scriptctl/scriptctl/manifest"
	"github.com/spf13/cobra"

	"github.com/scriptctl/scriptctl/evalrun"
	"github.com/scriptctl/scriptctl/internal/cmdutil"
	"github.com/scriptctl/scriptctl/internal/connect"
	"github.com/scriptctl/scriptctl/internal/diag"
	"github.com/scriptctl/scriptctl/internal/iostreams"
	"github.com/scriptctl/scriptctl/liveconn"
	"github.com/scriptctl/scriptctl/verify"
	"github.com/scriptctl/scriptctl/verify/scenario"
)

type evalOptions struct {
	IO       *iostreams.IOStreams
	File     string
	Words    []string // keys, then "," and args, as redis-cli --eval takes them
	State    string
	Save     string
	Now      int64
	Mode     string
	Format   string
	Against  string
	Diff     bool
	Conn     connFlags // password, TLS and timeout for --against
	Target   string    // the server the offline run imitates
	ClockTol time.Duration
	// offlineTimeout is --timeout when given: a wall-clock limit on the
	// offline run too (without it the run stops only at the engine's step
	// budget).
	offlineTimeout time.Duration
	Keys           keyRuleFlags // --topology, --strict-keys
}

const evalLong = `Run one Lua script once, exactly as "redis-cli --eval FILE KEY ... , ARG ..."
runs it, but offline: in scriptctl's Redis 7.0 engine, with no server. The
reply is printed byte for byte as redis-cli --no-raw prints it: (integer) 1,
"bulk" with redis-cli's escaping, (nil), status text bare, (empty array),
nested arrays numbered and indented, and error replies such as
(error) ERR user_script:1: boom script: <sha>, on @user_script:1.
with the real SHA1 of FILE's bytes and the real line.

Arguments follow redis-cli --eval: the words after FILE are keys up to the
first lone "," and args after it; without a lone comma every word is a key;
later lone commas are args; "a,b" is one word. FILE "-" reads the script
from stdin. The script is FILE's exact bytes (a trailing newline included),
so its SHA1 is the one Redis computes. Put "--" before words that start with
"-" (scriptctl eval -- f.lua k , -1): otherwise they read as flags.

The keyspace starts empty, or as --state FILE describes it (the format of a
scenario's keys: section, lua_test/README.md: key: {value: v, ttl_ms: n},
{hash: {f: v, ...}} with the fields in HGETALL's order as written,
{list: [a, b]}, {set: [a, b]}, {zset: [[member, score], ...]} or
{zset: {member: score}}, {stream: {entries: [[1-1, {f: v}]], groups: [...]}}),
and --save FILE writes it after the run in the
same format (atomically), so runs can be chained. The virtual clock starts at --now (Unix ms, default
1700000000000; with --diff, the server's TIME just before the script runs
there); TIME and TTLs follow it.
--mode function registers the script as the only function of a generated
library "scriptctl_eval" (shebang flags become its flags) and calls it with
FCALL scriptctl_eval.

The offline run imitates a node of a Redis Cluster (--topology cluster, the
default): declared keys in different hash slots get the CROSSSLOT error
reply, a script's command on a key of another node's slot fails as the
node fails it, scripts with a shebang and functions stay in one slot unless
allow-cross-slot-keys, and no-cluster scripts are refused. The node serves
the declared keys' slot (without declared keys, the first key's) and no
other. --topology standalone has none of these rules. A key the script
touches without declaring it in KEYS is a warning (undeclared-key, at its
line) and the run goes on as the server's would; --strict-keys stops the
run there instead (exit 1), as proxies that demand declared keys do.

--against URL runs the same EVAL (or FUNCTION LOAD, FCALL and FUNCTION
DELETE) on that server instead and prints its reply the same way; --state
keys are written to it first, replacing keys of the same names, each with
one SET, HSET, RPUSH, SADD or ZADD in the file's order (a stream with
XADD, XSETID, XGROUP and XCLAIM). --diff runs
offline and on --against (deleting the declared keys on the server first,
so both sides start from the same keyspace), prints the reply once when
both sides agree, and otherwise prints both sides and the differences
(reply, and the type, contents and TTL of every declared and --state key:
a list and a small hash in order, a set as a set, a sorted set by member
and score) and exits 1. Use a test server.

--against takes any node of a Redis Cluster (or several, separated by
commas) for the whole cluster: each key goes to its slot's primary, --state
and the readback included, as redis-cli -c sends it; MOVED and ASK are
followed and never printed as the reply; function mode loads the library
on every primary.

Clocks with --diff: numbers that come from the clock (TIME, a timestamp the
script computes or stores, PEXPIRETIME, a TTL) are equal when within
--clock-tolerance (default 50ms, plus the time the live run took), and
stderr names them ("equal within the clock tolerance"). The offline run is
repeated with its clock moved to find them; every other byte compares
exactly, a string that only looks like a number included.

Exit codes: 0 a reply was produced (an error reply included, as redis-cli
does; with --diff: both sides agree), 1 --diff found a difference, or the
offline engine could not judge the run (a command it does not implement, a
key not declared in KEYS under --strict-keys, a stop past the step budget
or --timeout: printed on stderr, never as a reply),
2 unreadable input (missing file, malformed --state naming file:line:col,
usage),
3 the server was unreachable or failed (the password is never printed).`

func newCmdEval(g *globalOptions) *cobra.Command {
	opts := &evalOptions{IO: g.IO}
	cmd := &cobra.Command{
		Use:   "eval FILE [KEY ...] [, ARG ...]",
		Short: "Run one script offline exactly as redis-cli --eval runs it live",
		Long:  evalLong,
		Example: `  scriptctl eval lua/acquire.lua 'catalog:{p42}:lease' 'catalog:{p42}:value' , tok-1 30000
  scriptctl eval --state before.yaml --save after.yaml lua/publish.lua '{p42}lease' '{p42}value' , tok-1 v1 60000
  scriptctl eval --mode function --format json lua/release.lua lease , tok-1
  echo 'return redis.call("TIME")' | scriptctl eval --now 1700000001234 -
  scriptctl eval --diff --against redis://127.0.0.1:6380 lua/acquire.lua '{p}lease' '{p}value' , tok 5000`,
		Args: minArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := opts.Conn.againstFromEnv(&opts.Against); err != nil {
				return err
			}
			if err := opts.check(cmd); err != nil {
				return err
			}
			opts.File, opts.Words = args[0], args[1:]
			return runEval(cmd.Context(), opts)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&opts.State, "state", "", "initial keyspace `file` (scenario keys format)")
	fs.StringVar(&opts.Save, "save", "", "write the keyspace after the run to `file` (atomically)")
	fs.Int64Var(&opts.Now, "now", 0, "virtual clock start in Unix `ms` (default 1700000000000; the server's TIME with --diff)")
	fs.StringVar(&opts.Mode, "mode", "eval", "run as eval (EVAL) or function (FCALL of a generated library)")
	fs.StringVar(&opts.Target, "target", verify.DefaultTarget, "the server the offline run imitates (`name`: redis-7.0, redis-8.0, valkey-8.1, ...)")
	fs.StringVar(&opts.Format, "format", "text", "output format: text or json")
	fs.StringVar(&opts.Against, "against", "", "run on the server at `URL` instead: redis://[user@]host:port or rediss://...; a cluster node, or several separated by commas")
	fs.BoolVar(&opts.Diff, "diff", false, "run offline and on --against; exit 1 when they differ")
	opts.Keys.register(cmd)
	fs.DurationVar(&opts.ClockTol, "clock-tolerance", scenario.DefaultClockTolerance*time.Millisecond, "with --diff: how far a clock-derived number (TIME, a timestamp, a TTL) may be from offline")
	opts.Conn.registerAgainst(cmd)
	fs.Lookup("timeout").Usage = "bound on connecting to the --against server and on each command; when given, also a wall-clock limit on the offline run (which otherwise stops only past the engine's step budget of Lua instructions)"
	cmd.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return cmdutil.Usage(err, "'scriptctl eval --help'; put -- before keys or args that start with '-'")
	})
	return withoutManifest(cmd)
}

// check validates the flags that need no I/O.
func (o *evalOptions) check(cmd *cobra.Command) error {
	usage := func(format string, args ...any) error {
		return cmdutil.Usage(fmt.Errorf(format, args...), "'scriptctl eval --help'")
	}
	if err := verify.CheckTarget(o.Target); err != nil {
		return usage("--target: %v", err)
	}
	if err := o.Keys.check("eval"); err != nil {
		return err
	}
	if err := checkFormat(cmd, o.Format, "text", "json"); err != nil {
		return err
	}
	if _, err := evalrun.ParseMode(o.Mode); err != nil {
		return usage("--mode: %v", err)
	}
	fs := cmd.Flags()
	if fs.Changed("now") && o.Now <= 0 {
		return usage("--now must be a positive Unix time in milliseconds, not %d", o.Now)
	}
	if o.Conn.Timeout <= 0 {
		return usage("--timeout must be positive, not %s", o.Conn.Timeout)
	}
	if fs.Changed("clock-tolerance") && !o.Diff {
		return usage("--clock-tolerance applies to --diff, which is not given")
	}
	if o.ClockTol < 0 {
		return usage("--clock-tolerance must not be negative, not %s", o.ClockTol)
	}
	if o.Diff && o.Against == "" {
		return usage("--diff compares with a live server: give it with --against redis://host:port")
	}
	if o.Against != "" && !o.Diff {
		for _, f := range []string{"save", "now"} {
			if fs.Changed(f) {
				return usage("--%s applies to the offline run, which --against alone skips: add --diff to run both", f)
			}
		}
	}
	if fs.Changed("timeout") {
		o.offlineTimeout = o.Conn.Timeout
	}
	if o.Against == "" {
		for _, f := range againstFlags {
			if fs.Changed(f) && f != "timeout" {
				return usage("--%s applies to --against, which is not given", f)
			}
		}
	}
	return nil
}

func runEval(ctx context.Context, opts *evalOptions) error {
	src, err := readScript(opts)
	if err != nil {
		return err
	}
	keys, args := evalrun.SplitArgs(opts.Words)
	mode, _ := evalrun.ParseMode(opts.Mode)
	ro := evalrun.Options{
		Request: evalrun.Request{Source: src, Keys: keys, Args: args, Mode: mode, Now: opts.Now, Target: opts.Target, Timeout: opts.offlineTimeout,
			Topology: opts.Keys.Topology, StrictKeys: opts.Keys.Strict},
		File:    opts.File,
		Offline: opts.Against == "" || opts.Diff,
	}
	if opts.State != "" {
		if ro.State, err = readState(opts.IO, opts.State); err != nil {
			return err
		}
	}
	var cfg *connect.Config
	if opts.Against != "" {
		if opts.Diff {
			// Without --now the offline clock starts at the server's TIME
			// (evalrun.Run).
			ro.ClearKeys = true
			ro.ClockTolerance = opts.ClockTol.Milliseconds()
			if ro.ClockTolerance == 0 {
				ro.ClockTolerance = -1 // none
			}
		}
		var lc *liveconn.Conn
		cfg, lc, err = dialAgainst(ctx, opts)
		if err != nil {
			return err
		}
		defer lc.Close()
		ro.Live, ro.Addr = lc, lc.Addr
	}
	res, err := evalrun.Run(ctx, ro)
	if err != nil {
		var ie *evalrun.InputError
		if errors.As(err, &ie) {
			return cmdutil.Input(fmt.Errorf("%s: %w", opts.File, err))
		}
		if cfg != nil {
			err = cfg.Scrub(err)
		}
		return cmdutil.Env(err)
	}
	off := res.Offline
	// The findings print on stderr in text (warnings before the reply,
	// errors after it) and are the document's diagnostics in JSON.
	ds := res.Diagnostics()
	if opts.Format == "text" {
		for _, d := range ds {
			if d.Severity == diag.Warning {
				opts.IO.Notice("%s", d)
			}
		}
	}
	if opts.Format == "json" {
		err = res.WriteJSON(opts.IO.Out)
	} else {
		err = res.WriteText(opts.IO.Out)
	}
	if err != nil {
		return err
	}
	if opts.Save != "" {
		if off.RunErr != nil {
			opts.IO.Notice("Warning: --save %s not written: the run could not be judged offline", opts.Save)
		} else if err := evalrun.SaveKeys(opts.Save, off.Keyspace); err != nil {
			return cmdutil.Input(fmt.Errorf("--save: %w", err))
		}
	}
	if len(res.ClockTolerated) > 0 && opts.Format == "text" {
		parts := make([]string, len(res.ClockTolerated))
		for i, d := range res.ClockTolerated {
			parts[i] = d.What
		}
		opts.IO.Notice("equal within the clock tolerance (%s): %s", opts.ClockTol, strings.Join(parts, ", "))
	}
	if diag.Count(ds, diag.Error) == 0 {
		return nil
	}
	if opts.Format == "text" {
		for _, d := range ds {
			if d.Severity == diag.Error {
				opts.IO.Notice("%s", d)
			}
		}
	}
	return cmdutil.Findings()
}

// readScript reads FILE's exact bytes, or stdin for "-".
func readScript(opts *evalOptions) ([]byte, error) {
	if opts.File == "-" {
		src, err := safefile.ReadStdin(opts.IO.In, manifest.MaxScriptSize)
		if err != nil {
			return nil, cmdutil.Input(fmt.Errorf("read script from stdin: %w", err))
		}
		return src, nil
	}
	src, err := safefile.Read(opts.File, manifest.MaxScriptSize)
	if err != nil {
		return nil, cmdutil.Input(fmt.Errorf("read script: %w", err))
	}
	return src, nil
}

// readState parses a --state file; every problem is printed with its
// file:line, then exit 2.
func readState(ios *iostreams.IOStreams, path string) ([]scenario.Key, error) {
	data, err := safefile.Read(path, scenario.MaxFileSize)
	if err != nil {
		return nil, cmdutil.Input(fmt.Errorf("read --state: %w", err))
	}
	keys, err := scenario.ParseKeys(path, data)
	if err != nil {
		return nil, cmdutil.Input(withCode("state", err))
	}
	return keys, nil
}

// dialAgainst connects to --against (a standalone server, or nodes of a
// cluster) with the shared connection settings (password from a file or
// the environment, TLS, timeout).
func dialAgainst(ctx context.Context, opts *evalOptions) (*connect.Config, *liveconn.Conn, error) {
	cfg, err := opts.Conn.resolveAgainst(connect.SplitURLs(opts.Against), "eval", false)
	if err != nil {
		return nil, nil, err
	}
	lc, err := liveconn.Dial(ctx, cfg, opts.Target)
	if err != nil {
		return nil, nil, cmdutil.Env(err)
	}
	return cfg, lc, nil
}
