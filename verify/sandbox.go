package verify

import (
	lua "github.com/yuin/gopher-lua"
)

// Sandbox reuse. Building a sandbox (newState) costs about a millisecond,
// far more than a typical run, so Engine.Reset keeps an engine's sandboxes
// and puts them back in the state they were built in. The globals and
// library tables are readonly to scripts, but a sandbox still holds tables
// a script can write (the metatable behind getmetatable(getmetatable(_G)))
// and Go-side settings (cjson's); a run must not
// see what an earlier run left there. So, once built, a sandbox records
// every table it can reach (sandboxSnap) and Reset writes back whatever
// differs; a table a run created is then unreachable.

// tableSnap is one table's contents when the sandbox was built.
type tableSnap struct {
	t          *lua.LTable
	mt         lua.LValue
	keys, vals []lua.LValue
}

// sandboxSnap is every table reachable from a sandbox's roots.
type sandboxSnap []tableSnap

// snapshotTables records every table reachable from roots through keys,
// values, metatables and function environments.
func snapshotTables(roots ...lua.LValue) sandboxSnap {
	var out sandboxSnap
	seen := map[lua.LValue]bool{}
	var visit func(v lua.LValue)
	visit = func(v lua.LValue) {
		if v == nil || seen[v] {
			return
		}
		switch x := v.(type) {
		case *lua.LTable:
			seen[v] = true
			ts := tableSnap{t: x, mt: x.Metatable}
			x.ForEach(func(k, v lua.LValue) {
				ts.keys = append(ts.keys, k)
				ts.vals = append(ts.vals, v)
			})
			out = append(out, ts)
			visit(x.Metatable)
			for i := range ts.keys {
				visit(ts.keys[i])
				visit(ts.vals[i])
			}
		case *lua.LUserData:
			seen[v] = true
			visit(x.Metatable)
		case *lua.LFunction:
			seen[v] = true
			if x.Env != nil {
				visit(x.Env)
			}
			for _, uv := range x.Upvalues {
				visit(uv.Value())
			}
		}
	}
	for _, r := range roots {
		visit(r)
	}
	return out
}

// restore writes back every recorded table that a run changed.
func (s sandboxSnap) restore() {
	for i := range s {
		if ts := &s[i]; ts.changed() {
			ts.restore()
		}
	}
}

// changed reports whether the table's metatable or contents differ from
// the recorded ones.
func (ts *tableSnap) changed() bool {
	if ts.t.Metatable != ts.mt {
		return true
	}
	n := 0
	ts.t.ForEach(func(lua.LValue, lua.LValue) { n++ })
	if n != len(ts.keys) {
		return true
	}
	for i, k := range ts.keys {
		if ts.t.RawGet(k) != ts.vals[i] {
			return true
		}
	}
	return false
}

func (ts *tableSnap) restore() {
	var added []lua.LValue
	ts.t.ForEach(func(k, _ lua.LValue) { added = append(added, k) })
	for _, k := range added {
		ts.t.RawSet(k, lua.LNil)
	}
	for i, k := range ts.keys {
		ts.t.RawSet(k, ts.vals[i])
	}
	ts.t.Metatable = ts.mt
}

// seal records the built sandbox (see sandboxSnap); extra are roots only
// the engine holds, such as the Functions load-time API table.
func (r *scriptRun) seal(extra ...lua.LValue) {
	L := r.L
	roots := append([]lua.LValue{L.G.Global, L.GetMetatable(lua.LString("")), r.globals}, extra...)
	if L.G.Registry != nil {
		roots = append(roots, L.G.Registry)
	}
	r.snap = snapshotTables(roots...)
	r.sealed = true
}

// sealUnlessOnce seals r unless its engine serves one run (Options.Once):
// such a state is built again, never restored.
func (r *scriptRun) sealUnlessOnce(extra ...lua.LValue) {
	if !r.e.opts.Once {
		r.seal(extra...)
	}
}

// reset puts a sealed sandbox back in the state it was built in, for a
// run of a reset engine.
func (r *scriptRun) reset() {
	// Every EVAL sets these two; removing them first spares restoring the
	// whole of _G when nothing else changed.
	r.L.G.Global.RawSetString("KEYS", lua.LNil)
	r.L.G.Global.RawSetString("ARGV", lua.LNil)
	r.snap.restore()
	r.libs.Reset()
	clear(r.chunks)
	clear(r.sources)
	r.sources["user_script"] = "@user_script"
	r.sources["user_function"] = "@user_function"
	r.keys, r.readOnly, r.name, r.loading, r.runErr = nil, false, "", false, nil
	r.forVals, r.forNext = [2]lua.LNumber{}, 0
	r.iters, r.borders, r.libIters, r.layouts = nil, nil, nil, nil
	if r.eventTables > 0 {
		// the tables of the run are gone but for what the state keeps
		// (function libraries' upvalues): count those still there
		r.eventTables = 0
		for k, in := range r.tables {
			switch {
			case k.Value() == nil:
				delete(r.tables, k)
			case len(in.dels) > 0:
				r.eventTables++
			}
		}
	}
	r.L.SetTop(0)
}
