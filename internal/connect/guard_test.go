package connect

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/scriptctl/scriptctl/internal/redistest"
)

// hostileReply is what the fake server (startHostile) answers a command.
type hostileReply struct {
	head    string // written once
	repeat  string // then written until the client goes away
	repeats int    // how often; 0 means until the client goes away
}

// startHostile starts a fake server on a loopback port: it answers every
// command with "+OK" except those named in replies, which get their reply
// written as is (and, when endless, repeated until the client hangs up).
func startHostile(t *testing.T, replies map[string]hostileReply) string {
	t.Helper()
	return redistest.Fake(t, func(conn net.Conn) { serveHostile(conn, replies) })
}

func serveHostile(conn net.Conn, replies map[string]hostileReply) {
	defer conn.Close()
	r := bufio.NewReader(conn)
	for {
		args, err := redistest.ReadCommand(r)
		if err != nil {
			return
		}
		rep, ok := replies[strings.ToUpper(strings.Join(args, " "))]
		if !ok {
			rep, ok = replies[strings.ToUpper(args[0])]
		}
		if !ok {
			if _, err := io.WriteString(conn, "+OK\r\n"); err != nil {
				return
			}
			continue
		}
		if _, err := io.WriteString(conn, rep.head); err != nil {
			return
		}
		for i := 0; rep.repeat != "" && (rep.repeats == 0 || i < rep.repeats); i++ {
			if _, err := io.WriteString(conn, rep.repeat); err != nil {
				return
			}
		}
	}
}

// hostileTimeout bounds a command against the hostile server: only a hang
// may reach it (a loaded machine under -race took more than 30 s to read
// TestParseReplyLimit's 70 MB reply).
const hostileTimeout = 10 * time.Minute

// TestHostileReplies: replies that once panicked the client (a length of
// 2^63-1), asked for tens of gigabytes, overflowed the stack or streamed
// without end fail the command with a *ReplyLimitError, before the client
// library allocates what they ask.
func TestHostileReplies(t *testing.T) {
	chunk := strings.Repeat("x", 1<<16)
	cases := []struct {
		name  string
		rep   hostileReply
		limit string
	}{
		{"bulk 2^63-1", hostileReply{head: "$9223372036854775807\r\n"}, "bulk"},
		{"array 2^63-1", hostileReply{head: "*9223372036854775807\r\n"}, "elements"},
		{"array 2e9", hostileReply{head: "*2000000000\r\n"}, "elements"},
		{"map 2^62", hostileReply{head: "%4611686018427387904\r\n"}, "elements"},
		{"nested", hostileReply{head: "", repeat: "*1\r\n", repeats: 100000}, "depth"},
		{"bulk 8e9 streamed", hostileReply{head: "$8000000000\r\n", repeat: chunk}, "bulk"},
		{"many bulks", hostileReply{head: "*1000\r\n", repeat: "$65536\r\n" + chunk + "\r\n", repeats: 1000}, "total"},
		{"endless line", hostileReply{head: "+", repeat: chunk}, "total"},
		{"elements over arrays", hostileReply{head: "*1000000\r\n*100000\r\n", repeat: ":1\r\n", repeats: 10}, "elements"},
		{"streamed", hostileReply{head: "*?\r\n", repeat: "*1\r\n"}, "protocol"},
		{"streamed end", hostileReply{head: ".\r\n"}, "protocol"},
		{"long header", hostileReply{head: "$000000000000000000000000001\r\n"}, "protocol"},
		{"negative length", hostileReply{head: "*-5\r\n"}, "protocol"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			addr := startHostile(t, map[string]hostileReply{"FUNCTION LIST": tc.rep})
			cfg, err := Resolve(Settings{URLs: []string{"redis://" + addr}, Timeout: hostileTimeout}, false)
			if err != nil {
				t.Fatal(err)
			}
			cfg.Limits.Total = 16 << 20
			cl, err := cfg.Dial(context.Background(), addr)
			if err != nil {
				t.Fatal(err)
			}
			defer cl.Close()
			if err := cl.Do(context.Background(), cl.B().Ping().Build()).Error(); err != nil {
				t.Fatalf("PING: %v", err)
			}
			err = cl.Do(context.Background(), cl.B().FunctionList().Build()).Error()
			var le *ReplyLimitError
			if !errors.As(err, &le) || le.Limit != tc.limit {
				t.Fatalf("err = %v, want a %s limit error", err, tc.limit)
			}
		})
	}
}

// TestRepliesWithinLimits: replies within the limits, of every RESP type,
// split across reads at every byte, reach the client intact; the limits
// count each reply afresh.
func TestRepliesWithinLimits(t *testing.T) {
	nested := "*1\r\n*1\r\n*2\r\n$3\r\nabc\r\n%1\r\n+k\r\n:5\r\n"
	addr := startHostile(t, map[string]hostileReply{
		"FUNCTION LIST": {head: nested},
		"GET":           {head: "$4\r\n" + strings.Repeat("y", 4) + "\r\n"},
	})
	cfg, err := Resolve(Settings{URLs: []string{"redis://" + addr}, Timeout: hostileTimeout}, false)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Limits = ReplyLimits{Bulk: 4, Elements: 6, Depth: 4, Total: 64}
	cl, err := cfg.Dial(context.Background(), addr)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	for range 3 {
		v, err := cl.Do(context.Background(), cl.B().FunctionList().Build()).ToAny()
		if err != nil {
			t.Fatal(err)
		}
		outer := v.([]any)[0].([]any)[0].([]any)
		if outer[0] != "abc" || outer[1].(map[string]any)["k"] != int64(5) {
			t.Fatalf("reply %#v", v)
		}
		if s, err := cl.Do(context.Background(), cl.B().Get().Key("k").Build()).ToString(); err != nil || s != "yyyy" {
			t.Fatalf("GET: %q, %v", s, err)
		}
	}
}

// TestForeignReplyLeftToClient: a reply starting with a byte no RESP
// reply starts with fails with the client's own error, which names the
// byte (an HTTP server's "H").
func TestForeignReplyLeftToClient(t *testing.T) {
	addr := startHostile(t, map[string]hostileReply{"FUNCTION LIST": {head: "HTTP/1.1 400 Bad Request\r\n"}})
	cfg, err := Resolve(Settings{URLs: []string{"redis://" + addr}, Timeout: hostileTimeout}, false)
	if err != nil {
		t.Fatal(err)
	}
	cl, err := cfg.Dial(context.Background(), addr)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	err = cl.Do(context.Background(), cl.B().FunctionList().Build()).Error()
	if err == nil || !strings.Contains(err.Error(), "unknown message type: 72") {
		t.Fatalf("err = %v, want the client's unknown message type 72", err)
	}
}

// TestValidatorByteAtATime: the validator gives the same verdicts when the
// stream arrives one byte at a time.
func TestValidatorByteAtATime(t *testing.T) {
	lim := ReplyLimits{Bulk: 8, Elements: 4, Depth: 2, Total: 40}
	for _, tc := range []struct {
		in   string
		want string // "" for no violation
	}{
		{"+OK\r\n:1\r\n$-1\r\n*-1\r\n_\r\n,1.5\r\n#t\r\n(12\r\n", ""},
		{"*2\r\n$8\r\n12345678\r\n*1\r\n:1\r\n", ""},
		{"|1\r\n+a\r\n+b\r\n*1\r\n:1\r\n", ""},
		{"*1\r\n*1\r\n*1\r\n:1\r\n", "depth"},
		{"$9\r\n", "bulk"},
		{"*5\r\n", "elements"},
		{"*3\r\n*2\r\n", "elements"},
		{"+123456789\r\n", "bulk"},
		{"*4\r\n$8\r\n12345678\r\n$8\r\n12345678\r\n$8\r\n12345678\r\n", "total"},
		// Limits count each reply afresh.
		{"*4\r\n:1\r\n:2\r\n:3\r\n:4\r\n*4\r\n:1\r\n:2\r\n:3\r\n:4\r\n", ""},
		{"$x\r\n", "protocol"},
		{";4\r\n", "protocol"},
		// A byte no reply starts with is left to the client, which fails
		// on it and names it.
		{"HTTP/1.1 400 Bad Request\r\n*99999999999\r\n", ""},
	} {
		for _, step := range []int{1, len(tc.in)} {
			v := respValidator{lim: lim}
			var err error
			for i := 0; i < len(tc.in) && err == nil; i += step {
				err = v.feed([]byte(tc.in[i:min(i+step, len(tc.in))]))
			}
			got := ""
			var le *ReplyLimitError
			if errors.As(err, &le) {
				got = le.Limit
			}
			if got != tc.want {
				t.Errorf("%q in chunks of %d: %v, want %q", tc.in, step, err, tc.want)
			}
		}
	}
}

func TestParseReplyLimit(t *testing.T) {
	var l ReplyLimits
	for _, s := range []string{"bulk=1GiB", "total=2048MiB", "elements=5000000", "depth=100"} {
		if err := ParseReplyLimit(&l, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	if l != (ReplyLimits{Bulk: 1 << 30, Total: 2 << 30, Elements: 5000000, Depth: 100}) {
		t.Fatalf("limits %+v", l)
	}
	for s, want := range map[string]string{
		"bulk":          `--reply-limit "bulk": want NAME=VALUE with NAME one of bulk, elements, depth, total`,
		"bulk=x":        `--reply-limit bulk: "x" is not a positive number of bytes (or KiB, MiB, GiB)`,
		"elements=0":    `--reply-limit elements: "0" is not a positive number`,
		"elements=1MiB": `--reply-limit elements: "1MiB" is not a positive number`,
		"depth=100000":  `--reply-limit depth: 100000 is more than 65536`,
		"size=1":        `--reply-limit "size=1": unknown limit "size": want bulk, elements, depth or total`,
	} {
		if err := ParseReplyLimit(&l, s); err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %s", s, err, want)
		}
	}
	// A raised limit lets a reply through that the default refuses.
	addr := startHostile(t, map[string]hostileReply{"FUNCTION LIST": {head: "$70000000\r\n", repeat: strings.Repeat("z", 70000000) + "\r\n", repeats: 1}})
	for _, bulk := range []int64{0, 128 << 20} {
		cfg, err := Resolve(Settings{URLs: []string{"redis://" + addr}, Timeout: hostileTimeout, Limits: ReplyLimits{Bulk: bulk}}, false)
		if err != nil {
			t.Fatal(err)
		}
		cl, err := cfg.Dial(context.Background(), addr)
		if err != nil {
			t.Fatal(err)
		}
		s, err := cl.Do(context.Background(), cl.B().FunctionList().Build()).ToString()
		cl.Close()
		var le *ReplyLimitError
		if bulk == 0 && !errors.As(err, &le) || bulk != 0 && (err != nil || len(s) != 70000000) {
			t.Errorf("bulk limit %d: %d bytes, %v", bulk, len(s), err)
		}
	}
}
