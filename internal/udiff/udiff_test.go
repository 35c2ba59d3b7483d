package udiff

import (
	"fmt"
	"math/rand"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

func TestUnifiedExamples(t *testing.T) {
	tests := []struct {
		name, a, b, want string
	}{
		{"equal", "a\nb\n", "a\nb\n", ""},
		{"both empty", "", "", ""},
		{"one line changed", "a\nb\nc\n", "a\nB\nc\n",
			"--- a\n+++ b\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"},
		{"from empty", "", "x\ny\n",
			"--- a\n+++ b\n@@ -0,0 +1,2 @@\n+x\n+y\n"},
		{"to empty", "x\n", "",
			"--- a\n+++ b\n@@ -1 +0,0 @@\n-x\n"},
		{"no newline at end", "a\nb", "a\nb\n",
			"--- a\n+++ b\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n"},
		{"context is three lines", "1\n2\n3\n4\n5\n6\n7\n8\n9\n", "1\n2\n3\n4\nX\n6\n7\n8\n9\n",
			"--- a\n+++ b\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+X\n 6\n 7\n 8\n"},
		{"insert in the middle", "1\n2\n3\n4\n5\n6\n7\n8\n", "1\n2\n3\n4\nnew\n5\n6\n7\n8\n",
			"--- a\n+++ b\n@@ -2,6 +2,7 @@\n 2\n 3\n 4\n+new\n 5\n 6\n 7\n"},
		// Six unchanged lines between two changes: one hunk (their contexts
		// touch); seven: two hunks. Both as diff -u prints them.
		{"gap of six joins", "a\n1\n2\n3\n4\n5\n6\nb\n", "A\n1\n2\n3\n4\n5\n6\nB\n",
			"--- a\n+++ b\n@@ -1,8 +1,8 @@\n-a\n+A\n 1\n 2\n 3\n 4\n 5\n 6\n-b\n+B\n"},
		{"gap of seven splits", "a\n1\n2\n3\n4\n5\n6\n7\nb\n", "A\n1\n2\n3\n4\n5\n6\n7\nB\n",
			"--- a\n+++ b\n@@ -1,4 +1,4 @@\n-a\n+A\n 1\n 2\n 3\n@@ -6,4 +6,4 @@\n 5\n 6\n 7\n-b\n+B\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Unified("a", "b", tt.a, tt.b); got != tt.want {
				t.Errorf("Unified:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}

// TestDiffMinimalAndApplies checks, on random texts over a small alphabet
// (many repeated lines, the hard case), that the edit script is minimal (its
// changed lines are len(a)+len(b)-2*LCS) and that applying the unified diff
// to a gives b.
func TestDiffMinimalAndApplies(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 2000; i++ {
		a := randomText(rng, rng.Intn(30))
		b := mutate(rng, a)
		ops := Diff(Lines(a), Lines(b))
		changed := 0
		var gotA, gotB strings.Builder
		for _, o := range ops {
			if o.Kind != Equal {
				changed++
			}
			if o.Kind != Insert {
				gotA.WriteString(o.Line)
			}
			if o.Kind != Delete {
				gotB.WriteString(o.Line)
			}
		}
		if gotA.String() != a || gotB.String() != b {
			t.Fatalf("case %d: the script does not rebuild its inputs\na=%q\nb=%q", i, a, b)
		}
		la, lb := Lines(a), Lines(b)
		if want := len(la) + len(lb) - 2*lcs(la, lb); changed != want {
			t.Fatalf("case %d: %d changed lines, minimal is %d\na=%q\nb=%q", i, changed, want, a, b)
		}
		if got := apply(t, a, Unified("a", "b", a, b)); got != b {
			t.Fatalf("case %d: patch gives %q, want %q\n%s", i, got, b, Unified("a", "b", a, b))
		}
	}
}

// TestMaxEditsFallsBack: past MaxEdits the diff replaces the middle whole and
// still applies.
func TestMaxEditsFallsBack(t *testing.T) {
	var a, b strings.Builder
	for i := 0; i < MaxEdits+10; i++ {
		fmt.Fprintf(&a, "a%d\n", i)
		fmt.Fprintf(&b, "b%d\n", i)
	}
	u := Unified("a", "b", a.String(), b.String())
	if got := apply(t, a.String(), u); got != b.String() {
		t.Fatal("the fallback diff does not apply")
	}
}

func randomText(rng *rand.Rand, n int) string {
	var sb strings.Builder
	for i := 0; i < n; i++ {
		sb.WriteString(string(rune('a' + rng.Intn(4))))
		sb.WriteByte('\n')
	}
	s := sb.String()
	if s != "" && rng.Intn(5) == 0 {
		s = s[:len(s)-1] // no newline at the end
	}
	return s
}

func mutate(rng *rand.Rand, a string) string {
	ls := Lines(a)
	for n := rng.Intn(6); n > 0; n-- {
		switch i := rng.Intn(len(ls) + 1); rng.Intn(3) {
		case 0:
			ls = append(ls[:i], append([]string{string(rune('a'+rng.Intn(5))) + "\n"}, ls[i:]...)...)
		case 1:
			if i < len(ls) {
				ls = append(ls[:i], ls[i+1:]...)
			}
		default:
			if i < len(ls) {
				ls[i] = "x\n"
			}
		}
	}
	s := strings.Join(ls, "")
	if strings.HasSuffix(s, "\n") && rng.Intn(6) == 0 {
		s = s[:len(s)-1]
	}
	return s
}

func lcs(a, b []string) int {
	dp := make([][]int, len(a)+1)
	for i := range dp {
		dp[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				dp[i][j] = dp[i+1][j+1] + 1
			} else {
				dp[i][j] = max(dp[i+1][j], dp[i][j+1])
			}
		}
	}
	return dp[0][0]
}

var hunkHeader = regexp.MustCompile(`^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@$`)

// apply applies a unified diff to a, checking every context and deleted
// line and every hunk's line counts, as patch does.
func apply(t *testing.T, a, diff string) string {
	t.Helper()
	if diff == "" {
		return a
	}
	src := Lines(a)
	lines := strings.SplitAfter(diff, "\n")
	if !strings.HasPrefix(lines[0], "--- ") || !strings.HasPrefix(lines[1], "+++ ") {
		t.Fatalf("no headers:\n%s", diff)
	}
	var out []string
	pos := 0 // next line of src to copy
	for i := 2; i < len(lines) && lines[i] != ""; {
		m := hunkHeader.FindStringSubmatch(strings.TrimSuffix(lines[i], "\n"))
		if m == nil {
			t.Fatalf("bad hunk header %q", lines[i])
		}
		start, _ := strconv.Atoi(m[1])
		na := 1
		if m[2] != "" {
			na, _ = strconv.Atoi(m[2])
		}
		nb := 1
		if m[4] != "" {
			nb, _ = strconv.Atoi(m[4])
		}
		if na > 0 {
			start-- // 1-based; an empty range names the line before
		}
		out = append(out, src[pos:start]...)
		pos = start
		i++
		ga, gb := 0, 0
		for i < len(lines) && lines[i] != "" && !strings.HasPrefix(lines[i], "@@") {
			l := lines[i]
			body := l[1:]
			if i+1 < len(lines) && lines[i+1] == "\\ No newline at end of file\n" {
				body = strings.TrimSuffix(body, "\n")
				i++
			}
			switch l[0] {
			case ' ', '-':
				if pos >= len(src) || src[pos] != body {
					t.Fatalf("hunk line %q does not match source line %d", l, pos+1)
				}
				pos++
				ga++
				if l[0] == ' ' {
					out = append(out, body)
					gb++
				}
			case '+':
				out = append(out, body)
				gb++
			default:
				t.Fatalf("bad hunk line %q", l)
			}
			i++
		}
		if ga != na || gb != nb {
			t.Fatalf("hunk counts %d,%d, header says %d,%d\n%s", ga, gb, na, nb, diff)
		}
	}
	out = append(out, src[pos:]...)
	return strings.Join(out, "")
}
