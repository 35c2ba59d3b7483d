package luac51

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"
)

// undump reads a dump back (lundump.c), for comparing a dump with the
// server's piece by piece.
func undump(b []byte) (*Proto, error) {
	if len(b) < len(Header) || string(b[:len(Header)]) != string(Header) {
		return nil, errors.New("bad header")
	}
	r := &reader{b: b[len(Header):]}
	p := r.proto("")
	if r.err != nil {
		return nil, r.err
	}
	if len(r.b) != 0 {
		return nil, fmt.Errorf("%d bytes after the function", len(r.b))
	}
	return p, nil
}

type reader struct {
	b   []byte
	err error
}

func (r *reader) take(n int) []byte {
	if r.err != nil || n < 0 || n > len(r.b) {
		if r.err == nil {
			r.err = errors.New("truncated")
		}
		return make([]byte, max(n, 0))
	}
	v := r.b[:n]
	r.b = r.b[n:]
	return v
}

func (r *reader) int() int     { return int(int32(binary.LittleEndian.Uint32(r.take(4)))) }
func (r *reader) byte() byte   { return r.take(1)[0] }
func (r *reader) size() uint64 { return binary.LittleEndian.Uint64(r.take(8)) }

func (r *reader) str() (string, bool) {
	n := r.size()
	if n == 0 {
		return "", false
	}
	if n > uint64(len(r.b)) {
		r.err = errors.New("truncated string")
		return "", false
	}
	s := r.take(int(n))
	return string(s[:len(s)-1]), true
}

func (r *reader) proto(parent string) *Proto {
	p := &Proto{}
	s, ok := r.str()
	if !ok {
		s = parent
	}
	p.Source = s
	p.LineDefined = r.int()
	p.LastLineDefined = r.int()
	p.Nups, p.NumParams, p.IsVararg, p.MaxStackSize = r.byte(), r.byte(), r.byte(), r.byte()
	n := r.int()
	for i := 0; i < n && r.err == nil; i++ {
		p.Code = append(p.Code, binary.LittleEndian.Uint32(r.take(4)))
	}
	n = r.int()
	for i := 0; i < n && r.err == nil; i++ {
		k := Constant{Kind: r.byte()}
		switch k.Kind {
		case KBool:
			k.B = r.byte() != 0
		case KNumber:
			k.N = math.Float64frombits(binary.LittleEndian.Uint64(r.take(8)))
		case KString:
			k.S, _ = r.str()
		case KNil:
		default:
			r.err = fmt.Errorf("bad constant type %d", k.Kind)
		}
		p.Constants = append(p.Constants, k)
	}
	n = r.int()
	for i := 0; i < n && r.err == nil; i++ {
		p.Protos = append(p.Protos, r.proto(p.Source))
	}
	n = r.int()
	for i := 0; i < n && r.err == nil; i++ {
		p.LineInfo = append(p.LineInfo, int32(r.int()))
	}
	n = r.int()
	for i := 0; i < n && r.err == nil; i++ {
		var v LocVar
		v.Name, _ = r.str()
		v.StartPC = r.int()
		v.EndPC = r.int()
		p.LocVars = append(p.LocVars, v)
	}
	n = r.int()
	for i := 0; i < n && r.err == nil; i++ {
		u, _ := r.str()
		p.Upvalues = append(p.Upvalues, u)
	}
	return p
}

var opNames = []string{"MOVE", "LOADK", "LOADBOOL", "LOADNIL", "GETUPVAL", "GETGLOBAL",
	"GETTABLE", "SETGLOBAL", "SETUPVAL", "SETTABLE", "NEWTABLE", "SELF", "ADD", "SUB",
	"MUL", "DIV", "MOD", "POW", "UNM", "NOT", "LEN", "CONCAT", "JMP", "EQ", "LT", "LE",
	"TEST", "TESTSET", "CALL", "TAILCALL", "RETURN", "FORLOOP", "FORPREP", "TFORLOOP",
	"SETLIST", "CLOSE", "CLOSURE", "VARARG"}

func disasm(i uint32) string {
	o := getOp(i)
	name := fmt.Sprintf("op%d", o)
	if o < len(opNames) {
		name = opNames[o]
	}
	switch o {
	case opLoadK, opGetGlobal, opSetGlobal, opClosure:
		return fmt.Sprintf("%-9s %d %d", name, getA(i), int(i>>14))
	case opJmp, opForLoop, opForPrep:
		return fmt.Sprintf("%-9s %d %d", name, getA(i), getSBx(i))
	}
	return fmt.Sprintf("%-9s %d %d %d", name, getA(i), getB(i), getC(i))
}

// diffProto describes the first difference between two prototypes.
func diffProto(path string, a, b *Proto) string {
	if a.Source != b.Source || a.LineDefined != b.LineDefined || a.LastLineDefined != b.LastLineDefined ||
		a.Nups != b.Nups || a.NumParams != b.NumParams || a.IsVararg != b.IsVararg || a.MaxStackSize != b.MaxStackSize {
		return fmt.Sprintf("%s: header ours %q %d-%d nups %d params %d vararg %d stack %d; server %q %d-%d nups %d params %d vararg %d stack %d",
			path, a.Source, a.LineDefined, a.LastLineDefined, a.Nups, a.NumParams, a.IsVararg, a.MaxStackSize,
			b.Source, b.LineDefined, b.LastLineDefined, b.Nups, b.NumParams, b.IsVararg, b.MaxStackSize)
	}
	codeDiff := len(a.Code) != len(b.Code)
	for i := 0; !codeDiff && i < len(a.Code); i++ {
		codeDiff = a.Code[i] != b.Code[i]
	}
	if codeDiff {
		var sb strings.Builder
		fmt.Fprintf(&sb, "%s: code differs\n", path)
		for i := 0; i < max(len(a.Code), len(b.Code)); i++ {
			x, y := "", ""
			if i < len(a.Code) {
				x = disasm(a.Code[i])
			}
			if i < len(b.Code) {
				y = disasm(b.Code[i])
			}
			mark := " "
			if x != y {
				mark = "*"
			}
			fmt.Fprintf(&sb, "%s %3d %-28s %s\n", mark, i, x, y)
		}
		return sb.String()
	}
	if fmt.Sprint(a.Constants) != fmt.Sprint(b.Constants) {
		return fmt.Sprintf("%s: constants\nours   %v\nserver %v", path, a.Constants, b.Constants)
	}
	for i := range a.Constants {
		if math.Float64bits(a.Constants[i].N) != math.Float64bits(b.Constants[i].N) {
			return fmt.Sprintf("%s: constant %d bits %v vs %v", path, i, a.Constants[i].N, b.Constants[i].N)
		}
	}
	if fmt.Sprint(a.LineInfo) != fmt.Sprint(b.LineInfo) {
		return fmt.Sprintf("%s: lineinfo\nours   %v\nserver %v", path, a.LineInfo, b.LineInfo)
	}
	if fmt.Sprint(a.LocVars) != fmt.Sprint(b.LocVars) {
		return fmt.Sprintf("%s: locvars\nours   %v\nserver %v", path, a.LocVars, b.LocVars)
	}
	if fmt.Sprint(a.Upvalues) != fmt.Sprint(b.Upvalues) {
		return fmt.Sprintf("%s: upvalues\nours   %v\nserver %v", path, a.Upvalues, b.Upvalues)
	}
	if len(a.Protos) != len(b.Protos) {
		return fmt.Sprintf("%s: %d functions, server %d", path, len(a.Protos), len(b.Protos))
	}
	for i := range a.Protos {
		if d := diffProto(fmt.Sprintf("%s/%d", path, i), a.Protos[i], b.Protos[i]); d != "" {
			return d
		}
	}
	return ""
}
