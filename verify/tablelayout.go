package verify

import (
	"reflect"
	"unsafe"

	lua "github.com/yuin/gopher-lua"
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

var gopherTableOK = func() bool {
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
}()

// tableParts returns t's array part and its hash keys in first-set order.
// The slices belong to t: read them, never change them.
func tableParts(t *lua.LTable) (array, keys []lua.LValue, ok bool) {
	if !gopherTableOK {
		return nil, nil, false
	}
	g := (*gopherTable)(unsafe.Pointer(t))
	return g.array, g.keys, true
}
