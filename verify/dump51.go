package verify

import (
	"encoding/binary"
	"sync"

	lua "github.com/yuin/gopher-lua"

	"github.com/scriptctl/scriptctl/verify/luac51"
)

// string.dump. The servers the engine imitates keep Lua 5.1's string.dump
// (since the fix for CVE-2015-4335 they refuse binary chunks in load and
// loadstring, which compile every chunk as text, but not the dump): a Lua
// function dumps to Lua 5.1 bytecode, a C function fails with "unable to
// dump given function". gopher-lua compiles to its own
// instructions, so the engine compiles the function's chunk a second time
// with Lua 5.1's own compiler (package luac51), only when a script calls
// string.dump (or already when it compiled the chunk, zeroconst.go), and
// dumps the prototype at the same place in that chunk: the
// bytes are the server's. A function whose chunk the engine cannot find
// again (it should not happen) falls back to Lua 5.1's 12-byte header and
// the source name, with a warning that the rest is not the server's.
func (r *scriptRun) strDump(L *lua.LState) int {
	if L.GetTop() == 0 {
		L.ArgError(1, "function expected, got no value")
	}
	fn := L.CheckFunction(1)
	if fn.IsG {
		L.Error(lua.LString("unable to dump given function"), 0)
	}
	if b, ok := r.dump51(fn.Proto); ok {
		r.grow(L, len(b))
		L.Push(lua.LString(b))
		return 1
	}
	b := append([]byte(nil), luac51.Header...)
	src := "=?"
	if fn.Proto != nil {
		src = fn.Proto.SourceName
	}
	b = binary.LittleEndian.AppendUint64(b, uint64(len(src)+1))
	b = append(append(b, src...), 0)
	r.e.warn("string.dump: the header is Lua 5.1's; the bytecode after it is not the server's (the function's chunk could not be compiled by Lua 5.1's compiler)")
	L.Push(lua.LString(b))
	return 1
}

// luacChunk is a chunk compiled by Lua 5.1's compiler, once, on the first
// string.dump of one of its functions (or when the chunk compiled, for its
// zero constants: compileCached).
type luacChunk struct {
	once  sync.Once
	proto *luac51.Proto
	err   error
}

func (c *compiled) luac() (*luac51.Proto, error) {
	c.dump.once.Do(func() {
		c.dump.proto, c.dump.err = luac51.Compile(c.src, c.name)
	})
	return c.dump.proto, c.dump.err
}

// dump51 is string.dump of the function whose gopher-lua prototype is p:
// the prototype at the same path (the index of each nested function among
// its siblings) in the chunk as Lua 5.1 compiles it.
// ok is false when the chunk is not found.
func (r *scriptRun) dump51(p *lua.FunctionProto) (b []byte, ok bool) {
	if p == nil {
		return nil, false
	}
	c, path := r.chunkOf(p)
	if c == nil {
		return nil, false
	}
	lp, err := c.luac()
	if err != nil {
		return nil, false
	}
	gp := c.proto
	for _, i := range path {
		if len(gp.FunctionPrototypes) != len(lp.Protos) {
			return nil, false
		}
		gp, lp = gp.FunctionPrototypes[i], lp.Protos[i]
	}
	if len(gp.FunctionPrototypes) != len(lp.Protos) {
		return nil, false
	}
	return lp.Dump(), true
}

// chunkOf finds the compiled chunk p belongs to and p's path in it: the
// run's chunk of p's name first, else every chunk the process compiled
// (a function of an earlier FUNCTION LOAD, a loadstring chunk whose short
// name another chunk reused).
func (r *scriptRun) chunkOf(p *lua.FunctionProto) (*compiled, []int) {
	if c := r.chunks[p.SourceName]; c != nil && c.proto != nil {
		if path, ok := protoPath(c.proto, p, nil); ok {
			return c, path
		}
	}
	compileCache.Lock()
	defer compileCache.Unlock()
	for _, c := range compileCache.m {
		select {
		case <-c.ready:
		default:
			continue
		}
		if c.proto == nil {
			continue
		}
		if path, ok := protoPath(c.proto, p, nil); ok {
			return c, path
		}
	}
	return nil, nil
}

// protoPath is the path from root to p: the index of each nested function
// among its siblings.
func protoPath(root, p *lua.FunctionProto, path []int) ([]int, bool) {
	if root == p {
		return path, true
	}
	for i, c := range root.FunctionPrototypes {
		if got, ok := protoPath(c, p, append(path, i)); ok {
			return got, true
		}
	}
	return nil, false
}
