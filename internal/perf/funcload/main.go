// Command funcload is the floor BenchmarkDeployCluster/functions measures
// `scriptctl deploy --mode functions` against: a minimal Go program doing
// the least any deploy of a Functions library to a cluster does over
// rueidis, with the client options scriptctl uses. It dials the seed node
// given as its argument and reads CLUSTER NODES, dials every other node at
// once, and sends FUNCTION LOAD REPLACE of the library on standard input
// to every primary at once, printing each reply. No pre-flight checks, no
// permission check, no lock, no plan, no replica confirmation: what
// scriptctl adds above this floor is its own.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/scriptctl/scriptctl/internal/perf/floor"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "funcload:", err)
		os.Exit(1)
	}
}

func run() error {
	if len(os.Args) != 2 {
		return fmt.Errorf("usage: funcload HOST:PORT < library")
	}
	code, err := io.ReadAll(os.Stdin)
	if err != nil {
		return err
	}
	ctx := context.Background()
	seed, err := floor.Dial(os.Args[1])
	if err != nil {
		return err
	}
	defer seed.Close()
	nodes, err := seed.Do(ctx, seed.B().ClusterNodes().Build()).ToString()
	if err != nil {
		return err
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	for _, line := range strings.Split(strings.TrimSpace(nodes), "\n") {
		f := strings.Fields(line)
		if len(f) < 3 {
			continue
		}
		addr, _, _ := strings.Cut(f[1], "@")
		primary := strings.Contains(f[2], "master")
		self := strings.Contains(f[2], "myself")
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := seed
			if !self {
				var err error
				if c, err = floor.Dial(addr); err != nil {
					mu.Lock()
					firstErr = err
					mu.Unlock()
					return
				}
				defer c.Close()
			}
			if !primary {
				return
			}
			name, err := c.Do(ctx, c.B().FunctionLoad().Replace().FunctionCode(string(code)).Build()).ToString()
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				firstErr = fmt.Errorf("%s: %w", addr, err)
				return
			}
			fmt.Printf("%s: %s\n", addr, name)
		}()
	}
	wg.Wait()
	return firstErr
}
