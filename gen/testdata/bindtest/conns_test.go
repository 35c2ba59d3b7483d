package bindtest

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/rueidis"
)

// target is one server setup the bindings are called on, through one
// client: the addresses come from gen's TestGoBindingsLive.
type target struct {
	name    string
	cluster bool
	addrs   []string // every node (cluster: primaries and replicas)
}

func targets(t *testing.T) []target {
	t.Helper()
	var out []target
	if a := os.Getenv("BINDTEST_STANDALONE"); a != "" {
		out = append(out, target{name: "standalone", addrs: []string{a}})
	}
	if a := os.Getenv("BINDTEST_CLUSTER"); a != "" {
		out = append(out, target{name: "cluster", cluster: true, addrs: strings.Split(a, ",")})
	}
	if len(out) == 0 {
		t.Skip("no server: BINDTEST_STANDALONE and BINDTEST_CLUSTER are unset (gen's TestGoBindingsLive sets them)")
	}
	return out
}

// client is one client library's connection to a target, as the
// generated adapters take it, and raw access for set-up and checks.
type client struct {
	name    string
	rueidis rueidis.Client        // set for rueidis
	goredis redis.UniversalClient // set for go-redis
	target  target
}

// each runs f once per target and client library.
func each(t *testing.T, f func(t *testing.T, c *client)) {
	for _, tg := range targets(t) {
		for _, lib := range []string{"rueidis", "go-redis"} {
			t.Run(tg.name+"/"+lib, func(t *testing.T) {
				c := &client{name: lib, target: tg}
				switch {
				case lib == "rueidis":
					if tg.cluster {
						waitReplicasOnline(t, tg.addrs)
					}
					opt := rueidis.ClientOption{InitAddress: tg.addrs, DisableCache: true}
					if tg.cluster {
						// _RO commands go to replicas.
						opt.SendToReplicas = func(cmd rueidis.Completed) bool { return cmd.IsReadOnly() }
					}
					rc, err := rueidis.NewClient(opt)
					if err != nil {
						t.Fatal(err)
					}
					t.Cleanup(rc.Close)
					c.rueidis = rc
				case tg.cluster:
					gc := redis.NewClusterClient(&redis.ClusterOptions{Addrs: tg.addrs, ReadOnly: true})
					t.Cleanup(func() { gc.Close() })
					c.goredis = gc
				default:
					gc := redis.NewClient(&redis.Options{Addr: tg.addrs[0]})
					t.Cleanup(func() { gc.Close() })
					c.goredis = gc
				}
				f(t, c)
			})
		}
	}
}

// onEveryNode sends a command to every node of the target.
func (c *client) onEveryNode(t *testing.T, args ...any) {
	t.Helper()
	for _, a := range c.target.addrs {
		n := redis.NewClient(&redis.Options{Addr: a})
		err := n.Do(context.Background(), args...).Err()
		n.Close()
		if err != nil && !strings.HasPrefix(err.Error(), "READONLY") {
			t.Fatalf("%s on %s: %v", args[0], a, err)
		}
	}
}

// flushScripts empties the script cache of every node: the next EVALSHA
// replies NOSCRIPT.
func (c *client) flushScripts(t *testing.T) {
	t.Helper()
	c.onEveryNode(t, "SCRIPT", "FLUSH")
}

// get reads a key's string value ("" when absent) from its primary (the
// client under test may read replicas).
func (c *client) get(t *testing.T, key string) string {
	t.Helper()
	var r redis.UniversalClient
	if c.target.cluster {
		r = redis.NewClusterClient(&redis.ClusterOptions{Addrs: c.target.addrs})
	} else {
		r = redis.NewClient(&redis.Options{Addr: c.target.addrs[0]})
	}
	defer r.Close()
	v, err := r.Get(context.Background(), key).Result()
	if err == redis.Nil {
		return ""
	} else if err != nil {
		t.Fatal(err)
	}
	return v
}

// recorder wraps a Conn-like function and records the command names sent.
type recorder struct {
	mu    sync.Mutex
	names []string
}

func (r *recorder) add(name string) {
	r.mu.Lock()
	r.names = append(r.names, name)
	r.mu.Unlock()
}

func (r *recorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.names
	r.names = nil
	return out
}

// onEveryNodeOwning sends a write for key through the client (routed to
// the key's primary).
func (c *client) onEveryNodeOwning(t *testing.T, key string, args ...string) {
	t.Helper()
	ctx := context.Background()
	if c.rueidis != nil {
		if err := c.rueidis.Do(ctx, c.rueidis.B().Arbitrary(args[0]).Keys(key).Args(args[2:]...).Build()).Error(); err != nil {
			t.Fatal(err)
		}
		return
	}
	a := make([]any, len(args))
	for i, s := range args {
		a[i] = s
	}
	if err := c.goredis.Do(ctx, a...).Err(); err != nil {
		t.Fatal(err)
	}
}

// waitReplicasOnline waits until CLUSTER SHARDS calls every replica
// "online": rueidis sends read-only commands only to those, and a server
// calls a replica "loading" until it has seen replication traffic, so a
// few writes to every shard go first.
func waitReplicasOnline(t *testing.T, addrs []string) {
	t.Helper()
	ctx := context.Background()
	cc := redis.NewClusterClient(&redis.ClusterOptions{Addrs: addrs})
	defer cc.Close()
	for i := 0; i < 30; i++ {
		if err := cc.Set(ctx, fmt.Sprintf("warm{%d}", i), "1", 0).Err(); err != nil {
			t.Fatal(err)
		}
	}
	n := redis.NewClient(&redis.Options{Addr: addrs[0]})
	defer n.Close()
	for i := 0; ; i++ {
		shards, err := n.ClusterShards(ctx).Result()
		if err != nil {
			t.Fatal(err)
		}
		online := true
		for _, sh := range shards {
			for _, node := range sh.Nodes {
				if node.Role == "replica" && node.Health != "online" {
					online = false
				}
			}
		}
		if online {
			return
		}
		if i > 1000 {
			t.Fatalf("CLUSTER SHARDS never called every replica online: %+v", shards)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
