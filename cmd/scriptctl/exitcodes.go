package main

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/scriptctl/scriptctl/internal/cmdutil"
	"github.com/scriptctl/scriptctl/manifest"
)

// exitCode is cmdutil.ExitCode with an invalid manifest (manifest.ErrInvalid)
// as invalid input, 2: cmdutil is a leaf below the manifest package.
func exitCode(err error) int {
	var ee *cmdutil.ExitError
	if !errors.As(err, &ee) && errors.Is(err, manifest.ErrInvalid) {
		return cmdutil.ExitInput
	}
	return cmdutil.ExitCode(err)
}

const exitCodesHelp = `Every scriptctl command exits with one of these codes:

  0  success: the check passed, the deploy converged, nothing to report
  1  the check ran and found a problem: lint findings at or above --fail-on,
     a failed scenario, drift in status, a slot mismatch, a plan under
     --exit-code whose deploy would refuse (a conflict, an untargeted node)
     or whose pre-flight checks refused, a --diff difference, code on the servers that
     differs from the repository's (diff), nodes that should agree and do
     not (inspect --exit-code), a saved plan whose servers or repository
     changed (deploy FILE), a deploy cancelled at its confirmation, servers
     not of the topology --env's environment expects, an eval run the offline engine
     cannot judge (a command not implemented offline, an undeclared key
     under --strict-keys, a step-budget or --timeout stop)
  2  invalid input: usage (unknown command or flag, missing argument), no
     manifest.yaml found (without -m), an invalid manifest, a script that does not parse, an unreadable file
     (a directory, named pipe or device, or a file over its size cap)
     (eval prints a compile error as Redis's error reply and exits 0, as
     redis-cli does)
  3  the environment failed: unreachable node, authentication, timeout, a
     reply over the --reply-limit bounds or not in the Redis protocol (the
     node named), a partial deploy, an interrupted run, a node that cannot
     run Lua (plan, deploy, status and inspect refuse a Valkey 9 node whose
     lua engine module is not loaded), a write that fails (a full disk,
     a closed pipe on standard output)
  4  changes pending: plan --exit-code found something a deploy would load,
     and nothing wrong (only plan --exit-code exits 4; no failure does)

Errors are printed on stderr as "Error: ..." (usage errors add "Try: ...").
Invalid files (manifest, scripts.sum, scripts, scenarios, models) print each
problem as a diagnostic, "file:line:col: error <kind>: field: message"
(with --format json: {"format_version": "2", "diagnostics": [...]} on
stdout).
A command that already printed its findings (exit 1) prints nothing more.
A second Ctrl-C exits at once with 130. The online commands (plan, deploy,
prune, unlock, status, inspect, diff) watch for Ctrl-C once their nodes are
discovered: before that, it ends them at once, as it ends any process.`

func newCmdExitCodes() *cobra.Command {
	return &cobra.Command{
		Use:   "exit-codes",
		Short: "What scriptctl's exit codes mean",
		Long:  exitCodesHelp,
	}
}
