// Package liveconn is the live side of scriptctl's comparisons (verify
// --against, eval --against and --diff): one standalone server, or a whole
// Redis Cluster reached from any of its nodes, spoken to the way
// "redis-cli -c" does. A command goes to the primary of its first key's slot
// (the key positions come from the command tables of package cmdtable, as
// COMMAND GETKEYS finds them), MOVED and ASK are followed, and a command
// every primary must see (SCRIPT LOAD, FUNCTION LOAD, FUNCTION DELETE) is
// sent to each. A redirect is never returned as a reply. It does not
// resolve connection settings (package connect) or compare anything.
package liveconn

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/redis/rueidis"

	"github.com/scriptctl/scriptctl/internal/cmdtable"
	"github.com/scriptctl/scriptctl/internal/connect"
	"github.com/scriptctl/scriptctl/verify"
)

// maxRedirects bounds the MOVED/ASK hops of one command, as redis-cli
// bounds its own.
const maxRedirects = 5

// Conn is a live deployment.
type Conn struct {
	// Addr names the deployment in messages: the server's host:port, or
	// the seed's host:port followed by "(cluster)".
	Addr string

	client    rueidis.Client
	cluster   bool
	primaries []string                  // cluster: primaries by address
	nodes     map[string]rueidis.Client // cluster: a client per node
	timeout   time.Duration
	target    string
}

// Dial connects to the deployment behind cfg's seeds: a cluster from any
// number of its nodes, or one standalone server. target picks the command
// table keys are found with ("" is verify.DefaultTarget). Errors never
// contain the password.
func Dial(ctx context.Context, cfg *connect.Config, target string) (*Conn, error) {
	type result struct {
		c   rueidis.Client
		err error
	}
	ch := make(chan result, 1)
	go func() {
		c, err := rueidis.NewClient(cfg.DeploymentOption())
		ch <- result{c, err}
	}()
	var r result
	select {
	case r = <-ch:
	case <-ctx.Done():
		go func() {
			if r := <-ch; r.c != nil {
				r.c.Close()
			}
		}()
		return nil, ctx.Err()
	}
	if r.err != nil {
		err := cfg.Scrub(r.err)
		if len(cfg.Seeds) > 1 && strings.Contains(strings.ToLower(err.Error()), "cluster support disabled") {
			return nil, fmt.Errorf("connect %s: a standalone server: several servers are accepted only as nodes of one cluster; give the one server", strings.Join(cfg.Seeds, ", "))
		}
		return nil, fmt.Errorf("connect %s: %w", strings.Join(cfg.Seeds, ", "), err)
	}
	c, err := New(ctx, r.c, cfg.Seeds[0], cfg.Timeout, target)
	if err != nil {
		return nil, cfg.Scrub(err)
	}
	return c, nil
}

// New wraps a rueidis client that speaks RESP2 (ClientOption.AlwaysRESP2):
// a single-node client, or a cluster client, whose primaries New finds with
// ROLE. addr names the seed in messages; timeout bounds each command (0:
// none). The Conn owns c and closes it, on error too.
func New(ctx context.Context, c rueidis.Client, addr string, timeout time.Duration, target string) (*Conn, error) {
	if target == "" {
		target = verify.DefaultTarget
	}
	lc := &Conn{Addr: addr, client: c, timeout: timeout, target: target}
	if c.Mode() != rueidis.ClientModeCluster {
		if _, err := lc.Do(ctx, "PING"); err != nil {
			c.Close()
			return nil, fmt.Errorf("connect %s: %w", addr, err)
		}
		return lc, nil
	}
	lc.cluster = true
	lc.Addr = addr + " (cluster)"
	lc.nodes = c.Nodes()
	for a, n := range lc.nodes {
		r, err := lc.doOn(ctx, n, []string{"ROLE"})
		if err != nil {
			c.Close()
			return nil, fmt.Errorf("connect %s: ROLE: %w", a, err)
		}
		if r.Kind == verify.Array && len(r.Elems) > 0 && r.Elems[0].Str == "master" {
			lc.primaries = append(lc.primaries, a)
		}
	}
	if len(lc.primaries) == 0 {
		c.Close()
		return nil, fmt.Errorf("connect %s: the cluster lists no reachable primary", addr)
	}
	sort.Strings(lc.primaries)
	return lc, nil
}

// Cluster reports whether the deployment is a Redis Cluster.
func (c *Conn) Cluster() bool { return c.cluster }

// Primaries returns the cluster's primaries by address (nil standalone).
func (c *Conn) Primaries() []string { return c.primaries }

// Close closes every connection.
func (c *Conn) Close() { c.client.Close() }

// Do sends one command and returns its exact RESP2 reply. In a cluster it
// goes to the primary of its first key's slot, a keyless command to the
// first primary. err is a connection or protocol failure (or redirects
// that do not end), never an error reply.
func (c *Conn) Do(ctx context.Context, args ...string) (verify.Reply, error) {
	if c.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.timeout)
		defer cancel()
	}
	if !c.cluster {
		return c.doOn(ctx, c.client, args)
	}
	var r verify.Reply
	var err error
	if i := c.keyPos(args); i > 0 {
		r, err = c.send(ctx, c.client, c.client.B().Arbitrary(args[:i]...).Keys(args[i]).Args(args[i+1:]...).Build())
	} else {
		r, err = c.doOn(ctx, c.nodes[c.primaries[0]], args)
	}
	for hop := 0; err == nil && hop < maxRedirects; hop++ {
		addr, ask, ok := redirect(r)
		if !ok {
			return r, nil
		}
		r, err = c.follow(ctx, addr, ask, args)
	}
	if err != nil {
		return verify.Reply{}, err
	}
	if _, _, ok := redirect(r); ok {
		return verify.Reply{}, fmt.Errorf("%s: still redirected after %d hops: %s", args[0], maxRedirects, r.Str)
	}
	return r, nil
}

// DoAll sends a command every primary must see (SCRIPT LOAD, FUNCTION
// LOAD, FUNCTION DELETE) to each, and returns the first error reply, else
// the first primary's reply. Standalone it is Do.
func (c *Conn) DoAll(ctx context.Context, args ...string) (verify.Reply, error) {
	if !c.cluster {
		return c.Do(ctx, args...)
	}
	if c.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.timeout)
		defer cancel()
	}
	var first verify.Reply
	for i, a := range c.primaries {
		r, err := c.doOn(ctx, c.nodes[a], args)
		if err != nil {
			return verify.Reply{}, fmt.Errorf("%s: %w", a, err)
		}
		if r.Kind == verify.Error {
			return r, nil
		}
		if i == 0 {
			first = r
		}
	}
	return first, nil
}

// follow resends args to the node a MOVED or ASK named (ASK after ASKING).
func (c *Conn) follow(ctx context.Context, addr string, ask bool, args []string) (verify.Reply, error) {
	n, ok := c.nodes[addr]
	if !ok {
		c.nodes = c.client.Nodes()
		if n, ok = c.nodes[addr]; !ok {
			return verify.Reply{}, fmt.Errorf("redirected to %s, a node the cluster does not list", addr)
		}
	}
	if !ask {
		return c.doOn(ctx, n, args)
	}
	res := n.DoMulti(ctx, n.B().Arbitrary("ASKING").Build(), n.B().Arbitrary(args...).Build())
	return convert(res[1])
}

func (c *Conn) doOn(ctx context.Context, n rueidis.Client, args []string) (verify.Reply, error) {
	return c.send(ctx, n, n.B().Arbitrary(args...).Build())
}

func (c *Conn) send(ctx context.Context, n rueidis.Client, cmd rueidis.Completed) (verify.Reply, error) {
	return convert(n.Do(ctx, cmd))
}

func convert(res rueidis.RedisResult) (verify.Reply, error) {
	if err := res.NonRedisError(); err != nil {
		return verify.Reply{}, err
	}
	msg, _ := res.ToMessage()
	return verify.FromMessage(msg)
}

// keyPos is the position of args' first key, or 0 when the command has
// none (or no command table knows it).
func (c *Conn) keyPos(args []string) int {
	if len(args) < 2 {
		return 0
	}
	targets := append([]string{c.target}, cmdtable.Targets()...)
	for _, t := range targets {
		cmd, ok := cmdtable.Lookup(t, args[0])
		if !ok {
			continue
		}
		if pos := cmd.Keys(args); len(pos) > 0 {
			return pos[0]
		}
		return 0
	}
	return 0
}

// redirect reads a MOVED or ASK error reply: "MOVED 3999 127.0.0.1:6381".
func redirect(r verify.Reply) (addr string, ask, ok bool) {
	if r.Kind != verify.Error {
		return "", false, false
	}
	f := strings.Fields(r.Str)
	if len(f) != 3 || (f[0] != "MOVED" && f[0] != "ASK") {
		return "", false, false
	}
	if _, err := strconv.Atoi(f[1]); err != nil {
		return "", false, false
	}
	return f[2], f[0] == "ASK", true
}

// DialURL connects to url (redis://[user:password@]host:port[/db],
// rediss:// for TLS): a standalone server or any node of a cluster, with
// the command table of verify.DefaultTarget. Errors never contain the
// password.
func DialURL(ctx context.Context, url string) (*Conn, error) {
	opt, err := rueidis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("parse --against URL: %w", redactErr(err, url))
	}
	opt.AlwaysRESP2 = true
	opt.DisableCache = true
	opt.DisableRetry = true
	opt.ConnWriteTimeout = 10 * time.Second
	addr := strings.Join(opt.InitAddress, ",")
	c, err := rueidis.NewClient(opt)
	if err != nil {
		return nil, fmt.Errorf("connect %s: %w", addr, redactErr(err, url))
	}
	return New(ctx, c, addr, 0, "")
}

// redactErr removes a URL's password from an error text.
func redactErr(err error, url string) error {
	msg := err.Error()
	if i := strings.Index(url, "://"); i >= 0 {
		rest := url[i+3:]
		if at := strings.LastIndex(rest, "@"); at >= 0 {
			if colon := strings.Index(rest[:at], ":"); colon >= 0 {
				if pw := rest[colon+1 : at]; pw != "" {
					msg = strings.ReplaceAll(msg, pw, "xxxxx")
				}
			}
		}
	}
	return errors.New(msg)
}
