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

// Binary returns the path of redis-server, or skips t (fails under CI=true)
// when it is not installed.
func Binary(t testing.TB) string {
	t.Helper()
	return lookBinary(t, "redis-server")
}

// CLI returns the path of redis-cli, or skips t (fails under CI=true).
func CLI(t testing.TB) string {
	t.Helper()
	return lookBinary(t, "redis-cli")
}

func lookBinary(t testing.TB, name string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err != nil {
		msg := fmt.Sprintf("%s not found in PATH: install it (Debian: apt-get install redis-server redis-tools) to run this test", name)
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return path
}

// Option configures the servers a constructor starts.
type Option func(*config)

type config struct {
	password string
	args     []string
	bin      string
}

// WithPassword starts servers with requirepass (and masterauth) set to pw.
func WithPassword(pw string) Option { return func(c *config) { c.password = pw } }

// WithArgs adds redis-server command-line arguments, such as
// "--tls-port", "0".
func WithArgs(args ...string) Option {
	return func(c *config) { c.args = append(c.args, args...) }
}

// WithBinary starts the server binary at path instead of the redis-server
// on PATH: another version, or a valkey-server.
func WithBinary(path string) Option { return func(c *config) { c.bin = path } }

// Server is one redis-server process.
type Server struct {
	Addr     string // 127.0.0.1:port
	Port     int
	Dir      string // working dir: log, nodes.conf
	Password string

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
	bin := c.bin
	if bin == "" {
		bin = Binary(t)
	}
	dir := t.TempDir()
	s := &Server{t: t, bin: bin, Dir: dir, Password: c.password}
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
	for i := 0; i < 50; i++ { // the old socket may linger briefly
		if err = s.start(); err == nil {
			s.waitReady()
			return
		}
		time.Sleep(100 * time.Millisecond)
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
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
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
