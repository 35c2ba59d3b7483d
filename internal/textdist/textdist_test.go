package textdist

import (
	"strings"
	"testing"
)

func TestDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"status", "status", 0}, {"stauts", "status", 1}, {"chek", "check", 1}, {"init", "lint", 2},
		{"", "abc", 3}, {"frobnicate", "check", 9}, {strings.Repeat("a", 65), "a", Far},
	} {
		if got := Distance(tc.a, tc.b); got != tc.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}
