package loader

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// unlockScript deletes the lease only while its token is ARGV[1]: a lock
// taken by a new run since the operator looked is left alone.
const unlockScript = `local v = redis.call('GET', KEYS[1])
if v and (v == ARGV[1] or string.sub(v, 1, #ARGV[1] + 1) == ARGV[1] .. ' ') then
  redis.call('DEL', KEYS[1])
  return 1
end
return 0`

// LockState is what the deploy lock key holds.
type LockState struct {
	Key    string
	Node   string
	Held   bool
	Token  string        // the holder's random token
	Holder string        // host, pid and start time, as the holder wrote them
	TTL    time.Duration // the lease left; -1 when the key has no expiry
}

// InspectLock reads the deploy lock of library: who holds it and for how
// long. It changes nothing.
func InspectLock(ctx context.Context, t *Topology, library string) (*LockState, error) {
	key := LockKey(library)
	n, err := lockNode(t, key)
	if err != nil {
		return nil, err
	}
	st := &LockState{Key: key, Node: n.Addr}
	v, held, err := n.conn.Get(ctx, key)
	if rerr := redirect(n.Addr, "read deploy lock "+key, err); rerr != nil {
		return nil, rerr
	}
	if err != nil {
		return nil, &NodeError{Node: n.Addr, Op: "read deploy lock " + key, Err: err}
	}
	if !held {
		return st, nil
	}
	st.Held = true
	st.Token, st.Holder, _ = strings.Cut(v, " ")
	if st.Holder == "" {
		st.Holder = "an unknown holder"
	}
	if st.TTL, err = n.conn.PTTL(ctx, key); err != nil {
		return nil, &NodeError{Node: n.Addr, Op: "read deploy lock " + key, Err: err}
	}
	return st, nil
}

// Unlock deletes the deploy lock of library. With token it deletes the lock
// only while that token holds it (a lock taken since is left alone and
// released is false); with force it deletes whoever holds it. The state is
// the lock as found just before.
func Unlock(ctx context.Context, t *Topology, library, token string, force bool) (st *LockState, released bool, err error) {
	if token == "" && !force {
		return nil, false, fmt.Errorf("unlock needs the holder's token or force")
	}
	st, err = InspectLock(ctx, t, library)
	if err != nil || !st.Held {
		return st, false, err
	}
	n, _ := lockNode(t, st.Key)
	if force {
		if err := n.conn.do(ctx, n.conn.c.B().Del().Key(st.Key).Build()).Error(); err != nil {
			return st, false, &NodeError{Node: n.Addr, Op: "delete deploy lock " + st.Key, Err: err}
		}
		return st, true, nil
	}
	v, err := n.conn.Eval(ctx, unlockScript, []string{st.Key}, token)
	if err != nil {
		return st, false, &NodeError{Node: n.Addr, Op: "release deploy lock " + st.Key, Err: err}
	}
	return st, v == 1, nil
}

// lockNode returns the connected primary that holds key.
func lockNode(t *Topology, key string) (*Node, error) {
	n, err := t.owner(key)
	if err != nil {
		if down := t.Unreachable(); len(down) > 0 {
			ne := &NodesError{}
			for _, d := range down {
				ne.Errs = append(ne.Errs, nodeErr(d))
			}
			return nil, ne
		}
		return nil, fmt.Errorf("deploy lock %s: %w", key, err)
	}
	if !n.OK() {
		return nil, &NodeError{Node: n.Addr, Op: "deploy lock " + key, Err: n.Err}
	}
	return n, nil
}
