package keyspace

// zset is a Redis sorted set: members ordered by (score, member bytes),
// kept in a skiplist with spans (Redis's own structure: O(log n) insert,
// delete, rank and seek) plus a member -> score map.
//
// Contract used outside cmd_zset.go (Entry, Put, COPY, SORT, OBJECT, geo):
// newZSet, set (insert or update the score; reports whether new), score,
// rem, len, rank (0-based ascending, -1 when absent), at (the i-th member
// ascending), all (ascending copy), rangeByScore (ascending, inclusive
// bounds), clone, encoding.
type zset struct {
	head   *znode // sentinel; head.next[0].fwd is the first member
	tail   *znode
	level  int
	length int
	scores map[string]float64
	// big is Redis's skiplist encoding: set once the zset holds more than
	// zset-max-listpack-entries members or a member longer than
	// zset-max-listpack-value bytes, and never cleared (Redis converts
	// one way).
	big  bool
	seed uint64 // xorshift state for node levels
}

// ZMember is one member of a sorted set with its score.
type ZMember struct {
	Member string
	Score  float64
}

// Redis 7.0's defaults for zset-max-listpack-entries and -value.
const (
	zsetMaxListpackEntries = 128
	zsetMaxListpackValue   = 64
)

const (
	zskiplistMaxLevel = 32
	zskiplistP        = 0.25
)

type znode struct {
	ZMember
	prev *znode
	next []zlevel
}

type zlevel struct {
	fwd  *znode
	span int // members crossed by following fwd
}

func newZSet() *zset {
	return &zset{head: &znode{next: make([]zlevel, zskiplistMaxLevel)}, level: 1,
		scores: map[string]float64{}, seed: 0x9E3779B97F4A7C15}
}

// newZSetSkiplist is a zset created skiplist-encoded, as ZRANGESTORE does
// for more than 128 results.
func newZSetSkiplist() *zset {
	z := newZSet()
	z.big = true
	return z
}

// randomLevel is zslRandomLevel with a private generator: levels shape
// only the speed, never a reply.
func (z *zset) randomLevel() int {
	lvl := 1
	for lvl < zskiplistMaxLevel {
		z.seed ^= z.seed << 13
		z.seed ^= z.seed >> 7
		z.seed ^= z.seed << 17
		if float64(z.seed&0xFFFF) >= zskiplistP*0xFFFF {
			break
		}
		lvl++
	}
	return lvl
}

func zless(a, b ZMember) bool {
	if a.Score != b.Score {
		return a.Score < b.Score
	}
	return a.Member < b.Member
}

// set inserts member or moves it to score, and reports whether it is new.
// While the zset is listpack-encoded a score of -0 is stored as 0: the
// listpack keeps integral scores as integers, and -0 is integral.
func (z *zset) set(member string, score float64) bool {
	cur, existed := z.scores[member]
	if !existed && (z.length+1 > zsetMaxListpackEntries || len(member) > zsetMaxListpackValue) {
		z.big = true
	}
	if !z.big && score == 0 {
		score = 0
	}
	if existed {
		z.unlink(ZMember{member, cur})
	}
	z.scores[member] = score
	z.insert(ZMember{member, score})
	return !existed
}

func (z *zset) insert(m ZMember) {
	var update [zskiplistMaxLevel]*znode
	var rank [zskiplistMaxLevel]int
	x := z.head
	for i := z.level - 1; i >= 0; i-- {
		if i < z.level-1 {
			rank[i] = rank[i+1]
		}
		for x.next[i].fwd != nil && zless(x.next[i].fwd.ZMember, m) {
			rank[i] += x.next[i].span
			x = x.next[i].fwd
		}
		update[i] = x
	}
	lvl := z.randomLevel()
	if lvl > z.level {
		for i := z.level; i < lvl; i++ {
			rank[i] = 0
			update[i] = z.head
			update[i].next[i].span = z.length
		}
		z.level = lvl
	}
	n := &znode{ZMember: m, next: make([]zlevel, lvl)}
	for i := 0; i < lvl; i++ {
		n.next[i].fwd = update[i].next[i].fwd
		update[i].next[i].fwd = n
		n.next[i].span = update[i].next[i].span - (rank[0] - rank[i])
		update[i].next[i].span = rank[0] - rank[i] + 1
	}
	for i := lvl; i < z.level; i++ {
		update[i].next[i].span++
	}
	if update[0] != z.head {
		n.prev = update[0]
	}
	if n.next[0].fwd != nil {
		n.next[0].fwd.prev = n
	} else {
		z.tail = n
	}
	z.length++
}

// unlink removes the node holding m (which must exist) from the skiplist.
func (z *zset) unlink(m ZMember) {
	var update [zskiplistMaxLevel]*znode
	x := z.head
	for i := z.level - 1; i >= 0; i-- {
		for x.next[i].fwd != nil && zless(x.next[i].fwd.ZMember, m) {
			x = x.next[i].fwd
		}
		update[i] = x
	}
	n := x.next[0].fwd
	for i := 0; i < z.level; i++ {
		if update[i].next[i].fwd == n {
			update[i].next[i].span += n.next[i].span - 1
			update[i].next[i].fwd = n.next[i].fwd
		} else {
			update[i].next[i].span--
		}
	}
	if n.next[0].fwd != nil {
		n.next[0].fwd.prev = n.prev
	} else {
		z.tail = n.prev
	}
	for z.level > 1 && z.head.next[z.level-1].fwd == nil {
		z.level--
	}
	z.length--
}

func (z *zset) score(member string) (float64, bool) {
	s, ok := z.scores[member]
	return s, ok
}

func (z *zset) rem(member string) bool {
	s, ok := z.scores[member]
	if !ok {
		return false
	}
	delete(z.scores, member)
	z.unlink(ZMember{member, s})
	return true
}

func (z *zset) len() int { return z.length }

// rank is the 0-based ascending rank of member, -1 when absent.
func (z *zset) rank(member string) int {
	s, ok := z.scores[member]
	if !ok {
		return -1
	}
	m := ZMember{member, s}
	return z.countWhile(func(x ZMember) bool { return zless(x, m) })
}

// countWhile is how many leading members satisfy before, which must hold
// for a prefix of the order and fail for the rest.
func (z *zset) countWhile(before func(ZMember) bool) int {
	n, _ := z.seek(before)
	return n
}

// seek returns the rank and node of the first member for which before
// fails (nil past the end); before must be true on a prefix only.
func (z *zset) seek(before func(ZMember) bool) (int, *znode) {
	rank := 0
	x := z.head
	for i := z.level - 1; i >= 0; i-- {
		for x.next[i].fwd != nil && before(x.next[i].fwd.ZMember) {
			rank += x.next[i].span
			x = x.next[i].fwd
		}
	}
	return rank, x.next[0].fwd
}

// node returns the node of rank i (0-based, in range).
func (z *zset) node(i int) *znode {
	traversed := 0
	x := z.head
	for l := z.level - 1; l >= 0; l-- {
		for x.next[l].fwd != nil && traversed+x.next[l].span <= i+1 {
			traversed += x.next[l].span
			x = x.next[l].fwd
		}
		if traversed == i+1 {
			return x
		}
	}
	return nil
}

// at returns the i-th member ascending (0 <= i < len).
func (z *zset) at(i int) ZMember { return z.node(i).ZMember }

// first and last are the ends of the order (nil when empty).
func (z *zset) first() *znode { return z.head.next[0].fwd }
func (z *zset) last() *znode  { return z.tail }

// following and preceding step through the order.
func (n *znode) following() *znode { return n.next[0].fwd }
func (n *znode) preceding() *znode { return n.prev }

func (z *zset) all() []ZMember {
	out := make([]ZMember, 0, z.length)
	for n := z.first(); n != nil; n = n.following() {
		out = append(out, n.ZMember)
	}
	return out
}

// encoding is what OBJECT ENCODING answers.
func (z *zset) encoding() string {
	if z.big {
		return "skiplist"
	}
	return "listpack"
}

func (z *zset) clone() *zset {
	c := newZSet()
	c.big = z.big
	for n := z.first(); n != nil; n = n.following() {
		c.scores[n.Member] = n.Score
		c.insert(n.ZMember)
	}
	return c
}

// rangeByScore returns the members with min <= score <= max, ascending.
func (z *zset) rangeByScore(min, max float64) []ZMember {
	var out []ZMember
	_, n := z.seek(func(x ZMember) bool { return x.Score < min })
	for ; n != nil && n.Score <= max; n = n.following() {
		out = append(out, n.ZMember)
	}
	return out
}
