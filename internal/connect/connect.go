// Package connect turns scriptctl's connection settings (server URLs, a
// password from a file or the environment, TLS files, a timeout) into
// rueidis client options, and dials one Redis node at a time with them. It
// keeps the password out of every string it produces: URLs are shown as
// host:port and errors are scrubbed. It does not discover nodes or run
// commands beyond the connection handshake; package loader does.
package connect

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/rueidis"
	"github.com/scriptctl/scriptctl/internal/safefile"
)

// DefaultTimeout bounds dialing and each command when Settings.Timeout is 0.
const DefaultTimeout = 5 * time.Second

// Settings are the connection settings as the user gave them.
type Settings struct {
	URLs        []string // redis:// or rediss:// URLs; one per seed node
	Password    string   // the password itself (from a file or the environment)
	TLSCA       string   // PEM file of CA certificates
	TLSCert     string   // PEM client certificate
	TLSKey      string   // PEM client key
	TLSServer   string   // server name to verify instead of the URL host
	TLSInsecure bool     // skip certificate verification (explicit)
	Timeout     time.Duration
	Limits      ReplyLimits // zero fields take DefaultReplyLimits
	// Source names where URLs came from in errors: "--url" (the default),
	// "SCRIPTCTL_URL" or "--against".
	Source string
}

// label names the i-th URL in errors: "--url #2", "SCRIPTCTL_URL",
// "SCRIPTCTL_URL #2", "--against".
func (s Settings) label(i int) string {
	src := s.Source
	if src == "" {
		src = "--url"
	}
	if src == "--url" || len(s.URLs) > 1 {
		return fmt.Sprintf("%s #%d", src, i+1)
	}
	return src
}

// Config is what Settings resolve to: the seed addresses and the options
// every node connection shares.
type Config struct {
	Seeds    []string // host:port, in the order given, without duplicates
	Username string
	Timeout  time.Duration
	Limits   ReplyLimits // what one reply may hold; zero fields take DefaultReplyLimits

	password  string
	tlsConfig *tls.Config
}

// TLS reports whether the servers are reached over TLS (rediss:// URLs).
func (c *Config) TLS() bool { return c.tlsConfig != nil }

// InputError is a problem with the settings themselves (a malformed URL, an
// unreadable certificate); the CLI maps it to exit 2.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

func inputf(format string, args ...any) error {
	return &InputError{Err: fmt.Errorf(format, args...)}
}

// Resolve validates s and returns the Config to dial with. allowURLPassword
// permits a password inside a URL (set for URLs read from the environment,
// which ps does not show); a password in a URL given as a flag is refused.
func Resolve(s Settings, allowURLPassword bool) (*Config, error) {
	if len(s.URLs) == 0 {
		return nil, inputf("no server given: pass --url redis://host:port (repeatable) or set SCRIPTCTL_URL")
	}
	c := &Config{Timeout: s.Timeout, Limits: s.Limits.withDefaults(), password: s.Password}
	if c.Timeout <= 0 {
		c.Timeout = DefaultTimeout
	}
	tlsOn := false
	seen := map[string]bool{}
	for i, raw := range s.URLs {
		u, err := parseURL(raw)
		if err != nil {
			return nil, inputf("%s: %v", s.label(i), err)
		}
		if u.password != "" {
			if !allowURLPassword {
				return nil, inputf("%s (%s): a password in a URL shows in ps and shell history: put it in --password-file or SCRIPTCTL_PASSWORD", s.label(i), u.addr)
			}
			if c.password == "" {
				c.password = u.password
			}
		}
		if i > 0 && u.tls != tlsOn {
			return nil, inputf("%s (%s): mixing redis:// and rediss:// URLs is not supported", s.label(i), u.addr)
		}
		tlsOn = u.tls
		if u.username != "" {
			if c.Username != "" && c.Username != u.username {
				return nil, inputf("%s (%s): user %q differs from user %q of an earlier URL: every node must use the same user", s.label(i), u.addr, u.username, c.Username)
			}
			c.Username = u.username
		}
		if !seen[u.addr] {
			seen[u.addr] = true
			c.Seeds = append(c.Seeds, u.addr)
		}
	}
	if s.TLSInsecure && s.TLSCA != "" {
		return nil, inputf("--tls-insecure and --tls-ca contradict each other: --tls-insecure skips the verification --tls-ca configures; give one")
	}
	tlsFlags := s.TLSCA != "" || s.TLSCert != "" || s.TLSKey != "" || s.TLSServer != "" || s.TLSInsecure
	if tlsFlags && !tlsOn {
		return nil, inputf("TLS flags need rediss:// URLs: use rediss://host:port")
	}
	if tlsOn {
		tc, err := tlsConfig(s)
		if err != nil {
			return nil, err
		}
		c.tlsConfig = tc
	}
	return c, nil
}

type parsedURL struct {
	addr     string
	username string
	password string
	tls      bool
}

// parseURL parses redis://[user[:password]@]host[:port][/db]. Its errors
// never contain the password.
func parseURL(raw string) (parsedURL, error) {
	var p parsedURL
	raw = strings.TrimSpace(raw)
	scheme, rest, ok := strings.Cut(raw, "://")
	if !ok {
		return p, fmt.Errorf("%q is not a URL: want redis://host:port or rediss://host:port", Redact(raw))
	}
	switch strings.ToLower(scheme) {
	case "redis":
	case "rediss":
		p.tls = true
	default:
		return p, fmt.Errorf("%q: unsupported scheme: want redis:// or rediss://", Redact(raw))
	}
	u, err := url.Parse(strings.ToLower(scheme) + "://" + rest)
	if err != nil {
		return p, fmt.Errorf("%q is not a valid URL", Redact(raw))
	}
	if u.User != nil {
		p.username = u.User.Username()
		p.password, _ = u.User.Password()
	}
	host, port := u.Hostname(), u.Port()
	if host == "" {
		return p, fmt.Errorf("%q has no host", Redact(raw))
	}
	if !validHost(host) {
		return p, fmt.Errorf("%q: invalid host", Redact(raw))
	}
	if port == "" {
		if strings.HasSuffix(u.Host, ":") {
			// "host:" is a port left out by mistake (an unset variable, say),
			// not a request for the default.
			return p, fmt.Errorf("%q: empty port after the host", Redact(raw))
		}
		port = "6379"
	}
	if n, err := strconv.Atoi(port); err != nil || n <= 0 || n > 65535 {
		return p, fmt.Errorf("%q: invalid port", Redact(raw))
	}
	if path := strings.Trim(u.Path, "/"); path != "" && path != "0" {
		return p, fmt.Errorf("%q: has a database path: scripts and functions are server-wide, give the server without a database", Redact(raw))
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return p, fmt.Errorf("%q: query parameters are not supported: use the --tls-* and --timeout flags", Redact(raw))
	}
	p.addr = net.JoinHostPort(host, port)
	return p, nil
}

// validHost accepts an IP address or a DNS name.
func validHost(h string) bool {
	if net.ParseIP(h) != nil {
		return true
	}
	for _, r := range h {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '-' || r == '_') {
			return false
		}
	}
	return len(h) <= 253
}

// Redact returns raw with its secret parts replaced by "xxxxx", for
// messages about a URL. It works on malformed URLs too: anything between a
// scheme-like prefix ("redis://", "redis:/", "redis//", "redis:") and the
// last "@" is treated as a secret, and so is a query or fragment (from the
// first "?" or "#": "?password=..." is a password too). Only a well-formed
// "user:password" keeps its user name visible. When a "?" or "#" comes
// before the last "@", which part is the password cannot be told, and all
// but the scheme is hidden.
func Redact(raw string) string {
	at := strings.LastIndex(raw, "@")
	q := strings.IndexAny(raw, "?#")
	if q >= 0 && at > q {
		return schemePrefix(raw[:q]) + "xxxxx"
	}
	tail := ""
	if q >= 0 {
		raw, tail = raw[:q], raw[q:q+1]+"xxxxx"
	}
	return redactUserinfo(raw, at) + tail
}

// redactUserinfo hides what stands between raw's scheme-like prefix and
// its last "@", at.
func redactUserinfo(raw string, at int) string {
	if at < 0 {
		return raw
	}
	prefix := schemePrefix(raw[:at])
	user := raw[len(prefix):at]
	if strings.HasSuffix(prefix, "://") {
		if name, _, ok := strings.Cut(user, ":"); ok && (name == "" || validUser(name)) {
			return prefix + name + ":xxxxx" + raw[at:]
		}
		if !strings.Contains(user, ":") && validUser(user) {
			return raw // a user name alone is no secret
		}
	}
	return prefix + "xxxxx" + raw[at:]
}

// schemePrefix returns the leading scheme-like part of s: letters, digits,
// "+", "-" or "." starting with a letter, followed by any run of ":" and
// "/", or "" when s has none.
func schemePrefix(s string) string {
	i := 0
	for i < len(s) && (s[i] >= 'a' && s[i] <= 'z' || s[i] >= 'A' && s[i] <= 'Z' || i > 0 && (s[i] >= '0' && s[i] <= '9' || s[i] == '+' || s[i] == '-' || s[i] == '.')) {
		i++
	}
	j := i
	for j < len(s) && (s[j] == ':' || s[j] == '/') {
		j++
	}
	if i == 0 || j == i {
		return ""
	}
	return s[:j]
}

// validUser reports whether name looks like an ACL user name, which is shown.
func validUser(name string) bool {
	if name == "" {
		return false
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.') {
			return false
		}
	}
	return true
}

func tlsConfig(s Settings) (*tls.Config, error) {
	tc := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: s.TLSServer, InsecureSkipVerify: s.TLSInsecure}
	if s.TLSCA != "" {
		pem, err := safefile.Read(s.TLSCA, MaxPEMSize)
		if err != nil {
			return nil, inputf("--tls-ca %s: %v", s.TLSCA, pathErr(err))
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, inputf("--tls-ca %s: no PEM certificate found", s.TLSCA)
		}
		tc.RootCAs = pool
	}
	if (s.TLSCert == "") != (s.TLSKey == "") {
		return nil, inputf("--tls-cert and --tls-key go together: give both or neither")
	}
	if s.TLSCert != "" {
		certPEM, err := safefile.Read(s.TLSCert, MaxPEMSize)
		if err != nil {
			return nil, inputf("--tls-cert %s: %v", s.TLSCert, pathErr(err))
		}
		keyPEM, err := safefile.Read(s.TLSKey, MaxPEMSize)
		if err != nil {
			return nil, inputf("--tls-key %s: %v", s.TLSKey, pathErr(err))
		}
		cert, err := tls.X509KeyPair(certPEM, keyPEM)
		if err != nil {
			return nil, inputf("--tls-cert/--tls-key: %v", err)
		}
		tc.Certificates = []tls.Certificate{cert}
	}
	return tc, nil
}

// Option returns the rueidis options for a client bound to the one node at
// addr: no redirects, no retries, no client-side cache, RESP2 replies.
func (c *Config) Option(addr string) rueidis.ClientOption {
	opt := rueidis.ClientOption{
		InitAddress:       []string{addr},
		Username:          c.Username,
		Password:          c.password,
		DisableCache:      true,
		ForceSingleClient: true,
		DisableRetry:      true,
		AlwaysRESP2:       true,
		ConnWriteTimeout:  c.Timeout,
		// A command line tool sends a few hundred commands per node:
		// rueidis's defaults (0.5 MiB buffers each way, a ring of 1024
		// slots) cost more to allocate than the round trips take. A ring
		// slot holds one command or one pipelined batch in flight, and
		// costs a mutex, two condition variables and a channel when the
		// connection opens; scriptctl has at most two in flight on a
		// node (a deploy's batch and its lock's renewal), so 4 slots
		// (more would wait for a free one, not fail).
		ReadBufferEachConn:  1 << 14,
		WriteBufferEachConn: 1 << 14,
		RingScaleEachConn:   2,
		// One connection per node: rueidis would otherwise spread commands
		// over up to four connections by their keys' slots, dialing (and
		// saying HELLO on) another one for the first keyed command, such
		// as the deploy lock's SET.
		PipelineMultiplex: -1,
		// No CLIENT SETINFO after HELLO: the least-privilege users
		// docs/deploy.md gives are not granted it, so on servers that
		// know the command (Redis 7.2+, Valkey) each connection would
		// add a refusal to the ACL log; and it is two commands per
		// connection a run does not need.
		ClientSetInfo: rueidis.DisableClientSetInfo,
		Dialer:        net.Dialer{Timeout: c.Timeout},
		// Every byte a server sends is checked against the reply limits
		// before rueidis reads it: rueidis allocates what a header asks.
		DialCtxFn: c.dial,
	}
	if c.tlsConfig != nil {
		tc := c.tlsConfig.Clone()
		if tc.ServerName == "" {
			if host, _, err := net.SplitHostPort(addr); err == nil {
				tc.ServerName = host
			}
		}
		opt.TLSConfig = tc
	}
	return opt
}

// Dial connects to the one node at addr and authenticates. The error never
// contains the password; the caller names addr. Closing the client closes
// its connection at once: rueidis would first send a PING and wait for its
// reply (up to a second from a silent node). When ctx ends first, Dial
// returns ctx's error at once: the TCP connect in progress is cancelled,
// or the connection in its handshake closed, rather than left until the
// node answers or the timeout ends it.
func (c *Config) Dial(ctx context.Context, addr string) (rueidis.Client, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	fc := &fastClose{cfg: c}
	fc.gone, fc.end = context.WithCancel(context.Background())
	opt := c.Option(addr)
	opt.DialCtxFn = fc.dial
	// rueidis's dial takes no context: when ctx ends, abandon ends the
	// connection being dialled or in its handshake, and NewClient fails.
	stop := context.AfterFunc(ctx, fc.abandon)
	cl, err := rueidis.NewClient(opt)
	if !stop() {
		if cl != nil {
			cl.Close()
		}
		return nil, ctx.Err()
	}
	if err != nil {
		return nil, c.Scrub(err)
	}
	fc.Client = cl
	return fc, nil
}

// fastClose is a client whose Close closes the network connections before
// rueidis's own Close, so that does not wait for a PING.
type fastClose struct {
	rueidis.Client
	cfg   *Config
	mu    sync.Mutex
	conns []net.Conn
	// gone ends (end) when Dial gives up or the client closes: a dial in
	// progress stops, a connection dialled since is closed at once.
	gone context.Context
	end  context.CancelFunc
}

// dial is rueidis's default dial, with the connection guarded by the
// reply limits.
func (c *Config) dial(ctx context.Context, dst string, d *net.Dialer, tc *tls.Config) (net.Conn, error) {
	var conn net.Conn
	var err error
	if tc != nil {
		conn, err = (&tls.Dialer{NetDialer: d, Config: tc}).DialContext(ctx, "tcp", dst)
	} else {
		conn, err = d.DialContext(ctx, "tcp", dst)
	}
	if err != nil {
		return nil, err
	}
	return newGuardConn(conn, c.Limits), nil
}

// dial is Config.dial, remembering the connection.
func (f *fastClose) dial(ctx context.Context, dst string, d *net.Dialer, tc *tls.Config) (net.Conn, error) {
	if f.gone.Err() != nil {
		return nil, net.ErrClosed
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(f.gone, cancel)()
	conn, err := f.cfg.dial(ctx, dst, d, tc)
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	// abandon ends gone before it takes the lock: a connection is either
	// here for it to close, or closed now.
	if f.gone.Err() != nil {
		_ = conn.Close()
		return nil, net.ErrClosed
	}
	f.conns = append(f.conns, conn)
	return conn, nil
}

// abandon stops the dials in progress, closes the connections dialled so
// far and refuses any later: a handshake in progress fails at once.
func (f *fastClose) abandon() {
	f.end()
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, c := range f.conns {
		_ = c.Close()
	}
}

// Close closes the connections, then the client.
func (f *fastClose) Close() {
	f.abandon()
	f.Client.Close()
}

// Scrub returns err with every occurrence of the password replaced by
// "xxxxx". errors.Is and errors.As still see the original chain.
func (c *Config) Scrub(err error) error {
	if err == nil || c.password == "" || !strings.Contains(err.Error(), c.password) {
		return err
	}
	return &scrubbed{err: err, msg: strings.ReplaceAll(err.Error(), c.password, "xxxxx")}
}

// ScrubString replaces every occurrence of the password in s.
func (c *Config) ScrubString(s string) string {
	if c == nil || c.password == "" {
		return s
	}
	return strings.ReplaceAll(s, c.password, "xxxxx")
}

type scrubbed struct {
	err error
	msg string
}

func (e *scrubbed) Error() string { return e.msg }
func (e *scrubbed) Unwrap() error { return e.err }

// MaxPasswordFileSize bounds a --password-file; MaxPEMSize bounds each of
// --tls-ca, --tls-cert and --tls-key.
const (
	MaxPasswordFileSize = 64 << 10
	MaxPEMSize          = 1 << 20
)

// ReadPasswordFile reads a password file: the first line, without its line
// ending. An empty password is an error.
func ReadPasswordFile(path string) (string, error) {
	b, err := safefile.Read(path, MaxPasswordFileSize)
	if err != nil {
		return "", inputf("--password-file %s: %v", path, pathErr(err))
	}
	line, _, _ := strings.Cut(string(b), "\n")
	line = strings.TrimSuffix(line, "\r")
	if line == "" {
		return "", inputf("--password-file %s: the first line is empty", path)
	}
	return line, nil
}

// pathErr drops the operation and path an *os.PathError repeats.
func pathErr(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// SplitURLs splits a list of URLs (SCRIPTCTL_URL, --against) separated by
// commas or whitespace. A separator splits only where what follows it
// starts a new URL (a scheme and a slash: "redis://", or a typo such as
// "redis//"): elsewhere it
// belongs to the URL before it, so a comma or a space inside a password
// ("redis://deployer:pa,ss@host") is never taken for a separator and half
// the password never shown as a URL of its own. A password holding a
// separator followed by a scheme and a slash must be percent-encoded ("%2C"
// for a comma).
func SplitURLs(v string) []string {
	isSep := func(b byte) bool { return b == ',' || b == ' ' || b == '\t' || b == '\n' }
	var out []string
	start := -1 // start of the current URL, -1 before the first
	for i := 0; i < len(v); {
		if !isSep(v[i]) {
			if start < 0 {
				start = i
			}
			i++
			continue
		}
		j := i
		for j < len(v) && isSep(v[j]) {
			j++
		}
		if start >= 0 && (j == len(v) || startsURL(v[j:])) {
			out = append(out, v[start:i])
			start = -1
		}
		i = j
	}
	if start >= 0 {
		out = append(out, v[start:])
	}
	return out
}

// startsURL reports whether s begins like a URL: a scheme followed by
// "://", or by the typos ":/" and "//" (reported as malformed URLs of their
// own).
func startsURL(s string) bool {
	i := 0
	for i < len(s) && (s[i] >= 'a' && s[i] <= 'z' || s[i] >= 'A' && s[i] <= 'Z' || i > 0 && (s[i] >= '0' && s[i] <= '9' || s[i] == '+' || s[i] == '-' || s[i] == '.')) {
		i++
	}
	return i > 0 && (strings.HasPrefix(s[i:], ":/") || strings.HasPrefix(s[i:], "//"))
}

// DeploymentOption returns the rueidis options for a client of the whole
// deployment behind the seeds: rueidis asks CLUSTER SLOTS and, in a
// cluster, routes every keyed command to its slot's primary and follows
// MOVED and ASK; a single standalone seed gets a single-node client. No
// retries, no client-side cache, RESP2 replies. Without --tls-server-name,
// each node's certificate is verified against the address it is dialed at.
func (c *Config) DeploymentOption() rueidis.ClientOption {
	opt := c.Option(c.Seeds[0])
	opt.InitAddress = append([]string(nil), c.Seeds...)
	opt.ForceSingleClient = false
	if opt.TLSConfig != nil && c.tlsConfig.ServerName == "" {
		opt.TLSConfig.ServerName = ""
	}
	return opt
}
