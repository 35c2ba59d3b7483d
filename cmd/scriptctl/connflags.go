package main

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/scriptctl/scriptctl/internal/cmdutil"
	"github.com/scriptctl/scriptctl/internal/connect"
	"github.com/scriptctl/scriptctl/internal/diag"
	"github.com/scriptctl/scriptctl/internal/iostreams"
	"github.com/scriptctl/scriptctl/loader"
	"github.com/scriptctl/scriptctl/manifest"
)

// jsonFormatVersion is the format_version of every online command's JSON
// output (docs/json.md): "2" since each document carries its findings as
// shared diagnostics.
const jsonFormatVersion = diag.FormatVersion

// libraryDocJSON opens the JSON documents of the online commands about a
// manifest's library (plan, status, diff): embedded, its fields come first.
type libraryDocJSON struct {
	FormatVersion string `json:"format_version"`
	Command       string `json:"command"`
	Library       string `json:"library"`
	LibraryName   string `json:"library_name"`
	Version       int    `json:"version"`
	Mode          string `json:"mode"`
}

// libraryDoc is the head of command's document about library version v in
// mode.
func libraryDoc(command, library, libraryName string, version int, mode loader.Mode) libraryDocJSON {
	return libraryDocJSON{FormatVersion: jsonFormatVersion, Command: command, Library: library, LibraryName: libraryName, Version: version, Mode: string(mode)}
}

// connFlags are the connection flags plan, deploy, status and prune share.
type connFlags struct {
	URLs          []string
	PasswordFile  string
	TLSCA         string
	TLSCert       string
	TLSKey        string
	TLSServerName string
	TLSInsecure   bool
	cmd           *cobra.Command // for the --tls-insecure warning on its stderr
	warnedTLS     bool           // the warning is printed, once a run
	Timeout       time.Duration
	ReplyLimits   []string // --reply-limit NAME=VALUE settings
	Mode          string
	Format        string
	// Env is --env: the manifest's environment to connect to; env is it
	// once read.
	Env string
	env *manifest.Environment
	// work, when set, is what the command will change: its permission
	// probes ride along with the discovery (loader.ConnectFor).
	work *loader.Work
}

const connHelp = `
Connecting:
  Give every server with --url (repeatable) or SCRIPTCTL_URL (URLs separated
  by commas). In a Redis Cluster one node is enough: scriptctl reads the rest
  from CLUSTER NODES. Standalone, give the primary: its replicas are found
  through INFO replication (give them too when they announce an address you
  cannot reach). The password comes from --password-file, SCRIPTCTL_PASSWORD
  or REDISCLI_AUTH, never from a flag value that ps would show; a user goes in
  the URL (redis://user@host:port).`

func (f *connFlags) register(cmd *cobra.Command) {
	markDiscoversNodes(cmd)
	fs := cmd.Flags()
	fs.StringArrayVar(&f.URLs, "url", nil, "server `URL`, redis://[user@]host:port or rediss://...; repeatable (env SCRIPTCTL_URL)")
	f.registerSecurity(cmd, "the servers")
	fs.StringVar(&f.Mode, "mode", "both", "what to handle: scripts, functions or both (default: the manifest's deploy, else both)")
	fs.StringVar(&f.Format, "format", "text", "output format: text, table or json (text piped: tab-separated rows, no header; table: aligned, with a header)")
	fs.StringVar(&f.Env, "env", "", "connect to the manifest's environment `NAME` (environments:); --url and the password and TLS flags override its fields")
	cmd.Long += "\n" + connHelp + "\n" + envHelp
}

// registerAgainst adds the flags of a command's single --against server:
// the password file, TLS and timeout (the URL is the command's own flag).
func (f *connFlags) registerAgainst(cmd *cobra.Command) {
	f.registerSecurity(cmd, "the --against server")
	cmd.Flags().StringVar(&f.Env, "env", "", "use the manifest's environment `NAME` (environments:) as the --against servers: its URLs, password and TLS; --against and the flags override them")
}

// againstFromEnv fills an empty --against from --env's environment (its
// urls, or url_env's value), so that the command runs on those servers
// with the environment's password and TLS (settings applies them).
func (f *connFlags) againstFromEnv(against *string) error {
	if f.Env == "" || *against != "" {
		return nil
	}
	e, err := f.environment()
	if err != nil {
		return err
	}
	urls := e.URLs
	if e.URLEnv != "" {
		urls = connect.SplitURLs(os.Getenv(e.URLEnv))
		if len(urls) == 0 {
			return cmdutil.Input(fmt.Errorf("environment %s: $%s (its url_env) is not set", e.Name, e.URLEnv))
		}
	}
	*against = strings.Join(urls, ",")
	return nil
}

// registerSecurity adds the password file, TLS and timeout flags; servers
// names what they apply to in the help.
func (f *connFlags) registerSecurity(cmd *cobra.Command, servers string) {
	f.cmd = cmd
	fs := cmd.Flags()
	fs.StringVar(&f.PasswordFile, "password-file", "", "read the password for "+servers+" from the first line of `file` (else env SCRIPTCTL_PASSWORD or REDISCLI_AUTH)")
	fs.StringVar(&f.TLSCA, "tls-ca", "", "PEM `file` of CA certificates to verify "+servers+" with (rediss:// URLs)")
	fs.StringVar(&f.TLSCert, "tls-cert", "", "PEM client certificate `file`")
	fs.StringVar(&f.TLSKey, "tls-key", "", "PEM client key `file`")
	fs.StringVar(&f.TLSServerName, "tls-server-name", "", "server `name` to verify instead of the URL's host")
	fs.BoolVar(&f.TLSInsecure, "tls-insecure", false, "do not verify the certificates of "+servers+" (explicit opt-in)")
	fs.DurationVar(&f.Timeout, "timeout", connect.DefaultTimeout, "bound on connecting to "+servers+" and on each command")
	fs.StringArrayVar(&f.ReplyLimits, "reply-limit", nil, "raise a bound on one reply of "+servers+": bulk=SIZE (default 64MiB), elements=N (1048576), depth=N (32), total=SIZE (256MiB); repeatable")
}

// againstFlags are the flags registerAgainst adds: they need --against.
var againstFlags = []string{"password-file", "tls-ca", "tls-cert", "tls-key", "tls-server-name", "tls-insecure", "timeout", "reply-limit"}

// checkAgainstFlags refuses the --against connection flags without --against.
func checkAgainstFlags(cmd *cobra.Command, against string) error {
	if against != "" {
		return nil
	}
	for _, f := range againstFlags {
		if cmd.Flags().Changed(f) {
			return cmdutil.Usage(fmt.Errorf("--%s applies to --against, which is not given", f), fmt.Sprintf("'%s --help'", cmd.CommandPath()))
		}
	}
	return nil
}

// resolveAgainst resolves a command's --against servers (one standalone
// server, or nodes of one cluster) with the shared connection settings
// (password from a file or the environment, TLS, timeout).
// allowURLPassword keeps a password written in the URL working.
func (f connFlags) resolveAgainst(against []string, cmdName string, allowURLPassword bool) (*connect.Config, error) {
	f.URLs = against
	s, _, err := f.settings()
	if err != nil {
		return nil, connUsage(err, cmdName)
	}
	s.Source = "--against"
	for _, a := range against {
		if u, perr := url.Parse(a); allowURLPassword && perr == nil && u.User != nil {
			if _, ok := u.User.Password(); ok {
				if f.PasswordFile != "" {
					return nil, cmdutil.Usage(errors.New("--against carries a password and --password-file gives another: give one"), fmt.Sprintf("'scriptctl %s --help'", cmdName))
				}
				s.Password = "" // the URL's own password wins over the environment
			}
		}
	}
	cfg, err := connect.Resolve(s, allowURLPassword)
	if err != nil {
		return nil, connUsage(err, cmdName)
	}
	return cfg, nil
}

// check validates the flag values that need no I/O.
func (f *connFlags) check(cmd *cobra.Command) (loader.Mode, error) {
	if err := checkFormat(cmd, f.Format, "text", "json"); err != nil {
		return "", err
	}
	mode, err := loader.ParseMode(f.Mode)
	if err != nil {
		return "", cmdutil.Usage(fmt.Errorf("--mode: %w", err), fmt.Sprintf("'%s --help'", cmd.CommandPath()))
	}
	if f.Timeout <= 0 {
		return "", cmdutil.Usage(fmt.Errorf("--timeout must be positive, not %s", f.Timeout), fmt.Sprintf("'%s --help'", cmd.CommandPath()))
	}
	return mode, nil
}

// settings gathers the connection settings from the flags and the
// environment. fromEnv reports whether the URLs came from SCRIPTCTL_URL.
func (f *connFlags) settings() (s connect.Settings, fromEnv bool, err error) {
	s = connect.Settings{
		URLs:        f.URLs,
		TLSCA:       f.TLSCA,
		TLSCert:     f.TLSCert,
		TLSKey:      f.TLSKey,
		TLSServer:   f.TLSServerName,
		TLSInsecure: f.TLSInsecure,
		Timeout:     f.Timeout,
	}
	for _, l := range f.ReplyLimits {
		if err := connect.ParseReplyLimit(&s.Limits, l); err != nil {
			return s, false, err
		}
	}
	if f.TLSInsecure && f.cmd != nil && !f.warnedTLS {
		// Every run: a flag that turns off verification must never be
		// quiet, however it got into a pipeline.
		f.warnedTLS = true
		fmt.Fprintln(f.cmd.ErrOrStderr(), "warning: --tls-insecure: server certificates are not verified; anyone on the network path can impersonate the servers")
	}
	s.Source = "--url"
	env, err := f.environment()
	if err != nil {
		return s, false, err
	}
	if env != nil {
		// The environment stands in for SCRIPTCTL_URL and the password
		// variables; --url and --password-file still win.
		fromEnv, err = f.applyEnvironment(&s, env)
		if err == nil && f.PasswordFile != "" {
			s.Password, err = connect.ReadPasswordFile(f.PasswordFile)
		}
		return s, fromEnv, err
	}
	if len(s.URLs) == 0 {
		s.URLs = connect.SplitURLs(os.Getenv("SCRIPTCTL_URL"))
		s.Source = "SCRIPTCTL_URL"
		fromEnv = true
	}
	switch {
	case f.PasswordFile != "":
		s.Password, err = connect.ReadPasswordFile(f.PasswordFile)
	case os.Getenv("SCRIPTCTL_PASSWORD") != "":
		s.Password = os.Getenv("SCRIPTCTL_PASSWORD")
	case os.Getenv("REDISCLI_AUTH") != "":
		s.Password = os.Getenv("REDISCLI_AUTH")
	}
	return s, fromEnv, err
}

// processExits is set by Main: the process ends when its command returns.
var processExits bool

// close closes the nodes' connections as the command returns. In a process
// that ends with its command (Main) it leaves them to the kernel, which
// closes every socket as the process exits, as redis-cli leaves its own:
// the clients' shutdown (rueidis queues a PING on each connection, then
// waits for its goroutines to drain) took 0.2 to 0.6 ms of a functions-only
// deploy's 8, after the report was out. A run inside a longer-lived
// process (the tests) closes them.
func (o *online) close() {
	if processExits {
		return
	}
	o.topo.Close()
}

// online is what an online command works with once connected.
type online struct {
	cfg     *connect.Config
	topo    *loader.Topology
	servers *serverCheck          // set by checkServers
	env     *manifest.Environment // --env's, or nil
}

// validate resolves the connection settings without connecting: usage
// problems (a bad URL, contradicting flags) exit 2 before anything else runs.
func (f *connFlags) validate(cmd string) error {
	s, fromEnv, err := f.settings()
	if err != nil {
		return connUsage(err, cmd)
	}
	if _, err := connect.Resolve(s, fromEnv); err != nil {
		return connUsage(err, cmd)
	}
	return nil
}

// connectAll resolves the connection settings and discovers the nodes,
// naming them on ios with --verbose. Settings problems exit 2; a failed
// discovery exits 3. The caller closes the topology.
func (f *connFlags) connectAll(ctx context.Context, ios *iostreams.IOStreams, cmd string) (*online, error) {
	return f.connectDuring(ctx, ios, cmd, nil)
}

// connectDuring is connectAll with checks (plan's and deploy's pre-flight
// checks; nil for none) run while the nodes are discovered: discovery
// only reads (the handshake, CLUSTER NODES or INFO, the permission
// probes), and its round trips wait on the network while the checks work
// on the CPU. When checks fails, discovery is cancelled, its connections
// are closed and checks' error is returned, whatever discovery found;
// nothing else has been sent. The nodes are named (--verbose) only after
// the checks have reported, so the output is the same as one after the
// other.
func (f *connFlags) connectDuring(ctx context.Context, ios *iostreams.IOStreams, cmd string, checks func() error) (*online, error) {
	s, fromEnv, err := f.settings()
	if err != nil {
		return nil, connUsage(err, cmd)
	}
	cfg, err := connect.Resolve(s, fromEnv)
	if err != nil {
		return nil, connUsage(err, cmd)
	}
	var o *online
	if checks == nil {
		o, err = f.discoverNodes(ctx, cfg)
	} else {
		type result struct {
			o   *online
			err error
		}
		dctx, cancel := context.WithCancel(ctx)
		defer cancel()
		ch := make(chan result, 1)
		go func() {
			o, err := f.discoverNodes(dctx, cfg)
			ch <- result{o, err}
		}()
		if cerr := checks(); cerr != nil {
			cancel()
			if r := <-ch; r.o != nil {
				r.o.topo.Close()
			}
			return nil, cerr
		}
		r := <-ch
		o, err = r.o, r.err
	}
	if err != nil {
		return nil, err
	}
	o.detailNodes(ios, cmd)
	if needsLua(cmd) {
		if err := loader.CheckLuaEngine(ctx, o.topo); err != nil {
			o.topo.Close()
			return nil, o.envErr(err)
		}
	}
	// From here on an online command may change the servers: an
	// interrupt cancels its context (watched for only now, see
	// discoversNodes).
	watchInterrupts(ctx)
	return o, nil
}

// discoverNodes discovers the nodes cfg names, with the permission probes
// of f.work, and checks them against --env's topology. It writes nothing
// on the terminal.
func (f *connFlags) discoverNodes(ctx context.Context, cfg *connect.Config) (*online, error) {
	var topo *loader.Topology
	var err error
	if f.work != nil {
		topo, err = loader.ConnectFor(ctx, cfg.Dial, cfg.Seeds, cfg.Timeout, *f.work)
	} else {
		topo, err = loader.Connect(ctx, cfg.Dial, cfg.Seeds, cfg.Timeout)
	}
	if err != nil {
		return nil, cmdutil.Env(cfg.Scrub(fmt.Errorf("discover nodes: %w", err)))
	}
	if err := checkTopology(f.env, topo); err != nil {
		topo.Close()
		return nil, err
	}
	return &online{cfg: cfg, topo: topo, env: f.env}, nil
}

// discovery is what a read-only online command (diff, status, inspect)
// starts from: the manifest (none for inspect), the mode (--mode, else the
// manifest's deploy field), the released SHAs scripts.sum records, and the
// discovered nodes.
type discovery struct {
	*online
	m      *manifest.Manifest
	mode   loader.Mode
	ledger map[int]map[string]string
}

// discover loads the manifest at manifestPath (none when it is ""), reads
// the scripts.sum beside it and discovers the nodes, in that order: input
// problems exit 2 before anything is dialled, a failed discovery exits 3.
// The caller closes the topology.
func (f *connFlags) discover(ctx context.Context, ios *iostreams.IOStreams, cmd, manifestPath string, mode loader.Mode) (*discovery, error) {
	d := &discovery{mode: mode}
	if manifestPath != "" {
		m, err := loadManifestFor(manifestPath)
		if err != nil {
			return nil, err
		}
		d.m = m
		d.mode = f.modeFor(m, mode)
		if d.ledger, err = readLedger(m); err != nil {
			return nil, err
		}
	}
	o, err := f.connectAll(ctx, ios, cmd)
	if err != nil {
		return nil, err
	}
	d.online = o
	return d, nil
}

// needsLua says whether cmd refuses nodes without a Lua engine
// (loader.CheckLuaEngine: a Valkey 9 node that unloaded its lua module),
// with exit 3, before it reads or changes anything.
func needsLua(cmd string) bool {
	return cmd == "plan" || cmd == "deploy" || cmd == "status" || cmd == "inspect"
}

// rediscover handles a cluster redirect (the slots moved between discovery
// and the first keyed command, a failover say): when err is one, it says
// so, closes o's topology and discovers the nodes again, once. retry
// reports whether err was a redirect; the caller then runs again with the
// new online, or returns the error.
func (f *connFlags) rediscover(ctx context.Context, ios *iostreams.IOStreams, o *online, err error, cmd string) (_ *online, retry bool, _ error) {
	var re *loader.RedirectError
	if !errors.As(err, &re) {
		return nil, false, nil
	}
	ios.Notice("%s: discovering the nodes again", o.cfg.ScrubString(re.Error()))
	o.topo.Close()
	o2, err := f.connectAll(ctx, ios, cmd)
	return o2, true, err
}

func connUsage(err error, cmd string) error {
	var ee *cmdutil.ExitError
	if errors.As(err, &ee) || errors.Is(err, manifest.ErrInvalid) {
		return err // --env: the manifest, or the name
	}
	var ie *connect.InputError
	if errors.As(err, &ie) {
		return cmdutil.Usage(err, fmt.Sprintf("'scriptctl %s --help'", cmd))
	}
	return cmdutil.Env(err)
}

// envErr maps a loader error to exit 3, scrubbed, with the hint some errors
// carry.
func (o *online) envErr(err error) error {
	if err == nil {
		return nil
	}
	err = o.cfg.Scrub(err)
	var h interface{ Hint() string }
	if errors.As(err, &h) {
		return &cmdutil.ExitError{Code: cmdutil.ExitEnv, Err: err, Hint: h.Hint()}
	}
	return cmdutil.Env(err)
}

// modeFor is the --mode given, else the manifest's deploy field (both by
// default).
func (f *connFlags) modeFor(m *manifest.Manifest, given loader.Mode) loader.Mode {
	if f.cmd != nil && f.cmd.Flags().Changed("mode") {
		return given
	}
	if mode, err := loader.ParseMode(m.Deploy); err == nil {
		return mode
	}
	return given
}

// loadManifestFor loads the manifest for an online command.
func loadManifestFor(path string) (*manifest.Manifest, error) {
	m, err := manifest.Load(path)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			return nil, cmdutil.Input(err)
		}
		return nil, err
	}
	return m, nil
}

// nodeJSON is a node as every online command's JSON shows it.
type nodeJSON struct {
	Addr         string `json:"addr"`
	Role         string `json:"role"`
	Primary      string `json:"primary,omitempty"`
	Server       string `json:"server,omitempty"`
	Version      string `json:"version,omitempty"`
	RedisVersion string `json:"redis_version,omitempty"`
	// Targeted: the manifest's targets cover the node's server line;
	// CVEs: Lua CVEs upstream lists the node's version as affected by;
	// CVEsAccepted: those of them the manifest's accept_cves acknowledges;
	// CVEsUnknown: Lua CVEs the table cannot judge for the node's release.
	Targeted     *bool    `json:"targeted,omitempty"`
	CVEs         []string `json:"cves,omitempty"`
	CVEsAccepted []string `json:"cves_accepted,omitempty"`
	CVEsUnknown  []string `json:"cves_unknown,omitempty"`
	// Problem classes an unusable node: unreachable, auth failed, not redis.
	Problem string `json:"problem,omitempty"`
	Error   string `json:"error,omitempty"`
}

func (o *online) node(n *loader.Node) nodeJSON {
	j := nodeJSON{Addr: n.Addr, Role: string(n.Role), Primary: n.Primary, Server: n.Family, Version: n.Version, RedisVersion: n.RedisVersion}
	if n.Err != nil {
		j.Error = o.cfg.ScrubString(n.Err.Error())
		j.Problem = loader.Class(n.Err)
	}
	o.servers.nodeFields(n, &j)
	return j
}

// serverCell is a node's family and version for a table's VERSION column:
// "redis 7.0.15", "valkey 8.1.1", or "-" when unreachable.
func serverCell(n *loader.Node) string {
	if n.Version == "" {
		return "-"
	}
	return n.Family + " " + n.Version
}

// errString returns err's message scrubbed, or "".
func (o *online) errString(err error) string {
	if err == nil {
		return ""
	}
	return o.cfg.ScrubString(err.Error())
}

// colorCell paints a table cell. Every cell of a painted column, its header
// included, goes through here with a two-digit color code ("" is the
// default color, 39), so each carries the same number of invisible bytes
// and the table stays aligned.
func colorCell(ios *iostreams.IOStreams, code, text string) string {
	if code == "" {
		code = defaultColor
	}
	return ios.Paint(code, text)
}

const defaultColor = "39"

// cellOrDash returns s, or "-" when empty, for table cells.
func cellOrDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// abbrevSHA abbreviates a SHA for tables.
func abbrevSHA(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}

// oneLineCell keeps a table cell on one line.
func oneLineCell(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// detailNodes says, with --verbose, which nodes cmd discovered: one line per
// node with its role and server, or why it cannot be used (scrubbed).
func (o *online) detailNodes(ios *iostreams.IOStreams, cmd string) {
	kind := "standalone"
	if o.topo.Cluster {
		kind = "cluster"
	}
	ios.Detail("%s: discovered %d node(s) (%s)", cmd, len(o.topo.Nodes), kind)
	for _, n := range o.topo.Nodes {
		switch {
		case n.Err != nil:
			ios.Detail("%s: node %s: %s, not usable: %s", cmd, n.Addr, n.Role, o.cfg.ScrubString(n.Err.Error()))
		case n.Primary != "":
			ios.Detail("%s: node %s: %s of %s, %s %s", cmd, n.Addr, n.Role, n.Primary, n.Family, n.Version)
		default:
			ios.Detail("%s: node %s: %s, %s %s", cmd, n.Addr, n.Role, n.Family, n.Version)
		}
	}
}
