package luac51

import (
	"encoding/hex"
	"testing"
)

// Redis 7.0.15's string.dump of function() return 1 end in an EVAL script:
// header, "@user_script", lines 1-1, no upvalues or parameters, not vararg,
// stack 2, LOADK 0 0, RETURN 0 2, RETURN 0 1, the constant 1, line info.
const serverDump = "1b4c756151000104080408000d0000000000000040757365725f7363726970740001000000010000000000000203000000010000001e0000011e0080000100000003000000000000f03f00000000030000000100000001000000010000000000000000000000"

func TestDumpServerBytes(t *testing.T) {
	p, err := Compile([]byte("return string.dump(function() return 1 end)"), "@user_script")
	if err != nil {
		t.Fatal(err)
	}
	if got := hex.EncodeToString(p.Protos[0].Dump()); got != serverDump {
		t.Errorf("got  %s\nwant %s", got, serverDump)
	}
}

func TestCompileShapes(t *testing.T) {
	p, err := Compile([]byte("local a, b = ...\nlocal function f(x, ...) return x, a end\nreturn function() return b end"), "=c")
	if err != nil {
		t.Fatal(err)
	}
	if p.IsVararg != varargIsVararg || p.NumParams != 0 || len(p.Protos) != 2 || p.Source != "=c" {
		t.Fatalf("main: vararg %d params %d protos %d source %q", p.IsVararg, p.NumParams, len(p.Protos), p.Source)
	}
	f := p.Protos[0]
	// function(x, ...) without using ...: LUA_COMPAT_VARARG's 'arg' is
	// needed (HASARG | ISVARARG | NEEDSARG).
	if f.IsVararg != 7 || f.NumParams != 1 || f.LineDefined != 2 || f.LastLineDefined != 2 || f.Nups != 1 || f.Upvalues[0] != "a" {
		t.Errorf("f: vararg %d params %d lines %d-%d upvalues %v", f.IsVararg, f.NumParams, f.LineDefined, f.LastLineDefined, f.Upvalues)
	}
	if names := []string{f.LocVars[0].Name, f.LocVars[1].Name}; names[0] != "x" || names[1] != "arg" {
		t.Errorf("f's locals %v, want x and arg", names)
	}
	if _, err := Compile([]byte("return ..."), "=c"); err != nil {
		t.Errorf("main chunk is vararg: %v", err)
	}
	if _, err := Compile([]byte("local function f() return ... end"), "=c"); err == nil || err.Error() != "c:1: cannot use '...' outside a vararg function near '...'" {
		t.Errorf("got %v", err)
	}
}
