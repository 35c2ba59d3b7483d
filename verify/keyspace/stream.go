package keyspace

import (
	"fmt"
	"math"
	"sort"
	"strconv"
)

// stream is a Redis stream (cmd_stream.go), modelled closely enough on
// redis-server 7.0.15's radix tree of listpacks that node boundaries, and
// so approximate trimming (MAXLEN ~, MINID ~) and XINFO's radix-tree
// numbers, come out as Redis's.
//
// Contract used outside cmd_stream.go (Entry, Put, COPY, OBJECT): newStream,
// clone, encoding; Export and streamFromState convert to and from the
// exported StreamState.
type stream struct {
	nodes        []*streamNode // the radix tree's listpacks, by master ID
	length       uint64        // live entries
	lastID       streamID      // last generated (or XSETID) ID
	firstID      streamID      // first live entry, 0-0 when empty
	maxDeleted   streamID      // greatest ID removed by XDEL
	entriesAdded uint64        // all-time count of added entries
	groups       map[string]*streamGroup
}

// Redis 7.0.15's defaults for stream-node-max-entries and
// stream-node-max-bytes; the engine has no CONFIG SET.
const (
	streamNodeMaxEntries = 100
	streamNodeMaxBytes   = 4096
	// streamListpackMaxSize is STREAM_LISTPACK_MAX_SIZE.
	streamListpackMaxSize = 1 << 30
)

// streamID is a stream entry ID.
type streamID struct{ ms, seq uint64 }

var maxStreamID = streamID{math.MaxUint64, math.MaxUint64}

func (a streamID) cmp(b streamID) int {
	switch {
	case a.ms > b.ms:
		return 1
	case a.ms < b.ms:
		return -1
	case a.seq > b.seq:
		return 1
	case a.seq < b.seq:
		return -1
	}
	return 0
}

func (a streamID) isZero() bool { return a.ms == 0 && a.seq == 0 }

func (a streamID) String() string {
	return strconv.FormatUint(a.ms, 10) + "-" + strconv.FormatUint(a.seq, 10)
}

// incr is streamIncrID: the next ID; false (and 0-0) past the last one.
func (a streamID) incr() (streamID, bool) {
	switch {
	case a.seq < math.MaxUint64:
		return streamID{a.ms, a.seq + 1}, true
	case a.ms < math.MaxUint64:
		return streamID{a.ms + 1, 0}, true
	}
	return streamID{}, false
}

// decr is streamDecrID: the previous ID; false (and the max ID) before 0-0.
func (a streamID) decr() (streamID, bool) {
	switch {
	case a.seq > 0:
		return streamID{a.ms, a.seq - 1}, true
	case a.ms > 0:
		return streamID{a.ms - 1, math.MaxUint64}, true
	}
	return maxStreamID, false
}

// streamEntry is one entry of a listpack; a deleted one is a tombstone
// that still occupies its place (and bytes) until its node goes.
type streamEntry struct {
	id      streamID
	fields  []string // field, value, field, value...
	deleted bool
}

// streamNode is one listpack of the radix tree. bytes is the listpack's
// size (lpBytes) without its two header counters, which change size as
// they count; the entry flags never do (0 to 3).
type streamNode struct {
	master  streamID
	mfields []string // the master entry's field names
	entries []*streamEntry
	live    int64
	deleted int64
	bytes   int64
}

func (n *streamNode) lpBytes() int64 { return n.bytes + lpIntSize(n.live) + lpIntSize(n.deleted) }

// lpIntSize is the encoded size of an integer listpack element, backlen
// included.
func lpIntSize(v int64) int64 {
	switch {
	case v >= 0 && v <= 127:
		return 2
	case v >= -4096 && v <= 4095:
		return 3
	case v >= -32768 && v <= 32767:
		return 4
	case v >= -8388608 && v <= 8388607:
		return 5
	case v >= -2147483648 && v <= 2147483647:
		return 6
	}
	return 10
}

// lpStrSize is the encoded size of a string listpack element: strings
// that read as an int64 (string2ll's rules) are stored as integers.
func lpStrSize(s string) int64 {
	if v, ok := parseInt(s); ok {
		return lpIntSize(v)
	}
	n := int64(len(s))
	var enc int64
	switch {
	case n < 64:
		enc = 1 + n
	case n < 4096:
		enc = 2 + n
	default:
		enc = 5 + n
	}
	return enc + lpBacklenSize(enc)
}

func lpBacklenSize(l int64) int64 {
	switch {
	case l <= 127:
		return 1
	case l < 16383:
		return 2
	case l < 2097151:
		return 3
	case l < 268435455:
		return 4
	}
	return 5
}

func newStream() *stream { return &stream{} }

// clone is a deep copy (COPY).
func (s *stream) clone() *stream {
	c := *s
	c.nodes = make([]*streamNode, len(s.nodes))
	for i, n := range s.nodes {
		nc := *n
		nc.entries = make([]*streamEntry, len(n.entries))
		for j, en := range n.entries {
			ec := *en
			nc.entries[j] = &ec
		}
		c.nodes[i] = &nc
	}
	c.groups = nil
	for name, g := range s.groups {
		c.addGroup(name, g.lastID, g.entriesRead)
		ng := c.groups[name]
		for _, cn := range g.consumers {
			ng.consumers[cn.name] = &streamConsumer{name: cn.name, seenTime: cn.seenTime, activeTime: cn.activeTime, pel: map[streamID]*streamNACK{}}
		}
		for id, nack := range g.pel {
			nn := &streamNACK{deliveryTime: nack.deliveryTime, deliveryCount: nack.deliveryCount}
			if nack.consumer != nil {
				nn.consumer = ng.consumers[nack.consumer.name]
				nn.consumer.pel[id] = nn
			}
			ng.pel[id] = nn
		}
	}
	return &c
}

// encoding is what OBJECT ENCODING answers.
func (s *stream) encoding() string { return "stream" }

// append is streamAppendItem after the ID is known to be greater than
// lastID: it fills the tail listpack or opens a new one exactly when Redis
// does (stream-node-max-bytes counts the listpack's bytes plus the new
// entry's field and value lengths; stream-node-max-entries counts live
// and deleted entries).
func (s *stream) append(id streamID, fv []string) {
	var tot int64
	for _, x := range fv {
		tot += int64(len(x))
	}
	var n *streamNode
	if len(s.nodes) > 0 {
		n = s.nodes[len(s.nodes)-1]
		if n.lpBytes()+tot >= streamNodeMaxBytes || n.live+n.deleted >= streamNodeMaxEntries {
			n = nil
		}
	}
	same := false
	if n == nil {
		n = &streamNode{master: id, bytes: 6 + 1 + lpIntSize(int64(len(fv)/2)) + lpIntSize(0)}
		for i := 0; i < len(fv); i += 2 {
			n.mfields = append(n.mfields, fv[i])
			n.bytes += lpStrSize(fv[i])
		}
		s.nodes = append(s.nodes, n)
		same = true
	} else if len(fv)/2 == len(n.mfields) {
		same = true
		for i, f := range n.mfields {
			if fv[2*i] != f {
				same = false
				break
			}
		}
	}
	n.live++
	// flags, ms delta, seq delta (as C's int64 casts of the differences),
	// [num-fields], [fields], values, lp-count.
	n.bytes += 2 + lpIntSize(int64(id.ms-n.master.ms)) + lpIntSize(int64(id.seq-n.master.seq))
	lpCount := int64(len(fv)/2) + 3
	if !same {
		n.bytes += lpIntSize(int64(len(fv) / 2))
		lpCount += int64(len(fv)/2) + 1
	}
	for i := 0; i < len(fv); i += 2 {
		if !same {
			n.bytes += lpStrSize(fv[i])
		}
		n.bytes += lpStrSize(fv[i+1])
	}
	n.bytes += lpIntSize(lpCount)
	n.entries = append(n.entries, &streamEntry{id: id, fields: append([]string(nil), fv...)})
	s.length++
	s.entriesAdded++
	s.lastID = id
	if s.length == 1 {
		s.firstID = id
	}
}

// nodeFor returns the index of the node that would hold id (the last with
// a master ID <= id), or -1.
func (s *stream) nodeFor(id streamID) int {
	return sort.Search(len(s.nodes), func(i int) bool { return s.nodes[i].master.cmp(id) > 0 }) - 1
}

// find returns the live entry id, or nil.
func (s *stream) find(id streamID) *streamEntry {
	ni := s.nodeFor(id)
	if ni < 0 {
		return nil
	}
	n := s.nodes[ni]
	j := sort.Search(len(n.entries), func(j int) bool { return n.entries[j].id.cmp(id) >= 0 })
	if j < len(n.entries) && n.entries[j].id == id && !n.entries[j].deleted {
		return n.entries[j]
	}
	return nil
}

// rangeEntries returns up to count (0: all) live entries from start to
// end inclusive, in order or reversed.
func (s *stream) rangeEntries(start, end streamID, rev bool, count int) []*streamEntry {
	var out []*streamEntry
	if start.cmp(end) > 0 {
		return out
	}
	if !rev {
		ni := s.nodeFor(start)
		if ni < 0 {
			ni = 0
		}
		for ; ni < len(s.nodes); ni++ {
			for _, en := range s.nodes[ni].entries {
				if en.deleted || en.id.cmp(start) < 0 {
					continue
				}
				if en.id.cmp(end) > 0 {
					return out
				}
				out = append(out, en)
				if count > 0 && len(out) == count {
					return out
				}
			}
		}
		return out
	}
	ni := s.nodeFor(end)
	if ni < 0 {
		return out
	}
	for ; ni >= 0; ni-- {
		es := s.nodes[ni].entries
		for j := len(es) - 1; j >= 0; j-- {
			en := es[j]
			if en.deleted || en.id.cmp(end) > 0 {
				continue
			}
			if en.id.cmp(start) < 0 {
				return out
			}
			out = append(out, en)
			if count > 0 && len(out) == count {
				return out
			}
		}
	}
	return out
}

// edge is streamGetEdgeID(first, skip tombstones): the first or last
// live entry; the max ID (first) or 0-0 (last) when there is none.
func (s *stream) edge(first bool) streamID {
	es := s.rangeEntries(streamID{}, maxStreamID, !first, 1)
	if len(es) == 0 {
		if first {
			return maxStreamID
		}
		return streamID{}
	}
	return es[0].id
}

// remove is streamDeleteItem: it marks the live entry id deleted, and
// frees its node when it was the node's last live entry.
func (s *stream) remove(id streamID) bool {
	ni := s.nodeFor(id)
	if ni < 0 {
		return false
	}
	n := s.nodes[ni]
	for _, en := range n.entries {
		if en.id == id && !en.deleted {
			en.deleted = true
			if n.live == 1 {
				s.nodes = append(s.nodes[:ni], s.nodes[ni+1:]...)
			} else {
				n.live--
				n.deleted++
			}
			s.length--
			return true
		}
	}
	return false
}

// trimArgs are the trimming options of XADD and XTRIM.
type trimArgs struct {
	strategy int // trimNone, trimMaxLen, trimMinID
	approx   bool
	limit    int64
	maxLen   int64
	minID    streamID
}

const (
	trimNone = iota
	trimMaxLen
	trimMinID
)

// trim is streamTrim: whole nodes go from the head while they may; then,
// unless approx, entries of the next node are marked deleted. The node
// stays even when it no longer holds a live entry.
func (s *stream) trim(a trimArgs) int64 {
	if a.strategy == trimNone {
		return 0
	}
	var deleted int64
	for len(s.nodes) > 0 {
		if a.strategy == trimMaxLen && s.length <= uint64(a.maxLen) {
			break
		}
		n := s.nodes[0]
		if a.limit != 0 && deleted+n.live > a.limit {
			break
		}
		var remove bool
		if a.strategy == trimMaxLen {
			remove = s.length-uint64(n.live) >= uint64(a.maxLen)
		} else {
			remove = n.entries[len(n.entries)-1].id.cmp(a.minID) < 0
		}
		if remove {
			s.nodes = s.nodes[1:]
			s.length -= uint64(n.live)
			deleted += n.live
			continue
		}
		if a.approx {
			break
		}
		var fromNode int64
		for _, en := range n.entries {
			if a.strategy == trimMaxLen && s.length <= uint64(a.maxLen) {
				break
			}
			if a.strategy == trimMinID && en.id.cmp(a.minID) >= 0 {
				break
			}
			if !en.deleted {
				en.deleted = true
				fromNode++
				s.length--
			}
		}
		n.live -= fromNode
		n.deleted += fromNode
		deleted += fromNode
		break
	}
	if s.length == 0 {
		s.firstID = streamID{}
	} else if deleted > 0 {
		s.firstID = s.edge(true)
	}
	return deleted
}

// raxNodes is the node count of the radix tree keyed by the listpacks'
// master IDs (16 big-endian bytes). rax keeps a set of same-length keys in
// one shape whatever the order of inserts and removes: maximal single-child
// chains compressed into one node, a node per branching point, one per key.
func (s *stream) raxNodes() int64 {
	if len(s.nodes) == 0 {
		return 1
	}
	keys := make([][16]byte, len(s.nodes))
	for i, n := range s.nodes {
		keys[i] = raxKey(n.master)
	}
	return raxCount(keys, 0)
}

func raxKey(id streamID) [16]byte {
	var k [16]byte
	for i := 0; i < 8; i++ {
		k[i] = byte(id.ms >> (56 - 8*i))
		k[8+i] = byte(id.seq >> (56 - 8*i))
	}
	return k
}

// raxCount counts the nodes under (and including) the node at depth d of
// sorted keys sharing their first d bytes.
func raxCount(keys [][16]byte, d int) int64 {
	if d == 16 {
		return 1 // the key's own (leaf) node
	}
	first, last := keys[0], keys[len(keys)-1]
	l := d
	for l < 16 && first[l] == last[l] {
		l++
	}
	if l > d {
		// A compressed node (or one of a single char) for bytes d..l-1.
		return 1 + raxCount(keys, l)
	}
	// A branching node with one child per distinct byte.
	n := int64(1)
	for i := 0; i < len(keys); {
		j := i
		for j < len(keys) && keys[j][d] == keys[i][d] {
			j++
		}
		n += raxCount(keys[i:j], d+1)
		i = j
	}
	return n
}

// streamGroup is a consumer group.
type streamGroup struct {
	lastID      streamID
	entriesRead int64 // -1: unknown (SCG_INVALID_ENTRIES_READ)
	pel         map[streamID]*streamNACK
	consumers   map[string]*streamConsumer
}

type streamConsumer struct {
	name     string
	seenTime int64
	// activeTime is when it last read or claimed an entry, -1 never
	// (XINFO shows it from 7.2).
	activeTime int64
	pel        map[streamID]*streamNACK
}

// streamNACK is a pending entry; consumer is nil only transiently (XCLAIM
// FORCE).
type streamNACK struct {
	deliveryTime  int64
	deliveryCount uint64
	consumer      *streamConsumer
}

// addGroup is streamCreateCG: nil when the name is taken.
func (s *stream) addGroup(name string, last streamID, entriesRead int64) *streamGroup {
	if s.groups == nil {
		s.groups = map[string]*streamGroup{}
	}
	if _, ok := s.groups[name]; ok {
		return nil
	}
	g := &streamGroup{lastID: last, entriesRead: entriesRead, pel: map[streamID]*streamNACK{}, consumers: map[string]*streamConsumer{}}
	s.groups[name] = g
	return g
}

// groupNames returns the group names in rax (byte) order.
func (s *stream) groupNames() []string {
	names := make([]string, 0, len(s.groups))
	for n := range s.groups {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func (g *streamGroup) consumerNames() []string {
	names := make([]string, 0, len(g.consumers))
	for n := range g.consumers {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// sortedPEL returns a PEL's IDs in order.
func sortedPEL(pel map[streamID]*streamNACK) []streamID {
	ids := make([]streamID, 0, len(pel))
	for id := range pel {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i].cmp(ids[j]) < 0 })
	return ids
}

// rangeHasTombstones is streamRangeHasTombstones from start to the end.
func (s *stream) rangeHasTombstones(start streamID) bool {
	if s.length == 0 || s.maxDeleted.isZero() {
		return false
	}
	if s.firstID.cmp(s.maxDeleted) > 0 {
		return false
	}
	return start.cmp(s.maxDeleted) <= 0
}

// estimateDistance is streamEstimateDistanceFromFirstEverEntry; -1 when
// it cannot be known.
func (s *stream) estimateDistance(id streamID) int64 {
	if s.entriesAdded == 0 {
		return 0
	}
	if s.length == 0 && id.cmp(s.lastID) < 1 {
		return int64(s.entriesAdded)
	}
	switch c := id.cmp(s.lastID); {
	case c == 0:
		return int64(s.entriesAdded)
	case c > 0:
		return -1
	}
	cmpFirst := id.cmp(s.firstID)
	if s.maxDeleted.isZero() || s.maxDeleted.cmp(s.firstID) < 0 {
		if cmpFirst < 0 {
			return int64(s.entriesAdded - s.length)
		} else if cmpFirst == 0 {
			return int64(s.entriesAdded - s.length + 1)
		}
	}
	return -1
}

// lag is streamReplyWithCGLag's number; false for a null reply.
func (s *stream) lag(g *streamGroup) (int64, bool) {
	if s.entriesAdded == 0 {
		return 0, true
	}
	if g.entriesRead != -1 && !s.rangeHasTombstones(g.lastID) {
		return int64(s.entriesAdded) - g.entriesRead, true
	}
	if read := s.estimateDistance(g.lastID); read != -1 {
		return int64(s.entriesAdded) - read, true
	}
	return 0, false
}

// delConsumer is streamDelConsumer: its pending entries leave the group.
func (g *streamGroup) delConsumer(c *streamConsumer) {
	for id := range c.pel {
		delete(g.pel, id)
	}
	delete(g.consumers, c.name)
}

// StreamID is a stream entry ID (<ms>-<seq>).
type StreamID struct{ Ms, Seq uint64 }

// String is the ID as Redis prints it.
func (id StreamID) String() string { return streamID{id.Ms, id.Seq}.String() }

// StreamEntry is one live entry: its ID and its field, value pairs in
// order (Fields[0] is a field, Fields[1] its value, ...).
type StreamEntry struct {
	ID     StreamID
	Fields []string
}

// StreamPending is one pending (delivered, not acknowledged) entry of a
// group: its owner, last delivery (Unix ms) and delivery count.
type StreamPending struct {
	ID            StreamID
	Consumer      string
	DeliveryTime  int64
	DeliveryCount uint64
}

// StreamConsumer is one consumer of a group and when it was last seen
// (Unix ms).
type StreamConsumer struct {
	Name     string
	SeenTime int64
}

// StreamGroup is a consumer group. EntriesRead is -1 when Redis reports
// it as nil (unknown).
type StreamGroup struct {
	Name        string
	LastID      StreamID
	EntriesRead int64
	Consumers   []StreamConsumer // by name
	Pending     []StreamPending  // by ID
}

// StreamState is everything a stream holds that commands can observe,
// but its radix-tree layout, which follows from adding Entries in order.
type StreamState struct {
	Entries      []StreamEntry
	LastID       StreamID // last generated ID (>= the last entry's); 0-0: the last entry's
	MaxDeletedID StreamID
	EntriesAdded uint64        // all-time count of added entries (>= len(Entries)); 0: len(Entries)
	Groups       []StreamGroup // by name
}

// Export returns the stream's state.
func (s *stream) Export() StreamState {
	st := StreamState{
		LastID:       StreamID{s.lastID.ms, s.lastID.seq},
		MaxDeletedID: StreamID{s.maxDeleted.ms, s.maxDeleted.seq},
		EntriesAdded: s.entriesAdded,
	}
	for _, en := range s.rangeEntries(streamID{}, maxStreamID, false, 0) {
		st.Entries = append(st.Entries, StreamEntry{ID: StreamID{en.id.ms, en.id.seq}, Fields: append([]string(nil), en.fields...)})
	}
	for _, name := range s.groupNames() {
		g := s.groups[name]
		sg := StreamGroup{Name: name, LastID: StreamID{g.lastID.ms, g.lastID.seq}, EntriesRead: g.entriesRead}
		for _, cn := range g.consumerNames() {
			sg.Consumers = append(sg.Consumers, StreamConsumer{Name: cn, SeenTime: g.consumers[cn].seenTime})
		}
		for _, id := range sortedPEL(g.pel) {
			n := g.pel[id]
			sg.Pending = append(sg.Pending, StreamPending{ID: StreamID{id.ms, id.seq}, Consumer: n.consumer.name, DeliveryTime: n.deliveryTime, DeliveryCount: n.deliveryCount})
		}
		st.Groups = append(st.Groups, sg)
	}
	return st
}

// streamFromState builds a stream from st as XADDs in order would, then
// sets its counters and groups. It reports why st is not a stream Redis
// could hold: IDs not increasing, an odd field list, a pending entry of
// an unknown consumer, a duplicate group or consumer.
func streamFromState(st StreamState) (*stream, error) {
	s := newStream()
	for _, en := range st.Entries {
		id := streamID{en.ID.Ms, en.ID.Seq}
		if id.cmp(s.lastID) <= 0 {
			return nil, fmt.Errorf("stream entry %s: IDs must increase and be greater than 0-0", id)
		}
		if len(en.Fields) == 0 || len(en.Fields)%2 != 0 {
			return nil, fmt.Errorf("stream entry %s: want field, value pairs", id)
		}
		s.append(id, en.Fields)
	}
	if last := (streamID{st.LastID.Ms, st.LastID.Seq}); !last.isZero() {
		if last.cmp(s.lastID) < 0 {
			return nil, fmt.Errorf("stream last ID %s is smaller than the last entry %s", last, s.lastID)
		}
		s.lastID = last
	}
	if st.EntriesAdded != 0 {
		if st.EntriesAdded < s.length {
			return nil, fmt.Errorf("stream entries added %d is smaller than its length %d", st.EntriesAdded, s.length)
		}
		s.entriesAdded = st.EntriesAdded
	}
	s.maxDeleted = streamID{st.MaxDeletedID.Ms, st.MaxDeletedID.Seq}
	for _, sg := range st.Groups {
		g := s.addGroup(sg.Name, streamID{sg.LastID.Ms, sg.LastID.Seq}, sg.EntriesRead)
		if g == nil {
			return nil, fmt.Errorf("stream group %q given twice", sg.Name)
		}
		for _, c := range sg.Consumers {
			if _, dup := g.consumers[c.Name]; dup {
				return nil, fmt.Errorf("stream group %q: consumer %q given twice", sg.Name, c.Name)
			}
			g.consumers[c.Name] = &streamConsumer{name: c.Name, seenTime: c.SeenTime, activeTime: -1, pel: map[streamID]*streamNACK{}}
		}
		for _, p := range sg.Pending {
			c := g.consumers[p.Consumer]
			if c == nil {
				return nil, fmt.Errorf("stream group %q: pending entry of unknown consumer %q", sg.Name, p.Consumer)
			}
			id := streamID{p.ID.Ms, p.ID.Seq}
			n := &streamNACK{deliveryTime: p.DeliveryTime, deliveryCount: p.DeliveryCount, consumer: c}
			g.pel[id] = n
			c.pel[id] = n
		}
	}
	return s, nil
}

// CheckStream reports why st is not a stream Redis could hold (see
// streamFromState), or nil.
func CheckStream(st StreamState) error {
	_, err := streamFromState(st)
	return err
}
