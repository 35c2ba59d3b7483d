package refresh

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/rueidis"

	"github.com/scriptctl/scriptctl/lua"
	"github.com/scriptctl/scriptctl/manifest"
)

// The embedded script bodies, the bytes scriptctl deploys.
var (
	acquireLua = rueidis.NewLuaScript(string(lua.MustSource("acquire.lua")))
	publishLua = rueidis.NewLuaScript(string(lua.MustSource("publish.lua")))
	releaseLua = rueidis.NewLuaScript(string(lua.MustSource("release.lua")))
)

// CallError is a failed call of a lease script (or of its function).
type CallError struct {
	Op  string // "acquire", "publish", "release", "read"
	Key string // the lease key, or the value key for "read"
	Err error
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

// keys are the two keys of one id.
type keys struct {
	lease, value string
}

// acquireState is the first element of acquire's reply.
type acquireState int

const (
	stateAcquired acquireState = iota
	stateCached
	stateBusy
)

type acquireReply struct {
	state  acquireState
	cached string // stateCached: the stored value
	pttl   int64  // stateBusy: the lease's remaining TTL in ms (-1: none)
}

// runner runs the three lease scripts, as EVALSHA/EVAL of the embedded
// bodies or as FCALL of the deployed functions.
type runner struct {
	client    rueidis.Client
	functions bool
	library   string            // <library>_v<version>, with functions
	names     map[string]string // script -> function name, with functions
}

func newRunner(client rueidis.Client, o Options) *runner {
	r := &runner{client: client, functions: o.Functions}
	if o.Functions {
		m := &manifest.Manifest{Library: o.Library, Version: o.Version}
		r.library = m.LibraryName()
		r.names = map[string]string{}
		for _, s := range []string{"acquire", "publish", "release"} {
			r.names[s] = m.FunctionName(s)
		}
	}
	return r
}

func (r *runner) call(ctx context.Context, script string, ks, args []string) rueidis.RedisResult {
	if r.functions {
		c := r.client
		return c.Do(ctx, c.B().Fcall().Function(r.names[script]).Numkeys(int64(len(ks))).Key(ks...).Arg(args...).Build())
	}
	var l *rueidis.Lua
	switch script {
	case "acquire":
		l = acquireLua
	case "publish":
		l = publishLua
	default:
		l = releaseLua
	}
	return l.Exec(ctx, r.client, ks, args)
}

func (r *runner) fail(op, key string, err error) error {
	e := &CallError{Op: op, Key: key, Err: err}
	if r.functions && strings.Contains(err.Error(), "Function not found") {
		e.Hint = fmt.Sprintf("function %s is not loaded: load library %s on every primary first (scriptctl deploy)", r.names[op], r.library)
	}
	return e
}

// ms formats d as the whole milliseconds the scripts take.
func ms(d time.Duration) string { return strconv.FormatInt(d.Milliseconds(), 10) }

func (r *runner) acquire(ctx context.Context, k keys, token, leaseTTL string) (acquireReply, error) {
	res := r.call(ctx, "acquire", []string{k.lease, k.value}, []string{token, leaseTTL})
	arr, err := res.ToArray()
	if err != nil {
		return acquireReply{}, r.fail("acquire", k.lease, err)
	}
	bad := func() (acquireReply, error) {
		return acquireReply{}, r.fail("acquire", k.lease, fmt.Errorf("unexpected reply %s", res.String()))
	}
	if len(arr) == 0 {
		return bad()
	}
	state, err := arr[0].ToString()
	if err != nil {
		return bad()
	}
	switch {
	case state == "acquired" && len(arr) == 1:
		return acquireReply{state: stateAcquired}, nil
	case state == "cached" && len(arr) == 2:
		v, err := arr[1].ToString()
		if err != nil {
			return bad()
		}
		return acquireReply{state: stateCached, cached: v}, nil
	case state == "busy" && len(arr) == 2:
		pttl, err := arr[1].AsInt64()
		if err != nil {
			return bad()
		}
		return acquireReply{state: stateBusy, pttl: pttl}, nil
	}
	return bad()
}

// publish reports whether the candidate was published (true) or rejected
// because token no longer owns the lease (false).
func (r *runner) publish(ctx context.Context, k keys, token, candidate, cacheTTL string) (bool, error) {
	return r.flag(r.call(ctx, "publish", []string{k.lease, k.value}, []string{token, candidate, cacheTTL}), "publish", k.lease)
}

// release reports whether the lease held token and was deleted.
func (r *runner) release(ctx context.Context, k keys, token string) (bool, error) {
	return r.flag(r.call(ctx, "release", []string{k.lease}, []string{token}), "release", k.lease)
}

func (r *runner) flag(res rueidis.RedisResult, op, key string) (bool, error) {
	n, err := res.ToInt64()
	if err != nil {
		return false, r.fail(op, key, err)
	}
	switch n {
	case 0:
		return false, nil
	case 1:
		return true, nil
	}
	return false, r.fail(op, key, fmt.Errorf("unexpected reply %d", n))
}

// get reads the value key: ok is false when it does not exist.
func (r *runner) get(ctx context.Context, key string) (string, bool, error) {
	c := r.client
	v, err := c.Do(ctx, c.B().Get().Key(key).Build()).ToString()
	if rueidis.IsRedisNil(err) {
		return "", false, nil
	}
	if err != nil {
		return "", false, &CallError{Op: "read", Key: key, Err: err}
	}
	return v, true, nil
}
