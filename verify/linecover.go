package verify

import (
	"context"
	"sort"
	"sync"

	lua "github.com/yuin/gopher-lua"
)

// Line and branch coverage of the scripts an engine runs. A run whose
// context carries a LineCoverage (WithLineCoverage) records, before every
// VM instruction (stepContext.Done), the instruction about to run, and for
// every conditional (EQ, LT, LE, TEST, TESTSET, which skip the next
// instruction or not) which way it went. gopher-lua does not export the
// running frame: it is read through the mirror framepc.go checks
// (currentFrameOf); with another layout coverage records nothing and
// LineCoverage.Supported says so.

// LineCoverage accumulates what runs executed; safe for concurrent use by
// the engines of parallel runs.
type LineCoverage struct {
	mu   sync.Mutex
	hits map[*lua.FunctionProto]*protoHits
}

// protoHits are one function's counts: executions per instruction, and
// for a conditional at pc the times it fell through to pc+1 and skipped to
// pc+2.
type protoHits struct {
	n          []uint32
	next, skip map[int]uint32
}

// NewLineCoverage returns an empty recorder.
func NewLineCoverage() *LineCoverage {
	return &LineCoverage{hits: map[*lua.FunctionProto]*protoHits{}}
}

// Supported reports whether this build of gopher-lua's frames can be read;
// without it nothing is recorded.
func (c *LineCoverage) Supported() bool { return currentFrameOK() }

type lineCoverageKey struct{}

// WithLineCoverage returns a context under which every run an engine makes
// records into c.
func WithLineCoverage(ctx context.Context, c *LineCoverage) context.Context {
	return context.WithValue(ctx, lineCoverageKey{}, c)
}

func lineCoverageOf(ctx context.Context) *LineCoverage {
	c, _ := ctx.Value(lineCoverageKey{}).(*LineCoverage)
	if c != nil && !currentFrameOK() {
		return nil
	}
	return c
}

// runCover is one run's recording, merged into the LineCoverage when the
// run ends (flush): no lock per instruction.
type runCover struct {
	c     *LineCoverage
	hits  map[*lua.FunctionProto]*protoHits
	th    *lua.LState // the thread and instruction recorded last
	proto *lua.FunctionProto
	pc    int
}

func (rc *runCover) record(g *lua.Global) {
	th := g.CurrentThread
	cf := currentFrameOf(th)
	if cf == nil {
		return
	}
	fn := cf.Fn
	if fn == nil || fn.IsG || fn.Proto == nil {
		return
	}
	p := fn.Proto
	pc := cf.Pc - 1 // the VM counted it already
	if pc < 0 || pc >= len(p.Code) {
		return
	}
	h := rc.hits[p]
	if h == nil {
		h = &protoHits{n: make([]uint32, len(p.Code))}
		rc.hits[p] = h
	}
	h.n[pc]++
	if inst := p.Code[pc]; int(inst>>26) == lua.OP_MOVEN {
		// MOVEN runs the C MOVEs after it itself, never dispatched:
		// consecutive "local a = b" lines are one instruction.
		for i := 1; i <= int(inst>>9)&0x1ff && pc+i < len(h.n); i++ {
			h.n[pc+i]++
		}
	}
	if th == rc.th && p == rc.proto && isConditional(p.Code[rc.pc]) {
		switch pc {
		case rc.pc + 1:
			if h.next == nil {
				h.next = map[int]uint32{}
			}
			h.next[rc.pc]++
		case rc.pc + 2:
			if h.skip == nil {
				h.skip = map[int]uint32{}
			}
			h.skip[rc.pc]++
		}
	}
	rc.th, rc.proto, rc.pc = th, p, pc
}

func (rc *runCover) flush() {
	c := rc.c
	c.mu.Lock()
	defer c.mu.Unlock()
	for p, h := range rc.hits {
		dst := c.hits[p]
		if dst == nil {
			c.hits[p] = h
			continue
		}
		for i, n := range h.n {
			dst.n[i] += n
		}
		dst.next = addCounts(dst.next, h.next)
		dst.skip = addCounts(dst.skip, h.skip)
	}
	rc.hits = map[*lua.FunctionProto]*protoHits{}
	rc.th, rc.proto = nil, nil
}

func addCounts(dst, src map[int]uint32) map[int]uint32 {
	if len(src) == 0 {
		return dst
	}
	if dst == nil {
		dst = map[int]uint32{}
	}
	for k, v := range src {
		dst[k] += v
	}
	return dst
}

func isConditional(inst uint32) bool {
	switch int(inst >> 26) {
	case lua.OP_EQ, lua.OP_LT, lua.OP_LE, lua.OP_TEST, lua.OP_TESTSET:
		return true
	}
	return false
}

// LineHits is one source line's coverage: how often its first instruction
// ran, and its conditionals' outcomes.
type LineHits struct {
	Line     int
	Count    uint32
	Branches []BranchHits // in instruction order
}

// BranchHits is one conditional: the times it went each way.
type BranchHits struct{ Next, Skip uint32 }

// ScriptLines is the coverage of one script as EVAL runs it: every line
// with code, in line order.
func (c *LineCoverage) ScriptLines(body []byte) []LineHits {
	_, n, _ := parseShebang(body, targets.Get()[DefaultTarget])
	return c.lines(compileCached(body[n:], "@user_script"), func(line int) (int, bool) { return line, true })
}

// LibraryLines is the coverage of a Functions library as FUNCTION LOAD
// compiles it, each line passed through at (a library line to the
// script's line; false leaves it out: the library's own code).
func (c *LineCoverage) LibraryLines(code []byte, at func(line int) (int, bool)) []LineHits {
	end := 0
	for end < len(code) && code[end] != '\n' {
		end++
	}
	return c.lines(compileCached(code[end:], "@user_function"), at)
}

func (c *LineCoverage) lines(cc *compiled, at func(int) (int, bool)) []LineHits {
	if cc.err != nil || cc.proto == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	byLine := map[int]*LineHits{}
	var walk func(p *lua.FunctionProto)
	walk = func(p *lua.FunctionProto) {
		h := c.hits[p]
		seen := map[int]bool{}
		for pc := range p.Code {
			if pc >= len(p.DbgSourcePositions) {
				break
			}
			if pc == len(p.Code)-1 && int(p.Code[pc]>>26) == lua.OP_RETURN {
				// The return the compiler adds at a function's end: its
				// "end" line is no code a test could run.
				continue
			}
			line, ok := at(p.DbgSourcePositions[pc])
			if !ok || line <= 0 {
				continue
			}
			lh := byLine[line]
			if lh == nil {
				lh = &LineHits{Line: line}
				byLine[line] = lh
			}
			if !seen[line] && h != nil {
				// A line counts as often as its first instruction of
				// this function ran.
				lh.Count += h.n[pc]
			}
			seen[line] = true
			if isConditional(p.Code[pc]) {
				var b BranchHits
				if h != nil {
					b = BranchHits{Next: h.next[pc], Skip: h.skip[pc]}
				}
				lh.Branches = append(lh.Branches, b)
			}
		}
		for _, q := range p.FunctionPrototypes {
			walk(q)
		}
	}
	walk(cc.proto)
	out := make([]LineHits, 0, len(byLine))
	for _, lh := range byLine {
		out = append(out, *lh)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Line < out[j].Line })
	return out
}
