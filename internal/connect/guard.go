package connect

import (
	"fmt"
	"net"
	"strconv"
	"strings"
)

// ReplyLimits bound what one reply of a server may make the client read
// and allocate. The client library sizes its buffers from the headers a
// server sends ("$9223372036854775807", "*2000000000"), so the limits are
// checked on the bytes as they arrive, before the library sees a header
// that breaks one: a hostile or broken server cannot crash scriptctl,
// exhaust its memory or its stack.
type ReplyLimits struct {
	Bulk     int64 // longest bulk string, in bytes
	Elements int64 // elements one reply may declare, all its arrays, maps and sets together
	Depth    int   // deepest nesting of arrays, maps and sets
	Total    int64 // bytes of one reply, headers included
}

// DefaultReplyLimits are far above what any reply scriptctl asks for needs
// (the largest is FUNCTION LIST WITHCODE of a large library), and far
// below what would hurt the machine.
var DefaultReplyLimits = ReplyLimits{Bulk: 64 << 20, Elements: 1 << 20, Depth: 32, Total: 256 << 20}

// withDefaults fills the zero fields from DefaultReplyLimits.
func (l ReplyLimits) withDefaults() ReplyLimits {
	d := DefaultReplyLimits
	if l.Bulk > 0 {
		d.Bulk = l.Bulk
	}
	if l.Elements > 0 {
		d.Elements = l.Elements
	}
	if l.Depth > 0 {
		d.Depth = l.Depth
	}
	if l.Total > 0 {
		d.Total = l.Total
	}
	return d
}

// ParseReplyLimit applies one --reply-limit setting, "bulk=SIZE",
// "elements=N", "depth=N" or "total=SIZE" (SIZE in bytes, or with KiB, MiB
// or GiB), to l.
func ParseReplyLimit(l *ReplyLimits, setting string) error {
	name, val, ok := strings.Cut(setting, "=")
	if !ok {
		return inputf("--reply-limit %q: want NAME=VALUE with NAME one of bulk, elements, depth, total", setting)
	}
	var mult int64 = 1
	num, unit := val, ""
	if name == "bulk" || name == "total" {
		unit = " of bytes (or KiB, MiB, GiB)"
		for _, u := range []struct {
			suffix string
			m      int64
		}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}} {
			if s, ok := strings.CutSuffix(val, u.suffix); ok {
				num, mult = s, u.m
				break
			}
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n <= 0 || n > (1<<40)/mult {
		return inputf("--reply-limit %s: %q is not a positive number%s", name, val, unit)
	}
	n *= mult
	switch name {
	case "bulk":
		l.Bulk = n
	case "total":
		l.Total = n
	case "elements":
		l.Elements = n
	case "depth":
		if n > 1<<16 {
			return inputf("--reply-limit depth: %d is more than %d", n, 1<<16)
		}
		l.Depth = int(n)
	default:
		return inputf("--reply-limit %q: unknown limit %q: want bulk, elements, depth or total", setting, name)
	}
	return nil
}

// ReplyLimitError is a reply that broke a limit. The connection is closed;
// the CLI maps it to exit 3 with the node named.
type ReplyLimitError struct {
	Limit string // "bulk", "elements", "depth", "total" or "protocol"
	Msg   string
}

func (e *ReplyLimitError) Error() string {
	if e.Limit == "protocol" {
		return "malformed reply: " + e.Msg
	}
	return fmt.Sprintf("reply over the %s limit: %s (raise it with --reply-limit %s=...)", e.Limit, e.Msg, e.Limit)
}

// guardConn checks every byte a server sends against the reply limits
// before passing it on. After a violation every Read fails.
type guardConn struct {
	net.Conn
	v   respValidator
	err error
}

func newGuardConn(c net.Conn, l ReplyLimits) *guardConn {
	return &guardConn{Conn: c, v: respValidator{lim: l.withDefaults()}}
}

func (g *guardConn) Read(p []byte) (int, error) {
	if g.err != nil {
		return 0, g.err
	}
	n, err := g.Conn.Read(p)
	if n > 0 {
		if verr := g.v.feed(p[:n]); verr != nil {
			g.err = verr
			_ = g.Conn.Close()
			return 0, verr
		}
	}
	return n, err
}

// respValidator follows the RESP2/RESP3 stream byte by byte. It keeps, for
// the reply being read, a stack of the aggregates still open (how many
// elements each still expects), the bytes read and the elements declared.
type respValidator struct {
	lim ReplyLimits

	state    int    // what the next byte is
	typ      byte   // type byte of the current line
	line     []byte // the current header or simple line, up to lineMax bytes
	lineLen  int64  // its length so far
	bulkLeft int64  // bytes of bulk payload (and its CRLF) still to come
	stack    []int64
	total    int64 // bytes of the current reply
	elements int64 // elements the current reply declared
}

const (
	stType    = iota // expecting a type byte
	stLine           // inside a line, until CRLF
	stBulk           // inside a bulk payload
	stForeign        // after a byte that starts no RESP reply: the client fails on it
)

// headerMax bounds a header line: a sign and 19 digits.
const headerMax = 20

func (v *respValidator) feed(b []byte) error {
	for i := 0; i < len(b) && v.state != stForeign; {
		v.total++
		if v.total > v.lim.Total {
			return &ReplyLimitError{Limit: "total", Msg: fmt.Sprintf("more than %d bytes", v.lim.Total)}
		}
		c := b[i]
		switch v.state {
		case stType:
			switch c {
			case '+', '-', ':', ',', '#', '(', '_', '$', '!', '=', '*', '~', '%', '>', '|':
			case '.', ';':
				// RESP3 streamed aggregates and strings, which rueidis
				// reads and Redis never sends: refused.
				return &ReplyLimitError{Limit: "protocol", Msg: fmt.Sprintf("unsupported reply type %q", c)}
			default:
				// A byte no RESP reply starts with: rueidis refuses it
				// itself, before reading on, and says which byte it was
				// (an HTTP server's "H"); pass the rest through.
				v.state = stForeign
				return nil
			}
			v.typ, v.line, v.lineLen, v.state = c, v.line[:0], 0, stLine
			i++
		case stLine:
			if c == '\n' {
				if err := v.endLine(); err != nil {
					return err
				}
				i++
				continue
			}
			v.lineLen++
			if isHeader(v.typ) {
				if v.lineLen > headerMax+1 { // the digits and the CR
					return &ReplyLimitError{Limit: "protocol", Msg: fmt.Sprintf("header %q is too long", string(v.typ)+string(v.line))}
				}
				v.line = append(v.line, c)
			} else if v.lineLen > v.lim.Bulk {
				return &ReplyLimitError{Limit: "bulk", Msg: fmt.Sprintf("a line longer than %d bytes", v.lim.Bulk)}
			}
			i++
		case stBulk:
			// Skip what is left of the payload in this chunk at once.
			n := int64(len(b) - i)
			if n > v.bulkLeft {
				n = v.bulkLeft
			}
			v.total += n - 1
			if v.total > v.lim.Total {
				return &ReplyLimitError{Limit: "total", Msg: fmt.Sprintf("more than %d bytes", v.lim.Total)}
			}
			v.bulkLeft -= n
			i += int(n)
			if v.bulkLeft == 0 {
				v.state = stType
				v.done()
			}
		}
	}
	return nil
}

func isHeader(t byte) bool {
	switch t {
	case '$', '!', '=', '*', '~', '%', '>', '|':
		return true
	}
	return false
}

// endLine handles a complete line (its CR is the last byte of line).
func (v *respValidator) endLine() error {
	v.state = stType
	if !isHeader(v.typ) {
		v.done()
		return nil
	}
	s := strings.TrimSuffix(string(v.line), "\r")
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < -1 {
		return &ReplyLimitError{Limit: "protocol", Msg: fmt.Sprintf("invalid length %q", string(v.typ)+s)}
	}
	switch v.typ {
	case '$', '!', '=':
		if n > v.lim.Bulk {
			return &ReplyLimitError{Limit: "bulk", Msg: fmt.Sprintf("a bulk string of %d bytes, over %d", n, v.lim.Bulk)}
		}
		if n < 0 {
			v.done()
			return nil
		}
		v.bulkLeft, v.state = n+2, stBulk
		return nil
	}
	if n <= 0 && v.typ != '|' {
		v.done()
		return nil
	}
	if n < 0 {
		return &ReplyLimitError{Limit: "protocol", Msg: fmt.Sprintf("invalid length %q", string(v.typ)+s)}
	}
	if n > v.lim.Elements {
		return &ReplyLimitError{Limit: "elements", Msg: fmt.Sprintf("more than %d elements", v.lim.Elements)}
	}
	if v.typ == '%' || v.typ == '|' {
		n *= 2 // a map's keys and values
	}
	if v.elements += n; v.elements > v.lim.Elements {
		return &ReplyLimitError{Limit: "elements", Msg: fmt.Sprintf("more than %d elements", v.lim.Elements)}
	}
	if len(v.stack) >= v.lim.Depth {
		return &ReplyLimitError{Limit: "depth", Msg: fmt.Sprintf("nested deeper than %d", v.lim.Depth)}
	}
	if v.typ == '|' {
		// An attribute precedes the value it describes: that value is
		// one more element of the enclosing aggregate.
		n++
	}
	v.stack = append(v.stack, n)
	return nil
}

// done records one complete value: it fills a slot of the innermost open
// aggregate, closing those it completes; a value at the top closes the
// reply.
func (v *respValidator) done() {
	for len(v.stack) > 0 {
		top := len(v.stack) - 1
		v.stack[top]--
		if v.stack[top] > 0 {
			return
		}
		v.stack = v.stack[:top]
	}
	v.total, v.elements = 0, 0
}
