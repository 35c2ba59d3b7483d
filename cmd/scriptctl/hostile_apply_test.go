package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/scriptctl/scriptctl/internal/iostreams"
	"github.com/scriptctl/scriptctl/internal/redistest"
)

// copyReply copies one RESP2/RESP3 reply from r to w.
func copyReply(r *bufio.Reader, w io.Writer) error {
	line, err := r.ReadString('\n')
	if err != nil {
		return err
	}
	if _, err := io.WriteString(w, line); err != nil {
		return err
	}
	if len(line) < 3 {
		return fmt.Errorf("short line %q", line)
	}
	n, _ := strconv.Atoi(strings.TrimSpace(line[1:]))
	switch line[0] {
	case '$', '!', '=':
		if n < 0 {
			return nil
		}
		_, err := io.CopyN(w, r, int64(n)+2)
		return err
	case '*', '~', '>':
		for range max(n, 0) {
			if err := copyReply(r, w); err != nil {
				return err
			}
		}
	case '%', '|':
		for range 2 * max(n, 0) {
			if err := copyReply(r, w); err != nil {
				return err
			}
		}
	}
	return nil
}

// turncoat is a node that answers as the real server behind it does,
// except to the command named bad, where it sends reply: a node that
// passes discovery and planning and misbehaves in the middle of a deploy.
func turncoat(t *testing.T, backend *redistest.Server, bad string, after int, reply string) string {
	t.Helper()
	var mu sync.Mutex
	seen := 0
	return redistest.Fake(t, func(conn net.Conn) {
		defer conn.Close()
		be, err := net.Dial("tcp", backend.Addr)
		if err != nil {
			return
		}
		defer be.Close()
		r, br := bufio.NewReader(conn), bufio.NewReader(be)
		for {
			args, err := redistest.ReadCommand(r)
			if err != nil {
				return
			}
			if len(args) >= 2 && strings.EqualFold(args[0]+" "+args[1], bad) {
				mu.Lock()
				seen++
				turn := seen > after
				mu.Unlock()
				if turn {
					io.WriteString(conn, reply)
					continue
				}
			}
			var b strings.Builder
			fmt.Fprintf(&b, "*%d\r\n", len(args))
			for _, a := range args {
				fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
			}
			if _, err := io.WriteString(be, b.String()); err != nil {
				return
			}
			if err := copyReply(br, conn); err != nil {
				return
			}
		}
	})
}

// TestHostileNodeMidDeploy: a node that passes discovery, the permission
// check and the plan, then answers the deploy's FUNCTION LOAD with a reply
// over the limits, breaks the connection with the SCRIPT LOADs of the same
// pipeline still unread. The deploy exits 3 naming the node; the real
// server gets the whole deploy; and the report claims nothing it did not
// read: every item sent to the hostile node is "unknown" (its scripts did
// reach the server behind it, its library did not), none "loaded", none
// plainly "failed".
func TestHostileNodeMidDeploy(t *testing.T) {
	good, behind := redistest.Standalone(t), redistest.Standalone(t)
	// The first FUNCTION LOAD is the permission probe; the second the deploy's.
	addr := turncoat(t, behind, "FUNCTION LOAD", 1, "*9223372036854775807\r\n")
	ios, _, out, errOut := iostreams.Test()
	code := run(context.Background(), ios, []string{"deploy", "-m", "../../manifest.yaml", "--url", good.URL(), "--url", "redis://" + addr, "--format", "json"})
	if code != 3 || !strings.Contains(errOut.String(), "Error: 1 node failed: "+addr) {
		t.Fatalf("exit %d, want 3 naming %s\nstdout:\n%s\nstderr:\n%s", code, addr, out, errOut)
	}
	var doc struct {
		Nodes []struct {
			Addr   string `json:"addr"`
			Status string `json:"status"`
			Items  []struct {
				Kind    string `json:"kind"`
				Name    string `json:"name"`
				Outcome string `json:"outcome"`
			} `json:"items"`
		} `json:"nodes"`
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	m := loadFor(t, "../../manifest.yaml")
	seen := 0
	for _, n := range doc.Nodes {
		want := "loaded"
		if n.Addr == addr {
			want = "unknown"
			seen++
		}
		if len(n.Items) != len(m.Scripts)+1 {
			t.Errorf("%s: %d items, want %d", n.Addr, len(n.Items), len(m.Scripts)+1)
		}
		for _, it := range n.Items {
			if it.Outcome != want {
				t.Errorf("%s: %s %s %s, want %s", n.Addr, it.Kind, it.Name, it.Outcome, want)
			}
		}
	}
	if seen != 1 {
		t.Fatalf("the hostile node is not in the report:\n%s", out)
	}
	// What the servers hold: all of it on the real one; behind the
	// hostile node, the scripts (the report said "unknown", not "failed")
	// and not the library.
	for _, c := range []struct {
		s          *redistest.Server
		lib, cache bool
	}{{good, true, true}, {behind, false, true}} {
		libs := c.s.MustDo("FUNCTION", "LIST", "LIBRARYNAME", m.LibraryName())
		if got := len(mustArray(t, &libs)) == 1; got != c.lib {
			t.Errorf("%s: library %s loaded %t, want %t", c.s.Addr, m.LibraryName(), got, c.lib)
		}
		for _, sc := range m.Scripts {
			ex := c.s.MustDo("SCRIPT", "EXISTS", sc.SHA)
			if v, _ := ex.AsIntSlice(); len(v) != 1 || (v[0] == 1) != c.cache {
				t.Errorf("%s: script %s cached %v, want %t", c.s.Addr, sc.Name, v, c.cache)
			}
		}
	}
}
