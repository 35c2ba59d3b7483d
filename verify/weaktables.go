package verify

import (
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// Weak tables. A table whose metatable has a string __mode holding 'k'
// or 'v' holds its keys or values weakly: at a collection, Lua 5.1 marks
// what is reachable from its roots without following those references,
// then removes each entry whose weak key or value is an object left
// unmarked (cleartable: tables, functions, userdata and threads; strings,
// numbers and booleans are values and never go). gopher-lua keeps every
// entry, so the engine does Lua's work at the full collections a script
// asks for (collectgarbage("collect"), collectgarbage()). Lua's own
// incremental cycles also clear weak tables, at times that depend on its
// allocation counts (divergence 3): those the engine does not run.

// sweepWeak clears the weak tables reachable in L's Lua state as a full
// collection does. It only runs once a metatable was set in the state:
// without one no table is weak.
func (r *scriptRun) sweepWeak(L *lua.LState) {
	if !r.metaSet {
		return
	}
	m := &marker{r: r, seen: map[lua.LValue]bool{}}
	m.mark(L.G.Global)
	m.mark(L.G.Registry)
	m.mark(L.G.MainThread)
	m.mark(L)
	m.mark(r.globals)
	if fs := r.e.funcs; fs != nil && fs.run == r {
		// The server keeps each registered callback in the registry
		// (luaL_ref); the engine keeps them in Go.
		for _, lib := range fs.libs {
			for _, f := range lib.funcs {
				m.mark(f.callback)
			}
		}
	}
	m.drain()
	for _, w := range m.weak {
		var dead []lua.LValue
		w.t.ForEach(func(k, v lua.LValue) {
			if m.cleared(k) || m.cleared(v) {
				dead = append(dead, k)
			}
		})
		for _, k := range dead {
			r.noteStore(w.t, k, lua.LNil, true)
			w.t.RawSet(k, lua.LNil)
		}
	}
}

type weakTable struct {
	t          *lua.LTable
	keys, vals bool
}

// marker is Lua 5.1's mark phase over gopher-lua's values.
type marker struct {
	r     *scriptRun
	seen  map[lua.LValue]bool
	queue []lua.LValue
	weak  []weakTable
}

// collectable reports whether v is an object a collection can free.
func collectable(v lua.LValue) bool {
	switch v.(type) {
	case *lua.LTable, *lua.LFunction, *lua.LUserData, *lua.LState:
		return true
	}
	return false
}

// cleared is iscleared: a collectable object the mark did not reach.
func (m *marker) cleared(v lua.LValue) bool { return collectable(v) && !m.seen[v] }

func (m *marker) mark(v lua.LValue) {
	if v == nil || !collectable(v) || m.seen[v] {
		return
	}
	if t, ok := v.(*lua.LTable); ok && t == nil {
		return
	}
	m.seen[v] = true
	m.queue = append(m.queue, v)
}

func (m *marker) drain() {
	for len(m.queue) > 0 {
		v := m.queue[len(m.queue)-1]
		m.queue = m.queue[:len(m.queue)-1]
		switch x := v.(type) {
		case *lua.LTable:
			m.table(x)
		case *lua.LFunction:
			if x.Env != nil {
				m.mark(x.Env)
			}
			for _, uv := range x.Upvalues {
				if uv != nil {
					m.mark(uv.Value())
				}
			}
		case *lua.LUserData:
			if x.Env != nil {
				m.mark(x.Env)
			}
			m.mark(x.Metatable)
		case *lua.LState:
			if x.Env != nil {
				m.mark(x.Env)
			}
			for _, v := range threadRegisters(x) {
				m.mark(v)
			}
		}
	}
}

// table is traversetable: the metatable, then what the mode leaves
// strong.
func (m *marker) table(t *lua.LTable) {
	if real := m.r.real(t); real != lua.LValue(t) {
		m.mark(real)
	}
	m.mark(t.Metatable)
	w := weakTable{t: t}
	if mt, ok := t.Metatable.(*lua.LTable); ok {
		if mode, ok := mt.RawGetString("__mode").(lua.LString); ok {
			w.keys = strings.IndexByte(string(mode), 'k') >= 0
			w.vals = strings.IndexByte(string(mode), 'v') >= 0
		}
	}
	if w.keys || w.vals {
		m.weak = append(m.weak, w)
	}
	if w.keys && w.vals {
		return
	}
	t.ForEach(func(k, v lua.LValue) {
		if !w.keys {
			m.mark(k)
		}
		if !w.vals {
			m.mark(v)
		}
	})
}

// threadRegisters is a gopher-lua thread's stack up to its top (Lua 5.1
// marks a thread's stack up to L->top), read through vmarith.go's mirror
// of gopher-lua's registry; nil where the layout is another.
func threadRegisters(L *lua.LState) []lua.LValue {
	if !regOK() {
		return nil
	}
	rg := registryOf(L)
	if rg == nil {
		return nil
	}
	if rg.top < 0 || rg.top > len(rg.array) {
		return rg.array
	}
	return rg.array[:rg.top]
}
