package verify

import (
	"context"
	"testing"
	"time"

	"github.com/redis/rueidis"

	"github.com/scriptctl/scriptctl/internal/redistest"
)

// BenchmarkEvalPublish measures one offline EVAL of the seed's
// compare-and-publish (fresh sandbox, compile, two commands, reply).
func BenchmarkEvalPublish(b *testing.B) {
	ctx := context.Background()
	e := New(Options{})
	keys := []string{"{p}lease", "{p}value"}
	src := []byte(publishSrc)
	b.ReportAllocs()
	for b.Loop() {
		e.Do(ctx, "SET", "{p}lease", "tok", "PX", "1000")
		if r, err := e.Eval(ctx, src, keys, []string{"tok", "v", "60000"}); err != nil || !r.Equal(IntReply(1)) {
			b.Fatalf("%s %v", r, err)
		}
	}
}

// BenchmarkFCallPublish measures the same call through a loaded library.
func BenchmarkFCallPublish(b *testing.B) {
	ctx := context.Background()
	e := New(Options{})
	lib := "#!lua name=bench\nredis.register_function('publish', function(KEYS, ARGV)\n" + publishSrc + "end)\n"
	if r, err := e.FunctionLoad([]byte(lib), false); err != nil || r.Kind != Bulk {
		b.Fatalf("%s %v", r, err)
	}
	keys := []string{"{p}lease", "{p}value"}
	b.ReportAllocs()
	for b.Loop() {
		e.Do(ctx, "SET", "{p}lease", "tok", "PX", "1000")
		if r, err := e.FCall(ctx, "publish", keys, []string{"tok", "v", "60000"}); err != nil || !r.Equal(IntReply(1)) {
			b.Fatalf("%s %v", r, err)
		}
	}
}

// BenchmarkFunctionLoad measures what deploy's pre-flight pays per target
// for the library: a fresh engine and one FUNCTION LOAD.
func BenchmarkFunctionLoad(b *testing.B) {
	lib := []byte("#!lua name=bench\nredis.register_function('publish', function(KEYS, ARGV)\n" + publishSrc + "end)\n")
	b.ReportAllocs()
	for b.Loop() {
		e := New(Options{})
		if r, err := e.FunctionLoad(lib, false); err != nil || r.Kind != Bulk {
			b.Fatalf("%s %v", r, err)
		}
	}
}

// rateLimitSrc is a sliding-window rate limiter: drop the requests older
// than the window, record this one, count, refresh the key's expiry.
const rateLimitSrc = `local now, window, limit = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
redis.call('ZADD', KEYS[1], now, ARGV[4])
local n = redis.call('ZCARD', KEYS[1])
redis.call('PEXPIRE', KEYS[1], window)
if n > limit then return 0 end
return 1
`

// bigZSetSrc adds 100,000 members to a fresh sorted set and reads them all
// back with their scores.
const bigZSetSrc = `redis.call('DEL', KEYS[1])
for i = 1, 100000 do redis.call('ZADD', KEYS[1], i, 'm' .. i) end
return #redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')
`

// BenchmarkCollections compares sorted set scripts offline with the same
// calls on a throwaway redis-server: the rate limiter by EVALSHA (one
// request per iteration, a window of 100 ms of iterations), and a script
// that builds and reads a 100,000-member sorted set by EVAL.
func BenchmarkCollections(b *testing.B) {
	ctx := context.Background()
	rlArgs := func(i int) []string {
		return []string{itoa(i), "100", "1000000", "req" + itoa(i)}
	}
	// One server for the live halves, stopped after every sub-benchmark.
	srv := redistest.Standalone(b)
	client, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{srv.Addr}, DisableCache: true, AlwaysRESP2: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(client.Close)
	live := func(b *testing.B, args ...string) Reply {
		msg, err := client.Do(ctx, client.B().Arbitrary(args...).Build()).ToMessage()
		if _, isRedis := rueidis.IsRedisErr(err); err != nil && !isRedis {
			b.Fatal(err)
		}
		r, err := FromMessage(msg)
		if err != nil {
			b.Fatal(err)
		}
		return r
	}
	b.Run("ratelimit/offline", func(b *testing.B) {
		e := New(Options{})
		sha := SHA1([]byte(rateLimitSrc))
		e.Do(ctx, "SCRIPT", "LOAD", rateLimitSrc)
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			i++
			if r, err := e.Do(ctx, append([]string{"EVALSHA", sha, "1", "rl"}, rlArgs(i)...)...); err != nil || !r.Equal(IntReply(1)) {
				b.Fatalf("%s %v", r, err)
			}
		}
	})
	b.Run("ratelimit/live", func(b *testing.B) {
		live(b, "DEL", "rl")
		sha := live(b, "SCRIPT", "LOAD", rateLimitSrc).Str
		i := 0
		for b.Loop() {
			i++
			if r := live(b, append([]string{"EVALSHA", sha, "1", "rl"}, rlArgs(i)...)...); !r.Equal(IntReply(1)) {
				b.Fatalf("%s", r)
			}
		}
	})
	b.Run("zadd100k/offline", func(b *testing.B) {
		e := New(Options{Timeout: time.Minute})
		b.ReportAllocs()
		for b.Loop() {
			if r, err := e.Eval(ctx, []byte(bigZSetSrc), []string{"big"}, nil); err != nil || !r.Equal(IntReply(200000)) {
				b.Fatalf("%s %v", r, err)
			}
		}
	})
	b.Run("zadd100k/live", func(b *testing.B) {
		for b.Loop() {
			if r := live(b, "EVAL", bigZSetSrc, "1", "big"); !r.Equal(IntReply(200000)) {
				b.Fatalf("%s", r)
			}
		}
	})
}

// BenchmarkTableSort measures one EVAL that sorts 1000 numbers with a Lua
// comparator (Lua 5.1's quicksort, about 10k comparator calls).
func BenchmarkTableSort(b *testing.B) {
	ctx := context.Background()
	e := New(Options{})
	src := []byte(`local t = {}
for i = 1, 1000 do t[i] = (i * 7919) % 1000 end
table.sort(t, function(a, b) return a > b end)
return {t[1], t[1000]}`)
	want := ArrayReply(IntReply(999), IntReply(0))
	b.ReportAllocs()
	for b.Loop() {
		if r, err := e.Eval(ctx, src, nil, nil); err != nil || !r.Equal(want) {
			b.Fatalf("%s %v", r, err)
		}
	}
}
