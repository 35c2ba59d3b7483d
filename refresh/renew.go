package refresh

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/redis/rueidis"
)

// capNodes remembers, per node address, whether the server has one native
// conditional operation: SET's IFEQ option (Valkey 8.1, Redis 8.4), read
// from COMMAND DOCS SET, or the DELIFEQ command (Valkey 9.0), read from
// COMMAND INFO DELIFEQ. A node is asked once; a node that cannot be asked
// is asked again next time.
type capNodes struct {
	probe func(context.Context, rueidis.Client) (bool, error)
	mu    sync.Mutex
	nodes map[string]bool
}

func newIfeqNodes() *capNodes    { return &capNodes{probe: hasSetIfeq, nodes: map[string]bool{}} }
func newDelifeqNodes() *capNodes { return &capNodes{probe: hasDelifeq, nodes: map[string]bool{}} }

// all reports whether every node of client has the operation. The decision
// is for the whole deployment, not for the node a key lives on (rueidis
// does not expose the slot map), so a mixed cluster, during a rolling
// upgrade, runs the script until every node has the operation.
func (n *capNodes) all(ctx context.Context, client rueidis.Client) bool {
	nodes := client.Nodes()
	if len(nodes) == 0 {
		return false
	}
	ok := true
	for addr, c := range nodes {
		n.mu.Lock()
		has, known := n.nodes[addr]
		n.mu.Unlock()
		if !known {
			var err error
			has, err = n.probe(ctx, c)
			if err != nil {
				return false
			}
			n.mu.Lock()
			n.nodes[addr] = has
			n.mu.Unlock()
		}
		ok = ok && has
	}
	return ok
}

// forget drops what is known, after a native operation failed with a server
// error (a node was replaced by an older server at the same address).
func (n *capNodes) forget() {
	n.mu.Lock()
	clear(n.nodes)
	n.mu.Unlock()
}

// hasSetIfeq reports whether the server c talks to documents an argument of
// SET whose token is IFEQ. A server without COMMAND DOCS (before Redis 7.0)
// answers an error: no IFEQ.
func hasSetIfeq(ctx context.Context, c rueidis.Client) (bool, error) {
	res := c.Do(ctx, c.B().CommandDocs().CommandName("set").Build())
	msg, err := res.ToMessage()
	if err != nil {
		if _, ok := rueidis.IsRedisErr(err); ok {
			return false, nil
		}
		return false, err
	}
	return hasToken(msg, "IFEQ"), nil
}

// hasDelifeq reports whether the server c talks to knows the DELIFEQ
// command: COMMAND INFO answers one entry per name asked, nil for a command
// the server does not have.
func hasDelifeq(ctx context.Context, c rueidis.Client) (bool, error) {
	arr, err := c.Do(ctx, c.B().CommandInfo().CommandName("delifeq").Build()).ToArray()
	if err != nil {
		if _, ok := rueidis.IsRedisErr(err); ok {
			return false, nil
		}
		return false, err
	}
	return len(arr) == 1 && !arr[0].IsNil(), nil
}

// hasToken walks a COMMAND DOCS reply (RESP2 arrays of name, value pairs, or
// RESP3 maps) for an argument whose "token" is token.
func hasToken(m rueidis.RedisMessage, token string) bool {
	if m.IsMap() {
		kv, err := m.AsMap()
		if err != nil {
			return false
		}
		for k, v := range kv {
			if s, err := v.ToString(); err == nil && k == "token" && strings.EqualFold(s, token) {
				return true
			}
			if hasToken(v, token) {
				return true
			}
		}
		return false
	}
	arr, err := m.ToArray()
	if err != nil {
		return false
	}
	for i, v := range arr {
		if k, err := v.ToString(); err == nil && k == "token" && i+1 < len(arr) {
			if s, err := arr[i+1].ToString(); err == nil && strings.EqualFold(s, token) {
				return true
			}
		}
		if hasToken(v, token) {
			return true
		}
	}
	return false
}

// renewal is how a renewal or a release was done.
type renewal struct {
	extended bool // the lease held the token and has its TTL again (release: and is deleted)
	native   bool // done with SET ... IFEQ (release: DELIFEQ) rather than the script
}

// renew extends the lease while it holds token: with SET lease token IFEQ
// token PX ttl where every node has IFEQ (OK: extended; nil: the lease is
// missing or someone else's), else with the renew script. Both set the TTL
// again and change nothing when token does not own the lease.
func (r *runner) renew(ctx context.Context, k keys, token, leaseTTL string) (renewal, error) {
	if r.native != nil && r.native.all(ctx, r.client) {
		c := r.client
		err := c.Do(ctx, c.B().Arbitrary("SET").Keys(k.lease).Args(token, "IFEQ", token, "PX", leaseTTL).Build()).Error()
		switch {
		case err == nil:
			return renewal{extended: true, native: true}, nil
		case rueidis.IsRedisNil(err):
			return renewal{native: true}, nil
		}
		if ErrorCode(err) != "ERR" {
			return renewal{}, r.fail(ctx, "renew", k.lease, err)
		}
		// A generic error (a syntax error: the server refused the option
		// after all): ask the nodes again next time, renew with the script
		// now.
		r.native.forget()
	}
	ok, err := r.renewScript(ctx, k, token, leaseTTL)
	return renewal{extended: ok}, err
}

// release deletes the lease while it holds token: with DELIFEQ lease token
// where every node has it (1: deleted; 0: missing or someone else's), else
// with the release script. Neither touches a lease token does not own.
func (r *runner) release(ctx context.Context, k keys, token string) (renewal, error) {
	if r.nativeRelease != nil && token != "" && r.nativeRelease.all(ctx, r.client) {
		c := r.client
		n, err := c.Do(ctx, c.B().Arbitrary("DELIFEQ").Keys(k.lease).Args(token).Build()).AsInt64()
		switch {
		case err == nil && (n == 0 || n == 1):
			return renewal{extended: n == 1, native: true}, nil
		case err == nil:
			return renewal{}, &CallError{Op: "release", Key: k.lease, Err: fmt.Errorf("unexpected DELIFEQ reply %d", n)}
		}
		if ErrorCode(err) != "ERR" {
			return renewal{}, r.fail(ctx, "release", k.lease, err)
		}
		// A generic error (an unknown command: a node was replaced by an
		// older server): ask the nodes again next time, release with the
		// script now.
		r.nativeRelease.forget()
	}
	ok, err := r.flag(ctx, r.call(ctx, "release", []string{k.lease}, []string{token}), "release", k.lease)
	return renewal{extended: ok}, err
}
