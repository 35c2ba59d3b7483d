package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/scriptctl/scriptctl/internal/cmdutil"
	"github.com/scriptctl/scriptctl/internal/diag"
	"github.com/scriptctl/scriptctl/internal/iostreams"
	"github.com/scriptctl/scriptctl/loader"
)

type unlockOptions struct {
	IO       *iostreams.IOStreams
	Manifest string
	Conn     connFlags
	Holder   string
	Force    bool
	Yes      bool
}

func newCmdUnlock(g *globalOptions) *cobra.Command {
	opts := &unlockOptions{IO: g.IO}
	cmd := &cobra.Command{
		Use:   "unlock [--holder TOKEN | --force --yes]",
		Short: "Show or clear the deploy lock of the manifest's library",
		Long: `Show who holds the deploy lock scriptctl:lock:{<library>} (holder, token and
the lease left), or clear a stale one: a deploy that was killed leaves its
lock until the lease expires (15s), and a failover can keep it longer.

Without flags, unlock shows the lock and changes nothing. --holder TOKEN
deletes the lock only while that token still holds it (compare-and-delete in
one script), so a lock taken by a new deploy since you looked is left alone.
--force deletes the lock whoever holds it, and needs --yes to confirm: a
deploy still running then loses its lock and stops at its next renewal.

Exit status: 0 when the lock is shown, cleared, or not held; 1 when --holder
names a token that no longer holds the lock (nothing deleted: a finding on
stderr, in JSON in diagnostics, code lock-held, at the manifest's library
field); 2 for invalid flags (--force without --yes, --holder with --force);
3 when the servers cannot be reached or refuse.`,
		Example: `  scriptctl unlock --url redis://redis-0:6379
  scriptctl unlock --url redis://redis-0:6379 --holder 9f86d081884c7d659a2feaa0c55ad015
  scriptctl unlock --url redis://redis-0:6379 --force --yes`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if _, err := opts.Conn.check(cmd); err != nil {
				return err
			}
			hint := fmt.Sprintf("'%s --help'", cmd.CommandPath())
			switch {
			case opts.Force && opts.Holder != "":
				return cmdutil.Usage(errors.New("--holder and --force exclude each other: --holder deletes one holder's lock, --force anyone's"), hint)
			case opts.Force && !opts.Yes:
				return cmdutil.Usage(errors.New("--force deletes the lock whoever holds it: add --yes to confirm"), hint)
			case opts.Yes && !opts.Force:
				return cmdutil.Usage(errors.New("--yes confirms --force, which is not given"), hint)
			}
			opts.Manifest = g.Manifest
			return runUnlock(cmd.Context(), opts)
		},
	}
	opts.Conn.register(cmd)
	fs := cmd.Flags()
	_ = fs.MarkHidden("mode")
	fs.StringVar(&opts.Holder, "holder", "", "delete the lock only while `TOKEN` (shown by unlock) holds it")
	fs.BoolVar(&opts.Force, "force", false, "delete the lock whoever holds it (needs --yes)")
	fs.BoolVar(&opts.Yes, "yes", false, "confirm --force")
	return cmd
}

// unlockJSON is the --format json document of unlock (docs/json.md).
type unlockJSON struct {
	FormatVersion string `json:"format_version"`
	Command       string `json:"command"`
	Lock          string `json:"lock"`
	Held          bool   `json:"held"`
	Holder        string `json:"holder,omitempty"`
	Token         string `json:"token,omitempty"`
	TTLMs         int64  `json:"ttl_ms,omitempty"`
	Released      bool   `json:"released"`
	// Diagnostics: a lock --holder did not release because another token
	// holds it.
	Diagnostics []diag.Diagnostic `json:"diagnostics"`
}

func runUnlock(ctx context.Context, opts *unlockOptions) error {
	if err := opts.Conn.validate("unlock"); err != nil {
		return err
	}
	m, err := loadManifestFor(opts.Manifest)
	if err != nil {
		return err
	}
	o, err := opts.Conn.connectAll(ctx, opts.IO, "unlock")
	if err != nil {
		return err
	}
	defer o.close()
	var st *loader.LockState
	released := false
	if opts.Holder == "" && !opts.Force {
		st, err = loader.InspectLock(ctx, o.topo, m.Library)
	} else {
		st, released, err = loader.Unlock(ctx, o.topo, m.Library, opts.Holder, opts.Force)
	}
	if err != nil {
		return o.envErr(err)
	}
	// The holder text is whatever was written into the key: Notice and
	// say escape it.
	who := fmt.Sprintf("held by %s (token %s, %s)", st.Holder, st.Token, leaseText(st.TTL))
	var ds []diag.Diagnostic
	if st.Held && !released && opts.Holder != "" {
		ds = append(ds, diag.Diagnostic{File: displayPath(m.Path), Line: m.LibraryLine, Severity: diag.Error, Code: codeLockHeld,
			Message: iostreams.Safe(fmt.Sprintf("deploy lock %s on %s is %s, not by token %s: nothing deleted", st.Key, st.Node, who, opts.Holder), false),
			Detail:  []string{fmt.Sprintf("to clear it: scriptctl unlock --holder %s (or --force --yes)", st.Token)}})
	}
	if opts.Conn.Format == "json" {
		doc := unlockJSON{FormatVersion: jsonFormatVersion, Command: "unlock", Lock: st.Key + "@" + st.Node, Held: st.Held,
			Holder: st.Holder, Token: st.Token, Released: released, Diagnostics: diag.Normalize(ds)}
		if st.Held {
			doc.TTLMs = st.TTL.Milliseconds()
		}
		if err := writeJSONDoc(opts.IO, doc); err != nil {
			return err
		}
	}
	say := func(format string, args ...any) {
		if opts.Conn.Format != "json" {
			fmt.Fprintln(opts.IO.Out, iostreams.Safe(fmt.Sprintf(format, args...), false))
		}
	}
	if !st.Held {
		say("deploy lock %s on %s: not held", st.Key, st.Node)
		return nil
	}
	switch {
	case released:
		say("deploy lock %s on %s released; it was %s", st.Key, st.Node, who)
	case opts.Holder != "":
		say("deploy lock %s on %s is %s", st.Key, st.Node, who)
		if opts.Conn.Format != "json" {
			printDiagnostics(opts.IO, ds)
		}
		return cmdutil.Findings()
	default:
		say("deploy lock %s on %s is %s", st.Key, st.Node, who)
		opts.IO.Notice("to clear it: scriptctl unlock --holder %s (or --force --yes)", st.Token)
	}
	return nil
}

func leaseText(ttl time.Duration) string {
	if ttl < 0 {
		return "no expiry"
	}
	return "lease " + ttl.Round(time.Millisecond).String() + " left"
}
