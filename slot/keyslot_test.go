package slot

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/redis/rueidis"

	"github.com/scriptctl/scriptctl/internal/redistest"
	"github.com/scriptctl/scriptctl/internal/valueset"
	"github.com/scriptctl/scriptctl/manifest"
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

// TestCheckAgreesWithRedis runs the keys check-keys reasons about through a
// real cluster-enabled redis-server that serves every slot: a reported
// counterexample's keys are refused with CROSSSLOT, and the keys of a proven
// check, built from the adversarial values, are accepted.
func TestCheckAgreesWithRedis(t *testing.T) {
	if testing.Short() {
		t.Skip("starts redis-server")
	}
	srv := redistest.Standalone(t, redistest.WithArgs("--cluster-enabled", "yes"))
	srv.MustDo("CLUSTER", "ADDSLOTSRANGE", "0", "16383")
	deadline := time.Now().Add(30 * time.Second)
	for {
		info, err := srv.Do(context.Background(), "CLUSTER", "INFO").ToString()
		if err == nil && strings.Contains(info, "cluster_state:ok") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("cluster state not ok: %q %v", info, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	c := srv.Client()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	eval := func(keys []string) error {
		return c.Do(ctx, c.B().Eval().Script("return 1").Numkeys(int64(len(keys))).Key(keys...).Build()).Error()
	}

	pairs := []struct {
		a, b    string
		values  Values
		pattern string // declared for every placeholder, when set
	}{
		{"catalog:{product-<id>}:lease", "catalog:{product-<id>}:value", AnyValues, ""},
		{"c:{<id>}:lease", "c:{<id>}:value", AnyValues, ""},
		{"c:{<id>}:lease", "c:{<id>}:value", PlainValues, ""},
		{"<t>:{p<id>}:a", "<t>:{p<id>}:b", AnyValues, ""},
		{"<t>:{p<id>}:a", "<t>:{p<id>}:b", PlainValues, ""},
		{"{<id>-x}:a", "{<id>-x}:b", AnyValues, ""},
		{"lease:<id>", "value:<id>", AnyValues, ""},
		{"{}{<id>}:a", "{}{<id>}:b", AnyValues, ""},
		{"{p<a>}", "{p<b>}", AnyValues, ""},
		// Declared values: proven for them, refuted inside them.
		{"queues:{<id>}", "queues:{<id>}:notify", AnyValues, `^[a-z][a-z0-9_-]*$`},
		{"queues:{<id>}", "queues:{<id>}:notify", AnyValues, `^[a-z][a-z}]*$`},
		{"queues:{<id>}", "queues:{<id>}:notify", AnyValues, `^\}[0-9]+$`},
		{"queues:{<id>}", "queues:{<id>}:notify", AnyValues, `[a-z]+`},
		{"<t>:{p<id>}:a", "<t>:{p<id>}:b", AnyValues, `^[^{]*$`},
	}
	for _, p := range pairs {
		m := pairManifest(t, p.a, p.b, nil)
		var cands []string
		if p.pattern != "" {
			decl := map[string]manifest.Placeholder{}
			for _, name := range []string{"id", "t", "a", "b"} {
				decl[name] = manifest.Placeholder{Name: name, Pattern: p.pattern}
			}
			m.Callers[0].Placeholders = decl
			cands = newDomains(p.values, decl, 0).candidates("id")
		}
		r := CheckWith(m, Options{Values: p.values})
		ch := r.Checks[0]
		switch ch.Status {
		case Mismatch:
			keys := []string{ch.Counterexample.Keys[0].Key, ch.Counterexample.Keys[1].Key}
			err := eval(keys)
			if err == nil || !strings.HasPrefix(err.Error(), "CROSSSLOT") {
				t.Errorf("%q, %q: counterexample keys %q: Redis said %v, want CROSSSLOT", p.a, p.b, keys, err)
			}
		case Proven:
			tmpls := []template{parseTemplate(p.a), parseTemplate(p.b)}
			values := valueset.Adversarial
			if p.pattern != "" {
				values = cands
			}
			for _, v := range values {
				if !inValues(v, p.values) {
					continue
				}
				vals := map[string]string{"id": v, "t": v, "a": v, "b": v}
				keys := []string{tmpls[0].expand(vals), tmpls[1].expand(vals)}
				if err := eval(keys); err != nil {
					t.Errorf("%q, %q proven for %s: keys %q: Redis said %v", p.a, p.b, p.values, keys, err)
				}
			}
		default:
			t.Errorf("%q, %q: status %s", p.a, p.b, ch.Status)
		}
	}
}
