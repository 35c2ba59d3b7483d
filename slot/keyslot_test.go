package slot

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/redis/rueidis"

	"github.com/scriptctl/scriptctl/internal/redistest"
)

// randomKey returns a key of 0 to 40 bytes rich in '{' and '}', with
// arbitrary bytes, sometimes shaped like a real templated key.
func randomKey(rng *rand.Rand) string {
	piece := func() string {
		var b strings.Builder
		for range rng.IntN(12) {
			switch rng.IntN(6) {
			case 0:
				b.WriteByte('{')
			case 1:
				b.WriteByte('}')
			case 2:
				b.WriteByte(byte(rng.IntN(256)))
			default:
				b.WriteByte("abcxyz0123:-_"[rng.IntN(13)])
			}
		}
		return b.String()
	}
	switch rng.IntN(4) {
	case 0:
		return piece() + "{" + piece() + "}" + piece()
	case 1:
		return "catalog:{product-" + piece() + "}:lease"
	default:
		return piece() + piece() + piece()
	}
}

// TestOfMatchesClusterKeyslot compares Of with CLUSTER KEYSLOT of a real
// cluster-enabled redis-server over 12,000 random keys plus the edge cases.
func TestOfMatchesClusterKeyslot(t *testing.T) {
	if testing.Short() {
		t.Skip("starts redis-server")
	}
	srv := redistest.Standalone(t, redistest.WithArgs("--cluster-enabled", "yes"))
	c := srv.Client()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	rng := rand.New(rand.NewPCG(1, 2))
	keys := []string{"foo", "bar", "somekey", "foo{hash_tag}", "{user1000}.following", "foo{{bar}}zap",
		"foo{}{bar}", "foo{bar}{zap}", "{", "}", "{}", "}{", "", "\x00", "\xff{\xfe}", "{é}", strings.Repeat("{", 300)}
	for len(keys) < 12000 {
		keys = append(keys, randomKey(rng))
	}
	braces := 0
	for _, k := range keys {
		if strings.ContainsAny(k, "{}") {
			braces++
		}
	}
	if braces < len(keys)/2 {
		t.Fatalf("only %d of %d keys hold a brace", braces, len(keys))
	}

	const batch = 1000
	for start := 0; start < len(keys); start += batch {
		part := keys[start:min(start+batch, len(keys))]
		cmds := make(rueidis.Commands, 0, len(part))
		for _, k := range part {
			cmds = append(cmds, c.B().ClusterKeyslot().Key(k).Build())
		}
		for i, res := range c.DoMulti(ctx, cmds...) {
			want, err := res.AsInt64()
			if err != nil {
				t.Fatalf("CLUSTER KEYSLOT %q: %v", part[i], err)
			}
			if got := Of(part[i]); int64(got) != want {
				t.Errorf("Of(%q) = %d, CLUSTER KEYSLOT says %d", part[i], got, want)
			}
		}
	}
}
