package bindtest

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/redis/rueidis"

	"example.com/bindtest/rotest"
)

// roCommands are the commands whose INFO commandstats calls the replica
// tests compare.
var roCommands = []string{"evalsha_ro", "eval_ro", "fcall_ro", "evalsha", "eval", "fcall"}

// nodeCalls reads INFO commandstats and the role of a node.
func nodeCalls(t *testing.T, addr string) (calls map[string]int, replica bool) {
	t.Helper()
	n := redis.NewClient(&redis.Options{Addr: addr})
	defer n.Close()
	info, err := n.Info(context.Background(), "commandstats", "replication").Result()
	if err != nil {
		t.Fatal(err)
	}
	calls = map[string]int{}
	for _, line := range strings.Split(info, "\n") {
		name, rest, ok := strings.Cut(strings.TrimSpace(line), ":calls=")
		if !ok {
			continue
		}
		var v int
		fmt.Sscanf(rest, "%d", &v)
		calls[strings.TrimPrefix(name, "cmdstat_")] = v
	}
	return calls, strings.Contains(info, "role:slave")
}

// roleCalls sums the calls of roCommands over the replicas and over the
// primaries of addrs.
func roleCalls(t *testing.T, addrs []string) (replicas, primaries map[string]int) {
	t.Helper()
	replicas, primaries = map[string]int{}, map[string]int{}
	for _, a := range addrs {
		calls, isReplica := nodeCalls(t, a)
		sum := primaries
		if isReplica {
			sum = replicas
		}
		for _, c := range roCommands {
			sum[c] += calls[c]
		}
	}
	return replicas, primaries
}

// wantDelta checks the calls of each command between two readings.
func wantDelta(t *testing.T, role string, before, after map[string]int, want map[string]int) {
	t.Helper()
	for _, c := range roCommands {
		if d := after[c] - before[c]; d != want[c] {
			t.Errorf("%s served %d %s calls, want %d (all: before %v, after %v)", role, d, strings.ToUpper(c), want[c], before, after)
		}
	}
}

// replicaTarget is a setup whose reads a client can send to replicas.
type replicaTarget struct {
	name    string
	addrs   []string // every node
	cluster bool
}

// TestReplicaReads proves the _RO routing end to end: a no-writes script
// goes as EVALSHA_RO (EVAL_RO after NOSCRIPT) or FCALL_RO, and a client
// configured for replica reads has a replica serve it, as the replicas' and
// the primaries' INFO commandstats show before and after; a writing script
// still goes to the primary. Standalone: a primary and its replica
// (BINDTEST_REPLICATED), rueidis with Standalone.ReplicaAddress; go-redis
// cannot route a standalone client's reads to a replica, so its reads go
// through a second client connected to the replica. Cluster: rueidis with
// SendToReplicas (InitAddress listing the primaries only: a replica listed
// there is dialled without READONLY and answers MOVED), go-redis with
// ReadOnly. BINDTEST_RO_FUNCTIONS holds the ro library's Functions code.
func TestReplicaReads(t *testing.T) {
	code, err := os.ReadFile(os.Getenv("BINDTEST_RO_FUNCTIONS"))
	if err != nil {
		t.Skipf("BINDTEST_RO_FUNCTIONS: %v", err)
	}
	var targets []replicaTarget
	if a := os.Getenv("BINDTEST_REPLICATED"); a != "" {
		targets = append(targets, replicaTarget{name: "standalone", addrs: strings.Split(a, ",")})
	}
	if a := os.Getenv("BINDTEST_CLUSTER"); a != "" {
		targets = append(targets, replicaTarget{name: "cluster", addrs: strings.Split(a, ","), cluster: true})
	}
	if len(targets) == 0 {
		t.Skip("BINDTEST_REPLICATED and BINDTEST_CLUSTER are unset")
	}
	for _, tg := range targets {
		var primaries, replicas []string
		for _, a := range tg.addrs {
			if _, isReplica := nodeCalls(t, a); isReplica {
				replicas = append(replicas, a)
			} else {
				primaries = append(primaries, a)
			}
		}
		if len(replicas) == 0 || len(primaries) == 0 {
			t.Fatalf("%s: primaries %v, replicas %v", tg.name, primaries, replicas)
		}
		for _, lib := range []string{"rueidis", "go-redis"} {
			t.Run(tg.name+"/"+lib, func(t *testing.T) {
				ctx := context.Background()
				if tg.cluster {
					waitReplicasOnline(t, tg.addrs)
				}
				var read, write rotest.Conn
				readOnly := func(cmd rueidis.Completed) bool { return cmd.IsReadOnly() }
				switch {
				case lib == "rueidis" && tg.cluster:
					rc, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: primaries, SendToReplicas: readOnly, DisableCache: true})
					if err != nil {
						t.Fatal(err)
					}
					t.Cleanup(rc.Close)
					read, write = rotest.NewRueidisConn(rc), rotest.NewRueidisConn(rc)
				case lib == "rueidis":
					rc, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: primaries, Standalone: rueidis.StandaloneOption{ReplicaAddress: replicas}, SendToReplicas: readOnly, DisableCache: true})
					if err != nil {
						t.Fatal(err)
					}
					t.Cleanup(rc.Close)
					read, write = rotest.NewRueidisConn(rc), rotest.NewRueidisConn(rc)
				case tg.cluster:
					gc := redis.NewClusterClient(&redis.ClusterOptions{Addrs: tg.addrs, ReadOnly: true})
					t.Cleanup(func() { gc.Close() })
					read, write = rotest.NewGoRedisConn(gc), rotest.NewGoRedisConn(gc)
				default:
					pc := redis.NewClient(&redis.Options{Addr: primaries[0]})
					rc := redis.NewClient(&redis.Options{Addr: replicas[0]})
					t.Cleanup(func() { pc.Close(); rc.Close() })
					read, write = rotest.NewGoRedisConn(rc), rotest.NewGoRedisConn(pc)
				}
				// The Functions library, loaded on the primaries, reaches
				// the replicas by replication.
				for _, p := range primaries {
					n := redis.NewClient(&redis.Options{Addr: p})
					err := n.Do(ctx, "FUNCTION", "LOAD", "REPLACE", string(code)).Err()
					n.Close()
					if err != nil {
						t.Fatal(err)
					}
				}
				for _, r := range replicas {
					n := redis.NewClient(&redis.Options{Addr: r})
					for i := 0; ; i++ {
						libs, err := n.Do(ctx, "FUNCTION", "LIST", "LIBRARYNAME", "ro_test_v1").Slice()
						if err != nil {
							t.Fatal(err)
						}
						if len(libs) > 0 {
							break
						}
						if i > 100000 {
							t.Fatalf("replica %s never got the Functions library", r)
						}
					}
					n.Close()
				}
				for _, a := range tg.addrs {
					n := redis.NewClient(&redis.Options{Addr: a})
					err := n.ScriptFlush(ctx).Err()
					n.Close()
					if err != nil {
						t.Fatal(err)
					}
				}
				id := keyID(t)
				reads := rotest.New(read)
				fn := rotest.New(read, rotest.WithMode(rotest.ModeFunctions))
				writes := rotest.New(write)

				repBefore, primBefore := roleCalls(t, tg.addrs)
				for i := 0; i < 3; i++ {
					if _, err := must(reads.ForStore(id))(t).Peek(ctx, rotest.PeekArgs{}); err != nil {
						t.Fatal(err)
					}
				}
				repAfter, primAfter := roleCalls(t, tg.addrs)
				wantDelta(t, "replicas", repBefore, repAfter, map[string]int{"evalsha_ro": 3, "eval_ro": 1})
				wantDelta(t, "primaries", primBefore, primAfter, map[string]int{})

				for i := 0; i < 3; i++ {
					if _, err := must(fn.ForStore(id))(t).Peek(ctx, rotest.PeekArgs{}); err != nil {
						t.Fatal(err)
					}
				}
				repFn, primFn := roleCalls(t, tg.addrs)
				wantDelta(t, "replicas", repAfter, repFn, map[string]int{"fcall_ro": 3})
				wantDelta(t, "primaries", primAfter, primFn, map[string]int{})

				if _, err := must(writes.ForStore(id))(t).Put(ctx, rotest.PutArgs{Value: "x"}); err != nil {
					t.Fatal(err)
				}
				repPut, primPut := roleCalls(t, tg.addrs)
				wantDelta(t, "replicas", repFn, repPut, map[string]int{})
				wantDelta(t, "primaries", primFn, primPut, map[string]int{"evalsha": 1, "eval": 1})
			})
		}
	}
}
