package difftest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/scriptctl/scriptctl/internal/redistest"
	"github.com/scriptctl/scriptctl/verify"
)

// liveServer runs commands through the real redis-cli against a throwaway
// server.
//
// Snippets' commands run in one redis-cli process that reads them from
// its standard input (session; one process for all the snippets run on
// l, started anew after a failure), which prints each reply exactly as
// `redis-cli --no-raw -p PORT args...` does (run): both send the command
// through the same cliSendCommand and format the reply with the same
// cliFormatReplyTTY (redis-cli.c, 7.0 to 7.4; valkey-cli.c alike). What
// only the interactive loop (repl) does is kept out:
//   - a command it would treat itself, or one whose effect lasts on the
//     connection (which a process per command opens anew, and the
//     session keeps from snippet to snippet), makes the snippet run one
//     process per command (sessionCommand);
//   - arguments are written "..." quoted with every byte outside printable
//     ASCII, '"' and '\' as \xHH, which sdssplitargs reads back byte for
//     byte;
//   - a marker (ECHO of a random word) follows every command, so the
//     replies split at it;
//   - the loop prints "(N.NNs)" after a command that took 500 ms or more,
//     and a connection or protocol error goes to stderr (a protocol error
//     ends the process): on any of these, or a marker missing, the snippet
//     runs again one process per command (processes).
type liveServer struct {
	srv *redistest.Server
	cli string
	// slots are the slots srv serves as a cluster node; nil for a
	// standalone server.
	slots []verify.SlotRange
	// perCommand runs every snippet one redis-cli process per command,
	// as TestLiveSession compares.
	perCommand bool
	// sessions and reruns count the snippets that ran in the session and
	// those whose session output could not be used and ran again.
	sessions, reruns int
	// cliSession is the redis-cli process reading commands from its
	// stdin that snippets share (nil: none yet, or ended).
	cliSession *cliSession
}

func startLive(t *testing.T) *liveServer {
	t.Helper()
	l := &liveServer{srv: redistest.Standalone(t), cli: redistest.CLI(t)}
	t.Cleanup(l.closeSession)
	return l
}

// alive reports whether the server still answers (a snippet can crash it).
func (l *liveServer) alive() bool {
	return l.srv.Do(context.Background(), "PING").Error() == nil
}

// reset empties the keyspace, the script cache and Lua state (library
// settings such as cjson's persist in it) and the function libraries.
func (l *liveServer) reset(t *testing.T) {
	t.Helper()
	for _, c := range [][]string{{"FLUSHALL"}, {"SCRIPT", "FLUSH"}, {"FUNCTION", "FLUSH"}} {
		if err := l.srv.Do(context.Background(), c...).Error(); err != nil {
			t.Fatalf("live %v: %v (did a snippet crash the server? see %s/redis.log)", c, err, l.srv.Dir)
		}
	}
}

// liveStep is one command of a snippet's live side and the title its
// output has in the transcript.
type liveStep struct {
	title string
	args  []string
}

// transcript runs steps on a server l has just reset and returns the
// transcript: each step's title headed by "> ", then what redis-cli
// printed for it.
func (l *liveServer) transcript(t *testing.T, steps []liveStep) string {
	t.Helper()
	if !l.perCommand && sessionSteps(steps) {
		if outs, ok := l.session(t, steps); ok {
			l.sessions++
			return joinSteps(steps, outs)
		}
		// Start again from the state the snippet started from.
		t.Logf("the redis-cli session's output cannot stand for one process per command (stderr, a marker missing or a slow command): running again that way")
		l.reruns++
		if l.alive() {
			l.reset(t)
		}
	}
	return l.processes(t, steps)
}

// processes runs each step in a redis-cli process of its own.
func (l *liveServer) processes(t *testing.T, steps []liveStep) string {
	t.Helper()
	outs := make([]string, len(steps))
	for i, s := range steps {
		outs[i] = l.run(t, s.args...)
	}
	return joinSteps(steps, outs)
}

func joinSteps(steps []liveStep, outs []string) string {
	var b strings.Builder
	for i, s := range steps {
		b.WriteString("> " + s.title + "\n" + outs[i])
	}
	return b.String()
}

// run passes args to redis-cli as exact bytes (exec arguments, no shell)
// and returns what it printed.
func (l *liveServer) run(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command(l.cli, append([]string{"--no-raw", "-p", strconv.Itoa(l.srv.Port)}, args...)...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("run redis-cli: %v", err)
	}
	out := stdout.String()
	if stderr.Len() > 0 {
		out += "[stderr] " + stderr.String()
	}
	return out
}

// session runs steps in the redis-cli process reading commands from stdin
// that l keeps for its snippets (started on first use) and returns what it
// printed for each; ok is false when that output cannot stand for the
// per-process one (see liveServer), and the process is then ended.
func (l *liveServer) session(t *testing.T, steps []liveStep) (outs []string, ok bool) {
	t.Helper()
	if l.cliSession == nil {
		s, err := startCLISession(l.cli, l.srv.Port)
		if err != nil {
			t.Fatalf("start redis-cli: %v", err)
		}
		l.cliSession = s
	}
	outs, ok = l.cliSession.run(steps)
	if !ok {
		l.closeSession()
	}
	return outs, ok
}

// closeSession ends the redis-cli process session started, if any.
func (l *liveServer) closeSession() {
	if l.cliSession != nil {
		l.cliSession.close()
		l.cliSession = nil
	}
}

// cliSession is a redis-cli process reading commands from its stdin.
type cliSession struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *os.File // the read ends of its stdout and stderr
	stderr *os.File
}

func startCLISession(cli string, port int) (*cliSession, error) {
	cmd := exec.Command(cli, "--no-raw", "-p", strconv.Itoa(port))
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	var ends []*os.File
	closeAll := func() {
		for _, f := range ends {
			f.Close()
		}
	}
	for _, w := range []*io.Writer{&cmd.Stdout, &cmd.Stderr} {
		r, wr, err := os.Pipe()
		if err != nil {
			closeAll()
			return nil, err
		}
		ends = append(ends, r, wr)
		*w = wr
	}
	if err := cmd.Start(); err != nil {
		closeAll()
		return nil, err
	}
	ends[1].Close()
	ends[3].Close()
	return &cliSession{cmd: cmd, stdin: stdin, stdout: ends[0], stderr: ends[2]}, nil
}

// run writes steps, each followed by a marker, and reads what the process
// prints up to the last marker. Anything on stderr fails it: while stdout
// is silent (a command that lost the connection prints no marker), and
// after the last marker, when whatever it wrote to stderr before is in the
// pipe.
func (s *cliSession) run(steps []liveStep) ([]string, bool) {
	var nonce [16]byte
	if _, err := rand.Read(nonce[:]); err != nil {
		return nil, false
	}
	marker := "difftest-marker-" + hex.EncodeToString(nonce[:])
	markerLine := `"` + marker + `"` + "\n"
	var in strings.Builder
	for _, st := range steps {
		in.WriteString(quoteLine(st.args))
		in.WriteString("\nECHO " + marker + "\n")
	}
	written := make(chan error, 1)
	go func() {
		_, err := io.WriteString(s.stdin, in.String())
		written <- err
	}()
	var out []byte
	buf := make([]byte, 64<<10)
	for strings.Count(string(out), markerLine) < len(steps) {
		if s.stdout.SetReadDeadline(time.Now().Add(20*time.Millisecond)) != nil {
			return nil, false
		}
		n, err := s.stdout.Read(buf)
		out = append(out, buf[:n]...)
		switch {
		case errors.Is(err, os.ErrDeadlineExceeded):
			if s.stderrWritten(buf) {
				return nil, false
			}
		case err != nil:
			// The process ended (a protocol error ends it).
			return nil, false
		}
	}
	if err := <-written; err != nil || s.stderrWritten(buf) {
		return nil, false
	}
	return splitSession(string(out), marker, len(steps))
}

// stderrWritten reports whether the process's stderr holds anything.
func (s *cliSession) stderrWritten(buf []byte) bool {
	if s.stderr.SetReadDeadline(time.Now().Add(time.Millisecond)) != nil {
		return true
	}
	n, err := s.stderr.Read(buf)
	return n > 0 || !errors.Is(err, os.ErrDeadlineExceeded)
}

// close ends the process; a writer still blocked on its stdin then fails.
func (s *cliSession) close() {
	s.cmd.Process.Kill()
	s.stdin.Close()
	s.cmd.Wait()
	s.stdout.Close()
	s.stderr.Close()
}

// splitSession splits a session's output at the n markers, one after each
// command's output (ECHO marker prints it quoted on a line). It fails when
// a marker is missing or out of place, or a line reads like the timing
// the interactive loop adds after a slow command.
func splitSession(out, marker string, n int) ([]string, bool) {
	parts := strings.Split(out, `"`+marker+`"`+"\n")
	if len(parts) != n+1 || parts[n] != "" {
		return nil, false
	}
	parts = parts[:n]
	for _, p := range parts {
		for _, line := range strings.Split(p, "\n") {
			if replTiming.MatchString(line) {
				return nil, false
			}
		}
	}
	return parts, true
}

// replTiming is the line redis-cli's interactive loop prints after a
// command that took 500 ms or more ("(%.2fs)").
var replTiming = regexp.MustCompile(`^\([0-9]+\.[0-9][0-9]s\)$`)

// quoteLine writes args as a line sdssplitargs splits back into exactly
// these arguments: each "..." quoted, printable ASCII but '"' and '\' as
// it is, every other byte as \xHH.
func quoteLine(args []string) string {
	var b strings.Builder
	for i, a := range args {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteByte('"')
		for j := 0; j < len(a); j++ {
			c := a[j]
			if c >= 0x20 && c < 0x7f && c != '"' && c != '\\' {
				b.WriteByte(c)
				continue
			}
			b.WriteString(`\x`)
			b.WriteString(hex.EncodeToString([]byte{c}))
		}
		b.WriteByte('"')
	}
	return b.String()
}

// sessionSteps reports whether every step can run in one session.
func sessionSteps(steps []liveStep) bool {
	for _, s := range steps {
		if !sessionCommand(s.args) {
			return false
		}
	}
	return true
}

// sessionCommand reports whether args prints the same in redis-cli's
// interactive loop, after other commands on the same connection, as in a
// process of its own. Not so:
//   - a first word that is not a name of letters, digits, '_', '-' or
//     '|' (the loop takes a number as a repeat count, and ':' lines as
//     settings) or that the loop handles itself (quit, exit, restart,
//     connect, clear; help and ? print what the loop has read from
//     COMMAND DOCS);
//   - a command that changes the connection or redis-cli's idea of it:
//     AUTH, HELLO, SELECT, MULTI and its kin, WATCH, RESET, READONLY,
//     READWRITE, ASKING, CLIENT, the SUBSCRIBE family, MONITOR, SYNC,
//     PSYNC, SHUTDOWN, DEBUG, SCRIPT DEBUG;
//   - a command whose reply shows the connections or the commands sent
//     (the marker and COMMAND DOCS are commands too): INFO, ACL, SLOWLOG,
//     LATENCY, MEMORY, COMMANDLOG.
func sessionCommand(args []string) bool {
	if len(args) == 0 || !sessionWord.MatchString(args[0]) {
		return false
	}
	name := strings.ToLower(args[0])
	if name == "script" && len(args) > 1 && strings.EqualFold(args[1], "debug") {
		return false
	}
	_, no := notInSession[name]
	return !no
}

var sessionWord = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_|-]*$`)

var notInSession = map[string]struct{}{
	// the interactive loop's own
	"quit": {}, "exit": {}, "restart": {}, "connect": {}, "clear": {}, "help": {},
	// connection state
	"auth": {}, "hello": {}, "select": {}, "multi": {}, "exec": {}, "discard": {},
	"watch": {}, "unwatch": {}, "reset": {}, "readonly": {}, "readwrite": {},
	"asking": {}, "client": {}, "subscribe": {}, "psubscribe": {}, "ssubscribe": {},
	"unsubscribe": {}, "punsubscribe": {}, "sunsubscribe": {}, "monitor": {},
	"sync": {}, "psync": {}, "replconf": {}, "shutdown": {}, "debug": {},
	// replies that show connections or the commands sent
	"info": {}, "acl": {}, "slowlog": {}, "latency": {}, "memory": {}, "commandlog": {},
}
