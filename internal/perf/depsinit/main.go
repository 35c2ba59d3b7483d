// Command depsinit is the floor BenchmarkSpeedVersion measures `scriptctl
// version` against: a minimal Go program that links the third-party
// packages scriptctl links and so runs their package initialisation (gojq's
// builtin table, the YAML library's regexps, the Redis client's, the Lua
// VM's), then prints one line. scriptctl cannot start faster than its
// dependencies initialise; what it adds above this floor is its own.
package main

import (
	"os"

	_ "github.com/itchyny/gojq"
	_ "github.com/redis/rueidis"
	_ "github.com/spf13/cobra"
	_ "github.com/yuin/gopher-lua"
	_ "github.com/yuin/gopher-lua/parse"
	_ "golang.org/x/term"
	_ "gopkg.in/yaml.v3"
)

func main() { os.Stdout.WriteString("depsinit\n") }
