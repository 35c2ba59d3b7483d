package redistest

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/redis/rueidis"
)

// Cluster is a running Redis Cluster of 3 primaries and 3 replicas. Replicas[i]
// replicates Primaries[i]; Primaries[i] serves slots i*16384/3 .. (i+1)*16384/3-1.
type Cluster struct {
	Primaries []*Server
	Replicas  []*Server
	t         testing.TB
}

// Nodes returns every node, primaries first.
func (c *Cluster) Nodes() []*Server {
	return append(append([]*Server{}, c.Primaries...), c.Replicas...)
}

// Addrs returns the address of every node, primaries first.
func (c *Cluster) Addrs() []string {
	var out []string
	for _, n := range c.Nodes() {
		out = append(out, n.Addr)
	}
	return out
}

// NewCluster starts six cluster-enabled nodes, assigns the slots, joins them,
// sets up one replica per primary, and waits until every node reports
// cluster_state:ok and knows every replica.
func NewCluster(t testing.TB, opts ...Option) *Cluster {
	t.Helper()
	c := &Cluster{t: t}
	for i := 0; i < 6; i++ {
		s := newServer(t, true, opts)
		if i < 3 {
			c.Primaries = append(c.Primaries, s)
		} else {
			c.Replicas = append(c.Replicas, s)
		}
	}
	// The six processes start together; then each is waited for.
	for _, n := range c.Nodes() {
		n.waitReady()
	}
	for i, p := range c.Primaries {
		lo, hi := i*16384/3, (i+1)*16384/3-1
		p.MustDo("CLUSTER", "ADDSLOTSRANGE", strconv.Itoa(lo), strconv.Itoa(hi))
	}
	// Every node meets every other: each learns the others from its own
	// handshakes instead of waiting for gossip to carry them (a MEET of a
	// node already known is folded into it when the handshake completes).
	for _, m := range c.Nodes() {
		for _, n := range c.Nodes() {
			if m != n {
				m.MustDo("CLUSTER", "MEET", "127.0.0.1", strconv.Itoa(n.Port))
			}
		}
	}
	for _, n := range c.Nodes() {
		n.waitFor("all 6 nodes known", func() bool { return countNodes(n) == 6 })
	}
	for i, r := range c.Replicas {
		id := c.Primaries[i].ID()
		r.waitFor("primary known", func() bool {
			return r.Do(context.Background(), "CLUSTER", "REPLICATE", id).Error() == nil
		})
	}
	c.WaitOK()
	return c
}

// ID returns the node's cluster node id.
func (s *Server) ID() string {
	s.t.Helper()
	id, err := s.Do(context.Background(), "CLUSTER", "MYID").ToString()
	if err != nil {
		s.t.Fatalf("redistest: CLUSTER MYID on %s: %v", s.Addr, err)
	}
	return id
}

func countNodes(s *Server) int {
	out, err := s.Do(context.Background(), "CLUSTER", "NODES").ToString()
	if err != nil {
		return 0
	}
	return len(strings.Split(strings.TrimSpace(out), "\n"))
}

// WaitOK waits until every running node reports cluster_state:ok, sees 3
// primaries with replicas, and every replica's link to its primary is up.
func (c *Cluster) WaitOK() {
	c.t.Helper()
	for _, n := range c.Nodes() {
		if n.Pid() == 0 {
			continue
		}
		n.waitFor("cluster_state:ok with 3 replicas", func() bool {
			info, err := n.Do(context.Background(), "CLUSTER", "INFO").ToString()
			if err != nil || !strings.Contains(info, "cluster_state:ok") {
				return false
			}
			out, err := n.Do(context.Background(), "CLUSTER", "NODES").ToString()
			if err != nil {
				return false
			}
			if strings.Count(out, "slave") < 3-c.stopped() {
				return false
			}
			return c.stopped() > 0 || slotsWithReplicas(n) == 3
		})
	}
	for _, r := range c.Nodes() {
		if r.Pid() == 0 {
			continue
		}
		r.waitFor("replica link up", func() bool {
			info, err := r.Do(context.Background(), "INFO", "replication").ToString()
			if err != nil {
				return false
			}
			return strings.Contains(info, "role:master") || strings.Contains(info, "master_link_status:up")
		})
	}
}

// slotsWithReplicas counts the slot ranges that CLUSTER SLOTS on s lists with
// a primary and at least one replica, as clients see them.
func slotsWithReplicas(s *Server) int {
	msg, err := s.Do(context.Background(), "CLUSTER", "SLOTS").ToMessage()
	if err != nil {
		return 0
	}
	ranges, err := msg.ToArray()
	if err != nil {
		return 0
	}
	n := 0
	for _, r := range ranges {
		if fields, err := r.ToArray(); err == nil && len(fields) >= 4 {
			n++
		}
	}
	return n
}

func (c *Cluster) stopped() int {
	n := 0
	for _, s := range c.Nodes() {
		if s.Pid() == 0 {
			n++
		}
	}
	return n
}

// Client returns a rueidis cluster client seeded with every node, closed in
// t.Cleanup.
func (c *Cluster) Client() rueidis.Client {
	c.t.Helper()
	cl, err := rueidis.NewClient(rueidis.ClientOption{
		InitAddress:  c.Addrs(),
		Password:     c.Primaries[0].Password,
		DisableCache: true,
	})
	if err != nil {
		c.t.Fatalf("redistest: connect cluster: %v", err)
	}
	c.t.Cleanup(cl.Close)
	return cl
}

// Failover runs CLUSTER FAILOVER on replica i and waits until it is a primary
// and the cluster is ok again. Primaries and Replicas are swapped at index i.
func (c *Cluster) Failover(i int) {
	c.t.Helper()
	r := c.Replicas[i]
	r.MustDo("CLUSTER", "FAILOVER")
	r.waitFor("failover to complete", func() bool {
		info, err := r.Do(context.Background(), "INFO", "replication").ToString()
		return err == nil && strings.Contains(info, "role:master")
	})
	c.Primaries[i], c.Replicas[i] = c.Replicas[i], c.Primaries[i]
	c.WaitOK()
}

// String describes the cluster for test logs.
func (c *Cluster) String() string {
	var b strings.Builder
	for i := range c.Primaries {
		fmt.Fprintf(&b, "primary %s replica %s; ", c.Primaries[i].Addr, c.Replicas[i].Addr)
	}
	return strings.TrimSuffix(b.String(), "; ")
}
