package loader

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/rueidis"

	"github.com/scriptctl/scriptctl/slot"
)

// Role is a node's replication role.
type Role string

// Roles. A node that could not be reached has the role its peers report, or
// RoleUnknown.
const (
	RolePrimary Role = "primary"
	RoleReplica Role = "replica"
	RoleUnknown Role = "unknown"
)

// Node is one Redis server of the deployment.
type Node struct {
	Addr    string // host:port as given or as the cluster announces it
	Role    Role
	Primary string // a replica's primary, host:port; "" for primaries
	// Family is the server's family, "redis" or "valkey" (INFO server's
	// server_name; Redis before 7.2 has none and is "redis"); Version is
	// that family's version (valkey_version on Valkey, whose redis_version
	// stays 7.2.4 for compatibility). Both are "" when unreachable.
	Family  string
	Version string
	// RedisVersion is INFO's redis_version as the server reports it (7.2.4
	// on every Valkey so far).
	RedisVersion string
	// Err is why the node cannot be used (connection refused, wrong
	// password, timeout); nil when it is connected.
	Err error

	conn  *conn
	runID string
	seed  int      // position among the seeds given, or -1 for a discovered node
	slots [][2]int // cluster primaries: the slot ranges they serve
	// probed holds the replies to the permission probes sent with the
	// node's discovery (ConnectFor), by probeKey.
	probed map[string]rueidis.RedisResult
}

// RunID is the server's run_id (INFO server): a restarted server, whose
// script cache is empty again, has another. "" when unreachable.
func (n *Node) RunID() string { return n.runID }

// OK reports whether the node is connected.
func (n *Node) OK() bool { return n.Err == nil && n.conn != nil }

// SupportsFunctions reports whether the node's server has Functions: Redis
// 7.0 or newer, or any Valkey (whose first release is 7.2).
func (n *Node) SupportsFunctions() bool {
	if n.Family == FamilyValkey {
		return true
	}
	major, _, _ := strings.Cut(n.Version, ".")
	v, err := strconv.Atoi(major)
	return err == nil && v >= 7
}

// Server families.
const (
	FamilyRedis  = "redis"
	FamilyValkey = "valkey"
)

// serverFamily reads the family and the family's own version from INFO
// server. Valkey reports server_name:valkey and valkey_version, and keeps
// redis_version at 7.2.4 for clients that check it.
func serverFamily(info map[string]string) (family, version string) {
	name := strings.ToLower(info["server_name"])
	switch {
	case name == FamilyValkey || info["valkey_version"] != "":
		return FamilyValkey, info["valkey_version"]
	case name != "" && name != FamilyRedis:
		// Another server speaking the protocol: keep its name visible.
		return name, info["redis_version"]
	}
	return FamilyRedis, info["redis_version"]
}

// decideMode tells a cluster node from a standalone server or a Sentinel.
// Redis says redis_mode, Valkey server_mode; INFO cluster's cluster_enabled
// (every server since Redis 3.0) settles it when both are missing, and must
// agree when one is given, because taking a cluster node for a standalone
// server deploys to one shard and reports success. When the mode cannot be
// told, the node is refused.
func decideMode(server, cluster map[string]string) (string, error) {
	mode := server["redis_mode"]
	if mode == "" {
		mode = server["server_mode"]
	}
	if mode == "sentinel" {
		return mode, nil
	}
	var enabled string
	switch cluster["cluster_enabled"] {
	case "1":
		enabled = "cluster"
	case "0":
		enabled = "standalone"
	}
	switch {
	case enabled == "" && mode == "":
		return "", fmt.Errorf("cannot tell whether this is a cluster node: INFO has neither redis_mode, server_mode nor cluster_enabled; refusing rather than risk a partial deploy")
	case enabled == "":
		return mode, nil
	case mode != "" && mode != enabled:
		return "", fmt.Errorf("INFO disagrees with itself: mode %q but cluster_enabled:%s; refusing rather than risk a partial deploy", mode, cluster["cluster_enabled"])
	}
	return enabled, nil
}

// Topology is every node of a standalone deployment (a primary and its
// replicas, or several given servers) or of a Redis Cluster.
type Topology struct {
	Cluster bool
	Nodes   []*Node // each primary followed by its replicas; unreachable nodes of unknown role last
	// work is the work ConnectFor was given: each node's probed holds the
	// replies to its permission probes.
	work *Work
}

// Dialer connects to the single node at addr.
type Dialer func(ctx context.Context, addr string) (rueidis.Client, error)

// Connect discovers the deployment from the seed addresses: in a cluster,
// every node CLUSTER NODES lists; standalone, the seeds plus the replicas
// their INFO replication lists and the primaries their ROLE names. Every node is dialed once and asked ROLE and
// INFO server. A node that cannot be reached is kept with its Err set, so
// every command can name it. Connect fails only when the seeds disagree (a
// mix of cluster and standalone servers, a Sentinel) or ctx ends.
func Connect(ctx context.Context, dial Dialer, seeds []string, timeout time.Duration) (*Topology, error) {
	return dialTopology(ctx, dial, seeds, timeout, nil)
}

// ConnectFor is Connect for a run about to do w (deploy, prune): each
// node's discovery round trip also carries the permission probes
// CheckPermissions sends for w, so that check then needs no round trip of
// its own. A seed is sent every probe w may need on any node (its role is
// not known before its reply); a cluster node CLUSTER NODES named is sent
// those its role there and its slots call for (the lock's probes only to
// the primary serving the lock key's slot, FUNCTION LOAD's only to
// primaries), and every probe of Functions whatever its version. When a
// node's reply then says otherwise (a failover between the two), the
// probes it lacks are sent by CheckPermissions in a round trip of their
// own. The probes change nothing (see CheckPermissions).
func ConnectFor(ctx context.Context, dial Dialer, seeds []string, timeout time.Duration, w Work) (*Topology, error) {
	return dialTopology(ctx, dial, seeds, timeout, &w)
}

func dialTopology(ctx context.Context, dial Dialer, seeds []string, timeout time.Duration, w *Work) (*Topology, error) {
	if timeout <= 0 {
		timeout = 5 * time.Second
	}
	d := &discovery{dial: dial, timeout: timeout, byAddr: map[string]*Node{}, work: w}
	if w != nil {
		d.probes = allProbes(*w)
	}
	for i, s := range seeds {
		d.add(s, i)
	}
	d.probeNew(ctx)
	if err := ctx.Err(); err != nil {
		d.close()
		return nil, err
	}
	t := &Topology{work: w}
	modes := map[string][]string{}
	for _, n := range d.nodes {
		if n.OK() {
			modes[n.mode] = append(modes[n.mode], n.Addr)
		}
	}
	if len(modes["sentinel"]) > 0 {
		d.close()
		return nil, fmt.Errorf("%s is a Sentinel: give the URLs of the Redis servers it monitors", modes["sentinel"][0])
	}
	if len(modes["cluster"]) > 0 && len(modes["standalone"]) > 0 {
		d.close()
		return nil, fmt.Errorf("%s is a cluster node but %s is a standalone server: give the nodes of one deployment", modes["cluster"][0], modes["standalone"][0])
	}
	if len(modes["cluster"]) > 0 {
		t.Cluster = true
		if err := d.cluster(ctx); err != nil {
			d.close()
			return nil, err
		}
	} else {
		d.standalone(ctx)
	}
	if err := ctx.Err(); err != nil {
		d.close()
		return nil, err
	}
	t.Nodes = d.ordered()
	return t, nil
}

// Close closes every node connection, all at once.
func (t *Topology) Close() {
	var wg sync.WaitGroup
	for _, n := range t.Nodes {
		if n.conn != nil {
			wg.Add(1)
			go func() {
				defer wg.Done()
				n.conn.Close()
			}()
		}
	}
	wg.Wait()
}

// Primaries returns the primaries, reachable or not.
func (t *Topology) Primaries() []*Node {
	var out []*Node
	for _, n := range t.Nodes {
		if n.Role == RolePrimary {
			out = append(out, n)
		}
	}
	return out
}

// Unreachable returns the nodes that could not be used.
func (t *Topology) Unreachable() []*Node {
	var out []*Node
	for _, n := range t.Nodes {
		if !n.OK() {
			out = append(out, n)
		}
	}
	return out
}

// owner returns the primary that serves key: in a cluster the primary of the
// key's slot, standalone the first primary given as a seed (else the first
// primary).
func (t *Topology) owner(key string) (*Node, error) {
	if t.Cluster {
		s := slot.Of(key)
		for _, n := range t.Nodes {
			if n.Role != RolePrimary {
				continue
			}
			for _, r := range n.slots {
				if s >= r[0] && s <= r[1] {
					return n, nil
				}
			}
		}
		return nil, fmt.Errorf("no primary serves slot %d of %s", s, key)
	}
	var best *Node
	for _, n := range t.Nodes {
		if n.Role == RolePrimary && (best == nil || (n.seed >= 0 && (best.seed < 0 || n.seed < best.seed))) {
			best = n
		}
	}
	if best == nil {
		return nil, fmt.Errorf("no primary among the servers given")
	}
	return best, nil
}

type discovery struct {
	dial    Dialer
	timeout time.Duration
	nodes   []*probe
	byAddr  map[string]*Node
	probed  map[*probe]bool
	probes  []aclProbe // the permission probes a seed is sent (ConnectFor)
	work    *Work      // ConnectFor's work, nil for Connect
}

type probe struct {
	*Node
	mode     string   // redis_mode: standalone, cluster, sentinel
	replicas []string // the replicas the node lists
	replID   string   // master_replid
	listedBy *probe   // the node whose replica list named this one, if discovered so
	// clusterNodes is the first seed's CLUSTER NODES, asked with its
	// probe; "" when not asked or refused.
	clusterNodes string
	// probes, when not nil, are the permission probes this node is sent
	// instead of the discovery's (a node CLUSTER NODES named).
	probes []aclProbe
}

func (d *discovery) add(addr string, seed int) *probe {
	if n, ok := d.byAddr[addr]; ok {
		for _, p := range d.nodes {
			if p.Node == n {
				return p
			}
		}
	}
	p := &probe{Node: &Node{Addr: addr, Role: RoleUnknown, seed: seed}}
	d.byAddr[addr] = p.Node
	d.nodes = append(d.nodes, p)
	return p
}

// probeNew dials every node not dialed yet, in parallel, and asks INFO
// server and ROLE.
func (d *discovery) probeNew(ctx context.Context) {
	if d.probed == nil {
		d.probed = map[*probe]bool{}
	}
	var todo []*probe
	for _, p := range d.nodes {
		if !d.probed[p] {
			d.probed[p] = true
			todo = append(todo, p)
		}
	}
	parallel(len(todo), DefaultParallel, func(i int) { d.probe(ctx, todo[i]) })
	// Two addresses for one server (localhost and 127.0.0.1, an announced
	// address): keep the first, by run_id.
	seen := map[string]*probe{}
	var keep []*probe
	for _, p := range d.nodes {
		if p.runID != "" {
			if first, dup := seen[p.runID]; dup {
				if p.conn != nil && p.conn != first.conn {
					p.conn.Close()
				}
				d.byAddr[p.Addr] = first.Node
				continue
			}
			seen[p.runID] = p
		}
		keep = append(keep, p)
	}
	d.nodes = keep
}

func (d *discovery) probe(ctx context.Context, p *probe) {
	dctx, cancel := context.WithTimeout(ctx, d.timeout)
	defer cancel()
	c, err := d.dial(dctx, p.Addr)
	if err != nil {
		p.Err = classify(err)
		return
	}
	cn := &conn{c: c, timeout: d.timeout}
	// One round trip: everything discovery asks a node.
	b := c.B()
	cmds := []rueidis.Completed{b.Info().Section("server").Build(), b.Info().Section("cluster").Build(),
		b.Role().Build(), b.Info().Section("replication").Build()}
	nodesAt := -1
	if p.seed == 0 {
		// In a cluster the first seed's CLUSTER NODES names the rest: ask
		// now rather than in a round trip of its own. A standalone server
		// answers with an error, which is ignored.
		nodesAt = len(cmds)
		cmds = append(cmds, b.ClusterNodes().Build())
	}
	probes := d.probes
	if p.probes != nil {
		probes = p.probes
	}
	probesAt := len(cmds)
	for _, pr := range probes {
		cmds = append(cmds, cn.arbitrary(pr.args...))
	}
	res := cn.doMulti(ctx, cmds...)
	if nodesAt >= 0 {
		// An error reply's ToString carries its text: keep only a reply.
		if text, err := res[nodesAt].ToString(); err == nil {
			p.clusterNodes = text
		}
	}
	if len(probes) > 0 {
		p.probed = make(map[string]rueidis.RedisResult, len(probes))
		for i, pr := range probes {
			p.probed[probeKey(pr.args)] = res[probesAt+i]
		}
	}
	fail := func(err error) {
		cn.Close()
		p.Err = err
	}
	server, err := res[0].ToString()
	if err != nil {
		fail(classify(fmt.Errorf("INFO server: %w", err)))
		return
	}
	info := parseInfo(server)
	p.Family, p.Version = serverFamily(info)
	p.RedisVersion = info["redis_version"]
	p.runID = info["run_id"]
	if info["redis_mode"] == "sentinel" || info["server_mode"] == "sentinel" {
		p.mode = "sentinel"
		p.conn = cn
		return
	}
	cluster, err := res[1].ToString()
	if err != nil {
		fail(fmt.Errorf("INFO cluster: %w", err))
		return
	}
	if p.mode, err = decideMode(info, parseInfo(cluster)); err != nil {
		fail(err)
		return
	}
	r, err := parseRole(res[2])
	if err != nil {
		fail(fmt.Errorf("ROLE: %w", err))
		return
	}
	switch r.Role {
	case "master":
		p.Role = RolePrimary
	case "slave":
		p.Role = RoleReplica
		p.Primary = r.Primary
	}
	p.replicas = r.Replicas
	if p.mode != "cluster" {
		if ri, err := parseReplication(res[3]); err == nil {
			p.replicas, p.replID = ri.Replicas, ri.ReplID
		}
	}
	p.conn = cn
}

// standalone follows replication links: the replicas a node lists and a
// replica's primary join the node set, a few hops deep.
func (d *discovery) standalone(ctx context.Context) {
	for round := 0; round < 3; round++ {
		before := len(d.nodes)
		for _, p := range append([]*probe{}, d.nodes...) {
			if !p.OK() {
				continue
			}
			for _, r := range p.replicas {
				if d.byAddr[r] == nil {
					q := d.add(r, -1)
					q.Role, q.Primary, q.listedBy = RoleReplica, p.Addr, p
				}
			}
			if p.Primary != "" && d.byAddr[p.Primary] == nil {
				q := d.add(p.Primary, -1)
				q.Role = RolePrimary
			}
		}
		if len(d.nodes) == before {
			break
		}
		d.probeNew(ctx)
	}
	// A replica names its primary as configured (a hostname, say), which
	// may not be how the primary was given: match them by replication ID.
	byReplID := map[string]*probe{}
	for _, p := range d.nodes {
		if p.OK() && p.Role == RolePrimary && p.replID != "" {
			byReplID[p.replID] = p
		}
	}
	reachable := map[*probe]int{}
	for _, p := range d.nodes {
		if p.Role != RoleReplica {
			continue
		}
		if prim := byReplID[p.replID]; p.OK() && prim != nil {
			p.Primary = prim.Addr
			reachable[prim]++
		} else if n := d.byAddr[p.Primary]; n != nil {
			p.Primary = n.Addr
		}
	}
	// A replica announces an address of its own choosing. When it cannot be
	// dialed but the primary's replicas are all accounted for among the
	// nodes given, it is one of them under another name: drop it.
	var keep []*probe
	for _, p := range d.nodes {
		if !p.OK() && p.seed < 0 && p.listedBy != nil && reachable[p.listedBy] >= len(p.listedBy.replicas) {
			delete(d.byAddr, p.Addr)
			continue
		}
		keep = append(keep, p)
	}
	d.nodes = keep
}

// cluster reads CLUSTER NODES from the first reachable cluster node and
// dials every member.
func (d *discovery) cluster(ctx context.Context) error {
	var entries []clusterNode
	var lastErr error
	for _, p := range d.nodes {
		if !p.OK() {
			continue
		}
		text := p.clusterNodes
		var err error
		if p.mode != "cluster" || text == "" {
			text, err = p.conn.ClusterNodes(ctx)
		}
		if err != nil {
			lastErr = fmt.Errorf("%s: CLUSTER NODES: %w", p.Addr, err)
			continue
		}
		entries, err = parseClusterNodes(text)
		if err != nil {
			lastErr = fmt.Errorf("%s: CLUSTER NODES: %w", p.Addr, err)
			continue
		}
		// myself may be announced under another address than the seed's.
		for _, e := range entries {
			if e.myself && e.addr != p.Addr && d.byAddr[e.addr] == nil {
				d.byAddr[e.addr] = p.Node
			}
		}
		break
	}
	if entries == nil {
		return lastErr
	}
	lockSlot := -1
	if d.work != nil && d.work.Lock != "" {
		lockSlot = slot.Of(LockKey(d.work.Lock))
	}
	byID := map[string]clusterNode{}
	for _, e := range entries {
		byID[e.id] = e
		if d.byAddr[e.addr] == nil {
			p := d.add(e.addr, -1)
			if d.work != nil {
				// The probes the node needs as CLUSTER NODES describes
				// it, Functions assumed (see ConnectFor).
				role := RoleReplica
				if e.primary {
					role = RolePrimary
				}
				lock := false
				for _, r := range e.slots {
					lock = lock || e.primary && lockSlot >= r[0] && lockSlot <= r[1]
				}
				p.probes = append([]aclProbe{}, permissionProbes(&Node{Role: role, Family: FamilyValkey}, *d.work, lock)...)
			}
		}
	}
	d.probeNew(ctx)
	for _, e := range entries {
		n := d.byAddr[e.addr]
		if n == nil {
			continue
		}
		n.slots = e.slots
		if !n.OK() && e.failed && n.Err != nil {
			n.Err = fmt.Errorf("%w (the cluster marks it failed; CLUSTER FORGET a node that is gone for good)", n.Err)
		}
		if !n.OK() || n.Role == RoleUnknown {
			n.Role = RolePrimary
			if !e.primary {
				n.Role = RoleReplica
			}
		}
		if n.Role == RoleReplica {
			if m, ok := byID[e.primaryID]; ok {
				n.Primary = m.addr
				if mn := d.byAddr[m.addr]; mn != nil {
					n.Primary = mn.Addr
				}
			}
		}
	}
	return nil
}

func (d *discovery) close() {
	t := &Topology{}
	for _, p := range d.nodes {
		t.Nodes = append(t.Nodes, p.Node)
	}
	t.Close()
}

// ordered returns the nodes: each primary (by address) followed by its
// replicas (by address), then the rest.
func (d *discovery) ordered() []*Node {
	var prim, rest []*Node
	reps := map[string][]*Node{}
	for _, p := range d.nodes {
		switch {
		case p.Role == RolePrimary:
			prim = append(prim, p.Node)
		case p.Role == RoleReplica && p.Primary != "":
			reps[p.Primary] = append(reps[p.Primary], p.Node)
		default:
			rest = append(rest, p.Node)
		}
	}
	byAddr := func(s []*Node) { sort.Slice(s, func(i, j int) bool { return addrLess(s[i].Addr, s[j].Addr) }) }
	byAddr(prim)
	var out []*Node
	for _, p := range prim {
		out = append(out, p)
		r := reps[p.Addr]
		byAddr(r)
		out = append(out, r...)
		delete(reps, p.Addr)
	}
	for _, r := range reps {
		rest = append(rest, r...)
	}
	byAddr(rest)
	return append(out, rest...)
}

// addrLess orders host:port by host, then numerically by port.
func addrLess(a, b string) bool {
	ha, pa := splitPort(a)
	hb, pb := splitPort(b)
	if ha != hb {
		return ha < hb
	}
	return pa < pb
}

func splitPort(addr string) (string, int) {
	i := strings.LastIndex(addr, ":")
	if i < 0 {
		return addr, 0
	}
	p, _ := strconv.Atoi(addr[i+1:])
	return addr[:i], p
}

// clusterNode is one line of CLUSTER NODES.
type clusterNode struct {
	id        string
	addr      string // host:port (the bus port and hostname dropped)
	primary   bool
	myself    bool
	failed    bool
	primaryID string
	slots     [][2]int
}

// parseClusterNodes parses the text of CLUSTER NODES. Lines without a
// usable address (noaddr, handshake) are skipped.
func parseClusterNodes(text string) ([]clusterNode, error) {
	var out []clusterNode
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		f := strings.Fields(line)
		if len(f) < 8 {
			return nil, fmt.Errorf("line %d: %d fields, want at least 8", i+1, len(f))
		}
		e := clusterNode{id: f[0], primaryID: f[3]}
		flags := strings.Split(f[2], ",")
		skip := false
		for _, fl := range flags {
			switch fl {
			case "master":
				e.primary = true
			case "myself":
				e.myself = true
			case "fail", "fail?":
				e.failed = true
			case "noaddr", "handshake":
				skip = true
			}
		}
		addr := f[1]
		if j := strings.IndexAny(addr, "@,"); j >= 0 {
			addr = addr[:j]
		}
		host, port := splitPort(addr)
		if skip || host == "" || port <= 0 || port > 65535 {
			continue
		}
		e.addr = addr
		for _, s := range f[8:] {
			if strings.HasPrefix(s, "[") {
				continue // a slot being imported or migrated
			}
			lo, hi, isRange := strings.Cut(s, "-")
			a, err := strconv.Atoi(lo)
			if err != nil || a < 0 || a >= slot.Count {
				return nil, fmt.Errorf("line %d: bad slot %q", i+1, s)
			}
			b := a
			if isRange {
				if b, err = strconv.Atoi(hi); err != nil || b < a || b >= slot.Count {
					return nil, fmt.Errorf("line %d: bad slot range %q", i+1, s)
				}
			}
			e.slots = append(e.slots, [2]int{a, b})
		}
		out = append(out, e)
	}
	return out, nil
}
