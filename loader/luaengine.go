package loader

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/redis/rueidis"
)

// NoLuaError says that nodes cannot run Lua at all: from Valkey 9.0 the Lua
// engine is a module (built in, loaded at start-up, "lua" in MODULE LIST),
// and a node that started without it or unloaded it (MODULE UNLOAD lua)
// answers every EVAL and SCRIPT LOAD with "Could not find scripting engine
// 'lua'" and every FUNCTION LOAD with "Engine 'lua' not found".
type NoLuaError struct {
	Nodes []*Node
}

func (e *NoLuaError) Error() string {
	addrs := make([]string, len(e.Nodes))
	for i, n := range e.Nodes {
		addrs[i] = n.Addr + " (" + n.Family + " " + n.Version + ")"
	}
	return fmt.Sprintf("no Lua engine: %s cannot run scripts or load functions (FUNCTION STATS lists no LUA engine); nothing was changed",
		strings.Join(addrs, ", "))
}

// Hint says what to do about it.
func (e *NoLuaError) Hint() string {
	return "restart those nodes with their Lua engine (a default Valkey 9 build loads its built-in lua module at start-up; after MODULE UNLOAD lua only a restart brings it back), then run again"
}

// luaModuleFrom is the first Valkey major release whose Lua engine is a
// module a node can lack; older servers have Lua in the core.
const luaModuleFrom = 9

// mayLackLua reports whether n's server has its Lua engine as a module.
func (n *Node) mayLackLua() bool {
	if n.Family != FamilyValkey {
		return false
	}
	major, _, _ := strings.Cut(n.Version, ".")
	v, err := strconv.Atoi(major)
	return err == nil && v >= luaModuleFrom
}

// CheckLuaEngine asks every reachable node that may lack its Lua engine
// (Valkey 9 and later) for FUNCTION STATS and returns a *NoLuaError naming
// the nodes whose engines do not include LUA; nil when every node has it.
// A node that refuses FUNCTION STATS (an ACL without it) is not judged:
// its first script command says what is wrong.
func CheckLuaEngine(ctx context.Context, tp *Topology) error {
	var nodes []*Node
	for _, n := range tp.Nodes {
		if n.OK() && n.mayLackLua() {
			nodes = append(nodes, n)
		}
	}
	missing := make([]bool, len(nodes))
	parallel(len(nodes), 0, func(i int) {
		n := nodes[i]
		has, known := hasLuaEngine(n.conn.do(ctx, n.conn.arbitrary("FUNCTION", "STATS")))
		missing[i] = known && !has
	})
	var e NoLuaError
	for i, n := range nodes {
		if missing[i] {
			e.Nodes = append(e.Nodes, n)
		}
	}
	if len(e.Nodes) == 0 {
		return nil
	}
	return &e
}

// hasLuaEngine reads FUNCTION STATS: a map (RESP2: a flat array) whose
// "engines" entry maps each loaded engine's name ("LUA") to its counts.
// known is false when the reply is an error or not of that shape.
func hasLuaEngine(res rueidis.RedisResult) (has, known bool) {
	top, err := res.AsMap()
	if err != nil {
		return false, false
	}
	eng, ok := top["engines"]
	if !ok {
		return false, false
	}
	engines, err := eng.AsMap()
	if err != nil {
		// An empty map: RESP2's empty array reads as one too, but a
		// RESP3 empty map may not.
		if arr, aerr := eng.ToArray(); aerr == nil && len(arr) == 0 {
			return false, true
		}
		return false, false
	}
	for name := range engines {
		if strings.EqualFold(name, "lua") {
			return true, true
		}
	}
	return false, true
}
