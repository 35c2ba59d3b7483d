package verify

import (
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// TestGopherTableMirror fails when gopher-lua's LTable no longer has the
// layout the table order reads: upgrade the mirror with the library.
func TestGopherTableMirror(t *testing.T) {
	if !gopherTableOK.Get() {
		t.Fatal("gopherTable does not mirror lua.LTable: the Lua 5.1 table order is off")
	}
	L := lua.NewState()
	defer L.Close()
	tb := L.NewTable()
	tb.RawSetString("a", lua.LNumber(1))
	tb.RawSetString("b", lua.LNumber(2))
	tb.RawSetInt(1, lua.LTrue)
	tb.RawSetString("a", lua.LNil)
	array, keys, ok := tableParts(tb)
	if !ok || len(array) != 1 || array[0] != lua.LTrue {
		t.Fatalf("array part: %v %v", array, ok)
	}
	if len(keys) != 2 || keys[0] != lua.LString("a") || keys[1] != lua.LString("b") {
		t.Fatalf("keys: %v (want a, b: a set to nil stays listed)", keys)
	}
}
