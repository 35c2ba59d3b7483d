// Package pqsort is the partial quicksort Redis and Valkey use for SORT
// ... BY ... LIMIT and for GEOSEARCH/GEORADIUS with COUNT: Bentley and
// McIlroy's "Engineering a Sort Function" as NetBSD's libc has it
// (qsort.c 1.19), changed to leave alone the partitions that lie wholly
// outside the range of positions the caller will read, and without BSD's
// switch to insertion sort after a partition that swapped nothing, which
// the servers' copy does not have. Redis 7.0 to 8.0 and Valkey 8.1 to 9.1
// sort this way (TestTiesAsTheServer and the SORT and
// GEOSEARCH snippets of the difftest corpus record their orders).
//
// The order it leaves elements that compare equal is not their input
// order, and it is not the order of the C library's qsort (glibc's is a
// stable merge sort): a server answers SORT with LIMIT over equal weights,
// or GEOSEARCH COUNT over equal distances, in this order. Sort reproduces
// it exactly: the same comparisons in the same order, the same swaps.
package pqsort

// Sort orders the n elements reached through cmp and swap so that
// positions lo..hi (inclusive, 0-based) hold what a full sort would put
// there, exactly as the servers' pqsort(a, n, es, cmp, lo, hi) leaves
// them. cmp(i, j) compares the elements now at positions i and j (<0, 0,
// >0); swap(i, j) exchanges them.
func Sort(n int, cmp func(i, j int) int, swap func(i, j int), lo, hi int) {
	s := sorter{cmp: cmp, swap: swap, lo: lo, hi: hi}
	s.sort(0, n)
}

type sorter struct {
	cmp    func(i, j int) int
	swap   func(i, j int)
	lo, hi int
}

// med3 is the median of the three positions, with the comparisons in
// the C code's order.
func (s *sorter) med3(a, b, c int) int {
	if s.cmp(a, b) < 0 {
		if s.cmp(b, c) < 0 {
			return b
		}
		if s.cmp(a, c) < 0 {
			return c
		}
		return a
	}
	if s.cmp(b, c) > 0 {
		return b
	}
	if s.cmp(a, c) < 0 {
		return a
	}
	return c
}

// insertion sorts positions a..a+n-1 by straight insertion.
func (s *sorter) insertion(a, n int) {
	for m := a + 1; m < a+n; m++ {
		for l := m; l > a && s.cmp(l-1, l) > 0; l-- {
			s.swap(l, l-1)
		}
	}
}

// vecswap exchanges the k elements from a with the k from b, pairwise.
func (s *sorter) vecswap(a, b, k int) {
	for i := 0; i < k; i++ {
		s.swap(a+i, b+i)
	}
}

// outside reports whether the requested range lies wholly before or
// wholly after the partition a..a+n-1 (the C code's address test).
func (s *sorter) outside(a, n int) bool {
	last := a + n - 1
	return (s.lo < a && s.hi < a) || (s.lo > last && s.hi > last)
}

// sort is _pqsort over positions a..a+n-1.
func (s *sorter) sort(a, n int) {
	for {
		if n < 7 {
			s.insertion(a, n)
			return
		}
		pm := a + n/2
		if n > 7 {
			pl, pn := a, a+n-1
			if n > 40 {
				d := n / 8
				pl = s.med3(pl, pl+d, pl+2*d)
				pm = s.med3(pm-d, pm, pm+d)
				pn = s.med3(pn-2*d, pn-d, pn)
			}
			pm = s.med3(pl, pm, pn)
		}
		s.swap(a, pm)
		pa, pb := a+1, a+1
		pc, pd := a+n-1, a+n-1
		for {
			for pb <= pc {
				r := s.cmp(pb, a)
				if r > 0 {
					break
				}
				if r == 0 {
					s.swap(pa, pb)
					pa++
				}
				pb++
			}
			for pb <= pc {
				r := s.cmp(pc, a)
				if r < 0 {
					break
				}
				if r == 0 {
					s.swap(pc, pd)
					pd--
				}
				pc--
			}
			if pb > pc {
				break
			}
			s.swap(pb, pc)
			pb++
			pc--
		}
		pn := a + n
		r := min(pa-a, pb-pa)
		s.vecswap(a, pb-r, r)
		r = min(pd-pc, pn-pd-1)
		s.vecswap(pb, pn-r, r)
		if r = pb - pa; r > 1 && !s.outside(a, r) {
			s.sort(a, r)
		}
		r = pd - pc
		if r <= 1 {
			return
		}
		a, n = pn-r, r
		if s.outside(a, n) {
			return
		}
	}
}
