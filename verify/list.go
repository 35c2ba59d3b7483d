package verify

// list is a Redis list: a ring buffer, so that both ends push and pop in
// amortised O(1) and LINDEX, LSET and LRANGE reach any element in O(1)
// without copying the list.
//
// Contract used outside cmd_list.go (Entry, Put, COPY, SORT, OBJECT):
// newList, pushBack, pushFront, len, index (0-based, in range), items (a
// copy, head first), clone, encoding.
type list struct {
	buf  []string // capacity: 0 or a power of two
	head int      // position of element 0 in buf
	n    int      // number of elements
}

func newList() *list { return &list{} }

func (l *list) len() int { return l.n }

// pos maps element i to its slot in buf.
func (l *list) pos(i int) int { return (l.head + i) & (len(l.buf) - 1) }

func (l *list) index(i int) string { return l.buf[l.pos(i)] }

// set replaces element i (in range).
func (l *list) set(i int, s string) { l.buf[l.pos(i)] = s }

// grow doubles the buffer when full, unrolling the ring to start at 0.
func (l *list) grow() {
	if l.n < len(l.buf) {
		return
	}
	size := 2 * len(l.buf)
	if size == 0 {
		size = 8
	}
	buf := make([]string, size)
	l.copyTo(buf)
	l.buf, l.head = buf, 0
}

// copyTo copies the elements, head first, into dst (len(dst) >= l.n).
func (l *list) copyTo(dst []string) {
	if l.n == 0 {
		return
	}
	start := l.head
	if end := start + l.n; end <= len(l.buf) {
		copy(dst, l.buf[start:end])
		return
	}
	k := copy(dst, l.buf[start:])
	copy(dst[k:], l.buf[:l.n-k])
}

func (l *list) pushBack(s string) {
	l.grow()
	l.buf[l.pos(l.n)] = s
	l.n++
}

func (l *list) pushFront(s string) {
	l.grow()
	l.head = (l.head - 1) & (len(l.buf) - 1)
	l.buf[l.head] = s
	l.n++
}

// popFront and popBack remove one element from a non-empty list; the slot
// is cleared so the string can be collected.
func (l *list) popFront() string {
	s := l.buf[l.head]
	l.buf[l.head] = ""
	l.head = l.pos(1)
	l.n--
	return s
}

func (l *list) popBack() string {
	p := l.pos(l.n - 1)
	s := l.buf[p]
	l.buf[p] = ""
	l.n--
	return s
}

func (l *list) items() []string {
	out := make([]string, l.n)
	l.copyTo(out)
	return out
}

// reset replaces the contents with a copy of elems: the operations in the
// middle of a list (LINSERT, LREM, LTRIM) are O(n) in Redis too.
func (l *list) reset(elems []string) {
	size := 8
	for size < len(elems) {
		size *= 2
	}
	buf := make([]string, size)
	copy(buf, elems)
	l.buf, l.head, l.n = buf, 0, len(elems)
}

func (l *list) clone() *list {
	c := newList()
	c.reset(l.items())
	return c
}

// encoding is what OBJECT ENCODING answers: Redis 7.0 keeps every list,
// however short, in a quicklist (listpack lists came with 7.2).
func (l *list) encoding() string { return "quicklist" }
