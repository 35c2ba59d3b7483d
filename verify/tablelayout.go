package verify

import (
	"reflect"
	"unsafe"

	lua "github.com/yuin/gopher-lua"

	"github.com/scriptctl/scriptctl/internal/lazy"
)

// gopherTable mirrors the fields of gopher-lua 1.1.2's LTable. The table
// order (tableorder.go) needs two things gopher-lua keeps but does not
// export: the array part as stored, and the keys of the hash part in the
// order they were first set, including keys set to nil since (gopher-lua
// keeps them in that list). gopherTableOK checks once that the mirror
// matches the library's layout; when it does not (another gopher-lua), the
// engine falls back to gopher-lua's own order and warns.
type gopherTable struct {
	Metatable lua.LValue
	array     []lua.LValue
	dict      map[lua.LValue]lua.LValue
	strdict   map[string]lua.LValue
	keys      []lua.LValue
	k2i       map[lua.LValue]int
}

var gopherTableOK = lazy.Value[bool]{New: func() bool {
	a, b := reflect.TypeFor[lua.LTable](), reflect.TypeFor[gopherTable]()
	if a.Size() != b.Size() || a.NumField() != b.NumField() {
		return false
	}
	for i := 0; i < a.NumField(); i++ {
		fa, fb := a.Field(i), b.Field(i)
		if fa.Name != fb.Name || fa.Type != fb.Type || fa.Offset != fb.Offset {
			return false
		}
	}
	return true
}}

// tombKey stands, in gopher-lua's list of t's hash keys, for a key the
// script removed (t[k] = nil, recorded: noteDel): the entry keeps the
// position where the key was first set, and as gopher-lua no longer finds
// the key in its index (k2i), setting it again appends it anew at the
// list's end, where the replay (layout) sees it set again. gopher-lua
// reads a tombKey as a key without a value: its own next skips it.
type tombKey struct{ key lua.LValue }

func (*tombKey) String() string       { return "" }
func (*tombKey) Type() lua.LValueType { return lua.LTNil }
func isTomb(k lua.LValue) (lua.LValue, bool) {
	if t, ok := k.(*tombKey); ok {
		return t.key, true
	}
	return k, false
}

// bury replaces hash key k of t in gopher-lua's key list by a tombKey and
// drops it from gopher-lua's index, so that setting it again lists it
// again; false when k is not listed (an array-part integer key, a key
// never set).
func bury(t *lua.LTable, k lua.LValue) bool {
	if !gopherTableOK.Get() {
		return false
	}
	g := (*gopherTable)(unsafe.Pointer(t))
	i, ok := g.k2i[k]
	if !ok || i >= len(g.keys) || g.keys[i] != k {
		return false
	}
	g.keys[i] = &tombKey{key: k}
	delete(g.k2i, k)
	return true
}

// tableParts returns t's array part and its hash keys in first-set order.
// The slices belong to t: read them, never change them.
func tableParts(t *lua.LTable) (array, keys []lua.LValue, ok bool) {
	if !gopherTableOK.Get() {
		return nil, nil, false
	}
	g := (*gopherTable)(unsafe.Pointer(t))
	return g.array, g.keys, true
}
