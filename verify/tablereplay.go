package verify

import (
	lua "github.com/yuin/gopher-lua"

	"github.com/scriptctl/scriptctl/verify/lua51"
)

// The replay of a table's history on the model of Lua 5.1's layout.

// toKey is v as a model key; Ref keeps v itself, so that fromKey gives it
// back without boxing it again (for strings and numbers Ref plays no part
// in comparisons: use bare for a map key).
func toKey(v lua.LValue) lua51.Key {
	switch x := v.(type) {
	case lua.LString:
		return lua51.Key{Kind: lua51.KindString, S: string(x), Ref: v}
	case lua.LNumber:
		return lua51.Key{Kind: lua51.KindNumber, N: float64(x), Ref: v}
	case lua.LBool:
		return lua51.Key{Kind: lua51.KindBool, B: bool(x), Ref: v}
	}
	return lua51.RefKey(v)
}

// bare is k without the value toKey keeps, for use as a map key.
func bare(k lua51.Key) lua51.Key {
	if k.Kind != lua51.KindRef {
		k.Ref = nil
	}
	return k
}

func fromKey(k lua51.Key) lua.LValue {
	if v, ok := k.Ref.(lua.LValue); ok {
		return v
	}
	switch k.Kind {
	case lua51.KindString:
		return lua.LString(k.S)
	case lua51.KindNumber:
		return lua.LNumber(k.N)
	case lua51.KindBool:
		return lua.LBool(k.B)
	case lua51.KindRef:
		if v, ok := k.Ref.(lua.LValue); ok {
			return v
		}
	}
	return lua.LNil
}

// layout replays t's history (see the top of this file) on a model of Lua
// 5.1's table. approx reports a history the replay had to guess, or a key
// Lua places by address; ok is false when the engine cannot read t's parts.
//
// The model of a table is kept (r.layouts): when all that happened since
// is keys added (t[#t + 1] = v appends, recorded or listed by gopher-lua
// after the kept ones, as appends past lua.MaxArrayIndex are), the kept
// model gets them in the order a full replay would apply them, instead of
// a replay of the whole history (a loop of appends with # on a long array
// with a hole, or past 2^22 elements).
func (r *scriptRun) layout(t *lua.LTable) (m *lua51.Table, approx, ok bool) {
	array, hkeys, ok := tableParts(t)
	if !ok {
		return nil, true, false
	}
	var dels []delEvent
	if info := r.info(t, false); info != nil {
		if info.over {
			return r.layoutFull(t)
		}
		dels = info.dels
	}
	if c := r.layouts[t]; c != nil && c.extends(t, array, hkeys, dels) {
		// A full replay sets the hash keys in gopher-lua's order, each
		// recorded store after the keys listed before it.
		newKeys, newDels := hkeys[c.klen:], dels[c.ndels:]
		d := 0
		for i, k := range newKeys {
			for ; d < len(newDels) && newDels[d].klen <= c.klen+i; d++ {
				c.m.Set(toKey(newDels[d].key), true)
			}
			c.m.Set(toKey(k), true)
		}
		for ; d < len(newDels); d++ {
			c.m.Set(toKey(newDels[d].key), true)
		}
		c.alen, c.klen, c.ndels = len(array), len(hkeys), len(dels)
		return c.m, c.approx || c.m.Approximate(), true
	}
	m, approx, ok = r.layoutFull(t)
	if ok {
		if r.layouts == nil || len(r.layouts) >= 64 {
			r.layouts = map[*lua.LTable]*layoutCache{}
		}
		c := &layoutCache{m: m, approx: approx, alen: len(array), klen: len(hkeys), ndels: len(dels)}
		c.quiet, c.removed = quietHistory(t, hkeys, dels)
		r.layouts[t] = c
	}
	return m, approx, ok
}

// layoutCache is a table's model kept by layout, with the lengths of what
// it was replayed from. quiet reports a history whose replay guessed
// nothing from the table's present state (no key nil now without a
// recorded removal, no removed key set again), so that hash keys listed
// later only add to it; removed holds the keys of its recorded removals.
type layoutCache struct {
	m                 *lua51.Table
	approx            bool
	alen, klen, ndels int
	quiet             bool
	removed           map[lua.LValue]bool
}

// extends reports whether c's model, given the keys added since (dels
// past c.ndels, hkeys past c.klen), is what a full replay of t would give.
func (c *layoutCache) extends(t *lua.LTable, array, hkeys []lua.LValue, dels []delEvent) bool {
	switch {
	case c.ndels > len(dels) || c.klen > len(hkeys) || len(array) < c.alen:
		return false
	case c.ndels == 0 && len(array) != c.alen:
		return false // appends not recorded: the replay puts them first
	}
	for _, d := range dels[c.ndels:] {
		if !d.add || d.klen < c.klen || d.klen > len(hkeys) {
			return false
		}
	}
	if len(hkeys) == c.klen {
		return true
	}
	if !c.quiet {
		return false
	}
	for _, k := range hkeys[c.klen:] {
		if _, tomb := isTomb(k); tomb || t.RawGet(k) == lua.LNil || c.removed[k] {
			return false
		}
	}
	return true
}

// quietHistory is layoutCache.quiet and .removed of t's history.
func quietHistory(t *lua.LTable, hkeys []lua.LValue, dels []delEvent) (bool, map[lua.LValue]bool) {
	removed := map[lua.LValue]bool{}
	for _, d := range dels {
		if !d.add {
			removed[d.key] = true
		}
	}
	for k := range removed {
		if t.RawGet(k) != lua.LNil {
			return false, nil // removed, then set again
		}
	}
	for _, k := range hkeys {
		if _, tomb := isTomb(k); !tomb && t.RawGet(k) == lua.LNil && !removed[k] {
			return false, nil // set to nil with no removal recorded
		}
	}
	return true, removed
}

// layoutFull replays t's whole history (layout).
func (r *scriptRun) layoutFull(t *lua.LTable) (m *lua51.Table, approx, ok bool) {
	reset := false
	array, hkeys, ok := tableParts(t)
	if !ok {
		return nil, true, false
	}
	info := r.info(t, false)
	built := info != nil && info.built
	na, nh, multret, recs := 0, 0, false, []recKey(nil)
	if built {
		na, nh, multret, recs = parseShape(info.shape)
	}
	m = lua51.New(r.e.t.luaHash, fbRound(na), fbRound(nh))
	var static map[lua51.Key]bool
	for _, rk := range recs {
		if !rk.computed {
			if static == nil {
				static = map[lua51.Key]bool{}
			}
			static[bare(rk.key)] = true
		}
	}
	next := 0
	for _, rk := range recs {
		if !rk.computed {
			m.Set(rk.key, true)
			continue
		}
		for next < len(hkeys) && static[bare(toKey(hkeys[next]))] {
			next++
		}
		if next < len(hkeys) {
			m.Set(toKey(hkeys[next]), true)
			next++
		}
	}
	covered := 0
	if built {
		// OP_SETLIST stores the list items after the record fields,
		// growing the array first when a trailing call or ... gave more
		// items than the constructor presized.
		covered = min(na, len(array))
		if multret {
			covered = min(max(na, info.alen), len(array))
			if covered > m.SizeArray() {
				m.ResizeArray(covered)
			}
		}
	}
	// An integer key's first recorded store tells whether it held a value
	// before the stores: a removal of a present key says so, an added key
	// or a removal of an absent one says not; with no store recorded, its
	// value now tells.
	var first map[lua.LValue]delEvent
	if info != nil {
		for _, d := range info.dels {
			if _, isNum := d.key.(lua.LNumber); !isNum {
				continue
			}
			if first == nil {
				first = map[lua.LValue]delEvent{}
			}
			if _, seen := first[d.key]; !seen {
				first[d.key] = d
			}
		}
	}
	heldAtStart := func(i int) bool {
		if d, ok := first[lua.LNumber(i)]; ok {
			return !d.add && d.present
		}
		return array[i-1] != lua.LNil
	}
	if built {
		for i := covered; i >= 1; i-- {
			m.Set(lua51.Num(float64(i)), heldAtStart(i))
		}
	}
	others := 0
	for i := covered + 1; i <= len(array); i++ {
		if heldAtStart(i) {
			m.Set(lua51.Num(float64(i)), true)
		}
	}
	// The removals recorded (t[k] = nil) take their place among the first
	// sets of the hash keys. Keys nil now with no removal recorded (set
	// to nil through a variable, or by the engine's Go code) are taken
	// as set to nil together, right after the last of them was added (a
	// script that builds a table, removes some keys, then adds others).
	var dels []delEvent
	var logged map[lua.LValue]bool
	if info != nil && !info.over {
		dels = info.dels
		logged = make(map[lua.LValue]bool, len(dels))
		for _, d := range dels {
			if !d.add {
				logged[d.key] = true
			}
		}
	} else if info != nil {
		approx = true // too many removals to replay
	}
	lastDeleted := -1
	for i, k := range hkeys {
		if _, tomb := isTomb(k); !tomb && t.RawGet(k) == lua.LNil && !logged[k] {
			lastDeleted = i
		}
	}
	deletedAt := -1
	d := 0
	applyDels := func(klen int) {
		for ; d < len(dels) && dels[d].klen <= klen; d++ {
			k := toKey(dels[d].key)
			if dels[d].add {
				m.Set(k, true)
				continue
			}
			if dels[d].present && !m.Contains(k) {
				m.Set(k, true) // held a value the replay did not see (an integer key set to nil)
			}
			m.Set(k, false)
		}
	}
	for i, k := range hkeys {
		applyDels(i)
		k, _ = isTomb(k) // set here, removed later (a recorded removal)
		if !m.Contains(toKey(k)) {
			others++
		}
		m.Set(toKey(k), true)
		if i == lastDeleted {
			deletedAt = m.Rehashes()
			for _, d := range hkeys[:i+1] {
				if _, tomb := isTomb(d); !tomb && t.RawGet(d) == lua.LNil && !logged[d] {
					m.Set(toKey(d), false)
				}
			}
		}
	}
	applyDels(len(hkeys))
	// A key removed and set again: if a rehash dropped it, it came back
	// as a new key, taken here as set last.
	var firstDel map[lua.LValue]int // each removed key's first removal
	for i, dl := range dels {
		k := dl.key
		if dl.add {
			continue
		}
		if firstDel == nil {
			firstDel = map[lua.LValue]int{}
		}
		if _, seen := firstDel[k]; !seen {
			firstDel[k] = i
		}
	}
	for i, dl := range dels {
		k := dl.key
		if dl.add || t.RawGet(k) == lua.LNil || firstDel[k] < i {
			continue
		}
		lk := toKey(k)
		if !m.Contains(lk) {
			reset = true
		}
		m.Set(lk, true)
	}
	switch {
	case m.Approximate():
		approx = true
	case lastDeleted >= 0 && m.Rehashes() > deletedAt:
		approx = true // keys set to nil, then others added: when is unknown
	case reset && others > 0:
		approx = true // a key removed, dropped and set again among new keys
	}
	return m, approx, true
}
