package difftest

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"

	"github.com/scriptctl/scriptctl/internal/redistest"
)

var sessionEvery = flag.Int("session-every", 800, "TestLiveSession: compare the two live runners on every n-th snippet of the corpus (1: all of it)")

// TestLiveSession runs snippets of the corpus live both ways, in one
// redis-cli session and one redis-cli process per command, as EVAL and as
// FCALL, and requires the same transcripts: the session is the faster way
// to the same bytes. With -session-every 1 it compares the whole corpus.
func TestLiveSession(t *testing.T) {
	if *sessionEvery < 1 {
		t.Fatalf("-session-every %d: want a whole number from 1", *sessionEvery)
	}
	snippets, err := loadCorpus(corpusDir)
	if err != nil {
		t.Fatal(err)
	}
	l := startLive(t)
	target := l.srv.Kind.Target()
	compared := 0
	for _, fcall := range []bool{false, true} {
		for i, s := range snippets {
			offset := 0
			if fcall {
				offset = *sessionEvery / 2
			}
			if !s.runs(target, fcall) || (i+offset)%*sessionEvery != 0 {
				continue
			}
			name := s.Name
			if fcall {
				name = "fcall:" + name
			}
			t.Run(name, func(t *testing.T) {
				var session, processes string
				for try := 0; try < 4; try++ {
					l.perCommand = false
					session, _ = transcripts(t, l, s, fcall)
					l.perCommand = true
					processes, _ = transcripts(t, l, s, fcall)
					// A remaining time can tick between the two runs.
					if session == processes || !wallClockBound(processes) {
						break
					}
				}
				switch {
				case session == processes:
				case wallClockBound(processes):
					// On a loaded machine a second can pass between one
					// process's SET EX and another's TTL, every try; the
					// session's commands follow each other at once.
					t.Logf("%s: snippet %q: a remaining time differs in four tries (the runners differ in speed):\n--- one session\n%s--- one process per command\n%s", s.Pos(), s.Name, visible(session), visible(processes))
				default:
					t.Errorf("%s: snippet %q: the live transcripts differ\n--- one session\n%s--- one process per command\n%s", s.Pos(), s.Name, visible(session), visible(processes))
				}
			})
			compared++
		}
	}
	l.perCommand = false
	if compared == 0 {
		t.Fatal("no snippet compared")
	}
	if l.sessions == 0 {
		t.Error("no snippet ran in one session")
	}
	t.Logf("%s: %d snippets compared; %d session runs, %d of them ran again one process per command", target, compared, l.sessions+l.reruns, l.reruns)
}

// TestSessionBytes: every byte value survives the session's quoting, and
// commands the session must not take and a slow command give the same transcript as one process per command.
func TestSessionBytes(t *testing.T) {
	l := startLive(t)
	var all strings.Builder
	// Bytes 1 to 255: an exec argument cannot hold a NUL.
	for c := 1; c < 256; c++ {
		all.WriteByte(byte(c))
	}
	for _, tt := range []struct {
		name    string
		steps   [][]string
		session bool // whether the steps run in one session
	}{
		{"every byte", [][]string{{"SET", "k\x01\r\n\xff", all.String()}, {"GET", "k\x01\r\n\xff"}, {"ECHO", ""}, {"ECHO", `"\x41\"`}, {"SET", "k", "v"}, {"get", "k"}}, true},
		{"repeat count", [][]string{{"SET", "k", "1"}, {"3", "INCR", "k"}, {"GET", "k"}}, false},
		{"empty first word", [][]string{{"", "x"}, {"PING"}}, false},
		{"select", [][]string{{"SELECT", "1"}, {"SET", "k", "v"}, {"GET", "k"}}, false},
		{"help", [][]string{{"help", "@string"}, {"PING"}}, false},
		{"slow", [][]string{{"EVAL", "local t = redis.call('TIME') local s = t[1] * 1e6 + t[2] repeat t = redis.call('TIME') until t[1] * 1e6 + t[2] - s > 600000 return 1", "0"}, {"PING"}}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var steps []liveStep
			for _, a := range tt.steps {
				steps = append(steps, liveStep{title: strings.Join(a, " "), args: a})
			}
			if got := sessionSteps(steps); got != tt.session {
				t.Fatalf("sessionSteps = %v, want %v", got, tt.session)
			}
			l.reset(t)
			l.perCommand = true
			want := l.transcript(t, steps)
			l.reset(t)
			l.perCommand = false
			got := l.transcript(t, steps)
			if got != want {
				t.Errorf("one session:\n%s\none process per command:\n%s", visible(got), visible(want))
			}
		})
	}
	if l.reruns != 1 {
		t.Errorf("%d sessions ran again one process per command, want 1 (the slow one)", l.reruns)
	}
}

// TestSplitSession: the replies split at the markers; a marker missing or
// out of place, or a line of the interactive loop's timing, fails.
func TestSplitSession(t *testing.T) {
	const m = "difftest-marker-x"
	const mk = `"` + m + `"` + "\n"
	for _, tt := range []struct {
		out  string
		n    int
		want []string
	}{
		{mk, 1, []string{""}},
		{"OK\n" + mk + "(integer) 1\n" + mk, 2, []string{"OK\n", "(integer) 1\n"}},
		{"1) \"(0.50s)\"\n" + mk, 1, []string{"1) \"(0.50s)\"\n"}},
		{"OK\n" + mk, 2, nil},
		{"OK\n" + mk + "(integer) 1\n", 2, nil},
		{"OK\n" + mk + mk + "x\n", 2, nil},
		{"(integer) 1\n(0.73s)\n" + mk, 1, nil},
		{"(integer) 1\n" + mk + "(12.00s)\n" + "OK\n" + mk, 2, nil},
	} {
		got, ok := splitSession(tt.out, m, tt.n)
		if ok != (tt.want != nil) || strings.Join(got, "|") != strings.Join(tt.want, "|") {
			t.Errorf("splitSession(%q, %d) = %q, %v; want %q", tt.out, tt.n, got, ok, tt.want)
		}
	}
}

// TestSessionCommand: the commands a session must not take.
func TestSessionCommand(t *testing.T) {
	for args, want := range map[string]bool{
		"SET k v": true, "get k": true, "XINFO STREAM s": true, "OBJECT ENCODING k": true,
		"SCRIPT FLUSH": true, "script debug yes": false, "EVAL x 0": true,
		"5 INCR k": false, "-1 INCR k": false, "+1 INCR k": false, ":set hints": false,
		"QUIT": false, "exit": false, "connect localhost 1": false, "CLEAR": false,
		"restart": false, "help": false, "? GET": false, "select 1": false,
		"HELLO 3": false, "MULTI": false, "exec": false, "CLIENT SETNAME x": false,
		"client tracking on": false, "SUBSCRIBE c": false, "RESET": false,
		"READONLY": false, "WATCH k": false, "AUTH x": false, "DEBUG SLEEP 0": false,
		"INFO": false, "SHUTDOWN": false,
	} {
		if got := sessionCommand(strings.Fields(args)); got != want {
			t.Errorf("sessionCommand(%q) = %v, want %v", args, got, want)
		}
	}
	if sessionCommand(nil) || sessionCommand([]string{""}) {
		t.Error("sessionCommand takes an empty command")
	}
}

// TestSessionProtocolError: a reply redis-cli cannot parse (the unpatched
// releases' error with a newline, in the recordings as "[stderr] Error:
// Bad simple string value") ends the session, which then cannot stand for
// the per-process transcript. A fake server sends that reply to BAD.
func TestSessionProtocolError(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go fakeServe(c)
		}
	}()
	l := &liveServer{srv: &redistest.Server{Port: ln.Addr().(*net.TCPAddr).Port}, cli: redistest.CLI(t)}
	defer l.closeSession()
	steps := []liveStep{{title: "PING", args: []string{"PING"}}, {title: "BAD", args: []string{"BAD"}}, {title: "PING", args: []string{"PING"}}}
	if got, want := l.processes(t, steps), "> PING\nPONG\n> BAD\n[stderr] Error: Bad simple string value\n> PING\nPONG\n"; got != want {
		t.Fatalf("one process per command:\n%s\nwant\n%s", visible(got), visible(want))
	}
	if outs, ok := l.session(t, steps); ok {
		t.Errorf("session = %q, ok: want it refused", outs)
	}
	if outs, ok := l.session(t, steps[:1]); !ok || len(outs) != 1 || outs[0] != "PONG\n" {
		t.Errorf("session of PING = %q, %v; want PONG", outs, ok)
	}
}

// fakeServe answers RESP arrays of bulk strings: ECHO with its argument,
// BAD with a status reply holding a newline, anything else (PING, and the
// COMMAND DOCS redis-cli's interactive loop may send) with PONG or an
// empty array.
func fakeServe(c net.Conn) {
	defer c.Close()
	r := bufio.NewReader(c)
	for {
		args, err := readCommand(r)
		if err != nil {
			return
		}
		var reply string
		switch strings.ToUpper(args[0]) {
		case "ECHO":
			reply = fmt.Sprintf("$%d\r\n%s\r\n", len(args[1]), args[1])
		case "BAD":
			reply = "+a\nb\r\n"
		case "PING":
			reply = "+PONG\r\n"
		default:
			reply = "*0\r\n"
		}
		if _, err := c.Write([]byte(reply)); err != nil {
			return
		}
	}
}

func readCommand(r *bufio.Reader) ([]string, error) {
	line, err := r.ReadString('\n')
	if err != nil {
		return nil, err
	}
	n, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(line, "*")))
	if err != nil || n < 1 {
		return nil, fmt.Errorf("bad array header %q", line)
	}
	args := make([]string, n)
	for i := range args {
		if line, err = r.ReadString('\n'); err != nil {
			return nil, err
		}
		size, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(line, "$")))
		if err != nil || size < 0 {
			return nil, fmt.Errorf("bad bulk header %q", line)
		}
		b := make([]byte, size+2)
		if _, err := io.ReadFull(r, b); err != nil {
			return nil, err
		}
		args[i] = string(b[:size])
	}
	return args, nil
}
