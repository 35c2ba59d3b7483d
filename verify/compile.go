package verify

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/ast"

	"github.com/scriptctl/scriptctl/verify/luac51"
)

// compileSites turns Lua source into a function prototype the way Redis's Lua 5.1
// would accept it. source is the chunk name Lua 5.1 gives the chunk
// ("@user_script", or a loadstring chunk's text); the prototype is named by
// its short form (luaO_chunkid), which is what error positions print.
//
// What differs from a plain gopher-lua compile:
//   - the engine's Lua 5.1 parser reads the chunk (syntax51.go), so syntax
//     errors are Lua 5.1's, goto and labels included;
//   - Lua 5.1's own compiler (luac51) compiles the chunk too, so that a
//     chunk past one of its limits fails as on the servers ("function at
//     line 3 has more than 60 upvalues", "main function has more than 200
//     local variables", "function or expression too complex", "constant
//     table overflow", "control structure too long"); gopher-lua has
//     other limits or none. A big chunk is compiled by both at once;
//   - operators, calls and field accesses get the lines Lua 5.1's code
//     generator gives their instructions (oplines.go);
//   - every a .. b becomes a call of a hidden helper that formats numbers
//     with %.14g (gopher-lua's VM would use Go's formatting) and names the
//     operand in its error like Lua 5.1 ("local 'x'");
//   - % and ^ become calls of a helper computing them like Lua 5.1;
//   - a multiple assignment evaluates every value before assigning (gopher-
//     lua 1.1.2 miscompiles a, b = b, a);
//   - a numeric for's header goes through a helper that converts and checks
//     its values like Lua 5.1 (strings accepted, Lua 5.1's errors);
//   - the helpers are globals whose names hold a NUL byte, so no script can
//     name them; next and pairs skip them;
//   - where a numeral folds to -0, each function's one zero constant gets
//     the sign Lua 5.1's compiler gives it (zeroconst.go); luac is then
//     that compile, for string.dump to reuse (nil otherwise).
//
// The error is the message Lua would put after "Error compiling script":
// "user_script:1: ...".
func compileSites(src []byte, source string) (proto *lua.FunctionProto, luac *luac51.Proto, err error) {
	chunk, negZero, err := rewriteChunk(src, source)
	if err != nil {
		return nil, nil, err
	}
	var (
		lp   *luac51.Proto
		lerr error
		done = make(chan struct{})
	)
	lua51 := func() {
		defer close(done)
		lp, lerr = luac51.Compile(src, source)
	}
	if len(src) >= bigSource {
		go lua51() // on another core while gopher-lua compiles
	} else {
		lua51()
	}
	proto, gerr := lua.Compile(chunk, chunkID(source))
	<-done
	var le *luac51.Error
	if errors.As(lerr, &le) {
		// Lua 5.1 refuses the chunk past a limit of its compiler (a
		// luac51.InternalError is a bug of the port: it is not believed)
		return nil, nil, &syntaxError{le.Msg}
	}
	if gerr != nil {
		return nil, nil, fmt.Errorf("%s", strings.TrimSpace(gerr.Error()))
	}
	trimProto(proto)
	if negZero && lerr == nil && matchZeros(proto, lp) {
		luac = lp
	}
	return proto, luac, nil
}

// rewriteChunk parses (parse51) and rewrites src (see compileSites).
// negZero reports a numeral that Lua 5.1 folds to -0 (zeroconst.go).
func rewriteChunk(src []byte, source string) (chunk []ast.Stmt, negZero bool, err error) {
	chunk, info, err := parse51(src, chunkID(source))
	if err != nil {
		return nil, false, err
	}
	rw := &rewriter{forDo: info.forDo, forSeen: map[int]int{}}
	rw.block(chunk)
	return chunk, rw.negZero, nil
}

// trimProto gives every slice of a compiled prototype its exact length:
// gopher-lua allocates each function's code and line table with room for
// 1024 instructions, about 16 KB a function that a cached script would
// otherwise hold for good.
func trimProto(p *lua.FunctionProto) {
	p.Code = slices.Clone(p.Code)
	p.Constants = slices.Clone(p.Constants)
	p.FunctionPrototypes = slices.Clone(p.FunctionPrototypes)
	p.DbgSourcePositions = slices.Clone(p.DbgSourcePositions)
	p.DbgLocals = slices.Clone(p.DbgLocals)
	p.DbgCalls = slices.Clone(p.DbgCalls)
	p.DbgUpvalues = slices.Clone(p.DbgUpvalues)
	for _, c := range p.FunctionPrototypes {
		trimProto(c)
	}
}

// compiled is one chunk compiled once per process and shared by every
// engine and run that loads the same source under the same chunk name: the
// prototype (never changed once compiled, so runs may share it), or the
// compile error.
type compiled struct {
	proto *lua.FunctionProto
	err   error
	src   []byte        // the source as compiled, kept to rebuild the locals' ranges
	name  string        // the chunk name it was compiled as
	ready chan struct{} // closed when proto and err are set

	dump luacChunk // Lua 5.1's compile, for string.dump (dump51.go)

	scopesOnce sync.Once
	scopes     scopeChunk
}

// localScopes returns the locals' ranges of every function of the chunk
// (operands.go), built on the first runtime error that needs them.
func (c *compiled) localScopes() scopeChunk {
	c.scopesOnce.Do(func() { c.scopes = localScopes(c) })
	return c.scopes
}

// Bounds of the process-wide compile cache: when either is passed the cache
// starts over (entries in use stay valid for the runs holding them).
const (
	maxCachedScripts     = 1000
	maxCachedSourceBytes = 64 << 20
)

// bigSource is the size from which chunks compile one at a time.
const bigSource = 256 << 10

var bigCompile sync.Mutex

// compileCache holds every chunk compiled in the process, by chunk name
// and SHA1 of the source, so that runs, engines and scenario runs compile a
// script once.
var compileCache struct {
	sync.Mutex
	m     map[string]*compiled
	bytes int
}

// compileCached returns the cached compile of src as source, compiling it
// on first use. Engines that ask for the same chunk while it compiles (the
// pre-flight's one engine per target) wait for that compile instead of
// repeating it.
func compileCached(src []byte, source string) *compiled {
	sum := scriptSums(src).sum
	key := source + "\x00" + string(sum[:])
	compileCache.Lock()
	if c, ok := compileCache.m[key]; ok {
		compileCache.Unlock()
		<-c.ready
		return c
	}
	if compileCache.m == nil || len(compileCache.m) >= maxCachedScripts || compileCache.bytes+len(src) > maxCachedSourceBytes {
		compileCache.m, compileCache.bytes = map[string]*compiled{}, 0
	}
	c := &compiled{src: append([]byte(nil), src...), name: source, ready: make(chan struct{})}
	compileCache.m[key] = c
	compileCache.bytes += len(src)
	compileCache.Unlock()
	defer close(c.ready)
	if len(src) >= bigSource {
		// While it compiles, gopher-lua gives every function of a chunk
		// about 16 KB (trimProto frees it after): two large chunks at once
		// (a scenario's EVAL and FCALL runs) would double the peak.
		bigCompile.Lock()
		defer bigCompile.Unlock()
	}
	compiles.Add(1)
	var luac *luac51.Proto
	c.proto, luac, c.err = compileSites(c.src, source)
	if luac != nil {
		c.dump.once.Do(func() { c.dump.proto = luac })
	}
	dropChunkArg(c.proto)
	return c
}

// compiles counts the chunks compileCached compiled (for its tests).
var compiles atomic.Int64

// chunkID is Lua 5.1's luaO_chunkid (luac51.ChunkID): how an error names
// the chunk.
func chunkID(source string) string { return luac51.ChunkID(source) }
