package lualib

import (
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// A map key of 50,000,000 would make gopher-lua allocate a 50M-slot array:
// the library reports it through Options.Unsupported instead.
func TestMsgpackFarIntegerKeyUnsupported(t *testing.T) {
	const bomb = `return cmsgpack.unpack('\129\206\2\250\240\128\1')` // {[50000000] = 1}
	if got := run(t, bomb); !strings.Contains(got, "not available offline: cmsgpack.unpack of a map with integer key 50000000") {
		t.Errorf("default: got %q", got)
	}

	L := lua.NewState()
	defer L.Close()
	var called string
	OpenWith(L, Options{Unsupported: func(L *lua.LState, msg string) {
		called = msg
		L.RaiseError("stop")
	}})
	if err := L.DoString(bomb); err == nil || called == "" {
		t.Errorf("custom hook: err %v, called %q", err, called)
	}

	// Near keys are fine and keep their values.
	if got := run(t, `local t = cmsgpack.unpack('\130\1\161a\205\3\232\161b') return {t[1], t[1000]}`); got != "1) \"a\"\n2) \"b\"\n" {
		t.Errorf("near keys: got %q", got)
	}
}
