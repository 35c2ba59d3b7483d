package redistest

import (
	"bufio"
	"errors"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"
)

// Fake starts a fake server on a free loopback port for tests that need a
// peer no real server is (a hostile node, a web server): each connection
// goes to serve on its own goroutine. The listener closes when the test
// ends. It returns the address, host:port.
func Fake(t testing.TB, serve func(conn net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go serve(conn)
		}
	}()
	return ln.Addr().String()
}

// ReadCommand reads one command a client sends (a RESP array of bulk
// strings), for a Fake server's serve function.
func ReadCommand(r *bufio.Reader) ([]string, error) {
	line, err := r.ReadString('\n')
	if err != nil {
		return nil, err
	}
	n, err := strconv.Atoi(strings.TrimSpace(line[1:]))
	if err != nil || line[0] != '*' || n < 1 {
		return nil, errors.New("not a command")
	}
	args := make([]string, n)
	for i := range args {
		hdr, err := r.ReadString('\n')
		if err != nil {
			return nil, err
		}
		if len(hdr) < 2 {
			return nil, errors.New("not a bulk string")
		}
		size, err := strconv.Atoi(strings.TrimSpace(hdr[1:]))
		if err != nil || size < 0 {
			return nil, errors.New("not a bulk string")
		}
		buf := make([]byte, size+2)
		if _, err := io.ReadFull(r, buf); err != nil {
			return nil, err
		}
		args[i] = string(buf[:size])
	}
	return args, nil
}

// Silent starts a fake node that reads each connection's first command
// and never answers it: a client stays in its handshake until it gives
// up. first receives each connection's first command (upper-cased, its
// words joined by spaces); closed receives each connection's end, the
// error of the read that waited for the client's next move (io.EOF when
// the client closed it).
func Silent(t testing.TB) (addr string, first <-chan string, closed <-chan error) {
	t.Helper()
	firstc := make(chan string, 16)
	closedc := make(chan error, 16)
	addr = Fake(t, func(conn net.Conn) {
		defer conn.Close()
		r := bufio.NewReader(conn)
		args, err := ReadCommand(r)
		if err != nil {
			closedc <- err
			return
		}
		firstc <- strings.ToUpper(strings.Join(args, " "))
		_, err = r.ReadByte() // never answered
		closedc <- err
	})
	return addr, firstc, closedc
}
