// Package udiff computes line differences and prints them as unified diffs
// (the format of diff -u and git diff): Myers' O(ND) algorithm over lines,
// hunks with three lines of context, GNU's range rules and its "\ No newline
// at end of file" marker. It owns nothing else: no word diffs, no colours,
// no patch application.
package udiff

import (
	"fmt"
	"strings"
)

// Context is the number of unchanged lines around each change.
const Context = 3

// MaxEdits bounds Myers' search: past this many inserted and deleted lines
// the middle (what lies between the common first and last lines) is
// reported as deleted then inserted whole. The diff is still correct
// (applying it gives the new text), only not minimal, and the work stays
// O((N+M)*MaxEdits) time and O(MaxEdits^2) memory (16 MB).
const MaxEdits = 2000

// OpKind is what an edit does to a line.
type OpKind byte

// Edit kinds.
const (
	Equal  OpKind = ' '
	Delete OpKind = '-'
	Insert OpKind = '+'
)

// Op is one line of the edit script.
type Op struct {
	Kind OpKind
	Line string // with its newline, when it has one
}

// Lines splits s into lines, each keeping its "\n"; the last line may lack
// one. An empty s has no lines.
func Lines(s string) []string {
	var out []string
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}

// Diff returns an edit script turning a into b, line by line: Equal lines
// are in both, Delete lines only in a, Insert lines only in b; deletions
// come before insertions within a change.
func Diff(a, b []string) []Op {
	// Common prefix and suffix cost nothing and keep the search small.
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	ops := make([]Op, 0, len(a)+len(b))
	for _, l := range a[:pre] {
		ops = append(ops, Op{Equal, l})
	}
	ops = append(ops, myers(a[pre:len(a)-suf], b[pre:len(b)-suf])...)
	for _, l := range a[len(a)-suf:] {
		ops = append(ops, Op{Equal, l})
	}
	return ops
}

// myers is the greedy forward search of Myers (1986), "An O(ND) Difference
// Algorithm and Its Variations", keeping each round's furthest reaching
// paths to walk the shortest edit script back.
func myers(a, b []string) []Op {
	n, m := len(a), len(b)
	if n == 0 || m == 0 {
		return replaceAll(a, b)
	}
	max := min(n+m, MaxEdits)
	off := max + 1
	v := make([]int, 2*max+3)
	var trace [][]int32
	found := -1
	for d := 0; d <= max && found < 0; d++ {
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = v[off+k+1] // down: an insertion
			} else {
				x = v[off+k-1] + 1 // right: a deletion
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x++
				y++
			}
			v[off+k] = x
			if x >= n && y >= m {
				found = d
				break
			}
		}
		// Keep only the diagonals this round could touch.
		snap := make([]int32, 2*d+1)
		for i := range snap {
			snap[i] = int32(v[off-d+i])
		}
		trace = append(trace, snap)
	}
	if found < 0 {
		return replaceAll(a, b)
	}
	// Walk back from (n, m) through the saved rounds.
	var rev []Op
	x, y := n, m
	for d := found; d > 0; d-- {
		prev := trace[d-1] // diagonals -(d-1)..(d-1)
		at := func(k int) int { return int(prev[k+d-1]) }
		k := x - y
		var pk int
		if k == -d || (k != d && at(k-1) < at(k+1)) {
			pk = k + 1
		} else {
			pk = k - 1
		}
		px := at(pk)
		py := px - pk
		for x > px && y > py {
			x--
			y--
			rev = append(rev, Op{Equal, a[x]})
		}
		if pk == k+1 {
			y--
			rev = append(rev, Op{Insert, b[y]})
		} else {
			x--
			rev = append(rev, Op{Delete, a[x]})
		}
	}
	for x > 0 && y > 0 {
		x--
		y--
		rev = append(rev, Op{Equal, a[x]})
	}
	ops := make([]Op, len(rev))
	for i := range rev {
		ops[i] = rev[len(rev)-1-i]
	}
	return deletesFirst(ops)
}

func replaceAll(a, b []string) []Op {
	ops := make([]Op, 0, len(a)+len(b))
	for _, l := range a {
		ops = append(ops, Op{Delete, l})
	}
	for _, l := range b {
		ops = append(ops, Op{Insert, l})
	}
	return ops
}

// deletesFirst orders each run of changes deletions first, as diff -u
// prints them.
func deletesFirst(ops []Op) []Op {
	out := make([]Op, 0, len(ops))
	for i := 0; i < len(ops); {
		if ops[i].Kind == Equal {
			out = append(out, ops[i])
			i++
			continue
		}
		j := i
		for j < len(ops) && ops[j].Kind != Equal {
			j++
		}
		for _, o := range ops[i:j] {
			if o.Kind == Delete {
				out = append(out, o)
			}
		}
		for _, o := range ops[i:j] {
			if o.Kind == Insert {
				out = append(out, o)
			}
		}
		i = j
	}
	return out
}

// Unified returns the unified diff of texts a and b under the headers
// "--- aName" and "+++ bName", or "" when they are equal.
func Unified(aName, bName, a, b string) string {
	ops := Diff(Lines(a), Lines(b))
	hunks := hunksOf(ops)
	if len(hunks) == 0 {
		return ""
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "--- %s\n+++ %s\n", aName, bName)
	for _, h := range hunks {
		h.write(&sb, ops)
	}
	return sb.String()
}

// hunk is ops[lo:hi] starting at line aLine of a and bLine of b (1-based).
type hunk struct {
	lo, hi       int
	aLine, bLine int
}

func hunksOf(ops []Op) []hunk {
	var hunks []hunk
	aLine, bLine := make([]int, len(ops)+1), make([]int, len(ops)+1)
	aLine[0], bLine[0] = 1, 1
	for i, o := range ops {
		aLine[i+1], bLine[i+1] = aLine[i], bLine[i]
		if o.Kind != Insert {
			aLine[i+1]++
		}
		if o.Kind != Delete {
			bLine[i+1]++
		}
	}
	for i := 0; i < len(ops); {
		if ops[i].Kind == Equal {
			i++
			continue
		}
		lo := max(i-Context, 0)
		if n := len(hunks); n > 0 && lo <= hunks[n-1].hi {
			lo = hunks[n-1].lo
			hunks = hunks[:n-1]
		}
		// Extend over this change and any change within 2*Context
		// unchanged lines of it.
		j := i
		for {
			for j < len(ops) && ops[j].Kind != Equal {
				j++
			}
			k := j
			for k < len(ops) && ops[k].Kind == Equal && k-j < 2*Context+1 {
				k++
			}
			if k < len(ops) && ops[k].Kind != Equal && k-j <= 2*Context {
				j = k
				continue
			}
			break
		}
		hi := min(j+Context, len(ops))
		hunks = append(hunks, hunk{lo: lo, hi: hi, aLine: aLine[lo], bLine: bLine[lo]})
		i = j
	}
	return hunks
}

func (h hunk) write(sb *strings.Builder, ops []Op) {
	var na, nb int
	for _, o := range ops[h.lo:h.hi] {
		if o.Kind != Insert {
			na++
		}
		if o.Kind != Delete {
			nb++
		}
	}
	fmt.Fprintf(sb, "@@ -%s +%s @@\n", rangeOf(h.aLine, na), rangeOf(h.bLine, nb))
	for _, o := range ops[h.lo:h.hi] {
		sb.WriteByte(byte(o.Kind))
		sb.WriteString(o.Line)
		if !strings.HasSuffix(o.Line, "\n") {
			sb.WriteString("\n\\ No newline at end of file\n")
		}
	}
}

// rangeOf is GNU diff's unified range: "l" for one line, "l,n" otherwise,
// and for an empty range the line before it ("0,0" at the start).
func rangeOf(line, n int) string {
	switch n {
	case 0:
		return fmt.Sprintf("%d,0", line-1)
	case 1:
		return fmt.Sprintf("%d", line)
	}
	return fmt.Sprintf("%d,%d", line, n)
}
