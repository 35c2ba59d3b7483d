// Package redistest starts throwaway redis-server processes for tests: a
// standalone server, a primary with a replica, and a 6-node Redis Cluster
// (3 primaries, 3 replicas). Every server listens on a free loopback port,
// keeps its files in a test temp dir, and is stopped by pid in t.Cleanup.
//
// It never uses a server it did not start. When redis-server is not installed
// the test is skipped with a clear message, except under CI=true, where it
// fails.
package redistest

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redis/rueidis"
)

// StartTimeout bounds how long a server or a cluster may take to come up.
var StartTimeout = 30 * time.Second

// CommandTimeout bounds one command a helper sends (Do): far above what a
// command takes, so that only a hung server fails a test, never a busy
// machine.
var CommandTimeout = 60 * time.Second

// Kind is a server build the tests can start: a target name (as scriptctl
// names server targets) and where its binaries are.
type Kind struct {
	Name   string // "redis-7.0", "redis-8.0", "redis-8.0.6", "valkey-8.1", "valkey-9.1"
	target string // the engine target the build is judged as, when not Name
	server string // server binary name
	cli    string // CLI binary name
	// cached is true for servers that .ci/test-servers unpacks into the
	// test-servers folder; false for the machine's own redis-server.
	cached bool
}

// Kinds lists every server build the tests know, oldest first.
var Kinds = []Kind{
	{Name: "redis-7.0", server: "redis-server", cli: "redis-cli"},
	{Name: "redis-8.0", server: "redis-server", cli: "redis-cli", cached: true},
	{Name: "redis-8.0.6", target: "redis-8.0", server: "redis-server", cli: "redis-cli", cached: true},
	{Name: "valkey-8.1", server: "valkey-server", cli: "valkey-cli", cached: true},
	{Name: "valkey-9.1", server: "valkey-server", cli: "valkey-cli", cached: true},
}

// Target is the scriptctl server target k is judged as: its Name, or the
// minor line for a build kept to prove a patch release ("redis-8.0.6" is
// judged as "redis-8.0").
func (k Kind) Target() string {
	if k.target != "" {
		return k.target
	}
	return k.Name
}

// ServerEnv names the environment variable that picks the server build every
// test of a run uses by default (a Kind name; default redis-7.0). CI runs the
// loader and refresh suites once per build this way.
const ServerEnv = "SCRIPTCTL_TEST_SERVER"

// ServersDirEnv names the folder .ci/test-servers unpacks servers into
// (default ~/.cache/scriptctl/test-servers).
const ServersDirEnv = "SCRIPTCTL_TEST_SERVERS"

// BuildLogEnv names a file DefaultKind appends the name of every top-level
// test that asks for the run's server build to, one a line: the tests
// whose outcome depends on SCRIPTCTL_TEST_SERVER. make test records them;
// make test-targets runs only those on the other builds.
const BuildLogEnv = "SCRIPTCTL_TEST_BUILD_LOG"

// logBuildUse appends t's top-level test name to $SCRIPTCTL_TEST_BUILD_LOG,
// once per test binary; an unwritable log fails t. A server started
// outside any test (a TestMain's, for the runnable examples, through a
// stand-in TB without a name) is logged as "Example.*": every example.
func logBuildUse(t testing.TB) {
	path := os.Getenv(BuildLogEnv)
	if path == "" {
		return
	}
	name, _, _ := strings.Cut(testName(t), "/")
	if name == "" {
		name = "Example.*"
	}
	buildLog.Lock()
	defer buildLog.Unlock()
	if buildLog.seen[name] {
		return
	}
	// One short O_APPEND write a line: lines from test binaries running
	// side by side do not interleave.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err == nil {
		_, err = f.WriteString(name + "\n")
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		t.Fatalf("redistest: %s: %v", BuildLogEnv, err)
	}
	if buildLog.seen == nil {
		buildLog.seen = map[string]bool{}
	}
	buildLog.seen[name] = true
}

// testName is t.Name(), or "" when t is a stand-in that has none (its
// Name panics).
func testName(t testing.TB) (name string) {
	defer func() {
		if recover() != nil {
			name = ""
		}
	}()
	return t.Name()
}

var buildLog struct {
	sync.Mutex
	seen map[string]bool
}

// LookupKind returns the Kind called name.
func LookupKind(name string) (Kind, bool) {
	for _, k := range Kinds {
		if k.Name == name {
			return k, true
		}
	}
	return Kind{}, false
}

// DefaultKind is the build the run's tests use: $SCRIPTCTL_TEST_SERVER, else
// redis-7.0. An unknown name fails t.
func DefaultKind(t testing.TB) Kind {
	t.Helper()
	logBuildUse(t)
	name := os.Getenv(ServerEnv)
	if name == "" {
		return Kinds[0]
	}
	k, ok := LookupKind(name)
	if !ok {
		t.Fatalf("redistest: %s=%q is not one of %s", ServerEnv, name, kindNames())
	}
	return k
}

func kindNames() string {
	var names []string
	for _, k := range Kinds {
		names = append(names, k.Name)
	}
	return strings.Join(names, ", ")
}

// ServersDir is where .ci/test-servers puts the servers that do not come
// from the machine's packages.
func ServersDir() string {
	if d := os.Getenv(ServersDirEnv); d != "" {
		return d
	}
	if d := os.Getenv("XDG_CACHE_HOME"); d != "" {
		return filepath.Join(d, "scriptctl", "test-servers")
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cache", "scriptctl", "test-servers")
}

// ServerPath returns the path of k's server binary, or skips t (fails under
// CI=true) when it is not there.
func (k Kind) ServerPath(t testing.TB) string {
	t.Helper()
	return k.look(t, k.server)
}

// CLIPath returns the path of k's command-line client, or skips t (fails
// under CI=true).
func (k Kind) CLIPath(t testing.TB) string {
	t.Helper()
	return k.look(t, k.cli)
}

// Available reports whether k's server binary is there, without skipping.
func (k Kind) Available() bool {
	_, err := k.path(k.server)
	return err == nil
}

func (k Kind) path(name string) (string, error) {
	if !k.cached {
		return exec.LookPath(name)
	}
	p := filepath.Join(ServersDir(), k.Name, "bin", name)
	if st, err := os.Stat(p); err != nil || st.IsDir() || st.Mode()&0o111 == 0 {
		return "", fmt.Errorf("%s not found", p)
	}
	return p, nil
}

func (k Kind) look(t testing.TB, name string) string {
	t.Helper()
	p, err := k.path(name)
	if err == nil {
		return p
	}
	msg := fmt.Sprintf("%s not found in PATH: install it (Debian: apt-get install redis-server redis-tools) to run this test", name)
	if k.cached {
		msg = fmt.Sprintf("%s (%s) not found in %s: run make test-servers to run this test", name, k.Name, ServersDir())
	}
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// Binary returns the path of the default build's server (see DefaultKind),
// or skips t (fails under CI=true) when it is not installed.
func Binary(t testing.TB) string {
	t.Helper()
	return DefaultKind(t).ServerPath(t)
}

// CLI returns the path of the default build's redis-cli (valkey-cli for
// Valkey), or skips t (fails under CI=true).
func CLI(t testing.TB) string {
	t.Helper()
	return DefaultKind(t).CLIPath(t)
}

// Option configures the servers a constructor starts.
type Option func(*config)

type config struct {
	password string
	args     []string
	kind     *Kind
	bin      string // WithBinary
}

// WithBinary starts the server binary at path, a build of target name (a
// server built by hand, such as one recorded for a target CI does not run).
func WithBinary(path, name string) Option {
	return func(c *config) {
		c.bin = path
		c.kind = &Kind{Name: name, server: filepath.Base(path)}
	}
}

// WithKind starts servers of build k instead of the default one.
func WithKind(k Kind) Option { return func(c *config) { c.kind = &k } }

// WithPassword starts servers with requirepass (and masterauth) set to pw.
func WithPassword(pw string) Option { return func(c *config) { c.password = pw } }

// WithArgs adds redis-server command-line arguments, such as
// "--tls-port", "0".
func WithArgs(args ...string) Option {
	return func(c *config) { c.args = append(c.args, args...) }
}

// Server is one redis-server process.
type Server struct {
	Addr     string // 127.0.0.1:port
	Port     int
	Dir      string // working dir: log, nodes.conf
	Password string
	Kind     Kind // the server build

	t    testing.TB
	bin  string
	args []string

	mu  sync.Mutex
	cmd *exec.Cmd
}

// Standalone starts one redis-server.
func Standalone(t testing.TB, opts ...Option) *Server {
	t.Helper()
	s := newServer(t, false, opts)
	s.waitReady()
	return s
}

// Replicated starts a primary and a replica of it, and waits until the
// replica's link to the primary is up.
func Replicated(t testing.TB, opts ...Option) (primary, replica *Server) {
	t.Helper()
	primary = Standalone(t, opts...)
	replica = newServer(t, false, append(opts, WithArgs("--replicaof", "127.0.0.1", strconv.Itoa(primary.Port))))
	replica.waitReady()
	replica.waitFor("replication link up", func() bool {
		info, err := replica.Do(context.Background(), "INFO", "replication").ToString()
		return err == nil && strings.Contains(info, "master_link_status:up")
	})
	return primary, replica
}

func newServer(t testing.TB, cluster bool, opts []Option) *Server {
	t.Helper()
	var c config
	for _, o := range opts {
		o(&c)
	}
	var kind Kind
	if c.kind != nil {
		kind = *c.kind // not the run's build (BuildLogEnv)
	} else {
		kind = DefaultKind(t)
	}
	bin := c.bin
	if bin == "" {
		bin = kind.ServerPath(t)
	}
	dir := t.TempDir()
	s := &Server{t: t, bin: bin, Kind: kind, Dir: dir, Password: c.password}
	var lastErr error
	for attempt := 0; attempt < 5; attempt++ {
		port, err := freePort(cluster)
		if err != nil {
			t.Fatalf("redistest: find a free port: %v", err)
		}
		s.Port = port
		s.Addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
		s.args = []string{
			"--port", strconv.Itoa(port),
			"--bind", "127.0.0.1",
			"--dir", dir,
			"--logfile", filepath.Join(dir, "redis.log"),
			"--save", "",
			"--appendonly", "no",
			"--daemonize", "no",
			"--protected-mode", "no",
			// A replica's first sync starts at once: the default waits
			// 5 s for more replicas to share one diskless transfer.
			"--repl-diskless-sync-delay", "0",
		}
		if cluster {
			s.args = append(s.args, "--cluster-enabled", "yes",
				"--cluster-config-file", filepath.Join(dir, "nodes.conf"),
				"--cluster-node-timeout", "2000",
				// CLUSTER SLOTS lists a replica only once its replication
				// offset is non-zero: ping replicas often so a new, empty
				// cluster shows its replicas to clients quickly.
				"--repl-ping-replica-period", "1")
		}
		if c.password != "" {
			s.args = append(s.args, "--requirepass", c.password, "--masterauth", c.password)
		}
		s.args = append(s.args, c.args...)
		if lastErr = s.start(); lastErr == nil {
			t.Cleanup(s.Stop)
			return s
		}
	}
	t.Fatalf("redistest: start redis-server: %v", lastErr)
	return nil
}

// freePort returns a loopback port that is free now; for a cluster node the
// bus port (port+10000) must be free too.
func freePort(cluster bool) (int, error) {
	for i := 0; i < 50; i++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return 0, err
		}
		port := l.Addr().(*net.TCPAddr).Port
		l.Close()
		if !cluster {
			return port, nil
		}
		if port+10000 > 65535 {
			continue
		}
		bus, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port+10000))
		if err != nil {
			continue
		}
		bus.Close()
		return port, nil
	}
	return 0, fmt.Errorf("no free port pair")
}

// start launches the process and returns once it accepts connections, or an
// error when it exited early (for example: the port was taken meanwhile).
func (s *Server) start() error {
	cmd := exec.Command(s.bin, s.args...)
	cmd.Dir = s.Dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	deadline := time.Now().Add(StartTimeout)
	for time.Now().Before(deadline) {
		select {
		case <-done:
			return fmt.Errorf("redis-server on port %d exited at start; log:\n%s", s.Port, s.Log())
		default:
		}
		if c, err := net.DialTimeout("tcp", s.Addr, 100*time.Millisecond); err == nil {
			c.Close()
			s.mu.Lock()
			s.cmd = cmd
			s.mu.Unlock()
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	cmd.Process.Kill()
	return fmt.Errorf("redis-server on port %d did not listen within %s", s.Port, StartTimeout)
}

// Pid returns the process id, or 0 when the server is stopped.
func (s *Server) Pid() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return 0
	}
	return s.cmd.Process.Pid
}

// Stop stops the server by pid (SIGTERM, then SIGKILL after 5s) and waits for
// it to exit. Stopping a stopped server does nothing.
func (s *Server) Stop() {
	s.mu.Lock()
	cmd := s.cmd
	s.cmd = nil
	s.mu.Unlock()
	if cmd == nil {
		return
	}
	pid := cmd.Process.Pid
	syscall.Kill(pid, syscall.SIGTERM)
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if syscall.Kill(pid, 0) != nil {
			return
		}
		// A reaped child answers ESRCH; an unreaped one is a zombie until
		// the Wait goroutine in start collects it.
		if st, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil && strings.Contains(string(st), ") Z ") {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	syscall.Kill(pid, syscall.SIGKILL)
}

// Restart starts a stopped server again on the same port and dir (a cluster
// node rejoins from its nodes.conf).
func (s *Server) Restart() {
	s.t.Helper()
	if s.Pid() != 0 {
		s.t.Fatalf("redistest: restart %s: still running", s.Addr)
	}
	var err error
	// The old socket may linger briefly; a busy machine may take longer.
	for deadline := time.Now().Add(StartTimeout); ; time.Sleep(100 * time.Millisecond) {
		if err = s.start(); err == nil {
			s.waitReady()
			return
		}
		if time.Now().After(deadline) {
			break
		}
	}
	s.t.Fatalf("redistest: restart %s: %v", s.Addr, err)
}

// Log returns the server's log file.
func (s *Server) Log() string {
	b, _ := os.ReadFile(filepath.Join(s.Dir, "redis.log"))
	return string(b)
}

// URL returns redis://127.0.0.1:port (without the password).
func (s *Server) URL() string { return "redis://" + s.Addr }

// Client returns a rueidis client bound to this one node (never redirected),
// closed in t.Cleanup.
func (s *Server) Client() rueidis.Client {
	s.t.Helper()
	c, err := rueidis.NewClient(rueidis.ClientOption{
		InitAddress:       []string{s.Addr},
		Password:          s.Password,
		DisableCache:      true,
		ForceSingleClient: true,
		DisableRetry:      true,
		ConnWriteTimeout:  10 * time.Second,
	})
	if err != nil {
		s.t.Fatalf("redistest: connect %s: %v", s.Addr, err)
	}
	s.t.Cleanup(c.Close)
	return c
}

// Do runs one raw command on this node over a fresh connection.
func (s *Server) Do(ctx context.Context, args ...string) Result {
	c, err := rueidis.NewClient(rueidis.ClientOption{
		InitAddress:       []string{s.Addr},
		Password:          s.Password,
		DisableCache:      true,
		ForceSingleClient: true,
		DisableRetry:      true,
	})
	if err != nil {
		return Result{err: err}
	}
	defer c.Close()
	// Generous: a command of a test on a busy machine (a load average of
	// 8 on 2 cores, -race) may wait seconds for a core; only a hung
	// server should reach this.
	ctx, cancel := context.WithTimeout(ctx, CommandTimeout)
	defer cancel()
	return Result{RedisResult: c.Do(ctx, c.B().Arbitrary(args...).Build())}
}

// Result is a command's result, or the error of connecting for it.
type Result struct {
	rueidis.RedisResult
	err error
}

// Error returns the connection error or the command's error.
func (r Result) Error() error {
	if r.err != nil {
		return r.err
	}
	return r.RedisResult.Error()
}

// ToString returns the reply as a string.
func (r Result) ToString() (string, error) {
	if r.err != nil {
		return "", r.err
	}
	return r.RedisResult.ToString()
}

// ToMessage returns the raw reply.
func (r Result) ToMessage() (rueidis.RedisMessage, error) {
	if r.err != nil {
		return rueidis.RedisMessage{}, r.err
	}
	return r.RedisResult.ToMessage()
}

// MustDo runs one raw command and fails the test on any error, error
// replies included.
func (s *Server) MustDo(args ...string) rueidis.RedisMessage {
	s.t.Helper()
	msg, err := s.Do(context.Background(), args...).ToMessage()
	if err != nil {
		s.t.Fatalf("redistest: %s %v: %v", s.Addr, args, err)
	}
	return msg
}

// Info returns one "name:value" field of INFO section, and whether the
// server reported it; it fails t when INFO fails.
func (s *Server) Info(t testing.TB, section, name string) (string, bool) {
	t.Helper()
	info, err := s.Do(context.Background(), "INFO", section).ToString()
	if err != nil {
		t.Fatalf("redistest: %s INFO %s: %v", s.Addr, section, err)
	}
	for _, line := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), name+":"); ok {
			return v, true
		}
	}
	return "", false
}

// CommandCalls returns the calls per command (subcommands as
// "script|load") since the start or the last CONFIG RESETSTAT, from INFO
// commandstats; commands run inside scripts count too. It fails t when INFO
// fails.
func (s *Server) CommandCalls(t testing.TB) map[string]int {
	t.Helper()
	info, err := s.Do(context.Background(), "INFO", "commandstats").ToString()
	if err != nil {
		t.Fatalf("redistest: %s INFO commandstats: %v", s.Addr, err)
	}
	out := map[string]int{}
	for _, line := range strings.Split(info, "\n") {
		// cmdstat_get:calls=1,usec=2,...
		name, rest, ok := strings.Cut(strings.TrimSpace(line), ":calls=")
		if !ok {
			continue
		}
		n, _, _ := strings.Cut(rest, ",")
		v, err := strconv.Atoi(n)
		if err != nil {
			t.Fatalf("redistest: INFO commandstats line %q", line)
		}
		out[strings.TrimPrefix(name, "cmdstat_")] = v
	}
	return out
}

func (s *Server) waitReady() {
	s.t.Helper()
	s.waitFor("PING", func() bool {
		err := s.Do(context.Background(), "PING").Error()
		return err == nil
	})
}

func (s *Server) waitFor(what string, ok func() bool) {
	s.t.Helper()
	deadline := time.Now().Add(StartTimeout)
	for !ok() {
		if time.Now().After(deadline) {
			s.t.Fatalf("redistest: %s: %s not reached within %s; log:\n%s", s.Addr, what, StartTimeout, s.Log())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Family returns the server's family and that family's version from INFO
// server, as scriptctl shows them: ("redis", "7.0.15"), ("valkey", "8.1.1").
func (s *Server) Family(t testing.TB) (family, version string) {
	t.Helper()
	if v, ok := s.Info(t, "server", "valkey_version"); ok {
		return "valkey", v
	}
	v, _ := s.Info(t, "server", "redis_version")
	return "redis", v
}
