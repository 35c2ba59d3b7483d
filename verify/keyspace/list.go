package keyspace

// list is a Redis list: a ring buffer, so that both ends push and pop in
// amortised O(1) and LINDEX, LSET and LRANGE reach any element in O(1)
// without copying the list.
//
// Contract used outside cmd_list.go (Entry, Put, COPY, SORT, OBJECT):
// newList, pushBack, pushFront, len, index (0-based, in range), items (a
// copy, head first), clone, encoding.
//
// From Redis 7.2 (dataFacts.listpackLists) a list is a listpack until a
// push would take it past 8 KB (list-max-listpack-size -2), then a
// quicklist, which turns back into a listpack once it shrinks to half that.
// Redis converts back only from a single quicklist node; the engine takes
// the whole list's size for it.
type list struct {
	buf  []string // capacity: 0 or a power of two
	head int      // position of element 0 in buf
	n    int      // number of elements
	// bytes is the size of the elements as listpack entries.
	bytes int64
	lp    bool // the target has listpack lists
	quick bool // with lp: converted to a quicklist
}

// listpackSizeLimit is list-max-listpack-size -2: 8 KB.
const listpackSizeLimit = 8192

// listpackHeader is a listpack's header and end byte.
const listpackHeader = 7

func newList() *list { return &list{} }

// newListFor is an empty list with the target's encodings.
func newListFor(e *Server) *list { return &list{lp: e.t.data.listpackLists} }

// growing is listTypeTryConversionAppend: a listpack about to take add
// (their raw lengths) past the limit becomes a quicklist first.
func (l *list) growing(add ...string) {
	if !l.lp || l.quick {
		return
	}
	n := l.bytes + listpackHeader
	for _, s := range add {
		n += int64(len(s))
	}
	l.quick = n > listpackSizeLimit
}

// shrinking is listTypeTryConversion after a removal (half the limit), or
// LIST_CONV_AUTO (the whole limit).
func (l *list) shrinking(half bool) {
	limit := int64(listpackSizeLimit)
	if half {
		limit /= 2
	}
	if l.quick && l.bytes+listpackHeader <= limit {
		l.quick = false
	}
}

func (l *list) len() int { return l.n }

// pos maps element i to its slot in buf.
func (l *list) pos(i int) int { return (l.head + i) & (len(l.buf) - 1) }

func (l *list) index(i int) string { return l.buf[l.pos(i)] }

// set replaces element i (in range).
func (l *list) set(i int, s string) {
	l.bytes += lpStrSize(s) - lpStrSize(l.buf[l.pos(i)])
	l.buf[l.pos(i)] = s
}

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
	l.bytes += lpStrSize(s)
	l.grow()
	l.buf[l.pos(l.n)] = s
	l.n++
}

func (l *list) pushFront(s string) {
	l.bytes += lpStrSize(s)
	l.grow()
	l.head = (l.head - 1) & (len(l.buf) - 1)
	l.buf[l.head] = s
	l.n++
}

// popFront and popBack remove one element from a non-empty list; the slot
// is cleared so the string can be collected.
func (l *list) popFront() string {
	s := l.buf[l.head]
	l.bytes -= lpStrSize(s)
	l.buf[l.head] = ""
	l.head = l.pos(1)
	l.n--
	return s
}

func (l *list) popBack() string {
	p := l.pos(l.n - 1)
	s := l.buf[p]
	l.bytes -= lpStrSize(s)
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
	l.bytes = 0
	for _, s := range elems {
		l.bytes += lpStrSize(s)
	}
}

// clone keeps the encoding, as COPY does.
func (l *list) clone() *list {
	c := &list{lp: l.lp, quick: l.quick}
	c.reset(l.items())
	return c
}

// encoding is what OBJECT ENCODING answers: Redis 7.0 keeps every list,
// however short, in a quicklist (listpack lists came with 7.2).
func (l *list) encoding() string {
	if l.lp && !l.quick {
		return "listpack"
	}
	return "quicklist"
}
