// Command scriptctl owns the Redis Lua scripts and Redis Functions a service
// depends on: offline checks (lint, verify, check-keys) and online rollout
// (plan, deploy, status, prune).
package main

import (
	"os"
)

func main() {
	os.Exit(Main())
}
