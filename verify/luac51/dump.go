package luac51

import (
	"encoding/binary"
	"math"
	"strings"
)

// Constant kinds, the type tags ldump.c writes (LUA_TNIL, LUA_TBOOLEAN,
// LUA_TNUMBER, LUA_TSTRING).
const (
	KNil    = 0
	KBool   = 1
	KNumber = 3
	KString = 4
)

// Constant is one entry of a prototype's constant table.
type Constant struct {
	Kind byte
	B    bool
	N    float64
	S    string
}

// LocVar is a local variable's debug information: its name and the
// instructions where it is active.
type LocVar struct {
	Name           string
	StartPC, EndPC int
}

// Proto is a Lua 5.1 function prototype as lparser.c leaves it.
type Proto struct {
	Source          string
	LineDefined     int
	LastLineDefined int
	Nups            byte
	NumParams       byte
	IsVararg        byte
	MaxStackSize    byte
	Code            []uint32
	LineInfo        []int32
	Constants       []Constant
	Protos          []*Proto
	LocVars         []LocVar
	Upvalues        []string
}

// Header is luaU_header on x86-64: "\x1bLua", version 0x51, format 0,
// little endian, sizes of int (4), size_t (8), Instruction (4) and
// lua_Number (8), and 0 for a floating-point lua_Number.
var Header = []byte{0x1b, 'L', 'u', 'a', 0x51, 0, 1, 4, 8, 4, 8, 0}

// Dump is luaU_dump without stripping, what string.dump returns for a
// function of this prototype.
func (p *Proto) Dump() []byte {
	b := append([]byte(nil), Header...)
	return p.dump(b, "", false)
}

func dumpInt(b []byte, x int) []byte {
	return binary.LittleEndian.AppendUint32(b, uint32(int32(x)))
}

func dumpString(b []byte, s string, null bool) []byte {
	if null {
		return binary.LittleEndian.AppendUint64(b, 0)
	}
	b = binary.LittleEndian.AppendUint64(b, uint64(len(s)+1))
	return append(append(b, s...), 0)
}

func (p *Proto) dump(b []byte, parent string, hasParent bool) []byte {
	// A nested function shares its parent's source string: DumpFunction
	// writes it as NULL.
	b = dumpString(b, p.Source, hasParent && p.Source == parent)
	b = dumpInt(b, p.LineDefined)
	b = dumpInt(b, p.LastLineDefined)
	b = append(b, p.Nups, p.NumParams, p.IsVararg, p.MaxStackSize)
	b = dumpInt(b, len(p.Code))
	for _, i := range p.Code {
		b = binary.LittleEndian.AppendUint32(b, i)
	}
	b = dumpInt(b, len(p.Constants))
	for _, k := range p.Constants {
		b = append(b, k.Kind)
		switch k.Kind {
		case KBool:
			v := byte(0)
			if k.B {
				v = 1
			}
			b = append(b, v)
		case KNumber:
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(k.N))
		case KString:
			b = dumpString(b, k.S, false)
		}
	}
	b = dumpInt(b, len(p.Protos))
	for _, c := range p.Protos {
		b = c.dump(b, p.Source, true)
	}
	b = dumpInt(b, len(p.LineInfo))
	for _, l := range p.LineInfo {
		b = binary.LittleEndian.AppendUint32(b, uint32(l))
	}
	b = dumpInt(b, len(p.LocVars))
	for _, v := range p.LocVars {
		b = dumpString(b, v.Name, false)
		b = dumpInt(b, v.StartPC)
		b = dumpInt(b, v.EndPC)
	}
	b = dumpInt(b, len(p.Upvalues))
	for _, u := range p.Upvalues {
		b = dumpString(b, u, false)
	}
	return b
}

// ChunkID is Lua 5.1's luaO_chunkid with LUA_IDSIZE 60: "@file" prints as
// file, "=name" as name, anything else as [string "first line..."].
func ChunkID(source string) string {
	if i := strings.IndexByte(source, 0); i >= 0 {
		source = source[:i]
	}
	const idSize = 60
	switch {
	case strings.HasPrefix(source, "="):
		s := source[1:]
		if len(s) > idSize-1 {
			s = s[:idSize-1]
		}
		return s
	case strings.HasPrefix(source, "@"):
		s := source[1:]
		max := idSize - len(" '...' ") - 1
		if len(s) > max {
			return "..." + s[len(s)-max:]
		}
		return s
	}
	n := strings.IndexAny(source, "\n\r")
	if n < 0 {
		n = len(source)
	}
	max := idSize - len(" [string \"...\"] ") - 1
	if n > max {
		n = max
	}
	if n < len(source) {
		return `[string "` + source[:n] + `..."]`
	}
	return `[string "` + source + `"]`
}
