package loader

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/scriptctl/scriptctl/internal/connect"
	"github.com/scriptctl/scriptctl/internal/redistest"
)

func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		err   string
		class string
		msg   string // what the message says instead of err, when it does
		hint  string
	}{
		{"WRONGPASS invalid username-password pair or user is disabled.", ClassAuth, "", "SCRIPTCTL_PASSWORD"},
		{"NOAUTH Authentication required.", ClassAuth, "", "--password-file"},
		{"received unknown message type: 72", ClassNotRedis, `not a Redis server: its reply starts with 'H', which no Redis reply does (an HTTP server answers "HTTP/1.1 ...")`, "Redis protocol"},
		{"received unknown message type: 83", ClassNotRedis, `not a Redis server: its reply starts with 'S'`, "Redis protocol"},
		{"dial tcp 127.0.0.1:1: connect: connection refused", ClassUnreachable, "", ""},
	} {
		err := classify(errors.New(tc.err))
		if got := Class(err); got != tc.class {
			t.Errorf("%q: class %q, want %q", tc.err, got, tc.class)
		}
		want := tc.err
		if tc.msg != "" {
			want = tc.msg
			if strings.Contains(err.Error(), "unknown message type") {
				t.Errorf("%q: message %q keeps the library's wording", tc.err, err)
			}
		}
		if !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), tc.hint) {
			t.Errorf("%q: message %q lacks %q or the hint %q", tc.err, err, want, tc.hint)
		}
	}
	if Class(errors.New("x")) != ClassUnreachable {
		t.Error("an unclassified error is unreachable")
	}
}

// TestUnreachableSaysItOnce: a refused connection reads "<node>: connect:
// connection refused", not "<node>: connect: dial tcp <node>: connect:
// connection refused".
func TestUnreachableSaysItOnce(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now: the dial is refused
	cfg, err := connect.Resolve(connect.Settings{URLs: []string{"redis://" + addr}, Timeout: 2 * time.Second}, false)
	if err != nil {
		t.Fatal(err)
	}
	tp, err := Connect(context.Background(), cfg.Dial, cfg.Seeds, cfg.Timeout)
	if err != nil {
		t.Fatal(err)
	}
	defer tp.Close()
	if len(tp.Nodes) != 1 || tp.Nodes[0].OK() {
		t.Fatalf("nodes: %+v", tp.Nodes)
	}
	ne := &NodesError{Errs: []*NodeError{nodeErr(tp.Nodes[0])}}
	if got, want := ne.Error(), "1 node failed: "+addr+": connect: connection refused"; got != want {
		t.Fatalf("error %q, want %q", got, want)
	}
	if Class(tp.Nodes[0].Err) != ClassUnreachable {
		t.Fatalf("class %q", Class(tp.Nodes[0].Err))
	}
}

// TestConnectHTTPEndpoint points discovery at a plain TCP server that
// answers like a web server: the node is named "not redis" in words, not
// with the client library's "received unknown message type: 72".
func TestConnectHTTPEndpoint(t *testing.T) {
	addr := redistest.Fake(t, func(c net.Conn) {
		defer c.Close()
		buf := make([]byte, 4096)
		_, _ = c.Read(buf)
		_, _ = c.Write([]byte("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"))
	})
	cfg, err := connect.Resolve(connect.Settings{URLs: []string{"redis://" + addr}, Timeout: 2 * time.Second}, false)
	if err != nil {
		t.Fatal(err)
	}
	tp, err := Connect(context.Background(), cfg.Dial, cfg.Seeds, cfg.Timeout)
	if err != nil {
		t.Fatal(err)
	}
	defer tp.Close()
	if len(tp.Nodes) != 1 || tp.Nodes[0].OK() {
		t.Fatalf("nodes: %+v", tp.Nodes)
	}
	err = tp.Nodes[0].Err
	if Class(err) != ClassNotRedis || !strings.Contains(err.Error(), "not a Redis server") || !strings.Contains(err.Error(), "HTTP") ||
		strings.Contains(err.Error(), "unknown message type") {
		t.Fatalf("class %q, error %q", Class(err), err)
	}
}

// TestNoPackagePrefix: the errors a person reads carry no package name
// ("loader: deploy lock lost" before).
func TestNoPackagePrefix(t *testing.T) {
	for _, err := range []error{ErrLockLost, ErrInterrupted, &PermissionError{Missing: []Missing{{Node: "a:1", Permission: "eval"}}},
		&RedirectError{Node: "a:1", Op: "deploy lock k", Reply: "MOVED 1 b:2"}, &ConflictError{Library: "l_v1", Nodes: []string{"a:1"}}} {
		if strings.HasPrefix(err.Error(), "loader") {
			t.Errorf("%q starts with the package name", err)
		}
	}
}
