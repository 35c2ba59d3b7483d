package main

import (
	"bufio"
	"context"
	"io"
	"net"
	"regexp"
	"strings"
	"testing"

	"github.com/redis/rueidis"

	"github.com/scriptctl/scriptctl/internal/iostreams"
	"github.com/scriptctl/scriptctl/internal/redistest"
)

// hostileNode is a fake server on a loopback port that answers every
// command with reply: a reply header that once crashed scriptctl.
func hostileNode(t *testing.T, reply string) string {
	t.Helper()
	return redistest.Fake(t, func(conn net.Conn) {
		defer conn.Close()
		r := bufio.NewReader(conn)
		for {
			if _, err := redistest.ReadCommand(r); err != nil {
				return
			}
			if _, err := io.WriteString(conn, reply); err != nil {
				return
			}
		}
	})
}

// TestHostileServer: every online command (and eval and verify with
// --against), facing a node whose replies
// ask for 2^63-1 bytes or elements, nest without end, or stream (RESP3),
// stops with exit 3 naming the node, instead of crashing.
func TestHostileServer(t *testing.T) {
	for _, reply := range []string{
		"$9223372036854775807\r\n",
		"*9223372036854775807\r\n",
		"*2000000000\r\n",
		strings.Repeat("*1\r\n", 100000),
		"*?\r\n",
	} {
		addr := hostileNode(t, reply)
		for _, cmd := range []string{"status", "plan", "deploy", "prune", "diff", "inspect", "unlock", "eval", "verify"} {
			args := []string{cmd, "--url", "redis://" + addr}
			switch cmd {
			case "eval":
				args = []string{cmd, "--against", "redis://" + addr, "../../lua/release.lua", "k", ",", "t"}
			case "verify":
				args = []string{cmd, "--against", "redis://" + addr, "-m", "../../manifest.yaml"}
			case "inspect":
				args = append(args, "--sha", strings.Repeat("a", 40))
			case "prune":
				args = append(args, "-m", "../../manifest.yaml", "--keep", "1")
			default:
				args = append(args, "-m", "../../manifest.yaml")
			}
			ios, _, out, errOut := iostreams.Test()
			code := run(context.Background(), ios, args)
			all := out.String() + errOut.String()
			if code != 3 || !strings.Contains(all, addr) || !strings.Contains(all, "reply") {
				t.Errorf("%s against %q: exit %d; want 3 naming %s\nstdout:\n%s\nstderr:\n%s", cmd, reply[:min(len(reply), 24)], code, addr, out, errOut)
			}
		}
	}
}

// TestHostileNodeIsAFailedNode: in a deploy to a real server and a hostile
// node, the hostile node is a failed node like an unreachable one (class
// "not redis", the limit named, exit 3), and the real server gets the
// whole deploy, intact.
func TestHostileNodeIsAFailedNode(t *testing.T) {
	good := redistest.Standalone(t)
	addr := hostileNode(t, "*9223372036854775807\r\n")
	ios, _, out, errOut := iostreams.Test()
	code := run(context.Background(), ios, []string{"deploy", "-m", "../../manifest.yaml", "--url", good.URL(), "--url", "redis://" + addr})
	wantRow := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(addr) + `\tunknown\t.*\tnot redis\treply over the elements limit: more than 1048576 elements \(raise it with --reply-limit elements=\.\.\.\)$`)
	if code != 3 || !wantRow.MatchString(out.String()) || !strings.Contains(errOut.String(), "Error: 1 node failed: "+addr+": connect: reply over the elements limit") {
		t.Fatalf("exit %d; want 3 with the node's row\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	m := loadFor(t, "../../manifest.yaml")
	libs := good.MustDo("FUNCTION", "LIST", "LIBRARYNAME", m.LibraryName())
	if len(mustArray(t, &libs)) != 1 {
		t.Errorf("the real server lacks library %s", m.LibraryName())
	}
	for _, s := range m.Scripts {
		ex := good.MustDo("SCRIPT", "EXISTS", s.SHA)
		if v, _ := ex.AsIntSlice(); len(v) != 1 || v[0] != 1 {
			t.Errorf("script %s is missing on the real server", s.Name)
		}
	}
}

func mustArray(t *testing.T, m *rueidis.RedisMessage) []rueidis.RedisMessage {
	t.Helper()
	a, err := m.ToArray()
	if err != nil {
		t.Fatal(err)
	}
	return a
}
