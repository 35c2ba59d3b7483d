// Command funcdeploy is the second floor BenchmarkDeployCluster/functions
// measures `scriptctl deploy --mode functions` against: a minimal Go
// program that sends a cluster exactly the commands such a deploy sends,
// in the same round trips, the same pipelines and the same order, over
// rueidis with the client options scriptctl uses, and nothing else: no
// manifest, no pre-flight checks, no reading of the replies beyond what
// decides the next round trip, no report.
//
// Its round trips are those deploy's documented guarantees need
// (docs/deploy.md): each node's discovery (INFO, ROLE, the seed's CLUSTER
// NODES) with the permission probes in it (the permission check before
// anything changes: every probe to the seed, to the other nodes those
// their role and slots call for); the deploy lock's SET NX PX on the primary of the
// lock key's slot (a lease, so two deploys do not interleave); the plan
// under the lock (FUNCTION LIST WITHCODE on every node: conflicts are
// refused before anything is loaded); FUNCTION LOAD on every primary; each
// replica's FUNCTION LIST WITHCODE, polled from when its primary is done
// until it lists the library (every replica confirmed); the lock's
// release by token. What scriptctl costs above this floor is its own code;
// what this floor costs above internal/perf/funcload is the guarantees'
// round trips.
//
// Built with -tags perfdeps (deps.go) it also links scriptctl's other
// third-party packages: the same round trips after their initialisation.
//
// Usage: funcdeploy HOST:PORT LIBRARY < library, where LIBRARY is the
// manifest's library (the lock key's name) and the library's name is read
// from its #!lua line.
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/rueidis"

	"github.com/scriptctl/scriptctl/internal/perf/floor"
)

type node struct {
	addr    string
	id      string
	primary string // a replica's primary's id
	slots   [][2]int
	c       rueidis.Client
	done    chan struct{} // a primary's: closed when its load is answered
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "funcdeploy:", err)
		os.Exit(1)
	}
}

func run() error {
	if len(os.Args) != 3 {
		return errors.New("usage: funcdeploy HOST:PORT LIBRARY < library")
	}
	code, err := io.ReadAll(os.Stdin)
	if err != nil {
		return err
	}
	name := libraryName(string(code))
	key := "scriptctl:lock:{" + os.Args[2] + "}"
	ctx := context.Background()

	// Discovery: the seed, then every other node at once, each in one
	// pipeline with the permission probes.
	probes := func(c rueidis.Client) []rueidis.Completed {
		b := c.B()
		return []rueidis.Completed{
			b.Info().Section("server").Build(), b.Info().Section("cluster").Build(),
			b.Role().Build(), b.Info().Section("replication").Build(),
		}
	}
	// acl is the permission probes: every one to the seed, to the other
	// nodes those their role and slots in CLUSTER NODES call for.
	acl := func(c rueidis.Client, primary, lock bool) []rueidis.Completed {
		probes := [][]string{{"FUNCTION", "LIST", "LIBRARYNAME", floor.ProbeLibrary}}
		if primary {
			probes = append(probes, []string{"FUNCTION", "LOAD", "#!lua name=" + floor.ProbeLibrary + "\nreturn +"})
		}
		if lock {
			probes = append(probes, []string{"SET", key, "", "NX", "XX"}, []string{"GET", key}, []string{"PTTL", key},
				[]string{"EVAL", "return +", "1", key}, []string{"EVAL", floor.ACLInnerScript, "1", key})
		}
		var out []rueidis.Completed
		for _, a := range probes {
			out = append(out, c.B().Arbitrary(a[0]).Args(a[1:]...).Build())
		}
		return out
	}
	seed, err := floor.Dial(os.Args[1])
	if err != nil {
		return err
	}
	cmds := append(append(probes(seed), seed.B().ClusterNodes().Build()), acl(seed, true, true)...)
	res := seed.DoMulti(ctx, cmds...)
	text, err := res[4].ToString()
	if err != nil {
		return err
	}
	nodes, err := parseNodes(text, os.Args[1], seed)
	if err != nil {
		return err
	}
	// The lock's node: the primary of the key's slot.
	s := int(crc16(hashTag(key)) % 16384)
	var lock *node
	for _, n := range nodes {
		for _, r := range n.slots {
			if s >= r[0] && s <= r[1] {
				lock = n
			}
		}
	}
	if lock == nil {
		return fmt.Errorf("no primary serves slot %d", s)
	}
	if err := each(nodes, func(n *node) error {
		if n.c != nil {
			return nil
		}
		c, err := floor.Dial(n.addr)
		if err != nil {
			return err
		}
		n.c = c
		return c.DoMulti(ctx, append(probes(c), acl(c, n.done != nil, n == lock)...)...)[0].Error()
	}); err != nil {
		return err
	}
	// Every connection closed at once, as scriptctl closes them.
	defer each(nodes, func(n *node) error {
		n.c.Close()
		return nil
	})

	// The lock, on the primary of the key's slot.
	token := make([]byte, 16)
	if _, err := rand.Read(token); err != nil {
		return err
	}
	host, _ := os.Hostname()
	value := fmt.Sprintf("%s host=%s pid=%d since=%s", hex.EncodeToString(token), host, os.Getpid(), time.Now().UTC().Format(time.RFC3339))
	if err := lock.c.Do(ctx, lock.c.B().Set().Key(key).Value(value).Nx().PxMilliseconds(15000).Build()).Error(); err != nil {
		return fmt.Errorf("lock: %w", err)
	}

	// The plan, under the lock.
	list := func(c rueidis.Client) rueidis.Completed {
		return c.B().Arbitrary("FUNCTION", "LIST").Args("LIBRARYNAME", name, "WITHCODE").Build()
	}
	if err := each(nodes, func(n *node) error {
		return n.c.Do(ctx, list(n.c)).Error()
	}); err != nil {
		return err
	}

	// The loads on the primaries; each replica's confirmation as soon as
	// its primary is done.
	byID := map[string]*node{}
	for _, n := range nodes {
		byID[n.id] = n
	}
	if err := each(nodes, func(n *node) error {
		if n.done != nil {
			defer close(n.done)
			return n.c.Do(ctx, n.c.B().FunctionLoad().FunctionCode(string(code)).Build()).Error()
		}
		<-byID[n.primary].done
		for delay := 2 * time.Millisecond; ; delay = min(2*delay, 100*time.Millisecond) {
			libs, err := n.c.Do(ctx, list(n.c)).ToArray()
			if err != nil || len(libs) > 0 {
				return err
			}
			time.Sleep(delay)
		}
	}); err != nil {
		return err
	}

	return lock.c.Do(ctx, lock.c.B().Eval().Script(floor.ReleaseScript).Numkeys(1).Key(key).Arg(value).Build()).Error()
}

// each runs f on every node at once and returns the first error.
func each(nodes []*node, f func(*node) error) error {
	var wg sync.WaitGroup
	errs := make([]error, len(nodes))
	for i, n := range nodes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := f(n); err != nil {
				errs[i] = fmt.Errorf("%s: %w", n.addr, err)
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// parseNodes reads CLUSTER NODES; the node marked myself is the seed.
func parseNodes(text, seedAddr string, seed rueidis.Client) ([]*node, error) {
	var out []*node
	for _, line := range strings.Split(strings.TrimSpace(text), "\n") {
		f := strings.Fields(line)
		if len(f) < 8 {
			return nil, fmt.Errorf("CLUSTER NODES: %q", line)
		}
		addr, _, _ := strings.Cut(f[1], "@")
		n := &node{addr: addr, id: f[0]}
		if strings.Contains(f[2], "myself") {
			n.addr, n.c = seedAddr, seed
		}
		if strings.Contains(f[2], "master") {
			n.done = make(chan struct{})
		} else {
			n.primary = f[3]
		}
		for _, r := range f[8:] {
			lo, hi, _ := strings.Cut(r, "-")
			a, _ := strconv.Atoi(lo)
			b, err := strconv.Atoi(hi)
			if err != nil {
				b = a
			}
			n.slots = append(n.slots, [2]int{a, b})
		}
		out = append(out, n)
	}
	return out, nil
}

// libraryName is the name on the library's #!lua line.
func libraryName(code string) string {
	line, _, _ := strings.Cut(code, "\n")
	_, name, _ := strings.Cut(line, "name=")
	name, _, _ = strings.Cut(name, " ")
	return name
}

func hashTag(key string) string {
	if i := strings.IndexByte(key, '{'); i >= 0 {
		if j := strings.IndexByte(key[i+1:], '}'); j > 0 {
			return key[i+1 : i+1+j]
		}
	}
	return key
}

// crc16 is CRC16-XMODEM, Redis Cluster's key hash.
func crc16(s string) uint16 {
	var crc uint16
	for i := 0; i < len(s); i++ {
		crc ^= uint16(s[i]) << 8
		for range 8 {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
	}
	return crc
}
