package keyspace

import (
	"strconv"
	"strings"
)

// Kind is the RESP2 type of a reply, as a RESP2 client (redis-cli, a
// connection without HELLO 3) receives it. FromMessage (reply_rueidis.go)
// converts a live rueidis reply exactly, error codes and status included.
type Kind int

const (
	Nil    Kind = iota // nil bulk or nil array: redis-cli prints (nil)
	Int                // integer
	Bulk               // bulk string
	Status             // status (simple string)
	Error              // error reply; Str holds the full text, code included ("ERR ...")
	Array              // array; Elems holds the elements
)

var kindNames = [...]string{"nil", "integer", "bulk", "status", "error", "array"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// Reply is one Redis reply.
type Reply struct {
	Kind  Kind
	Int   int64
	Str   string  // Bulk, Status and Error text
	Elems []Reply // Array elements
}

// Constructors for the common replies.
func NilReply() Reply            { return Reply{Kind: Nil} }
func IntReply(n int64) Reply     { return Reply{Kind: Int, Int: n} }
func BulkReply(s string) Reply   { return Reply{Kind: Bulk, Str: s} }
func StatusReply(s string) Reply { return Reply{Kind: Status, Str: s} }
func ErrorReply(s string) Reply  { return Reply{Kind: Error, Str: s} }
func ArrayReply(elems ...Reply) Reply {
	if elems == nil {
		elems = []Reply{}
	}
	return Reply{Kind: Array, Elems: elems}
}

// IsError reports whether r is an error reply.
func (r Reply) IsError() bool { return r.Kind == Error }

// Equal reports whether r and o are the same reply.
func (r Reply) Equal(o Reply) bool {
	if r.Kind != o.Kind {
		return false
	}
	switch r.Kind {
	case Int:
		return r.Int == o.Int
	case Bulk, Status, Error:
		return r.Str == o.Str
	case Array:
		if len(r.Elems) != len(o.Elems) {
			return false
		}
		for i := range r.Elems {
			if !r.Elems[i].Equal(o.Elems[i]) {
				return false
			}
		}
	}
	return true
}

// String is a compact one-line form for traces and diffs: 1, "bulk" (Go
// quoting), (nil), +OK for a status, -ERR ... for an error, [a, b] for an
// array.
func (r Reply) String() string {
	var b strings.Builder
	r.write(&b)
	return b.String()
}

func (r Reply) write(b *strings.Builder) {
	switch r.Kind {
	case Nil:
		b.WriteString("(nil)")
	case Int:
		b.WriteString(strconv.FormatInt(r.Int, 10))
	case Bulk:
		b.WriteString(strconv.Quote(r.Str))
	case Status:
		b.WriteString("+" + r.Str)
	case Error:
		b.WriteString("-" + r.Str)
	case Array:
		b.WriteString("[")
		for i, e := range r.Elems {
			if i > 0 {
				b.WriteString(", ")
			}
			e.write(b)
		}
		b.WriteString("]")
	}
}
