package verify

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"
)

// sortInts runs luaSort over a 1-based copy of in and returns the result,
// the comparator's calls ("a<b") and the error.
func sortInts(in []int, less func(a, b int) bool) ([]int, []string, error) {
	a := append([]int{0}, in...)
	var calls []string
	get := func(i int) int {
		if i < 1 || i >= len(a) {
			return -1 // nil past the ends
		}
		return a[i]
	}
	set := func(i, v int) { a[i] = v }
	err := luaSort(len(in), get, set, func(x, y int) bool {
		calls = append(calls, fmt.Sprintf("%d<%d", x, y))
		return less(x, y)
	})
	return a[1:], calls, err
}

func TestLuaSort(t *testing.T) {
	lt := func(a, b int) bool { return a < b }
	for n := 0; n <= 130; n++ {
		in := make([]int, n)
		for i := range in {
			in[i] = (i * 37) % (n + 2)
		}
		got, _, err := sortInts(in, lt)
		if err != nil || !sort.IntsAreSorted(got) {
			t.Fatalf("n=%d: %v %v", n, got, err)
		}
	}
	// Observed on redis-server 7.0.15 (difftest lua-sort-calllog-5,
	// lua-sort-always-true and lua-sort-always-true-nil-reached; -1 stands
	// for the nil read past the end).
	yes := func(a, b int) bool { return true }
	tests := []struct {
		name  string
		in    []int
		less  func(a, b int) bool
		out   string
		calls string
		err   error
	}{
		{"calllog-5", []int{2, 4, 6, 1, 3}, lt, "1 2 3 4 6",
			"3<2 6<2 3<6 4<3 3<1 4<3 3<1 6<4 1<2", nil},
		{"always-true", []int{4, 2, 6, 1, 5, 3}, yes, "6 2 5 1 3 4", "", errInvalidOrder},
		{"always-true-nil-reached", []int{1, 2, 3, 4, 5}, yes, "3 2 4 5 1",
			"5<1 3<5 2<5 4<5 5<5 1<5 -1<5", errInvalidOrder},
	}
	for _, tc := range tests {
		got, calls, err := sortInts(tc.in, tc.less)
		if s := strings.Trim(fmt.Sprint(got), "[]"); s != tc.out || !errors.Is(err, tc.err) {
			t.Errorf("%s: got %s, %v; want %s, %v", tc.name, s, err, tc.out, tc.err)
		}
		if tc.name == "always-true" && len(calls) != 8 {
			t.Errorf("%s: %d calls, want 8", tc.name, len(calls))
		}
		if c := strings.Join(calls, " "); tc.calls != "" && c != tc.calls {
			t.Errorf("%s: calls %s, want %s", tc.name, c, tc.calls)
		}
	}
}
