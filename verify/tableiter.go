package verify

import (
	"iter"

	lua "github.com/yuin/gopher-lua"

	"github.com/scriptctl/scriptctl/verify/lualib"
)

// Iteration (next, pairs) and the length operator over the replayed layout.

// tableKeys returns the keys of t whose values are not nil, in Lua 5.1's
// order (for cjson.encode, cmsgpack.pack); nil when it cannot.
func (r *scriptRun) tableKeys(t *lua.LTable) []lua.LValue {
	if r.behind[t] {
		// a library table or _G, seen through its readonly view
		if keys, exact := r.libKeys(t); keys != nil {
			if !exact {
				r.warnOrder()
			}
			out := keys[:0:0]
			for _, k := range keys {
				if t.RawGet(k) != lua.LNil && !isHidden(k) {
					out = append(out, k)
				}
			}
			return out
		}
	}
	m, approx, ok := r.layout(t)
	if !ok {
		return nil
	}
	if approx {
		r.warnOrder()
	}
	slots, _ := m.Slots()
	out := make([]lua.LValue, 0, len(slots))
	for _, k := range slots {
		v := fromKey(k)
		if t.RawGet(v) != lua.LNil && !r.hides(t, v) {
			out = append(out, v)
		}
	}
	return out
}

// orderedPairs walks t's keys and values in Lua 5.1's order, as lua_next
// does (Redis flattening a returned {map=...} or {set=...}).
func (r *scriptRun) orderedPairs(t *lua.LTable) iter.Seq2[lua.LValue, lua.LValue] {
	return lualib.KeyOrder(r.tableKeys).Pairs(t)
}

// hides reports a key of t that iteration skips: an engine helper's
// hidden name (isHidden) in a table behind a readonly view (_G, a
// library's environment). A script's own table keeps every key, those
// whose first byte is NUL too (cjson.decode of a "\u0000..." member).
func (r *scriptRun) hides(t *lua.LTable, k lua.LValue) bool {
	return r.behind[t] && isHidden(k)
}

func (r *scriptRun) warnOrder() {
	r.warn("a table's key order (pairs, next, cjson, cmsgpack, #) is the engine's guess (keys Lua places by address, or stores it did not see): Redis's Lua 5.1 order may differ")
}

// iterState is the order next walks for one table, kept while a script
// iterates it.
type iterState struct {
	slots      []lua.LValue
	pos        map[lua.LValue]int
	alen, klen int // the lengths of t's parts it was built from
}

// index is the 1-based position of key in the walk, 0 when absent.
func (st *iterState) index(key lua.LValue) int {
	if st.pos != nil {
		return st.pos[key]
	}
	for i, k := range st.slots {
		if k == key {
			return i + 1
		}
	}
	return 0
}

// nextKey is next(t, key) in Lua 5.1's order. It reports false for a key
// next cannot continue from ("invalid key to 'next'").
func (r *scriptRun) nextKey(t *lua.LTable, key lua.LValue) (lua.LValue, lua.LValue, bool) {
	if real, ok := r.real(t).(*lua.LTable); ok && real != t {
		return r.viewNext(real, key) // a library table (table.foreach)
	}
	st := r.iters[t]
	array, hkeys, _ := tableParts(t)
	if key == lua.LNil || st == nil || st.index(key) == 0 || st.alen != len(array) || st.klen != len(hkeys) {
		m, approx, ok := r.layout(t)
		if !ok {
			k, v := t.Next(key)
			return k, v, true
		}
		if approx {
			r.warnOrder()
		}
		slots, _ := m.Slots()
		r.iterBuilds++
		st = &iterState{slots: make([]lua.LValue, len(slots)), alen: len(array), klen: len(hkeys)}
		if len(slots) > 16 {
			st.pos = make(map[lua.LValue]int, len(slots))
		}
		for i, k := range slots {
			v := fromKey(k)
			st.slots[i] = v
			if st.pos != nil {
				st.pos[v] = i + 1
			}
		}
		if r.iters == nil || len(r.iters) >= 64 {
			r.iters = map[*lua.LTable]*iterState{}
		}
		r.iters[t] = st
	}
	i := 0
	if key != lua.LNil {
		i = st.index(key)
		if i == 0 {
			return lua.LNil, lua.LNil, false
		}
	}
	for ; i < len(st.slots); i++ {
		k := st.slots[i]
		if v := t.RawGet(k); v != lua.LNil && !r.hides(t, k) {
			return k, v, true
		}
	}
	return lua.LNil, lua.LNil, true
}

// lenName is the hidden global of the # helper: gopher-lua's # counts a
// table's array part its own way and honours __len on tables, which Lua
// 5.1 ignores.
const lenName = "\x00len"

// lenOp is the # helper: Lua 5.1's OP_LEN. Its arguments are the operand
// and how Lua names it in an error (rewriter.describe).
func (r *scriptRun) lenOp(L *lua.LState) int {
	v := L.Get(1)
	switch x := v.(type) {
	case *lua.LTable:
		L.Push(lua.LNumber(r.border(x)))
		return 1
	case lua.LString:
		L.Push(lua.LNumber(len(x)))
		return 1
	}
	if mm := L.GetMetaField(v, "__len"); mm != lua.LNil {
		L.Push(mm)
		L.Push(v)
		L.Push(lua.LNil)
		L.Call(2, 1)
		return 1
	}
	if s, _ := L.Get(2).(lua.LString); s != "" {
		L.RaiseError("attempt to get length of %s (a %s value)", s, v.Type().String())
	}
	L.RaiseError("attempt to get length of a %s value", v.Type().String())
	return 0
}

// exactBorderMax bounds the array parts the border checks whole on every
// #: past it, only the elements added since the last # are checked for
// holes (a hole punched in the checked part is then missed).
const exactBorderMax = 4096

// border is luaH_getn: the #t Lua 5.1 gives. A table whose keys 1..n are
// all set and that has no other positive integer key has one border, n,
// whatever its layout: that is gopher-lua's length. Otherwise the border
// depends on the layout, and the history is replayed (layout).
func (r *scriptRun) border(t *lua.LTable) int {
	array, keys, ok := tableParts(t)
	if !ok {
		return t.Len()
	}
	n := len(array)
	for n > 0 && array[n-1] == lua.LNil {
		n--
	}
	from := 0
	if n > exactBorderMax {
		if c := r.borders[t]; c > 0 && c <= n {
			from = c
		}
	}
	simple := true
	for _, v := range array[from:n] {
		if v == lua.LNil {
			simple = false
			break
		}
	}
	if simple {
		for _, k := range keys {
			if f, isNum := k.(lua.LNumber); isNum && f >= 1 && t.RawGet(k) != lua.LNil {
				simple = false
				break
			}
		}
	}
	if simple {
		if n > exactBorderMax {
			if r.borders == nil || len(r.borders) >= 64 {
				r.borders = map[*lua.LTable]int{}
			}
			r.borders[t] = n
		}
		return n
	}
	m, approx, ok := r.layout(t)
	if !ok {
		return t.Len()
	}
	if approx {
		r.warnOrder()
	}
	return m.Border()
}
