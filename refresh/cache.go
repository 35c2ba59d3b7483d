// Package refresh is the Go caller of the bundled lease scripts (version 2
// of the catalog_refresh library): a read-through cache whose refreshes are
// coordinated by a per-id lease in Redis and whose publications are
// admitted only while the refresher still owns its lease, the id has not
// been invalidated since the refresher acquired it, and (when the loader
// reports source revisions) the candidate is not older than the newest
// revision recorded (lua/publish.lua). Writers of the source call
// Invalidate after an update: every outstanding load of that id is then
// rejected. A refresher whose publication was rejected never makes its
// candidate visible and never serves it: by policy the caller re-reads the
// current value, serves an allowed stale copy, or gets ErrLeaseLost,
// ErrInvalidated or ErrOlderRevision. Loads that run longer than a fraction
// of the lease have it renewed (natively with SET ... IFEQ where every
// server has it); a renewal that finds the lease lost cancels the load.
// Leases are released natively with DELIFEQ where every server has it.
// Waiting callers poll with jitter up to an absolute deadline, and every
// load from the origin, fallback loads included, passes one process-wide
// admission limit.
//
// The package calls the scripts; it does not deploy them. With
// Options.Functions it calls the versioned functions that scriptctl deploy
// loads; otherwise it runs the embedded script bodies (package lua) with
// EVALSHA and falls back to EVAL on NOSCRIPT. It does not fence writes to
// other systems, does not see source updates that skip Invalidate, does not
// clear other processes' in-memory stale copies, and guarantees nothing
// across a failover that loses a lease: see docs/go.md, sections "Using the
// scripts from Go" and "Freshness: what the lease scripts guarantee".
package refresh

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/rueidis"

	"github.com/scriptctl/scriptctl/slot"
)

// ErrLeaseLost is returned (wrapped) by Get when its publication was
// rejected because the lease was lost and the OnRejected policy found
// nothing else to serve.
var ErrLeaseLost = errors.New("refresh: lease lost")

// ErrInvalidated is returned (wrapped) by Get when its publication was
// rejected because the id was invalidated while it loaded (its candidate
// was read before a source update) and the OnRejected policy found nothing
// else to serve. It is also the context.Cause of nothing: an invalidation
// does not cancel a running load; its publication is refused.
var ErrInvalidated = errors.New("refresh: invalidated during the load")

// ErrOlderRevision is returned (wrapped) by Get when its publication was
// rejected because the loader's revision is older than the one recorded
// for the id, and the OnRejected policy found nothing else to serve.
var ErrOlderRevision = errors.New("refresh: older revision")

// MaxRevision is the largest source revision the scripts accept (15
// decimal digits).
const MaxRevision = 999_999_999_999_999

// LoadResult is what a loader given to GetVersioned returns: the payload,
// and the source revision it was read at when the source has revisions
// (a version column, a commit sequence number). Publication then refuses a
// candidate older than the newest revision published or invalidated for
// the id.
type LoadResult struct {
	Data []byte
	// Revision is the source revision of Data, when HasRevision; at most
	// MaxRevision.
	Revision    uint64
	HasRevision bool
}

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
	// PublishesRejected counts rejected publications, every cause; each
	// candidate was discarded. The three counters below split it by cause.
	PublishesRejected uint64
	// RejectedLeaseLost counts publications rejected because the lease was
	// lost (the load outlived it, or a successor took it over).
	RejectedLeaseLost uint64
	// RejectedInvalidated counts publications rejected because the id was
	// invalidated after the acquire (the candidate predates a source
	// update).
	RejectedInvalidated uint64
	// RejectedOlderRevision counts publications rejected because the
	// candidate's revision is older than the id's recorded revision.
	RejectedOlderRevision uint64
	// Renewals counts lease renewals that extended a running load's lease;
	// RenewalsNative counts those done with SET ... IFEQ instead of the
	// renew script.
	Renewals       uint64
	RenewalsNative uint64
	// Releases counts token-safe releases the server answered (the lease
	// was deleted, or it was missing or someone else's and left alone);
	// ReleasesNative counts those done with DELIFEQ instead of the release
	// script.
	Releases       uint64
	ReleasesNative uint64
	// RenewalsLost counts renewals that found the lease lost: the load was
	// cancelled and nothing was published.
	RenewalsLost uint64
	// RenewErrors counts renewals that failed (the server could not be
	// asked); renewing goes on until the lease runs out.
	RenewErrors uint64
	// Invalidations counts Invalidate calls that succeeded.
	Invalidations uint64
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
	rejLeaseLost, rejInvalidated, rejOlderRevision                                                   atomic.Uint64
	renewals, renewalsNative, renewalsLost, renewErrors, invalidations                               atomic.Uint64
	releases, releasesNative                                                                         atomic.Uint64
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
	renewGap time.Duration // LeaseTTL * RenewAfter; 0 with NoRenew
	st       counters

	// Test hooks.
	now       func() time.Time // publish times and stale deadlines
	newToken  func() string
	publishFn func(ctx context.Context, k keys, token, candidate, ttl, gen, rev string) (publishResult, error)
	releaseFn func(ctx context.Context, k keys, token string) (renewal, error)
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
	if !o.NoRenew {
		c.renewGap = time.Duration(float64(o.LeaseTTL) * o.RenewAfter)
	}
	if o.StaleFor > 0 {
		c.stale = newStaleStore(o.MaxStaleEntries)
	}
	c.publishFn = c.r.publish
	c.releaseFn = c.r.release
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

		RejectedLeaseLost:     c.st.rejLeaseLost.Load(),
		RejectedInvalidated:   c.st.rejInvalidated.Load(),
		RejectedOlderRevision: c.st.rejOlderRevision.Load(),
		Renewals:              c.st.renewals.Load(),
		RenewalsNative:        c.st.renewalsNative.Load(),
		RenewalsLost:          c.st.renewalsLost.Load(),
		Releases:              c.st.releases.Load(),
		ReleasesNative:        c.st.releasesNative.Load(),
		RenewErrors:           c.st.renewErrors.Load(),
		Invalidations:         c.st.invalidations.Load(),
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
//
// A load that runs longer than RenewAfter of the lease has its lease
// renewed; when a renewal finds the lease lost, load's context is cancelled
// with the cause ErrLeaseLost and its result is discarded.
func (c *Cache) Get(ctx context.Context, id string, load func(ctx context.Context) ([]byte, error)) ([]byte, error) {
	if load == nil {
		return nil, errors.New("refresh: nil load function")
	}
	return c.GetVersioned(ctx, id, func(ctx context.Context) (LoadResult, error) {
		data, err := load(ctx)
		return LoadResult{Data: data}, err
	})
}

// GetVersioned is Get for a source with revisions: load reports the
// revision it read, and the publication is refused (ErrOlderRevision under
// RejectFail) when the id already has a newer revision recorded, by an
// earlier publication or by InvalidateRevision.
func (c *Cache) GetVersioned(ctx context.Context, id string, load func(ctx context.Context) (LoadResult, error)) ([]byte, error) {
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

// keys returns the three keys of id, or why id cannot be used.
func (c *Cache) keys(id string) (keys, error) {
	if id == "" {
		return keys{}, errors.New("refresh: empty id")
	}
	k := keys{lease: render(c.opts.LeaseKey, id), value: render(c.opts.ValueKey, id), gen: render(c.opts.GenKey, id)}
	ls := slot.Of(k.lease)
	for _, o := range []string{k.value, k.gen} {
		if s := slot.Of(o); s != ls {
			return keys{}, fmt.Errorf("refresh: id %q puts %s (slot %d) and %s (slot %d) in different slots", id, k.lease, ls, o, s)
		}
	}
	return k, nil
}

// Invalidate tells the cache that id's source changed: atomically, the
// id's generation is bumped and its cached value and any refresh lease are
// deleted (the invalidate script). Every load of id that acquired before is
// then refused at publication (ErrInvalidated), so a loader that read the
// source before the update cannot repopulate the cache with it. Call it
// after the source update is committed. This process's stale copy of id is
// dropped; other processes' stale copies are not (they end at their hard
// stale deadline). It returns the new generation.
func (c *Cache) Invalidate(ctx context.Context, id string) (int64, error) {
	return c.invalidate(ctx, id, "")
}

// InvalidateRevision is Invalidate for a source with revisions: rev, the
// revision the update produced, is also recorded as the id's revision
// tombstone (never lowered), so a later publication of an older revision is
// refused even under a new generation (a loader that read a lagging
// replica).
func (c *Cache) InvalidateRevision(ctx context.Context, id string, rev uint64) (int64, error) {
	if rev > MaxRevision {
		return 0, fmt.Errorf("refresh: invalidate %q: revision %d is above MaxRevision", id, rev)
	}
	return c.invalidate(ctx, id, strconv.FormatUint(rev, 10))
}

func (c *Cache) invalidate(ctx context.Context, id, rev string) (int64, error) {
	k, err := c.keys(id)
	if err != nil {
		return 0, err
	}
	gen, err := c.r.invalidate(ctx, k, rev)
	if err != nil {
		return 0, err
	}
	c.st.invalidations.Add(1)
	c.forget(id)
	return gen, nil
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
func (c *Cache) attempt(ctx context.Context, id string, k keys, load func(context.Context) (LoadResult, error), owned bool) (result, error) {
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
		v, err := c.loadAndPublish(ctx, id, k, token, rep.gen, load)
		return result{done: true, data: v}, err
	}
}

// loadAndPublish loads while token owns the lease (renewing it while the
// load runs long) and publishes the result under generation gen.
func (c *Cache) loadAndPublish(ctx context.Context, id string, k keys, token, gen string, load func(context.Context) (LoadResult, error)) ([]byte, error) {
	c.st.loads.Add(1)
	lctx, stop := c.renewWhileLoading(ctx, k, token)
	res, err := load(lctx)
	if stop() {
		// A renewal found the lease lost and cancelled the load: whatever
		// it returned is discarded, and the lease is not ours to release.
		return c.rejected(ctx, id, k, leaseLost)
	}
	if err == nil && res.HasRevision && res.Revision > MaxRevision {
		err = fmt.Errorf("revision %d is above MaxRevision", res.Revision)
	}
	if err != nil {
		c.st.loaderErrors.Add(1)
		_, rerr := c.release(ctx, k, token)
		if v, ok := c.staleCopy(id); ok {
			return v, nil
		}
		return nil, &LoadError{ID: id, Err: err, ReleaseErr: rerr}
	}
	rev := ""
	if res.HasRevision {
		rev = strconv.FormatUint(res.Revision, 10)
	}
	now := c.now()
	pr, err := c.publishFn(ctx, k, token, string(EncodeValue(res.Data, now)), c.cacheTTL, gen, rev)
	if err != nil {
		c.releaseQuietly(ctx, k, token)
		return nil, err
	}
	switch pr {
	case published:
		c.st.accepted.Add(1)
		c.remember(id, res.Data, now)
		return res.Data, nil
	case invalidated:
		c.st.rejInvalidated.Add(1)
		c.forget(id) // a copy from before the invalidation is not fresh
	case olderRevision:
		c.st.rejOlderRevision.Add(1)
	default:
		c.st.rejLeaseLost.Add(1)
	}
	// Rejected: the candidate is discarded, whatever the policy.
	c.st.rejected.Add(1)
	return c.rejected(ctx, id, k, pr)
}

// renewWhileLoading returns the load's context and a stop function. Unless
// renewal is off, a goroutine renews the lease every renewGap while the
// load runs; when a renewal finds the lease lost it cancels the context
// with the cause ErrLeaseLost and stops. stop ends the renewals, waits for
// the goroutine, and reports whether the lease was found lost.
func (c *Cache) renewWhileLoading(ctx context.Context, k keys, token string) (context.Context, func() bool) {
	if c.renewGap <= 0 {
		return ctx, func() bool { return false }
	}
	lctx, cancel := context.WithCancelCause(ctx)
	done := make(chan struct{})
	var lost atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(c.renewGap)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-lctx.Done():
				return
			case <-t.C:
			}
			rctx, rcancel := context.WithTimeout(context.WithoutCancel(ctx), c.renewGap)
			rn, err := c.r.renew(rctx, k, token, c.leaseTTL)
			rcancel()
			switch {
			case err != nil:
				c.st.renewErrors.Add(1)
			case rn.extended:
				c.st.renewals.Add(1)
				if rn.native {
					c.st.renewalsNative.Add(1)
				}
			default:
				c.st.renewalsLost.Add(1)
				lost.Store(true)
				cancel(fmt.Errorf("%w: a renewal of %s found it gone or taken over", ErrLeaseLost, k.lease))
				return
			}
		}
	}()
	return lctx, func() bool {
		close(done)
		wg.Wait()
		cancel(nil)
		return lost.Load()
	}
}

// rejected applies the OnRejected policy after a rejection for cause. After
// an invalidation the process's stale copy is gone (forget), so only a
// value published since is served.
func (c *Cache) rejected(ctx context.Context, id string, k keys, cause publishResult) ([]byte, error) {
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
	switch cause {
	case invalidated:
		return nil, fmt.Errorf("%w: the publication to %s was rejected: %s was invalidated after the load began", ErrInvalidated, k.value, k.gen)
	case olderRevision:
		return nil, fmt.Errorf("%w: the publication to %s was rejected: %s records a newer source revision", ErrOlderRevision, k.value, k.gen)
	}
	return nil, fmt.Errorf("%w: the publication to %s was rejected: the load outlived the lease (LeaseTTL %v) or another owner took it over", ErrLeaseLost, k.value, c.opts.LeaseTTL)
}

// fallback applies the OnWaitTimeout policy. Loads go through the admission
// limit; with a slot held the lease is tried once more, so a lease that
// ended meanwhile still leads to a proper publication.
func (c *Cache) fallback(ctx context.Context, id string, k keys, load func(context.Context) (LoadResult, error)) ([]byte, error) {
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
	lr, err := load(ctx)
	if err != nil {
		c.st.loaderErrors.Add(1)
		return nil, &LoadError{ID: id, Err: err}
	}
	return lr.Data, nil
}

// release runs the token-safe release with a context that outlives a
// cancelled Get.
func (c *Cache) release(ctx context.Context, k keys, token string) (bool, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), releaseTimeout)
	defer cancel()
	rl, err := c.releaseFn(ctx, k, token)
	if err == nil {
		c.st.releases.Add(1)
		if rl.native {
			c.st.releasesNative.Add(1)
		}
	}
	return rl.extended, err
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

// forget drops id's stale copy.
func (c *Cache) forget(id string) {
	if c.stale != nil {
		c.stale.delete(id)
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
