package loader

import (
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"

	"github.com/scriptctl/scriptctl/internal/connect"
)

// ErrInterrupted is the cause of a run stopped by its context (Ctrl-C)
// between nodes.
var ErrInterrupted = errors.New("interrupted")

// ErrLockLost is the cause of a run stopped because the deploy lock could
// not be renewed.
var ErrLockLost = errors.New("deploy lock lost: another run may have taken it; rerun to converge")

// Node problem classes, as tables and JSON name a node that could not be
// used.
const (
	ClassUnreachable = "unreachable" // refused, timed out, name not found
	ClassAuth        = "auth failed" // NOAUTH, WRONGPASS, a user without permission to connect
	ClassNotRedis    = "not redis"   // something answered, but not in RESP
)

// ConnError is why a node could not be used, classified for people, with a
// hint saying what to do.
type ConnError struct {
	Class string
	Hint  string
	Err   error
	// Msg, when set, says what Err means in words, in place of Err's text.
	Msg string
}

func (e *ConnError) Error() string {
	msg := e.Msg
	if msg == "" {
		msg = e.Err.Error()
	}
	if e.Hint == "" {
		return msg
	}
	return msg + " (" + e.Hint + ")"
}

func (e *ConnError) Unwrap() error { return e.Err }

// classify wraps a connection error in a ConnError with its class and hint.
func classify(err error) error {
	if err == nil {
		return nil
	}
	var ce *ConnError
	if errors.As(err, &ce) {
		return err
	}
	var le *connect.ReplyLimitError
	if errors.As(err, &le) {
		// A reply over the limits, or outside the protocol: the node
		// answered, but not as a Redis server scriptctl accepts.
		return &ConnError{Class: ClassNotRedis, Err: err, Msg: le.Error()}
	}
	msg := err.Error()
	switch {
	case strings.Contains(msg, "NOAUTH") || strings.Contains(msg, "WRONGPASS") || strings.Contains(msg, "invalid password") ||
		strings.Contains(msg, "invalid username-password") || strings.Contains(msg, "AUTH <password> called without any password"):
		return &ConnError{Class: ClassAuth, Err: err,
			Hint: "set the password with --password-file, SCRIPTCTL_PASSWORD or REDISCLI_AUTH, and the user in the URL (redis://user@host:port)"}
	case strings.Contains(msg, "received unknown message type") || strings.Contains(msg, "unexpected") && strings.Contains(msg, "protocol") ||
		strings.Contains(msg, "malformed") || strings.Contains(msg, "tls: first record does not look like a TLS handshake"):
		return &ConnError{Class: ClassNotRedis, Err: err, Msg: notRedis(msg),
			Hint: "the endpoint did not answer in the Redis protocol: check the host and port (and redis:// versus rediss://)"}
	}
	return &ConnError{Class: ClassUnreachable, Err: err, Msg: dialCause(err)}
}

// dialCause is why a dial failed without the "dial tcp <addr>: connect:"
// that the node's name and the "connect" step already say: "connection
// refused", not "dial tcp 127.0.0.1:1: connect: connection refused". ""
// when err is not a failed dial, or says more than the dial error does.
func dialCause(err error) string {
	var oe *net.OpError
	if !errors.As(err, &oe) || oe.Op != "dial" || oe.Err == nil || err.Error() != oe.Error() {
		return ""
	}
	var se *os.SyscallError
	if errors.As(oe.Err, &se) && se.Err != nil {
		return se.Err.Error()
	}
	return oe.Err.Error()
}

// notRedis says in words what a protocol error means: rueidis reports the
// first byte of a reply that is not RESP as "received unknown message type:
// 72".
func notRedis(msg string) string {
	_, num, ok := strings.Cut(msg, "received unknown message type: ")
	if !ok {
		return "not a Redis server: " + msg
	}
	b, err := strconv.Atoi(strings.TrimSpace(num))
	if err != nil || b < 0 || b > 255 {
		return "not a Redis server: " + msg
	}
	s := fmt.Sprintf("not a Redis server: its reply starts with %q, which no Redis reply does", rune(b))
	if b == 'H' {
		s += " (an HTTP server answers \"HTTP/1.1 ...\")"
	}
	return s
}

// Class returns the class of a node's problem: ClassAuth, ClassNotRedis, or
// ClassUnreachable for anything else.
func Class(err error) string {
	var ce *ConnError
	if errors.As(err, &ce) {
		return ce.Class
	}
	return ClassUnreachable
}

// NodeError is a failure on one node.
type NodeError struct {
	Node string // host:port
	Op   string // "connect", "script load", "function load", ...
	Err  error
}

func (e *NodeError) Error() string {
	return fmt.Sprintf("%s: %s: %v", e.Node, e.Op, e.Err)
}

func (e *NodeError) Unwrap() error { return e.Err }

// nodeErr returns the node's error as a NodeError naming it.
func nodeErr(n *Node) *NodeError {
	var ne *NodeError
	if errors.As(n.Err, &ne) && ne.Node == n.Addr {
		return ne
	}
	return &NodeError{Node: n.Addr, Op: "connect", Err: n.Err}
}

// NodesError lists every node that failed, one per line.
type NodesError struct {
	Errs []*NodeError
}

func (e *NodesError) Error() string {
	var b strings.Builder
	if len(e.Errs) == 1 {
		b.WriteString("1 node failed: ")
		b.WriteString(e.Errs[0].Error())
		return b.String()
	}
	fmt.Fprintf(&b, "%d nodes failed:", len(e.Errs))
	for _, ne := range e.Errs {
		b.WriteString("\n  ")
		b.WriteString(ne.Error())
	}
	return b.String()
}

// Unwrap returns the node errors, so errors.Is and errors.As look inside.
func (e *NodesError) Unwrap() []error {
	out := make([]error, len(e.Errs))
	for i, ne := range e.Errs {
		out[i] = ne
	}
	return out
}

// ConflictError is a refused deploy: the library name is loaded with
// different code on some nodes.
type ConflictError struct {
	Library string
	Nodes   []string
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("library %s is loaded with different code on %s: nothing was changed", e.Library, strings.Join(e.Nodes, ", "))
}

// Hint says how to resolve the conflict.
func (e *ConflictError) Hint() string {
	return "bump version in the manifest so old and new builds run side by side, or 'scriptctl deploy --replace' to overwrite it"
}

// LockError is a deploy lock held by someone else past the wait.
type LockError struct {
	Key    string
	Node   string
	Holder string // host, pid and start time of the holder, as it wrote them
	TTL    string // remaining lease
}

func (e *LockError) Error() string {
	return fmt.Sprintf("deploy lock %s on %s is held by %s (lease expires in %s)", e.Key, e.Node, e.Holder, e.TTL)
}

// Hint says what to do.
func (e *LockError) Hint() string {
	return "wait for the other deploy to finish, or raise --lock-timeout"
}

// RedirectError is a keyed command a cluster node redirected (MOVED or
// ASK): the slots moved after the nodes were read, by a failover or a
// resharding. Nothing was changed.
type RedirectError struct {
	Node  string
	Op    string
	Reply string // the server's MOVED or ASK reply
}

func (e *RedirectError) Error() string {
	return fmt.Sprintf("%s: %s: the node answered %q: the cluster's slots moved after its nodes were read (a failover or a resharding); nothing was changed", e.Node, e.Op, e.Reply)
}

// Hint says what to do.
func (e *RedirectError) Hint() string {
	return "rerun once the cluster is stable ('scriptctl status' shows each node's role)"
}

// redirect returns a *RedirectError when err is a MOVED or ASK reply, else
// nil.
func redirect(node, op string, err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	if strings.HasPrefix(msg, "MOVED ") || strings.HasPrefix(msg, "ASK ") {
		return &RedirectError{Node: node, Op: op, Reply: msg}
	}
	return nil
}
