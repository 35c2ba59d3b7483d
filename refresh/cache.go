// Package refresh is the Go caller of the bundled lease scripts: a read-through
// cache whose refreshes are coordinated by a per-id lease in Redis and whose
// publications are admitted only while the refresher still owns its lease
// (compare-and-publish, lua/publish.lua). A refresher that lost its lease
// never makes its candidate visible and never serves it: by policy the
// caller re-reads the current value, serves an allowed stale copy, or gets
// ErrLeaseLost. Waiting callers poll with jitter up to an absolute deadline,
// and every load from the origin, fallback loads included, passes one
// process-wide admission limit.
//
// The package calls the scripts; it does not deploy them. With
// Options.Functions it calls the versioned functions that scriptctl deploy
// loads; otherwise it runs the embedded script bodies (package lua) with
// EVALSHA and falls back to EVAL on NOSCRIPT. It does not fence writes to
// other systems, does not prove that a loader read the latest source
// revision, and guarantees nothing across a failover that loses a lease:
// see the README section "Using the scripts from Go".
package refresh

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"sync/atomic"
	"time"

	"github.com/redis/rueidis"

	"github.com/scriptctl/scriptctl/slot"
)

// ErrLeaseLost is returned (wrapped) by Get when its publication was
// rejected because the lease was lost and the OnRejected policy found
// nothing else to serve.
var ErrLeaseLost = errors.New("refresh: lease lost")

// ErrWaitTimeout is returned (wrapped) by Get when another owner still held
// the lease at the WaitTimeout deadline and OnWaitTimeout is TimeoutFail.
var ErrWaitTimeout = errors.New("refresh: wait timeout")

// releaseTimeout bounds the token-safe release after a failed load. It runs
// even when the Get's context is done, so a cancelled request does not keep
// its lease until the TTL.
const releaseTimeout = 2 * time.Second

// LoadError is a failed load from the origin. Err is the loader's error;
// ReleaseErr is set when releasing the lease afterwards failed too (the
// lease then ends with its TTL).
type LoadError struct {
	ID         string
	Err        error
	ReleaseErr error
}

func (e *LoadError) Error() string {
	s := fmt.Sprintf("refresh: load %q: %v", e.ID, e.Err)
	if e.ReleaseErr != nil {
		s += fmt.Sprintf("; release: %v", e.ReleaseErr)
	}
	return s
}

func (e *LoadError) Unwrap() error { return e.Err }

// Stats are the counters of a Cache since New. Every Get that reaches Redis
// counts one hit or one miss.
type Stats struct {
	Hits   uint64 // Gets whose first read found the value
	Misses uint64 // Gets whose first read found no value
	Loads  uint64 // calls of a loader (refreshes and fallback loads)
	// LoaderErrors counts loader calls that returned an error.
	LoaderErrors uint64
	// PublishesAccepted counts candidates published under a valid lease.
	PublishesAccepted uint64
	// PublishesRejected counts candidates rejected because the lease was
	// lost; each one was discarded.
	PublishesRejected uint64
	// StaleServed counts Gets answered with a stale copy.
	StaleServed uint64
	// WaitTimeouts counts Gets that reached the WaitTimeout deadline.
	WaitTimeouts uint64
	// AdmissionWaits counts loads that had to wait for the
	// MaxConcurrentLoads limit.
	AdmissionWaits uint64
}

type counters struct {
	hits, misses, loads, loaderErrors, accepted, rejected, staleServed, waitTimeouts, admissionWaits atomic.Uint64
}

// Cache reads values through the lease protocol. It is safe for concurrent
// use; create one per process and key family and share it.
type Cache struct {
	opts     Options
	r        *runner
	sem      chan struct{} // admission slots
	stale    *staleStore   // nil when stale serving is off
	leaseTTL string        // Options.LeaseTTL in ms
	cacheTTL string        // Options.CacheTTL in ms
	st       counters

	// Test hooks.
	now       func() time.Time // publish times and stale deadlines
	newToken  func() string
	publishFn func(ctx context.Context, k keys, token, candidate, ttl string) (bool, error)
}

// New returns a Cache that calls the lease scripts through client. It
// checks opts (see Options for the defaults): in particular that the lease
// and value templates share one hash tag around the id, so that both keys
// of every id live in one cluster slot. New does not contact Redis.
func New(client rueidis.Client, opts Options) (*Cache, error) {
	if client == nil {
		return nil, errors.New("refresh: nil client")
	}
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	c := &Cache{
		opts:     o,
		r:        newRunner(client, o),
		sem:      make(chan struct{}, o.MaxConcurrentLoads),
		leaseTTL: ms(o.LeaseTTL),
		cacheTTL: ms(o.CacheTTL),
		now:      time.Now,
		newToken: newToken,
	}
	if o.StaleFor > 0 {
		c.stale = newStaleStore(o.MaxStaleEntries)
	}
	c.publishFn = c.r.publish
	return c, nil
}

// Options returns the options in effect, defaults filled in.
func (c *Cache) Options() Options { return c.opts }

// Stats returns a snapshot of the counters.
func (c *Cache) Stats() Stats {
	return Stats{
		Hits:              c.st.hits.Load(),
		Misses:            c.st.misses.Load(),
		Loads:             c.st.loads.Load(),
		LoaderErrors:      c.st.loaderErrors.Load(),
		PublishesAccepted: c.st.accepted.Load(),
		PublishesRejected: c.st.rejected.Load(),
		StaleServed:       c.st.staleServed.Load(),
		WaitTimeouts:      c.st.waitTimeouts.Load(),
		AdmissionWaits:    c.st.admissionWaits.Load(),
	}
}

// Get returns the value of id. It reads the value key; on a miss it takes
// the lease (or is served the value another refresher published meanwhile),
// loads with load under the admission limit, and publishes the result with
// compare-and-publish. When another owner holds the lease it serves an
// allowed stale copy, or polls until the value appears or the WaitTimeout
// deadline passes, then follows OnWaitTimeout.
//
// Get never returns a candidate whose publication was rejected. The
// returned slice belongs to the caller.
func (c *Cache) Get(ctx context.Context, id string, load func(ctx context.Context) ([]byte, error)) ([]byte, error) {
	if load == nil {
		return nil, errors.New("refresh: nil load function")
	}
	k, err := c.keys(id)
	if err != nil {
		return nil, err
	}
	raw, ok, err := c.r.get(ctx, k.value)
	if err != nil {
		return nil, err
	}
	if ok {
		c.st.hits.Add(1)
		return c.accept(id, k, raw)
	}
	c.st.misses.Add(1)

	deadline := time.Now().Add(c.opts.WaitTimeout)
	for {
		res, err := c.attempt(ctx, id, k, load, false)
		if err != nil || res.done {
			return res.data, err
		}
		if v, ok := c.staleCopy(id); ok {
			return v, nil
		}
		left := time.Until(deadline)
		if left <= 0 {
			c.st.waitTimeouts.Add(1)
			return c.fallback(ctx, id, k, load)
		}
		if err := sleep(ctx, c.pollDelay(res.pttl, left)); err != nil {
			return nil, fmt.Errorf("refresh: wait for %s: %w", k.lease, err)
		}
	}
}

// keys returns the two keys of id, or why id cannot be used.
func (c *Cache) keys(id string) (keys, error) {
	if id == "" {
		return keys{}, errors.New("refresh: empty id")
	}
	k := keys{lease: render(c.opts.LeaseKey, id), value: render(c.opts.ValueKey, id)}
	if ls, vs := slot.Of(k.lease), slot.Of(k.value); ls != vs {
		return keys{}, fmt.Errorf("refresh: id %q puts %s (slot %d) and %s (slot %d) in different slots", id, k.lease, ls, k.value, vs)
	}
	return k, nil
}

// accept decodes a stored value, keeps it as the id's stale copy, and
// returns its payload.
func (c *Cache) accept(id string, k keys, raw string) ([]byte, error) {
	payload, published, err := DecodeValue([]byte(raw))
	if err != nil {
		return nil, fmt.Errorf("refresh: read %s: %w", k.value, err)
	}
	c.remember(id, payload, published)
	return payload, nil
}

// result is the outcome of one acquisition round: done with data (or an
// error), or busy with the lease's remaining TTL.
type result struct {
	done bool
	data []byte
	pttl int64
}

// attempt runs one acquisition round with a new token. Acquired, it loads
// and publishes while holding an admission slot. A slot is taken after the
// lease, so waiting callers do not queue for slots; when none is free the
// lease is released at once (another process may take it), and after the
// wait for a slot the lease is acquired again with a new token. owned says
// the caller already holds a slot (and releases it).
func (c *Cache) attempt(ctx context.Context, id string, k keys, load func(context.Context) ([]byte, error), owned bool) (result, error) {
	held := false
	defer func() {
		if held {
			c.unadmit()
		}
	}()
	for {
		token := c.newToken()
		rep, err := c.r.acquire(ctx, k, token, c.leaseTTL)
		if err != nil {
			return result{done: true}, err
		}
		switch rep.state {
		case stateCached:
			v, err := c.accept(id, k, rep.cached)
			return result{done: true, data: v}, err
		case stateBusy:
			return result{pttl: rep.pttl}, nil
		}
		if !owned && !held {
			if !c.tryAdmit() {
				c.releaseQuietly(ctx, k, token)
				if err := c.admit(ctx); err != nil {
					return result{done: true}, fmt.Errorf("refresh: wait for a load slot: %w", err)
				}
				held = true
				continue
			}
			held = true
		}
		v, err := c.loadAndPublish(ctx, id, k, token, load)
		return result{done: true, data: v}, err
	}
}

// loadAndPublish loads while token owns the lease and publishes the result.
func (c *Cache) loadAndPublish(ctx context.Context, id string, k keys, token string, load func(context.Context) ([]byte, error)) ([]byte, error) {
	c.st.loads.Add(1)
	data, err := load(ctx)
	if err != nil {
		c.st.loaderErrors.Add(1)
		_, rerr := c.release(ctx, k, token)
		if v, ok := c.staleCopy(id); ok {
			return v, nil
		}
		return nil, &LoadError{ID: id, Err: err, ReleaseErr: rerr}
	}
	published := c.now()
	ok, err := c.publishFn(ctx, k, token, string(EncodeValue(data, published)), c.cacheTTL)
	if err != nil {
		c.releaseQuietly(ctx, k, token)
		return nil, err
	}
	if ok {
		c.st.accepted.Add(1)
		c.remember(id, data, published)
		return data, nil
	}
	// Rejected: the candidate is discarded, whatever the policy.
	c.st.rejected.Add(1)
	return c.rejected(ctx, id, k)
}

// rejected applies the OnRejected policy.
func (c *Cache) rejected(ctx context.Context, id string, k keys) ([]byte, error) {
	if c.opts.OnRejected == RejectReread {
		raw, ok, err := c.r.get(ctx, k.value)
		if err != nil {
			return nil, err
		}
		if ok {
			return c.accept(id, k, raw)
		}
	}
	if c.opts.OnRejected != RejectFail {
		if v, ok := c.staleCopy(id); ok {
			return v, nil
		}
	}
	return nil, fmt.Errorf("%w: the publication to %s was rejected: the load outlived the lease (LeaseTTL %v) or another owner took it over", ErrLeaseLost, k.value, c.opts.LeaseTTL)
}

// fallback applies the OnWaitTimeout policy. Loads go through the admission
// limit; with a slot held the lease is tried once more, so a lease that
// ended meanwhile still leads to a proper publication.
func (c *Cache) fallback(ctx context.Context, id string, k keys, load func(context.Context) ([]byte, error)) ([]byte, error) {
	if c.opts.OnWaitTimeout == TimeoutFail {
		return nil, fmt.Errorf("%w: %s still held after %v", ErrWaitTimeout, k.lease, c.opts.WaitTimeout)
	}
	if err := c.admit(ctx); err != nil {
		return nil, fmt.Errorf("refresh: wait for a load slot: %w", err)
	}
	defer c.unadmit()
	res, err := c.attempt(ctx, id, k, load, true)
	if err != nil || res.done {
		return res.data, err
	}
	// Still busy: load for this caller only; without the lease there is
	// nothing to publish.
	c.st.loads.Add(1)
	data, err := load(ctx)
	if err != nil {
		c.st.loaderErrors.Add(1)
		return nil, &LoadError{ID: id, Err: err}
	}
	return data, nil
}

// release runs the token-safe release with a context that outlives a
// cancelled Get.
func (c *Cache) release(ctx context.Context, k keys, token string) (bool, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), releaseTimeout)
	defer cancel()
	return c.r.release(ctx, k, token)
}

// releaseQuietly releases when the caller has a more important error to
// report; a failed release ends with the lease's TTL.
func (c *Cache) releaseQuietly(ctx context.Context, k keys, token string) {
	_, _ = c.release(ctx, k, token)
}

func (c *Cache) tryAdmit() bool {
	select {
	case c.sem <- struct{}{}:
		return true
	default:
		return false
	}
}

// admit takes an admission slot, waiting (and counting the wait) when none
// is free.
func (c *Cache) admit(ctx context.Context) error {
	if c.tryAdmit() {
		return nil
	}
	c.st.admissionWaits.Add(1)
	select {
	case c.sem <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (c *Cache) unadmit() { <-c.sem }

// remember keeps payload as the stale copy of id.
func (c *Cache) remember(id string, payload []byte, published time.Time) {
	if c.stale != nil {
		c.stale.put(id, payload, published)
	}
}

// staleCopy returns a copy of id's stale copy while its hard stale deadline
// (publish time + CacheTTL + StaleFor) has not passed, and counts it served.
func (c *Cache) staleCopy(id string) ([]byte, bool) {
	if c.stale == nil {
		return nil, false
	}
	v, ok := c.stale.get(id, c.now(), c.opts.CacheTTL+c.opts.StaleFor)
	if ok {
		c.st.staleServed.Add(1)
	}
	return v, ok
}

// pollDelay is the next poll's delay: the poll interval jittered to
// [interval/2, 3*interval/2), then cut to just past the lease's remaining
// TTL (pttl+1 ms; pttl < 0 means unknown) and to the deadline, so a waiter
// never sleeps on while the lease is free.
func (c *Cache) pollDelay(pttl int64, left time.Duration) time.Duration {
	d := c.opts.PollInterval
	d = d/2 + time.Duration(mrand.Int64N(int64(d)))
	if pttl >= 0 {
		d = min(d, time.Duration(pttl+1)*time.Millisecond)
	}
	return min(d, left)
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// newToken returns 128 random bits from crypto/rand, hex-encoded.
func newToken() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // never fails (Go 1.24+: a failure crashes the program)
	return hex.EncodeToString(b[:])
}

// cloneBytes returns a copy of b that is never nil.
func cloneBytes(b []byte) []byte { return append([]byte{}, b...) }
