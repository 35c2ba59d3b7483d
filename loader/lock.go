package loader

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"
)

// Lock defaults.
const (
	DefaultLockTTL     = 15 * time.Second
	DefaultLockTimeout = 30 * time.Second
)

// renewScript extends the lease only while it still holds our value: a
// deploy whose lease expired and was taken over must not extend the
// successor's lease.
const renewScript = `if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0`

// releaseScript deletes the lease only while it holds our value (the
// project's own lua/release.lua, inline).
const releaseScript = `if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('DEL', KEYS[1])
  return 1
end
return 0`

// LockKey is the key of the deploy lock for a manifest library. The hash
// tag pins it to one slot, so in a cluster it lives on one primary.
func LockKey(library string) string { return "scriptctl:lock:{" + library + "}" }

// Lock is a held deploy lock: a lease key holding a random 128-bit token
// plus who holds it, renewed in the background until Release.
type Lock struct {
	Key  string
	Node string // the primary that holds the key

	value  string
	n      *Node
	ttl    time.Duration
	stop   chan struct{}
	done   chan struct{}
	cancel context.CancelCauseFunc
}

// AcquireLock takes the deploy lock for library, waiting up to wait while
// another run holds it. The returned context is ctx, cancelled with
// ErrLockLost when the lease cannot be renewed; run the deploy under it and
// call Release when done. ttl is the lease (DefaultLockTTL when 0); it is
// renewed every ttl/3.
func AcquireLock(ctx context.Context, t *Topology, library string, wait, ttl time.Duration) (*Lock, context.Context, error) {
	return acquireLock(ctx, t, library, wait, ttl, nil)
}

// acquireLock is AcquireLock; notice, when set, is told once when the lock
// is held by another run: who holds it and how long its lease has left, so
// a wait of up to wait is never silent.
func acquireLock(ctx context.Context, t *Topology, library string, wait, ttl time.Duration, notice func(format string, args ...any)) (*Lock, context.Context, error) {
	if ttl <= 0 {
		ttl = DefaultLockTTL
	}
	key := LockKey(library)
	n, err := lockNode(t, key)
	if err != nil {
		return nil, nil, err
	}
	token := make([]byte, 16)
	if _, err := rand.Read(token); err != nil {
		return nil, nil, fmt.Errorf("deploy lock token: %w", err)
	}
	host, _ := os.Hostname()
	value := fmt.Sprintf("%s host=%s pid=%d since=%s", hex.EncodeToString(token), host, os.Getpid(), time.Now().UTC().Format(time.RFC3339))
	deadline := time.Now().Add(wait)
	for {
		ok, err := n.conn.SetNXPX(ctx, key, value, ttl)
		if rerr := redirect(n.Addr, "deploy lock "+key, err); rerr != nil {
			return nil, nil, rerr
		}
		if err != nil {
			return nil, nil, &NodeError{Node: n.Addr, Op: "deploy lock " + key, Err: err}
		}
		if ok {
			break
		}
		if notice != nil {
			holder, _, _ := n.conn.Get(ctx, key)
			pttl, _ := n.conn.PTTL(ctx, key)
			notice("waiting up to %s for the deploy lock %s on %s, held by %s (lease %s left)",
				time.Until(deadline).Round(time.Second), key, n.Addr, holderOf(holder), pttl.Round(time.Millisecond))
			notice = nil
		}
		if !time.Now().Before(deadline) {
			holder, _, _ := n.conn.Get(ctx, key)
			pttl, _ := n.conn.PTTL(ctx, key)
			le := &LockError{Key: key, Node: n.Addr, Holder: holderOf(holder), TTL: pttl.Round(time.Millisecond).String()}
			return nil, nil, le
		}
		select {
		case <-ctx.Done():
			if cause := context.Cause(ctx); !errors.Is(cause, context.Canceled) {
				return nil, nil, cause
			}
			return nil, nil, fmt.Errorf("%w while waiting for the deploy lock %s on %s: nothing was changed", ErrInterrupted, key, n.Addr)
		case <-time.After(150 * time.Millisecond):
		}
	}
	lctx, cancel := context.WithCancelCause(ctx)
	l := &Lock{Key: key, Node: n.Addr, value: value, n: n, ttl: ttl, stop: make(chan struct{}), done: make(chan struct{}), cancel: cancel}
	go l.renew(ctx)
	return l, lctx, nil
}

// withLock runs fn under the library's deploy lock, waiting up to wait
// (DefaultLockTimeout when 0) for another run to let go, and releases the
// lock afterwards. fn gets the lock's context (cancelled with ErrLockLost
// when the lease cannot be renewed) and its name, key@node, for the report.
// The error is the lock's, fn's, or the release's when fn succeeded.
func withLock(ctx context.Context, t *Topology, library string, wait, ttl time.Duration, notice func(string, ...any), fn func(ctx context.Context, name string) error) error {
	if wait <= 0 {
		wait = DefaultLockTimeout
	}
	lock, lctx, err := acquireLock(ctx, t, library, wait, ttl, notice)
	if err != nil {
		return err
	}
	defer lock.Release(ctx)
	err = fn(lctx, lock.Key+"@"+lock.Node)
	if rerr := lock.Release(ctx); rerr != nil && err == nil {
		err = rerr
	}
	return err
}

// holderOf strips the token from a lock value, leaving who holds it.
func holderOf(value string) string {
	if value == "" {
		return "an unknown holder (the lease just expired)"
	}
	_, who, ok := strings.Cut(value, " ")
	if !ok {
		return "an unknown holder"
	}
	return who
}

func (l *Lock) renew(ctx context.Context) {
	defer close(l.done)
	last := time.Now()
	tick := time.NewTicker(l.ttl / 3)
	defer tick.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-tick.C:
		}
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), l.ttl/3)
		v, err := l.n.conn.Eval(rctx, renewScript, []string{l.Key}, l.value, fmt.Sprint(l.ttl.Milliseconds()))
		cancel()
		switch {
		case err == nil && v == 1:
			last = time.Now()
		case err == nil:
			l.cancel(fmt.Errorf("%w: %s on %s was taken over", ErrLockLost, l.Key, l.Node))
			return
		case time.Since(last) >= l.ttl:
			l.cancel(fmt.Errorf("%w: %s on %s could not be renewed: %v", ErrLockLost, l.Key, l.Node, err))
			return
		}
	}
}

// Release stops renewing and deletes the lease if it still holds this
// run's token. It is safe to call more than once.
func (l *Lock) Release(ctx context.Context) error {
	select {
	case <-l.stop:
		return nil
	default:
	}
	close(l.stop)
	<-l.done
	l.cancel(nil)
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), l.n.conn.timeout)
	defer cancel()
	if _, err := l.n.conn.Eval(rctx, releaseScript, []string{l.Key}, l.value); err != nil {
		return &NodeError{Node: l.Node, Op: "release deploy lock " + l.Key, Err: err}
	}
	return nil
}
