// Command record writes the command table of a running server in the
// format of internal/cmdtable/data:
//
//	go run ./internal/cmdtable/record -addr 127.0.0.1:6400 -target redis-8.0 > internal/cmdtable/data/redis-8.0.json
//
// It reads INFO server (the exact version), COMMAND INFO (arity, flags, key
// range, ACL categories, tips, key specs, subcommands) and COMMAND DOCS
// (group, since, doc flags, deprecation). Argument docs are left out: the
// engine and the linter do not need them and they would triple the file.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/redis/rueidis"

	"github.com/scriptctl/scriptctl/internal/cmdtable"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:6379", "address of the server to record")
	target := flag.String("target", "", "target name written in the file, such as redis-7.0")
	flag.Parse()
	if *target == "" {
		fmt.Fprintln(os.Stderr, "record: -target is required")
		os.Exit(2)
	}
	t, err := record(*addr, *target)
	if err != nil {
		fmt.Fprintln(os.Stderr, "record:", err)
		os.Exit(1)
	}
	t.RecordedWith = "go run ./internal/cmdtable/record -addr " + *addr + " -target " + *target
	if err := cmdtable.Encode(os.Stdout, t); err != nil {
		fmt.Fprintln(os.Stderr, "record:", err)
		os.Exit(1)
	}
}

func record(addr, target string) (*cmdtable.Table, error) {
	c, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{addr}, DisableCache: true})
	if err != nil {
		return nil, err
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return cmdtable.Record(ctx, c, target)
}
