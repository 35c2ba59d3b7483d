package verify

import (
	"context"
	"strconv"
	"testing"

	"github.com/redis/rueidis"

	"github.com/scriptctl/scriptctl/internal/redistest"
)

// liveCase is one differential case: set-up commands, then a script (or a
// plain command when src is empty), then probe commands; every reply must
// be identical offline and on a real redis-server.
type liveCase struct {
	name   string
	setup  [][]string
	src    string
	keys   []string
	args   []string
	cmd    []string // a plain command instead of a script
	probes [][]string
}

func sc(name, src string, keys []string, args []string, probes ...[]string) liveCase {
	return liveCase{name: name, src: src, keys: keys, args: args, probes: probes}
}

func cmd(name string, setup [][]string, c []string, probes ...[]string) liveCase {
	return liveCase{name: name, setup: setup, cmd: c, probes: probes}
}

func with(c liveCase, setup ...[]string) liveCase {
	c.setup = setup
	return c
}

func a(s ...string) []string { return s }

// liveTarget is the engine target of the server the live tests start
// ($SCRIPTCTL_TEST_SERVER, redistest.DefaultKind): the engine imitates it.
func liveTarget(t testing.TB) string { return redistest.DefaultKind(t).Target() }

// patchBuild reports whether the live server is a build judged as another
// release's target (Redis 8.0.6 as redis-8.0, whose facts are 8.0.2's):
// its REDIS_VERSION is its own.
func patchBuild(t testing.TB) bool {
	k := redistest.DefaultKind(t)
	return k.Name != k.Target()
}

// liveServer starts a throwaway redis-server and returns a function that
// runs one command on it over RESP2 and converts the reply exactly.
func liveServer(t *testing.T) func(args ...string) Reply {
	t.Helper()
	srv := redistest.Standalone(t)
	client, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{srv.Addr}, DisableCache: true, AlwaysRESP2: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(client.Close)
	return func(args ...string) Reply {
		t.Helper()
		res := client.Do(context.Background(), client.B().Arbitrary(args...).Build())
		if err := res.NonRedisError(); err != nil {
			t.Fatalf("live %v: %v", args, err)
		}
		msg, _ := res.ToMessage()
		r, err := FromMessage(msg)
		if err != nil {
			t.Fatalf("live %v: %v", args, err)
		}
		return r
	}
}

// TestLiveDifferential runs every case on the engine and on a throwaway
// redis-server (RESP2) and requires the same replies.
func TestLiveDifferential(t *testing.T) {
	if testing.Short() {
		t.Skip("live differential: needs redis-server")
	}
	live := liveServer(t)
	ctx := context.Background()
	for _, c := range liveCases() {
		t.Run(c.name, func(t *testing.T) {
			if c.name == "redis-version" && patchBuild(t) {
				t.Skipf("%s is judged as %s: its version constants are the build's own", redistest.DefaultKind(t).Name, liveTarget(t))
			}
			live("FLUSHALL")
			live("FUNCTION", "FLUSH")
			e := New(Options{Target: liveTarget(t), Topology: TopologyStandalone})
			// The live clock is real: keep TTLs in cases long enough that
			// a few ms of test time never change TTL (seconds) replies,
			// and compare PTTLs only through probes that round.
			for _, s := range c.setup {
				want := live(s...)
				got, err := e.Do(ctx, s...)
				if err != nil {
					t.Fatalf("setup %v: %v", s, err)
				}
				if !got.Equal(want) {
					t.Fatalf("setup %v:\noffline %s\nlive    %s", s, got, want)
				}
			}
			var got, want Reply
			var err error
			if c.cmd != nil {
				want = live(c.cmd...)
				got, err = e.Do(ctx, c.cmd...)
			} else {
				args := append([]string{"EVAL", c.src, itoa(len(c.keys))}, c.keys...)
				want = live(append(args, c.args...)...)
				got, err = e.Eval(ctx, []byte(c.src), c.keys, c.args)
			}
			if err != nil {
				t.Fatalf("offline run: %v (live: %s)", err, want)
			}
			if !got.Equal(want) {
				t.Errorf("reply differs:\noffline %s\nlive    %s", got, want)
			}
			for _, p := range c.probes {
				want := live(p...)
				got, err := e.Do(ctx, p...)
				if err != nil {
					t.Fatalf("probe %v: %v", p, err)
				}
				if !got.Equal(want) {
					t.Errorf("probe %v:\noffline %s\nlive    %s", p, got, want)
				}
			}
		})
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
