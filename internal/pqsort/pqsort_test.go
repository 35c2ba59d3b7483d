package pqsort

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// byKey sorts words by their first byte only, so words with the same
// first byte tie: where ties land is what the servers' pqsort decides.
func byKey(words []string, lo, hi int) []string {
	w := slices.Clone(words)
	Sort(len(w), func(i, j int) int { return int(w[i][0]) - int(w[j][0]) },
		func(i, j int) { w[i], w[j] = w[j], w[i] }, lo, hi)
	return w
}

// TestTiesAsTheServer checks orders recorded from redis-server 7.0.15:
// RPUSH l e b a d c f g h i j k, every weight w_* set to 1, then
// SORT l BY w_* ALPHA LIMIT ... (equal weights compare 0; ALPHA DESC
// negates the comparison, which leaves ties alone).
func TestTiesAsTheServer(t *testing.T) {
	in := strings.Fields("e b a d c f g h i j k")
	allTie := func(lo, hi int) []string {
		w := slices.Clone(in)
		Sort(len(w), func(i, j int) int { return 0 }, func(i, j int) { w[i], w[j] = w[j], w[i] }, lo, hi)
		return w[lo : hi+1]
	}
	for _, c := range []struct {
		lo, hi int
		want   string
	}{
		{0, 4, "k b a d c"},
		{2, 4, "a d c"},
		{0, 9, "k b a d c f g h i j"},
	} {
		if got := strings.Join(allTie(c.lo, c.hi), " "); got != c.want {
			t.Errorf("LIMIT %d %d: got %q, the server answers %q", c.lo, c.hi-c.lo+1, got, c.want)
		}
	}
}

// TestRangeSorted checks the contract on random inputs with many ties:
// the requested positions hold what a full sort puts there.
func TestRangeSorted(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for iter := 0; iter < 3000; iter++ {
		n := 1 + r.IntN(120)
		w := make([]string, n)
		for i := range w {
			w[i] = string(rune('a'+r.IntN(6))) + string(rune('a'+r.IntN(26)))
		}
		lo := r.IntN(n)
		hi := lo + r.IntN(n-lo)
		got := byKey(w, lo, hi)
		full := slices.Clone(w)
		slices.SortStableFunc(full, func(a, b string) int { return int(a[0]) - int(b[0]) })
		for i := lo; i <= hi; i++ {
			if got[i][0] != full[i][0] {
				t.Fatalf("n=%d range %d..%d: position %d holds %q, a full sort %q", n, lo, hi, i, got[i], full[i])
			}
		}
		gs, ws := slices.Clone(got), slices.Clone(w)
		slices.Sort(gs)
		slices.Sort(ws)
		if !slices.Equal(gs, ws) {
			t.Fatalf("n=%d: elements lost or duplicated", n)
		}
		if lo == 0 && hi == n-1 && !slices.IsSortedFunc(got, func(a, b string) int { return int(a[0]) - int(b[0]) }) {
			t.Fatalf("n=%d: the whole range is not sorted: %q", n, got)
		}
	}
}

// TestGeoTiesAsTheServer checks an order recorded from redis-server
// 7.0.15: GEOSEARCH ... DESC COUNT 3 over an array (the search's order)
// of one point at 239 km, thirty at 249 km and one at 233 km answers
// p28 p00 p01 (a partition that swaps nothing is not insertion sorted).
func TestGeoTiesAsTheServer(t *testing.T) {
	a := []string{"far"}
	d := map[string]int{"far": 239, "near": 233}
	for i := 0; i < 30; i++ {
		n := string(rune('A'+i/10)) + string(rune('0'+i%10))
		a = append(a, n)
		d[n] = 249
	}
	a = append(a, "near")
	Sort(len(a), func(i, j int) int { return d[a[j]] - d[a[i]] }, func(i, j int) { a[i], a[j] = a[j], a[i] }, 0, 2)
	if got := strings.Join(a[:3], " "); got != "C8 A0 A1" {
		t.Errorf("got %q, the server answers the 29th, the 1st and the 2nd of the ties (C8 A0 A1)", got)
	}
}
