package verify

import (
	"fmt"
	"runtime"

	lua "github.com/yuin/gopher-lua"
)

// DefaultMemoryLimit bounds the keyspace plus the Lua strings runs build
// when Options.MemoryLimit is 0.
const DefaultMemoryLimit int64 = 256 << 20

// Memory budget. Redis has no limit of its own on a script's Lua memory;
// offline, a runaway script must not take the machine down with it. The
// engine charges, as they happen, what a script can make grow without
// bound: the bytes of every string the Lua side builds (.., string.rep,
// string.gsub, table.concat, load) and the argument bytes of every write
// command (the values written to the keyspace), Put's contents included.
// Charges are an upper bound: they never shrink when a string becomes
// garbage or a key is deleted. So when the charges pass the limit, the
// engine measures: it collects garbage and takes the smaller of its
// charges and the process's live heap, less what the caller says it
// holds outside the engine (Options.MemoryOutside), as the engine's use.
// Over the limit, the run stops with a "memory" RunError; otherwise the
// measured use is the new base (at most seven eighths of the limit, so
// that measuring is rare) and charging goes on.

// charge adds n bytes to the engine's use and reports whether it stays
// within the memory limit.
func (e *Engine) charge(n int) bool {
	if int64(n) > e.memLimit {
		return false // beyond the limit on its own (and no overflow)
	}
	e.memCharged += int64(n)
	if e.memBase+e.memCharged <= e.memLimit {
		return true
	}
	// The n bytes being charged are not allocated yet.
	runtime.GC()
	live := heapLive()
	if e.opts.MemoryOutside != nil {
		// What the caller holds (explore's stored states) is not the
		// script's.
		live = max(live-e.opts.MemoryOutside(), 0)
	}
	used := min(e.memBase+e.memCharged, live+int64(n))
	if used > e.memLimit {
		return false
	}
	// Leave room for an eighth of the limit before measuring again, so a
	// run near the limit does not collect garbage at every string.
	e.memBase, e.memCharged = min(used, e.memLimit-e.memLimit/8), 0
	return true
}

// heapLive is the bytes of heap objects live process-wide, as charge
// reads them right after a collection: the heap's allocated bytes then
// are what that collection found live (runtime/metrics'
// /gc/heap/live:bytes would say the same, but linking that package costs
// every scriptctl process its initialisation at start).
func heapLive() int64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

// memoryError is the RunError of a run over the memory limit.
func (e *Engine) memoryError() *RunError {
	return &RunError{Code: CodeMemory, Msg: fmt.Sprintf("the keyspace and the script's strings exceed the offline memory limit of %d bytes", e.memLimit)}
}

// grow charges a string of n bytes the script is building, and stops the
// run when it passes the memory limit.
func (r *scriptRun) grow(L *lua.LState, n int) {
	if !r.e.charge(n) {
		r.fail(L, r.e.memoryError())
	}
}

// growKeyspace charges n bytes a command allocates beyond its arguments
// (keyspace.Config.Grow).
func (e *Engine) growKeyspace(n int64) error {
	if n > e.memLimit || !e.charge(int(n)) {
		return e.memoryError()
	}
	return nil
}

// growStep is how much a string being built piece by piece may grow
// between two charges.
const growStep = 1 << 20

// building charges a string a library function builds piece by piece
// (table.concat, string.gsub, load's reader function): what it built
// since the last charge, once that passes growStep, so that a runaway
// builder stops near the memory limit rather than past it.
type building struct {
	r       *scriptRun
	L       *lua.LState
	charged int
}

// reached charges the string's growth to n bytes, a step at a time.
func (b *building) reached(n int) {
	if n-b.charged >= growStep {
		b.done(n)
	}
}

// done charges the rest of the finished string's n bytes.
func (b *building) done(n int) {
	b.r.grow(b.L, n-b.charged)
	b.charged = n
}

// argBytes is the size of a command's arguments after its name.
func argBytes(args []string) int {
	n := 0
	for _, a := range args[1:] {
		n += len(a)
	}
	return n
}

// entryBytes is the size of an entry's contents, as Put charges it.
func entryBytes(en Entry) int {
	n := len(en.Value)
	for _, f := range en.Hash {
		n += len(f.Name) + len(f.Value)
	}
	for _, s := range en.List {
		n += len(s)
	}
	for _, s := range en.Set {
		n += len(s)
	}
	for _, m := range en.ZSet {
		n += len(m.Member) + 8
	}
	return n
}

// The library functions that make strings the budget must see, beyond
// those that charge as they build (.., string.rep, table.concat,
// string.gsub, load, string.dump): each is wrapped at the state's making
// so that a script doubling a string through one of them
// (s = string.format('%s%s', s, s)) stops with a memory RunError instead
// of taking the process's memory. Most are charged the strings a call
// returns once it returns (at most one call's result past the limit); a
// decoder (input) is charged the string it reads before the call, an
// upper bound of the strings it makes from it. An array, so that the
// table costs no initialiser at process start.
var chargedLibFuncs = [...]struct {
	lib, name string
	input     bool // a decoder: charged its input
}{
	{"string", "format", false}, {"string", "upper", false}, {"string", "lower", false},
	{"string", "reverse", false}, {"cjson", "encode", false}, {"cmsgpack", "pack", false},
	{"struct", "pack", false},
	{"cjson", "decode", true}, {"cmsgpack", "unpack", true}, {"struct", "unpack", true},
}

// chargeLibraries wraps the functions of chargedLibFuncs in G's library
// tables.
func (r *scriptRun) chargeLibraries(G *lua.LTable) {
	for _, c := range chargedLibFuncs {
		t, ok := G.RawGetString(c.lib).(*lua.LTable)
		if !ok {
			continue
		}
		f, ok := t.RawGetString(c.name).(*lua.LFunction)
		if !ok || !f.IsG {
			continue
		}
		fn := f.GFunction
		if c.input {
			t.RawSetString(c.name, r.L.NewFunction(func(L *lua.LState) int {
				if s, ok := L.Get(1).(lua.LString); ok && len(s) > 0 {
					r.grow(L, len(s))
				}
				return fn(L)
			}))
			continue
		}
		t.RawSetString(c.name, r.L.NewFunction(func(L *lua.LState) int {
			n := fn(L)
			size := 0
			for i := 1; i <= n; i++ {
				if s, ok := L.Get(-i).(lua.LString); ok {
					size += len(s)
				}
			}
			if size > 0 {
				r.grow(L, size)
			}
			return n
		}))
	}
}
