package lua51

import (
	"fmt"
	"slices"
	"testing"
)

func names(keys []Key) []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		switch k.Kind {
		case KindString:
			out[i] = k.S
		case KindNumber:
			out[i] = fmt.Sprint(k.N)
		case KindBool:
			out[i] = fmt.Sprint(k.B)
		}
	}
	return out
}

// The orders below were read from redis-server 7.0.15 (pairs over the
// same table, keys collected in a list).
func TestOrderAsRedis(t *testing.T) {
	tb := New(HashLua51All, 0, 0)
	for i := 1; i <= 10; i++ {
		tb.Insert(Str(fmt.Sprintf("k%d", i)))
	}
	want := []string{"k9", "k8", "k1", "k3", "k2", "k10", "k6", "k7", "k4", "k5"}
	if got := names(tb.Keys()); !slices.Equal(got, want) {
		t.Errorf("k1..k10: got %v, want %v", got, want)
	}
	// {id=..., queue=..., attempts=0}: a constructor presizes 3 hash fields.
	tb = New(HashLua51All, 0, 3)
	for _, k := range []string{"id", "queue", "attempts"} {
		tb.Insert(Str(k))
	}
	want = []string{"id", "attempts", "queue"}
	if got := names(tb.Keys()); !slices.Equal(got, want) {
		t.Errorf("constructor: got %v, want %v", got, want)
	}
}
