package verify

import (
	"github.com/scriptctl/scriptctl/verify/keyspace"

	"github.com/redis/rueidis"
)

// The types and constructors the engine shares with its data side
// (package keyspace), under the names verify's callers use.

// Reply is one Redis reply (keyspace.Reply).
type Reply = keyspace.Reply

// Kind is the RESP2 type of a reply (keyspace.Kind).
type Kind = keyspace.Kind

// The reply kinds.
const (
	Nil    = keyspace.Nil
	Int    = keyspace.Int
	Bulk   = keyspace.Bulk
	Status = keyspace.Status
	Error  = keyspace.Error
	Array  = keyspace.Array
)

// Constructors for the common replies.
func NilReply() Reply                 { return keyspace.NilReply() }
func IntReply(n int64) Reply          { return keyspace.IntReply(n) }
func BulkReply(s string) Reply        { return keyspace.BulkReply(s) }
func StatusReply(s string) Reply      { return keyspace.StatusReply(s) }
func ErrorReply(s string) Reply       { return keyspace.ErrorReply(s) }
func ArrayReply(elems ...Reply) Reply { return keyspace.ArrayReply(elems...) }

// RunError reports a run the offline engine cannot judge (keyspace.RunError).
type RunError = keyspace.RunError

// RunError codes.
const (
	CodeNotImplemented = keyspace.CodeNotImplemented
	CodeUndeclaredKey  = keyspace.CodeUndeclaredKey
	CodeStepLimit      = keyspace.CodeStepLimit
	CodeTimeout        = keyspace.CodeTimeout
	CodeStackOverflow  = keyspace.CodeStackOverflow
	CodeMemory         = keyspace.CodeMemory
	CodeServerCrash    = keyspace.CodeServerCrash
	CodeUnknownTarget  = keyspace.CodeUnknownTarget
	CodeServerState    = keyspace.CodeServerState
)

func notImplemented(format string, args ...any) *RunError {
	return keyspace.NotImplemented(format, args...)
}

// The keyspace's contents, as Entries, Entry and Put read and write them.
type (
	Entry          = keyspace.Entry
	Field          = keyspace.Field
	ZMember        = keyspace.ZMember
	StreamID       = keyspace.StreamID
	StreamEntry    = keyspace.StreamEntry
	StreamPending  = keyspace.StreamPending
	StreamConsumer = keyspace.StreamConsumer
	StreamGroup    = keyspace.StreamGroup
	StreamState    = keyspace.StreamState
)

// CheckStream reports whether st is a stream Redis could hold
// (keyspace.CheckStream).
func CheckStream(st StreamState) error { return keyspace.CheckStream(st) }

// Message is one message a PUBLISH or SPUBLISH sent (keyspace.Message).
type Message = keyspace.Message

// Published returns every message published since the engine was made
// or since the last ResetPublished, in order. A message stays published
// even when the script that sent it fails afterwards: Redis delivers it at
// once, it is not rolled back.
func (e *Engine) Published() []Message { return e.srv.Published() }

// ResetPublished forgets the recorded messages.
func (e *Engine) ResetPublished() { e.srv.ResetPublished() }

// SetSubscribers declares how many clients receive a message sent to each
// channel (subscribers and matching pattern subscribers together); PUBLISH
// and SPUBLISH answer that number, 0 for a channel not in the map. The map
// is copied.
func (e *Engine) SetSubscribers(n map[string]int64) { e.srv.SetSubscribers(n) }

// What the engine's own commands (EVAL, SCRIPT, FUNCTION) share with the
// data commands.
var (
	errNotInt = keyspace.ErrorReply("ERR value is not an integer or out of range") // keyspace.ErrNotInt
	okReply   = keyspace.StatusReply("OK")                                         // keyspace.OKReply
)

func errArity(name string) Reply      { return keyspace.ErrArity(name) }
func parseInt(s string) (int64, bool) { return keyspace.ParseInt(s) }

// FromMessage converts a live rueidis reply exactly (keyspace.FromMessage).
func FromMessage(msg rueidis.RedisMessage) (Reply, error) { return keyspace.FromMessage(msg) }
