package verify

import "sort"

// zset is a Redis sorted set: members ordered by (score, member bytes).
//
// Contract used outside cmd_zset.go (Entry, Put, COPY, SORT, OBJECT, geo):
// newZSet, set (insert or update the score; reports whether new), score,
// rem, len, rank (0-based ascending, -1 when absent), at (the i-th member
// ascending), all (ascending copy), rangeByScore (ascending, inclusive
// bounds), clone, encoding.
type zset struct {
	elems  []ZMember
	scores map[string]float64
}

// ZMember is one member of a sorted set with its score.
type ZMember struct {
	Member string
	Score  float64
}

func newZSet() *zset { return &zset{scores: map[string]float64{}} }

func zless(a, b ZMember) bool {
	if a.Score != b.Score {
		return a.Score < b.Score
	}
	return a.Member < b.Member
}

func (z *zset) set(member string, score float64) bool {
	_, existed := z.scores[member]
	if existed {
		z.rem(member)
	}
	z.scores[member] = score
	m := ZMember{member, score}
	i := sort.Search(len(z.elems), func(i int) bool { return !zless(z.elems[i], m) })
	z.elems = append(z.elems, ZMember{})
	copy(z.elems[i+1:], z.elems[i:])
	z.elems[i] = m
	return !existed
}

func (z *zset) score(member string) (float64, bool) {
	s, ok := z.scores[member]
	return s, ok
}

func (z *zset) rank(member string) int {
	s, ok := z.scores[member]
	if !ok {
		return -1
	}
	m := ZMember{member, s}
	return sort.Search(len(z.elems), func(i int) bool { return !zless(z.elems[i], m) })
}

func (z *zset) rem(member string) bool {
	i := z.rank(member)
	if i < 0 {
		return false
	}
	delete(z.scores, member)
	z.elems = append(z.elems[:i], z.elems[i+1:]...)
	return true
}

func (z *zset) len() int         { return len(z.elems) }
func (z *zset) at(i int) ZMember { return z.elems[i] }
func (z *zset) all() []ZMember   { return append([]ZMember(nil), z.elems...) }
func (z *zset) encoding() string { return "listpack" }
func (z *zset) clone() *zset {
	c := newZSet()
	for _, m := range z.elems {
		c.set(m.Member, m.Score)
	}
	return c
}

func (z *zset) rangeByScore(min, max float64) []ZMember {
	var out []ZMember
	for _, m := range z.elems {
		if m.Score >= min && m.Score <= max {
			out = append(out, m)
		}
	}
	return out
}
