package verify

import (
	"strconv"
	"strings"
	"unsafe"
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
// Lua). That is the server's history, and so its order: an integer key
// the engine does not record was added before any other key (noteStore
// records every later one). Where a key was removed without a record
// before others grew the table, the order may differ and the run warns
// (Warnings).

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
	// over: a store was not recorded (recordRoom refused it), so the
	// replay cannot use dels
	over bool
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

// The events recorded count against the engine's memory budget
// (recordRoom): a table's history is kept whole while the budget allows,
// and past it the table's order is replayed without its events (and
// warned), as the budget stops any run that outgrows it.

// delEventBytes is what a recorded event costs, charged recordBatch at a
// time.
const (
	delEventBytes = int(unsafe.Sizeof(delEvent{}))
	recordBatch   = 4096
)

// recordRoom reports whether one more event may be recorded: every
// recordBatch events are charged to the memory budget, and once a charge
// is refused no table records another.
func (r *scriptRun) recordRoom() bool {
	if r.recordFull {
		return false
	}
	r.recorded++
	if r.recorded%recordBatch == 0 && !r.e.charge(recordBatch*delEventBytes) {
		r.recordFull = true
		return false
	}
	return true
}

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
	if in.over {
		return
	}
	if !r.recordRoom() {
		in.over = true
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

// rawSetInt is lua_rawseti as table.insert and table.remove shift with
// it: every store is one Lua 5.1 makes, so each is recorded (a nil moved
// onto a key removes it, or creates it with no value; a value moved onto
// an absent key adds it).
func (r *scriptRun) rawSetInt(t *lua.LTable, i int, v lua.LValue) {
	r.noteStore(t, lua.LNumber(i), v, lualib.RawGetInt(t, i) != lua.LNil)
	t.RawSetInt(i, v)
}

// libStore records a store a library makes in a table it builds
// (lualib.Options.Store).
func (r *scriptRun) libStore(t *lua.LTable, k, v lua.LValue) {
	r.noteStore(t, k, v, t.RawGet(k) != lua.LNil)
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
	var in *tableInfo
	if len(keys) == 0 && int(n) == len(array)+1 {
		// An append to a table that has no other key and no recorded
		// store yet is what the replay assumes of an unrecorded integer
		// key (added first, in ascending order): nothing to record. The
		// table's own record is looked up only once some table has one.
		if r.eventTables == 0 {
			return
		}
		if in = r.info(t, false); in == nil || len(in.dels) == 0 {
			return
		}
	}
	if in == nil {
		in = r.info(t, true)
	}
	if in.over {
		return
	}
	if !r.recordRoom() {
		in.over = true
		return
	}
	if len(in.dels) == 0 {
		r.eventTables++
	}
	in.dels = append(in.dels, delEvent{key: k, add: true, klen: len(keys)})
}
