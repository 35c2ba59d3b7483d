package keyspace

// Pub/sub commands a script may call: PUBLISH and SPUBLISH. The engine has
// no subscribed clients; it records every message (Published) and answers
// the number of receivers a test declares (SetSubscribers), 0 otherwise.

func registerPubsub() {
	registerIn("publish", noKeys, func(e *Server, sc Script, a []string) (Reply, error) {
		return e.publish(sc, a, false)
	})
	registerIn("spublish", noKeys, func(e *Server, sc Script, a []string) (Reply, error) {
		return e.publish(sc, a, true)
	})
}

// Message is one message a PUBLISH or SPUBLISH sent, in the order sent.
type Message struct {
	Channel string
	Message string
	Shard   bool // sent by SPUBLISH (a shard channel)
}

// Published returns every message published since the engine was made
// or since the last ResetPublished, in order. A message stays published
// even when the script that sent it fails afterwards: Redis delivers it at
// once, it is not rolled back.
func (e *Server) Published() []Message { return append([]Message(nil), e.published...) }

// ResetPublished forgets the recorded messages.
func (e *Server) ResetPublished() { e.published = nil }

// A script's SPUBLISH follows the cluster rules with its channel's slot
// (verify's topology.go checkKeys).

// SetSubscribers declares how many clients receive a message sent to each
// channel (subscribers and matching pattern subscribers together); PUBLISH
// and SPUBLISH answer that number, 0 for a channel not in the map. The map
// is copied.
func (e *Server) SetSubscribers(n map[string]int64) {
	e.subscribers = make(map[string]int64, len(n))
	for c, v := range n {
		e.subscribers[c] = v
	}
}

// publish is PUBLISH (or SPUBLISH with shard). Redis 7.0.15 flags both
// may-replicate, which a read-only script (EVAL_RO, FCALL_RO, no-writes)
// treats as a write (scriptVerifyWriteCommandAllow).
func (e *Server) publish(sc Script, a []string, shard bool) (Reply, error) {
	if sc != nil && sc.ReadOnly() {
		return ErrorReply(ScriptErrWrite), nil
	}
	e.published = append(e.published, Message{Channel: a[1], Message: a[2], Shard: shard})
	return IntReply(e.subscribers[a[1]]), nil
}
