package refresh

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/rueidis"

	"github.com/scriptctl/scriptctl/lua"
	"github.com/scriptctl/scriptctl/manifest"
)

// scriptNames are the bundled lease scripts Cache calls, in manifest order.
var scriptNames = []string{"acquire", "publish", "invalidate", "renew", "release"}

// The embedded script bodies, the bytes scriptctl deploys.
var scripts = func() map[string]*rueidis.Lua {
	m := map[string]*rueidis.Lua{}
	for _, s := range scriptNames {
		m[s] = rueidis.NewLuaScript(string(lua.MustSource(s + ".lua")))
	}
	return m
}()

// CallError is a failed call of a lease script (or of its function), or of
// a command the package sends itself.
type CallError struct {
	Op  string // "acquire", "publish", "invalidate", "renew", "release", "read"
	Key string // the lease key, or the value key for "read"
	Err error
	// Code is the server's error code when the server answered an error:
	// "WRONGTYPE", "NOSCRIPT", "BUSY", "NOPERM", "READONLY", "OOM", ... and
	// "ERR" for the generic code. Empty for other failures (a network
	// error, an unexpected reply).
	Code string
	// Hint says how to fix the cause, when known.
	Hint string
}

func (e *CallError) Error() string {
	s := fmt.Sprintf("refresh: %s %s: %v", e.Op, e.Key, e.Err)
	if e.Hint != "" {
		s += " (" + e.Hint + ")"
	}
	return s
}

func (e *CallError) Unwrap() error { return e.Err }

// ErrorCode returns the code of the server error reply err carries, wrapped
// or not (a CallError carries one): "ERR", "WRONGTYPE", "NOSCRIPT", ..., or
// "" when err is not a server error. The
// code is the reply's first word when it is all capital letters; rueidis
// strips the generic "ERR " prefix, so a reply without such a word is "ERR"
// (and a generic error whose text starts with a command name, such as "ERR
// EXEC without MULTI", reads as that name: none of the scripts' calls
// answers one).
func ErrorCode(err error) string {
	var re *rueidis.RedisError
	if !errors.As(err, &re) || re.IsNil() {
		return ""
	}
	msg := re.Error()
	word, _, _ := strings.Cut(msg, " ")
	if word == "" {
		return "ERR"
	}
	for _, c := range word {
		if c < 'A' || c > 'Z' {
			return "ERR"
		}
	}
	return word
}

// keys are the three keys of one id.
type keys struct {
	lease, value, gen string
}

func (k keys) all() []string { return []string{k.lease, k.value, k.gen} }

// acquireState is the first element of acquire's reply.
type acquireState int

const (
	stateAcquired acquireState = iota
	stateCached
	stateBusy
)

type acquireReply struct {
	state  acquireState
	gen    string // stateAcquired, stateCached: the entity's generation
	cached string // stateCached: the stored value
	pttl   int64  // stateBusy: the lease's remaining TTL in ms (-1: none)
}

// publishResult is publish's reply.
type publishResult int

const (
	published     publishResult = 1
	leaseLost     publishResult = 0
	invalidated   publishResult = -1
	olderRevision publishResult = -2
)

// runner runs the lease scripts, as EVALSHA/EVAL of the embedded bodies or
// as FCALL of the deployed functions, renews natively where the servers
// have SET ... IFEQ and releases natively where they have DELIFEQ.
type runner struct {
	client    rueidis.Client
	functions bool
	library   string            // <library>_v<version>, with functions
	names     map[string]string // script -> function name, with functions
	native    *capNodes         // SET ... IFEQ; nil: always renew with the script
	// nativeRelease is DELIFEQ; nil: always release with the script.
	nativeRelease *capNodes
}

func newRunner(client rueidis.Client, o Options) *runner {
	r := &runner{client: client, functions: o.Functions}
	if o.Functions {
		m := &manifest.Manifest{Library: o.Library, Version: o.Version}
		r.library = m.LibraryName()
		r.names = map[string]string{}
		for _, s := range scriptNames {
			r.names[s] = m.FunctionName(s)
		}
	}
	if !o.ScriptRenew {
		r.native = newIfeqNodes()
	}
	if !o.ScriptRelease {
		r.nativeRelease = newDelifeqNodes()
	}
	return r
}

func (r *runner) call(ctx context.Context, script string, ks, args []string) rueidis.RedisResult {
	if r.functions {
		c := r.client
		return c.Do(ctx, c.B().Fcall().Function(r.names[script]).Numkeys(int64(len(ks))).Key(ks...).Arg(args...).Build())
	}
	return scripts[script].Exec(ctx, r.client, ks, args)
}

// fail wraps a failed call, with the server's error code and a hint chosen
// by that code (never by the message text).
func (r *runner) fail(ctx context.Context, op, key string, err error) error {
	e := &CallError{Op: op, Key: key, Err: err, Code: ErrorCode(err)}
	switch e.Code {
	case "WRONGTYPE":
		e.Hint = "a key of this id holds another type: the lease and value keys must be strings and the gen key a hash, used by nothing else"
	case "NOPERM":
		e.Hint = "the connection's ACL user may not run this command or touch these keys"
	case "BUSY":
		e.Hint = "the server is running a long script or function; the call can be retried when it ends"
	case "READONLY":
		e.Hint = "the client is connected to a replica: connect to the primary"
	case "NOSCRIPT":
		e.Hint = "the server's script cache was emptied during the call; it is loaded again on the next call"
	case "ERR":
		if r.functions && op != "read" {
			e.Hint = r.libraryHint(ctx, op)
		}
	}
	return e
}

// libraryHint asks every node whether the library is loaded (FUNCTION LIST
// LIBRARYNAME), so a generic error of FCALL is explained by what the server
// holds rather than by its wording. "" when every node has it or the
// question fails.
func (r *runner) libraryHint(ctx context.Context, op string) string {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), releaseTimeout)
	defer cancel()
	for addr, n := range r.client.Nodes() {
		arr, err := n.Do(ctx, n.B().FunctionList().Libraryname(r.library).Build()).ToArray()
		if err != nil {
			continue
		}
		if len(arr) == 0 {
			return fmt.Sprintf("function %s is not loaded on %s: load library %s on every primary first (scriptctl deploy)", r.names[op], addr, r.library)
		}
	}
	return ""
}

// ms formats d as the whole milliseconds the scripts take.
func ms(d time.Duration) string { return strconv.FormatInt(d.Milliseconds(), 10) }

func (r *runner) acquire(ctx context.Context, k keys, token, leaseTTL string) (acquireReply, error) {
	res := r.call(ctx, "acquire", k.all(), []string{token, leaseTTL})
	arr, err := res.ToArray()
	if err != nil {
		return acquireReply{}, r.fail(ctx, "acquire", k.lease, err)
	}
	bad := func() (acquireReply, error) {
		return acquireReply{}, &CallError{Op: "acquire", Key: k.lease, Err: fmt.Errorf("unexpected reply %s", res.String())}
	}
	strs := make([]string, len(arr))
	for i, m := range arr {
		if s, err := m.ToString(); err == nil {
			strs[i] = s
		}
	}
	if len(arr) == 0 {
		return bad()
	}
	switch {
	case strs[0] == "acquired" && len(arr) == 2 && isGeneration(strs[1]):
		return acquireReply{state: stateAcquired, gen: strs[1]}, nil
	case strs[0] == "cached" && len(arr) == 3 && arr[1].IsString() && isGeneration(strs[2]):
		return acquireReply{state: stateCached, cached: strs[1], gen: strs[2]}, nil
	case strs[0] == "busy" && len(arr) == 2:
		pttl, err := arr[1].AsInt64()
		if err != nil {
			return bad()
		}
		return acquireReply{state: stateBusy, pttl: pttl}, nil
	}
	return bad()
}

// isGeneration reports whether s is a generation as the scripts write it.
func isGeneration(s string) bool {
	if s == "" || len(s) > 15 || (len(s) > 1 && s[0] == '0') {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// publish runs compare-and-publish: the candidate is written only while
// token owns the lease, the generation is still gen and rev ("" for none)
// is not older than the entity's recorded revision.
func (r *runner) publish(ctx context.Context, k keys, token, candidate, cacheTTL, gen, rev string) (publishResult, error) {
	n, err := r.integer(ctx, r.call(ctx, "publish", k.all(), []string{token, candidate, cacheTTL, gen, rev}), "publish", k.lease)
	if err != nil {
		return 0, err
	}
	switch p := publishResult(n); p {
	case published, leaseLost, invalidated, olderRevision:
		return p, nil
	}
	return 0, &CallError{Op: "publish", Key: k.lease, Err: fmt.Errorf("unexpected reply %d", n)}
}

// invalidate bumps id's generation, deletes its value and lease, and
// records rev ("" for none) as its revision tombstone; it returns the new
// generation.
func (r *runner) invalidate(ctx context.Context, k keys, rev string) (int64, error) {
	n, err := r.integer(ctx, r.call(ctx, "invalidate", k.all(), []string{rev}), "invalidate", k.lease)
	if err != nil {
		return 0, err
	}
	if n < 1 {
		return 0, &CallError{Op: "invalidate", Key: k.lease, Err: fmt.Errorf("unexpected reply %d", n)}
	}
	return n, nil
}

// renewScript reports whether the renew script extended the lease.
func (r *runner) renewScript(ctx context.Context, k keys, token, leaseTTL string) (bool, error) {
	return r.flag(ctx, r.call(ctx, "renew", []string{k.lease}, []string{token, leaseTTL}), "renew", k.lease)
}

func (r *runner) integer(ctx context.Context, res rueidis.RedisResult, op, key string) (int64, error) {
	n, err := res.ToInt64()
	if err != nil {
		return 0, r.fail(ctx, op, key, err)
	}
	return n, nil
}

func (r *runner) flag(ctx context.Context, res rueidis.RedisResult, op, key string) (bool, error) {
	n, err := r.integer(ctx, res, op, key)
	if err != nil {
		return false, err
	}
	switch n {
	case 0:
		return false, nil
	case 1:
		return true, nil
	}
	return false, &CallError{Op: op, Key: key, Err: fmt.Errorf("unexpected reply %d", n)}
}

// get reads the value key: ok is false when it does not exist.
func (r *runner) get(ctx context.Context, key string) (string, bool, error) {
	c := r.client
	v, err := c.Do(ctx, c.B().Get().Key(key).Build()).ToString()
	if rueidis.IsRedisNil(err) {
		return "", false, nil
	}
	if err != nil {
		return "", false, &CallError{Op: "read", Key: key, Err: err, Code: ErrorCode(err)}
	}
	return v, true, nil
}
