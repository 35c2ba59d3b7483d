// Command luacompile is the floor the speed benchmarks measure scriptctl's
// offline eval against: a minimal Go program that reads a Lua file, parses
// and compiles it with gopher-lua (the VM the offline engine runs on), runs
// it in a bare LState and prints its number result. It does none of the
// engine's work (Lua 5.1 syntax rules, the sandbox, the reply), so no
// offline eval can be faster than it.
package main

import (
	"bytes"
	"fmt"
	"os"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/parse"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: luacompile FILE")
		os.Exit(2)
	}
	src, err := os.ReadFile(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	chunk, err := parse.Parse(bytes.NewReader(src), "@user_script")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	proto, err := lua.Compile(chunk, "@user_script")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	L := lua.NewState(lua.Options{SkipOpenLibs: true})
	defer L.Close()
	L.Push(L.NewFunctionFromProto(proto))
	if err := L.PCall(0, 1, nil); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("(integer) %s\n", L.Get(-1).String())
}
