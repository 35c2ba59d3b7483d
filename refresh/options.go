package refresh

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/scriptctl/scriptctl/slot"
)

// Defaults of the bundled manifest's caller catalog_summary (manifest.yaml);
// a test keeps them equal to the manifest.
const (
	DefaultLeaseKey = "catalog:{product-<id>}:lease"
	DefaultValueKey = "catalog:{product-<id>}:value"
	DefaultGenKey   = "catalog:{product-<id>}:gen"
	DefaultLibrary  = "catalog_refresh"
	DefaultVersion  = 2
)

// Defaults of the timing and limit options.
const (
	DefaultLeaseTTL           = 10 * time.Second
	DefaultCacheTTL           = 5 * time.Minute
	DefaultWaitTimeout        = 2 * time.Second
	DefaultPollInterval       = 50 * time.Millisecond
	DefaultMaxConcurrentLoads = 16
	DefaultMaxStaleEntries    = 10000
	// DefaultRenewAfter is the fraction of LeaseTTL a load may run before
	// its lease is renewed, and the interval of later renewals.
	DefaultRenewAfter = 0.5
)

// IDPlaceholder is the placeholder a key template must contain; Get
// replaces it with the id.
const IDPlaceholder = "<id>"

// RejectPolicy says what Get does when its publication was rejected because
// the lease was lost (expired, or taken by a successor) during the load. The
// rejected candidate is discarded under every policy.
type RejectPolicy int

const (
	// RejectReread re-reads the value key and serves what is stored there
	// (the successor's accepted publication). When nothing is stored it
	// serves an allowed stale copy, else returns ErrLeaseLost.
	RejectReread RejectPolicy = iota
	// RejectServeStale serves an allowed stale copy without asking Redis
	// again, else returns ErrLeaseLost.
	RejectServeStale
	// RejectFail returns ErrLeaseLost.
	RejectFail
)

func (p RejectPolicy) String() string {
	switch p {
	case RejectReread:
		return "reread"
	case RejectServeStale:
		return "serve-stale"
	case RejectFail:
		return "fail"
	}
	return fmt.Sprintf("RejectPolicy(%d)", int(p))
}

// TimeoutPolicy says what Get does when another owner still holds the lease
// at the WaitTimeout deadline and no stale copy may be served.
type TimeoutPolicy int

const (
	// TimeoutLoad loads from the origin through the same admission limit as
	// every other load (MaxConcurrentLoads), and serves the result to this
	// caller only: it is not published, because the caller does not own the
	// lease.
	TimeoutLoad TimeoutPolicy = iota
	// TimeoutFail returns ErrWaitTimeout.
	TimeoutFail
)

func (p TimeoutPolicy) String() string {
	switch p {
	case TimeoutLoad:
		return "load"
	case TimeoutFail:
		return "fail"
	}
	return fmt.Sprintf("TimeoutPolicy(%d)", int(p))
}

// Options configure a Cache. The zero value of every field selects its
// default.
type Options struct {
	// LeaseKey, ValueKey and GenKey are the key templates of the lease, of
	// the cached value and of the entity's generation hash (the
	// invalidation generation and revision, version 2 of the scripts), with
	// IDPlaceholder where the id goes. All three must put the placeholder
	// inside one shared hash tag so that the keys of an id always live in
	// one cluster slot. Defaults: DefaultLeaseKey, DefaultValueKey,
	// DefaultGenKey.
	LeaseKey string
	ValueKey string
	GenKey   string

	// Functions selects FCALL of the deployed, versioned functions
	// (<Library>_<script>_v<Version>, such as catalog_refresh_publish_v2)
	// instead of EVALSHA of the embedded scripts with an EVAL fallback on
	// NOSCRIPT. Library and Version default to DefaultLibrary and
	// DefaultVersion and are used only with Functions.
	Functions bool
	Library   string
	Version   int

	// LeaseTTL bounds a refresh's ownership of an id. A load that outlives
	// it without renewal is rejected at publication. Default
	// DefaultLeaseTTL.
	LeaseTTL time.Duration
	// RenewAfter is the fraction of LeaseTTL, in (0, 1), after which a load
	// still running has its lease renewed (set to LeaseTTL again, only
	// while the token owns it), and again every RenewAfter*LeaseTTL. When a
	// renewal finds the lease lost, renewing stops and the load's context is
	// cancelled (context.Cause: ErrLeaseLost). Default DefaultRenewAfter.
	RenewAfter float64
	// NoRenew turns automatic renewal off: a load must end within LeaseTTL.
	NoRenew bool
	// ScriptRenew renews with the renew script even where every server has
	// SET ... IFEQ (by default such servers renew without a script).
	ScriptRenew bool
	// ScriptRelease releases with the release script even where every
	// server has DELIFEQ (by default such servers, Valkey 9.0 and later,
	// release without a script).
	ScriptRelease bool
	// CacheTTL is how long a published value stays in Redis. Default
	// DefaultCacheTTL.
	CacheTTL time.Duration
	// StaleFor enables stale serving when positive: a value this process
	// read or published may be served for up to CacheTTL+StaleFor after its
	// publish time (the hard stale deadline) while another owner refreshes
	// it, after a failed load, or after a rejected publication (per
	// OnRejected). Zero disables stale serving.
	StaleFor time.Duration
	// MaxStaleEntries bounds the stale copies kept in memory. Default
	// DefaultMaxStaleEntries.
	MaxStaleEntries int

	// WaitTimeout is the longest a Get waits for another owner's refresh,
	// measured from the miss (an absolute deadline, not per poll). Default
	// DefaultWaitTimeout.
	WaitTimeout time.Duration
	// PollInterval is the mean interval between polls while waiting; every
	// poll is jittered between half and one and a half times it, and cut to
	// just past the lease's remaining TTL when that comes first. Default
	// DefaultPollInterval.
	PollInterval time.Duration

	// MaxConcurrentLoads bounds the loads from the origin running at once in
	// this process, over every id, fallback loads included. A load waits
	// for a slot as long as its Get's context allows; an owner that has to
	// wait releases its lease first and acquires it again with a new token
	// once it has a slot. Default DefaultMaxConcurrentLoads.
	MaxConcurrentLoads int

	// OnRejected is the rejected publication policy. Default RejectReread.
	OnRejected RejectPolicy
	// OnWaitTimeout is the fallback at the WaitTimeout deadline. Default
	// TimeoutLoad.
	OnWaitTimeout TimeoutPolicy
}

// withDefaults returns o with defaults filled in, or the first problem.
func (o Options) withDefaults() (Options, error) {
	if o.LeaseKey == "" {
		o.LeaseKey = DefaultLeaseKey
	}
	if o.ValueKey == "" {
		o.ValueKey = DefaultValueKey
	}
	if o.GenKey == "" {
		o.GenKey = DefaultGenKey
	}
	if o.RenewAfter == 0 {
		o.RenewAfter = DefaultRenewAfter
	}
	if o.Library == "" {
		o.Library = DefaultLibrary
	}
	if o.Version == 0 {
		o.Version = DefaultVersion
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d == 0 {
			*d = v
		}
	}
	def(&o.LeaseTTL, DefaultLeaseTTL)
	def(&o.CacheTTL, DefaultCacheTTL)
	def(&o.WaitTimeout, DefaultWaitTimeout)
	def(&o.PollInterval, DefaultPollInterval)
	if o.MaxConcurrentLoads == 0 {
		o.MaxConcurrentLoads = DefaultMaxConcurrentLoads
	}
	if o.MaxStaleEntries == 0 {
		o.MaxStaleEntries = DefaultMaxStaleEntries
	}

	var errs []error
	bad := func(field, format string, args ...any) {
		errs = append(errs, &OptionError{Field: field, Msg: fmt.Sprintf(format, args...)})
	}
	if !isLibraryName(o.Library) {
		bad("Library", "%q is not a library name: use letters, digits and underscore", o.Library)
	}
	if o.Version < 0 {
		bad("Version", "%d: must be positive", o.Version)
	}
	for _, d := range []struct {
		field string
		v     time.Duration
	}{{"LeaseTTL", o.LeaseTTL}, {"CacheTTL", o.CacheTTL}, {"WaitTimeout", o.WaitTimeout}, {"PollInterval", o.PollInterval}} {
		if d.v < time.Millisecond {
			bad(d.field, "%v: must be at least 1ms", d.v)
		}
	}
	if !(o.RenewAfter > 0 && o.RenewAfter < 1) {
		bad("RenewAfter", "%v: must be a fraction of LeaseTTL between 0 and 1 (NoRenew turns renewal off)", o.RenewAfter)
	} else if !o.NoRenew && time.Duration(float64(o.LeaseTTL)*o.RenewAfter) < time.Millisecond {
		bad("RenewAfter", "%v of LeaseTTL %v is under 1ms", o.RenewAfter, o.LeaseTTL)
	}
	if o.StaleFor < 0 {
		bad("StaleFor", "%v: must not be negative (0 disables stale serving)", o.StaleFor)
	}
	if o.MaxConcurrentLoads < 0 {
		bad("MaxConcurrentLoads", "%d: must be positive", o.MaxConcurrentLoads)
	}
	if o.MaxStaleEntries < 0 {
		bad("MaxStaleEntries", "%d: must be positive", o.MaxStaleEntries)
	}
	if o.OnRejected < RejectReread || o.OnRejected > RejectFail {
		bad("OnRejected", "unknown policy %d", int(o.OnRejected))
	}
	if o.OnWaitTimeout < TimeoutLoad || o.OnWaitTimeout > TimeoutFail {
		bad("OnWaitTimeout", "unknown policy %d", int(o.OnWaitTimeout))
	}
	if err := checkTemplates(o.LeaseKey, o.ValueKey, o.GenKey); err != nil {
		errs = append(errs, err)
	}
	return o, errors.Join(errs...)
}

// OptionError is an invalid field of Options.
type OptionError struct {
	Field string // "LeaseKey", "LeaseTTL", ...
	Msg   string
}

func (e *OptionError) Error() string { return "refresh: options: " + e.Field + ": " + e.Msg }

// sampleIDs are the ids checkTemplates renders both templates with. Ids
// with braces are left to Get's per-id check (see hashTagTemplate).
var sampleIDs = []string{"42", "7", "a", "product", "-", ":lease"}

// checkTemplates checks that each template has exactly one IDPlaceholder and
// no other placeholder, that they differ, and that all put it inside one
// shared hash tag: then the keys of any id share a slot, and different ids
// spread over slots.
func checkTemplates(lease, value, gen string) error {
	ts := []struct{ field, tmpl string }{{"LeaseKey", lease}, {"ValueKey", value}, {"GenKey", gen}}
	var errs []error
	for _, t := range ts {
		if msg := templateProblem(t.tmpl); msg != "" {
			errs = append(errs, &OptionError{Field: t.field, Msg: msg})
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	for i, t := range ts {
		for _, u := range ts[:i] {
			if t.tmpl == u.tmpl {
				return &OptionError{Field: t.field, Msg: fmt.Sprintf("%q is also the %s template", t.tmpl, u.field)}
			}
		}
	}
	leaseTag, _ := hashTagTemplate(lease)
	for _, t := range ts {
		tag, ok := hashTagTemplate(t.tmpl)
		switch {
		case !ok:
			return &OptionError{Field: t.field, Msg: fmt.Sprintf("%q has no hash tag around %s: the keys of an id must share a hash tag such as {product-%s}", t.tmpl, IDPlaceholder, IDPlaceholder)}
		case tag != leaseTag:
			return &OptionError{Field: t.field, Msg: fmt.Sprintf("hash tag {%s} differs from the lease key's {%s}: the keys of an id must share one slot", tag, leaseTag)}
		}
	}
	// The structural check above implies this; it is kept as the check the
	// cluster itself makes.
	for _, id := range sampleIDs {
		l := render(lease, id)
		for _, t := range ts[1:] {
			if k := render(t.tmpl, id); slot.Of(k) != slot.Of(l) {
				return &OptionError{Field: t.field, Msg: fmt.Sprintf("for id %q the key %q (slot %d) and the lease key %q (slot %d) are in different slots", id, k, slot.Of(k), l, slot.Of(l))}
			}
		}
	}
	return nil
}

// templateProblem returns why t is not a key template with exactly one
// IDPlaceholder, or "".
func templateProblem(t string) string {
	if t == "" {
		return "empty key template"
	}
	if n := strings.Count(t, IDPlaceholder); n != 1 {
		return fmt.Sprintf("%q must contain %s exactly once, not %d times", t, IDPlaceholder, n)
	}
	rest := strings.Replace(t, IDPlaceholder, "", 1)
	if i := strings.IndexAny(rest, "<>"); i >= 0 {
		return fmt.Sprintf("%q: only the %s placeholder is supported (found %q)", t, IDPlaceholder, rest[i:i+1])
	}
	return ""
}

// hashTagTemplate returns the hash tag of template t, placeholder included,
// when t has a hash tag that contains IDPlaceholder and no '{' or '}' of its
// own before the placeholder other than the tag's opening brace. For such a
// template every id's key hashes a substring that starts right after the
// brace and depends only on the tag template and the id, whatever braces the
// id contains; so two templates with the same tag template put every id's
// two keys in one slot. The exception is an id that makes that substring
// empty (the tag "{<id>}" with an empty id or an id starting with '}'):
// Redis then hashes the whole key, so Get checks every id's two slots.
func hashTagTemplate(t string) (string, bool) {
	p := strings.Index(t, IDPlaceholder)
	open := strings.IndexByte(t, '{')
	if open < 0 || open > p {
		return "", false
	}
	if strings.ContainsAny(t[open+1:p], "{}") {
		return "", false
	}
	after := t[p+len(IDPlaceholder):]
	close := strings.IndexByte(after, '}')
	if close < 0 {
		return "", false
	}
	return t[open+1 : p+len(IDPlaceholder)+close], true
}

func render(t, id string) string { return strings.Replace(t, IDPlaceholder, id, 1) }

func isLibraryName(s string) bool {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_') {
			return false
		}
	}
	return s != ""
}
