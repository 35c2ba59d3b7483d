package keyspace

import "testing"

// Every handler registered for the engine's own target is a command its
// command table knows (register does not look, to keep process start
// cheap).
func TestHandlersKnownToRedis(t *testing.T) {
	if len(handlers) < 100 {
		t.Fatalf("only %d handlers registered", len(handlers))
	}
	for name := range handlers {
		if _, ok := lookupCommand(name); !ok {
			t.Errorf("handler registered for %q, which %s does not know", name, DefaultTarget)
		}
	}
}
