package bindtest

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"time"

	"example.com/bindtest/ratelimiter"
	"example.com/bindtest/reliablequeue"
	"example.com/bindtest/rotest"
	"example.com/bindtest/tokenbucket"
)

func TestRateLimiter(t *testing.T) {
	each(t, func(t *testing.T, c *client) {
		ctx := context.Background()
		var b *ratelimiter.Client
		if c.rueidis != nil {
			b = ratelimiter.New(ratelimiter.NewRueidisConn(c.rueidis))
		} else {
			b = ratelimiter.New(ratelimiter.NewGoRedisConn(c.goredis))
		}
		c.flushScripts(t)
		k := must(b.ForAPI(keyID(t)))(t)
		now := time.Now().UnixMilli()
		for i := 0; i < 2; i++ {
			r, err := k.Allow(ctx, ratelimiter.AllowArgs{NowMs: strconv.FormatInt(now+int64(i), 10), WindowMs: "60000", Limit: "2"})
			if a, ok := r.(ratelimiter.AllowAllowed); err != nil || !ok || a.Remaining != int64(1-i) {
				t.Fatalf("allow %d = %#v, %v", i+1, r, err)
			}
		}
		r, err := k.Allow(ctx, ratelimiter.AllowArgs{NowMs: strconv.FormatInt(now+2, 10), WindowMs: "60000", Limit: "2"})
		if rf, ok := r.(ratelimiter.AllowRefused); err != nil || !ok || rf.RetryAfterMs != 59998 {
			t.Fatalf("third allow = %#v, %v, want AllowRefused{59998}", r, err)
		}
		_, err = k.Allow(ctx, ratelimiter.AllowArgs{NowMs: "x", WindowMs: "1", Limit: "1"})
		if !errors.Is(err, ratelimiter.ErrInvalidNowMs) {
			t.Fatalf("allow with a bad time: %v, want ErrInvalidNowMs", err)
		}
	})
}

func TestTokenBucket(t *testing.T) {
	each(t, func(t *testing.T, c *client) {
		ctx := context.Background()
		var b *tokenbucket.Client
		if c.rueidis != nil {
			b = tokenbucket.New(tokenbucket.NewRueidisConn(c.rueidis))
		} else {
			b = tokenbucket.New(tokenbucket.NewGoRedisConn(c.goredis))
		}
		c.flushScripts(t)
		k := must(b.ForAPIGateway(keyID(t)))(t)
		r, err := k.Take(ctx, tokenbucket.TakeArgs{Capacity: "2", RefillMs: "600000", Cost: "2"})
		if tk, ok := r.(tokenbucket.TakeTaken); err != nil || !ok || tk.Tokens != 0 {
			t.Fatalf("take = %#v, %v, want TakeTaken{0}", r, err)
		}
		r, err = k.Take(ctx, tokenbucket.TakeArgs{Capacity: "2", RefillMs: "600000", Cost: "1"})
		if rf, ok := r.(tokenbucket.TakeRefused); err != nil || !ok || rf.Tokens != 0 || rf.WaitMs <= 0 {
			t.Fatalf("second take = %#v, %v, want TakeRefused", r, err)
		}
		_, err = k.Take(ctx, tokenbucket.TakeArgs{Capacity: "1", RefillMs: "1", Cost: "2"})
		if !errors.Is(err, tokenbucket.ErrCostExceedsCapacity) {
			t.Fatalf("take over capacity: %v, want ErrCostExceedsCapacity", err)
		}
	})
}

func TestReliableQueue(t *testing.T) {
	each(t, func(t *testing.T, c *client) {
		ctx := context.Background()
		var b *reliablequeue.Client
		if c.rueidis != nil {
			b = reliablequeue.New(reliablequeue.NewRueidisConn(c.rueidis))
		} else {
			b = reliablequeue.New(reliablequeue.NewGoRedisConn(c.goredis))
		}
		c.flushScripts(t)
		k := must(b.ForMailer(keyID(t)))(t)
		if job, err := k.Claim(ctx, reliablequeue.ClaimArgs{RetentionMs: "60000"}); err != nil || job != nil {
			t.Fatalf("claim on an empty queue = %v, %v, want nil", job, err)
		}
		for i, j := range []string{"j1", "j2"} {
			if n, err := k.Enqueue(ctx, reliablequeue.EnqueueArgs{Job: j, RetentionMs: "60000"}); err != nil || n != int64(i+1) {
				t.Fatalf("enqueue %s = %d, %v", j, n, err)
			}
		}
		job, err := k.Claim(ctx, reliablequeue.ClaimArgs{RetentionMs: "60000"})
		if err != nil || job == nil || *job != "j1" {
			t.Fatalf("claim = %v, %v, want j1", job, err)
		}
		if r, err := k.Requeue(ctx, reliablequeue.RequeueArgs{Job: "j1", RetentionMs: "60000"}); err != nil || r != reliablequeue.RequeueRequeued {
			t.Fatalf("requeue = %v, %v", r, err)
		}
		job, _ = k.Claim(ctx, reliablequeue.ClaimArgs{RetentionMs: "60000"})
		if job == nil || *job != "j1" {
			t.Fatalf("claim after requeue = %v, want j1", job)
		}
		if r, err := k.Ack(ctx, reliablequeue.AckArgs{Job: "j1"}); err != nil || r != reliablequeue.AckAcked {
			t.Fatalf("ack = %v, %v", r, err)
		}
		if r, err := k.Ack(ctx, reliablequeue.AckArgs{Job: "j1"}); err != nil || r != reliablequeue.AckNotProcessing {
			t.Fatalf("second ack = %v, %v", r, err)
		}
		if _, err := k.Enqueue(ctx, reliablequeue.EnqueueArgs{Job: "", RetentionMs: "1"}); !errors.Is(err, reliablequeue.ErrEmptyJob) {
			t.Fatalf("enqueue of no job: %v, want ErrEmptyJob", err)
		}
	})
}

type roRec struct {
	inner rotest.Conn
	r     *recorder
}

func (x roRec) Do(ctx context.Context, cmd rotest.Command) (rotest.Value, error) {
	x.r.add(cmd.Name)
	return x.inner.Do(ctx, cmd)
}

// A no-writes script goes as EVALSHA_RO (EVAL_RO after NOSCRIPT), which a
// cluster client sends to a replica; a writing script as EVALSHA.
func TestReadOnlyRouting(t *testing.T) {
	each(t, func(t *testing.T, c *client) {
		ctx := context.Background()
		rec := &recorder{}
		var conn rotest.Conn
		if c.rueidis != nil {
			conn = roRec{rotest.NewRueidisConn(c.rueidis), rec}
		} else {
			conn = roRec{rotest.NewGoRedisConn(c.goredis), rec}
		}
		b := rotest.New(conn)
		k := must(b.ForStore(keyID(t)))(t)
		c.flushScripts(t)
		if v, err := k.Peek(ctx, rotest.PeekArgs{}); err != nil || v != nil {
			t.Fatalf("peek of a missing key = %v, %v, want nil", v, err)
		}
		wantSent(t, rec, "EVALSHA_RO", "EVAL_RO")
		if _, err := k.Put(ctx, rotest.PutArgs{Value: "x"}); err != nil {
			t.Fatal(err)
		}
		wantSent(t, rec, "EVALSHA", "EVAL")
		// A replica may not have the write yet: read until it does.
		var v *string
		for i := 0; i < 200 && (v == nil || *v != "x"); i++ {
			var err error
			if v, err = k.Peek(ctx, rotest.PeekArgs{}); err != nil {
				t.Fatal(err)
			}
			if v == nil {
				time.Sleep(10 * time.Millisecond)
			}
		}
		if v == nil || *v != "x" {
			t.Fatalf("peek = %v, want x", v)
		}
		// Which node serves the _RO commands: TestReplicaReads.
	})
}
