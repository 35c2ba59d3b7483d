package verify

import (
	"iter"
	"slices"
	"strconv"
	"strings"
	"weak"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/ast"

	"github.com/scriptctl/scriptctl/verify/lua51"
	"github.com/scriptctl/scriptctl/verify/lualib"
)

// The order of a table's keys (next, pairs, cjson.encode, cmsgpack.pack) is
// Lua 5.1's: gopher-lua keeps the hash part in insertion order, so the
// engine replays what it knows of the table's history on a model of Lua
// 5.1's layout (package lua51) and walks the model. What it knows:
//
//   - how the table was built: a constructor is compiled into a call of a
//     hidden helper (tnewName) that records the constructor's shape (its
//     list and record field counts, which presize the table, and its
//     record keys in source order), and a table built by the engine's Go
//     code (replies, KEYS, cjson.decode) starts empty, as lua_newtable
//     does on the server;
//   - the keys gopher-lua holds: the array part as stored, and the hash
//     keys in the order they were first set, those set to nil since
//     included (tablelayout.go).
//
// The replay inserts the constructor's fields, then the integer keys of the
// array part in ascending order, then the hash keys in first-set order, the
// keys whose value is nil now as set to nil together right after the last
// of them was added (their nodes stay until a rehash drops them, as in
// Lua). That is the server's
// history, and so its order, unless the script interleaved integer and
// other keys, or removed keys before adding others that grew the table;
// then the order may differ and the run warns (Warnings).

// tnewName is the hidden global of the constructor helper.
const tnewName = "\x00tnew"

// tableInfo is what the helpers recorded about a table: its constructor,
// and the stores the order depends on that gopher-lua keeps no trace of
// (keys set to nil, integer keys added: events).
type tableInfo struct {
	built bool   // made by a constructor
	shape string // ctorShape
	alen  int    // gopher-lua's array length right after the constructor
	dels  []delEvent
}

// delEvent is one store the replay needs: a key set to nil (whether it
// held a value; else Lua created a node for it) or an integer key added
// (add), with how many hash keys gopher-lua had listed then, which places
// it among the first sets of the others.
type delEvent struct {
	key     lua.LValue
	present bool
	add     bool
	klen    int
}

// maxDelEvents bounds the events recorded per table; past it the table's
// order is replayed without them (and warned).
const maxDelEvents = 1 << 16

// ctorShape encodes a constructor for the helper: "na,nh,multret;" then
// each record key as a kind byte ('s' string, 'n' number, 'b' boolean,
// '?' computed at run time), the length of its text and ':' and the text.
func ctorShape(x *ast.TableExpr) string {
	na, nh, multret := 0, 0, false
	var keys strings.Builder
	for i, f := range x.Fields {
		if f.Key == nil {
			if i == len(x.Fields)-1 && isMultret(f.Value) {
				multret = true
				continue
			}
			na++
			continue
		}
		nh++
		kind, text := byte('?'), ""
		switch k := f.Key.(type) {
		case *ast.StringExpr:
			kind, text = 's', k.Value
		case *ast.NumberExpr:
			if n, err := strconv.ParseFloat(strings.TrimSpace(k.Value), 64); err == nil {
				kind, text = 'n', strconv.FormatFloat(n, 'g', -1, 64)
			} else if v, ok := parseLuaNumber(k.Value); ok {
				kind, text = 'n', strconv.FormatFloat(v, 'g', -1, 64)
			}
		case *ast.TrueExpr:
			kind, text = 'b', "1"
		case *ast.FalseExpr:
			kind, text = 'b', "0"
		}
		keys.WriteByte(kind)
		keys.WriteString(strconv.Itoa(len(text)))
		keys.WriteByte(':')
		keys.WriteString(text)
	}
	m := "0"
	if multret {
		m = "1"
	}
	return strconv.Itoa(na) + "," + strconv.Itoa(nh) + "," + m + ";" + keys.String()
}

// parseLuaNumber reads a hexadecimal numeral (0x10) as Lua 5.1 does.
func parseLuaNumber(s string) (float64, bool) {
	s = strings.TrimSpace(s)
	if len(s) > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') {
		u, err := strconv.ParseUint(s[2:], 16, 64)
		return float64(u), err == nil
	}
	return 0, false
}

func isMultret(e ast.Expr) bool {
	switch e.(type) {
	case *ast.FuncCallExpr, *ast.Comma3Expr:
		return true
	}
	return false
}

// recKey is one record field of a constructor's shape.
type recKey struct {
	computed bool
	key      lua51.Key
}

func parseShape(s string) (na, nh int, multret bool, recs []recKey) {
	head, rest, _ := strings.Cut(s, ";")
	parts := strings.Split(head, ",")
	if len(parts) != 3 {
		return 0, 0, false, nil
	}
	na, _ = strconv.Atoi(parts[0])
	nh, _ = strconv.Atoi(parts[1])
	multret = parts[2] == "1"
	for len(rest) > 0 {
		kind := rest[0]
		colon := strings.IndexByte(rest, ':')
		if colon < 0 {
			break
		}
		n, err := strconv.Atoi(rest[1:colon])
		if err != nil || colon+1+n > len(rest) {
			break
		}
		text := rest[colon+1 : colon+1+n]
		rest = rest[colon+1+n:]
		switch kind {
		case 's':
			recs = append(recs, recKey{key: lua51.Str(text)})
		case 'n':
			f, _ := strconv.ParseFloat(text, 64)
			recs = append(recs, recKey{key: lua51.Num(f)})
		case 'b':
			recs = append(recs, recKey{key: lua51.Bool(text == "1")})
		default:
			recs = append(recs, recKey{computed: true})
		}
	}
	return na, nh, multret, recs
}

// fbRound is luaO_fb2int(luaO_int2fb(x)): the size OP_NEWTABLE can encode,
// x rounded up to a "floating point byte".
func fbRound(x int) int {
	if x < 0 {
		return 0
	}
	e := 0
	for x >= 16 {
		x = (x + 1) >> 1
		e++
	}
	if x < 8 {
		return x << e
	}
	return ((x & 7) + 8) << e
}

// tableNew is the constructor helper: it records the new table's shape
// and returns the table.
func (r *scriptRun) tableNew(L *lua.LState) int {
	t, ok := L.Get(1).(*lua.LTable)
	if !ok {
		L.Push(L.Get(1))
		return 1
	}
	shape, _ := L.Get(2).(lua.LString)
	array, _, _ := tableParts(t)
	r.noteCtor(t, string(shape), len(array))
	L.Push(t)
	return 1
}

// info returns the record of t, creating it when create is set. Records
// hold their table weakly; records of collected tables are swept as the
// map grows.
func (r *scriptRun) info(t *lua.LTable, create bool) *tableInfo {
	if r.tables == nil {
		if !create {
			return nil
		}
		r.tables = map[weak.Pointer[lua.LTable]]*tableInfo{}
		r.tableSweep = 1024
	}
	w := weak.Make(t)
	if in := r.tables[w]; in != nil || !create {
		return in
	}
	in := &tableInfo{}
	r.tables[w] = in
	if len(r.tables) >= r.tableSweep {
		for k := range r.tables {
			if k.Value() == nil {
				delete(r.tables, k)
			}
		}
		r.tableSweep = max(1024, 2*len(r.tables))
	}
	return in
}

// noteCtor records a constructor's table.
func (r *scriptRun) noteCtor(t *lua.LTable, shape string, alen int) {
	in := r.info(t, true)
	in.built, in.shape, in.alen = true, shape, alen
}

// noteDel records t[k] = nil.
func (r *scriptRun) noteDel(t *lua.LTable, k lua.LValue, present bool) {
	in := r.info(t, true)
	if len(in.dels) > maxDelEvents {
		return
	}
	if len(in.dels) == 0 {
		r.eventTables++
	}
	if present {
		if _, isNum := k.(lua.LNumber); isNum && len(r.borders) > 0 {
			delete(r.borders, t) // a hole: # checks the whole array again
		}
		bury(t, k)
	}
	_, keys, _ := tableParts(t)
	in.dels = append(in.dels, delEvent{key: k, present: present, klen: len(keys)})
}

// noteStore records t[k] = v before the store when it adds an integer key
// that gopher-lua keeps in its array part (whose history it does not
// keep), or removes a key.
func (r *scriptRun) noteStore(t *lua.LTable, k, v lua.LValue, present bool) {
	if v == lua.LNil {
		r.noteDel(t, k, present)
		return
	}
	if present {
		return
	}
	n, ok := k.(lua.LNumber)
	if !ok || float64(n) != float64(int64(n)) || n < 1 || int64(n) >= int64(lua.MaxArrayIndex) {
		return
	}
	array, keys, _ := tableParts(t)
	if r.eventTables == 0 && len(keys) == 0 && int(n) == len(array)+1 {
		// An append to a table that has no other key and no recorded
		// store yet is what the replay assumes of an unrecorded integer
		// key (added first, in ascending order): nothing to record.
		return
	}
	in := r.info(t, true)
	if len(in.dels) > maxDelEvents {
		return
	}
	if len(in.dels) == 0 {
		r.eventTables++
	}
	in.dels = append(in.dels, delEvent{key: k, add: true, klen: len(keys)})
}

// delName and setName are the hidden globals of the store helpers: a
// statement t.k = nil, and any t[expr] = v.
const (
	delName = "\x00del"
	setName = "\x00set"
)

// tableDel is the t.k = nil helper: (table, key, how Lua names the table).
func (r *scriptRun) tableDel(L *lua.LState) int {
	r.settable(L, L.Get(1), L.Get(2), lua.LNil, L.Get(3))
	return 0
}

// tableSet is the t[k] = v helper: (table, key, value, the table's name).
func (r *scriptRun) tableSet(L *lua.LState) int {
	r.settable(L, L.Get(1), L.Get(2), L.Get(3), L.Get(4))
	return 0
}

// settable is Lua 5.1's luaV_settable: a primitive set unless the key is
// absent and the table has __newindex (a new key takes a node even then),
// which records what the table order needs (noteStore).
func (r *scriptRun) settable(L *lua.LState, t, k, v, desc lua.LValue) {
	for loop := 0; loop < 100; loop++ {
		if tb, ok := t.(*lua.LTable); ok {
			if k == lua.LNil {
				L.RaiseError("table index is nil")
			}
			if n, isNum := k.(lua.LNumber); isNum && n != n {
				L.RaiseError("table index is NaN")
			}
			if r.isReadonly(tb) {
				// the proxies' __newindex, raised here so that the error
				// carries the script's position as the VM's store gives it
				L.RaiseError("Attempt to modify a readonly table")
			}
			present := tb.RawGet(k) != lua.LNil
			mm := lua.LValue(lua.LNil)
			if mt, ok := tb.Metatable.(*lua.LTable); ok && !present {
				mm = mt.RawGetString("__newindex")
			}
			if present || mm == lua.LNil {
				r.noteStore(tb, k, v, present)
				tb.RawSet(k, v)
				return
			}
			r.noteDel(tb, k, false)
			if callNewindex(L, mm, t, k, v) {
				return
			}
			t = mm
			continue
		}
		mm := L.GetMetaField(t, "__newindex")
		if mm == lua.LNil {
			if s, _ := desc.(lua.LString); s != "" && loop == 0 {
				L.RaiseError("attempt to index %s (a %s value)", s, t.Type().String())
			}
			L.RaiseError("attempt to index a %s value", t.Type().String())
		}
		if callNewindex(L, mm, t, k, v) {
			return
		}
		t = mm
	}
	L.RaiseError("loop in settable")
}

// callNewindex calls mm(t, k, v) when the __newindex mm is a function and
// reports whether it did (else the store repeats on mm, a table).
func callNewindex(L *lua.LState, mm, t, k, v lua.LValue) bool {
	fn, ok := mm.(*lua.LFunction)
	if !ok {
		return false
	}
	L.Push(fn)
	L.Push(t)
	L.Push(k)
	L.Push(v)
	L.Call(3, 0)
	return true
}

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
// The model of a table with recorded stores is kept (r.layouts): when all
// that happened since is integer keys added (t[#t + 1] = v appends, with
// no hash key added), the kept model gets them in order, as a full replay
// would apply them last, instead of a replay of the whole history (a loop
// of appends with # on a long array with a hole).
func (r *scriptRun) layout(t *lua.LTable) (m *lua51.Table, approx, ok bool) {
	array, hkeys, ok := tableParts(t)
	if !ok {
		return nil, true, false
	}
	info := r.info(t, false)
	if info == nil || len(info.dels) == 0 || len(info.dels) > maxDelEvents {
		return r.layoutFull(t)
	}
	dels := info.dels
	if c := r.layouts[t]; c != nil && c.klen == len(hkeys) && c.ndels <= len(dels) && len(array) >= c.alen {
		extend := true
		for _, d := range dels[c.ndels:] {
			if !d.add || d.klen != len(hkeys) {
				extend = false
				break
			}
		}
		if extend {
			for _, d := range dels[c.ndels:] {
				c.m.Set(toKey(d.key), true)
			}
			c.ndels, c.alen = len(dels), len(array)
			return c.m, c.approx || c.m.Approximate(), true
		}
	}
	m, approx, ok = r.layoutFull(t)
	if ok {
		if r.layouts == nil || len(r.layouts) >= 64 {
			r.layouts = map[*lua.LTable]*layoutCache{}
		}
		r.layouts[t] = &layoutCache{m: m, approx: approx, alen: len(array), klen: len(hkeys), ndels: len(dels)}
	}
	return m, approx, ok
}

// layoutCache is a table's model kept by layout, with the lengths of what
// it was replayed from.
type layoutCache struct {
	m                 *lua51.Table
	approx            bool
	alen, klen, ndels int
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
	before := m.Rehashes()
	ints, others := 0, 0
	for i := covered + 1; i <= len(array); i++ {
		if heldAtStart(i) {
			m.Set(lua51.Num(float64(i)), true)
			ints++
		}
	}
	// The removals recorded (t[k] = nil) take their place among the first
	// sets of the hash keys. Keys nil now with no removal recorded (set
	// to nil through a variable, or by the engine's Go code) are taken
	// as set to nil together, right after the last of them was added (a
	// script that builds a table, removes some keys, then adds others).
	var dels []delEvent
	var logged map[lua.LValue]bool
	if info != nil && len(info.dels) <= maxDelEvents {
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
	for i, dl := range dels {
		k := dl.key
		if dl.add || t.RawGet(k) == lua.LNil || slices.ContainsFunc(dels[:i], func(o delEvent) bool { return !o.add && o.key == k }) {
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
	case ints > 0 && others > 0 && m.Rehashes() > before:
		approx = true // integer and other keys added in an unknown interleaving
	case lastDeleted >= 0 && m.Rehashes() > deletedAt:
		approx = true // keys set to nil, then others added: when is unknown
	case reset && others > 0:
		approx = true // a key removed, dropped and set again among new keys
	}
	return m, approx, true
}

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
		if t.RawGet(v) != lua.LNil && !isHidden(v) {
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
	array, keys, _ := tableParts(t)
	if key == lua.LNil || st == nil || st.index(key) == 0 || st.alen != len(array) || st.klen != len(keys) {
		m, approx, ok := r.layout(t)
		if !ok {
			k, v := t.Next(key)
			return k, v, true
		}
		if approx {
			r.warnOrder()
		}
		keys, _ := m.Slots()
		slots, _ := m.Slots()
		st = &iterState{slots: make([]lua.LValue, len(slots)), alen: len(array), klen: len(keys)}
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
		if v := t.RawGet(k); v != lua.LNil && !isHidden(k) {
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
