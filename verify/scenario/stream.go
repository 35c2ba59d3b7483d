package scenario

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/scriptctl/scriptctl/internal/yamlnode"
	"github.com/scriptctl/scriptctl/verify"
)

// Streams in the keyspace format (lua_test/README.md, "Streams"):
//
//	stream:
//	  entries: [[1-1, {f: v}], [1-2, [f, v, f, w]]]
//	  last_id: 5-0            # optional: default the last entry's ID
//	  entries_added: 7        # optional: default the number of entries
//	  max_deleted_id: 3-0     # optional: default 0-0
//	  groups:
//	    - name: g
//	      last_id: 1-1
//	      entries_read: 1     # optional: default unknown (XINFO's nil)
//	      consumers: [alice, {name: bob, seen_time: 1700000000000}]
//	      pending: [{id: 1-1, consumer: alice, delivery_time: 1700000000000, delivery_count: 2}]
//
// A time not written is -1 in the StreamState: Put reads it as the
// engine's clock, an expectation does not compare it.

// unsetTime marks a delivery or seen time the file does not give.
const unsetTime = -1

// stream parses a stream's state and checks that Redis could hold it.
func (p *parser) stream(n *yaml.Node, field string) *verify.StreamState {
	st := &verify.StreamState{}
	before := len(p.errs)
	f := p.fields(n, field, "entries", "last_id", "entries_added", "max_deleted_id", "groups")
	if n.Kind != yaml.MappingNode {
		return st
	}
	if e := f["entries"]; e != nil {
		if e.Kind != yaml.SequenceNode {
			p.errorf(e, field+".entries", "must be a list of [id, fields] pairs, not %s", yamlnode.Describe(e))
		} else {
			for i, c := range e.Content {
				if en, ok := p.streamEntry(c, fmt.Sprintf("%s.entries[%d]", field, i+1)); ok {
					st.Entries = append(st.Entries, en)
				}
			}
		}
	}
	if v := f["last_id"]; v != nil {
		st.LastID = p.streamID(v, field+".last_id")
	}
	if v := f["max_deleted_id"]; v != nil {
		st.MaxDeletedID = p.streamID(v, field+".max_deleted_id")
	}
	if v := f["entries_added"]; v != nil {
		st.EntriesAdded = uint64(p.posInt(v, field+".entries_added", true))
	}
	if g := f["groups"]; g != nil {
		if g.Kind != yaml.SequenceNode {
			p.errorf(g, field+".groups", "must be a list of groups, not %s", yamlnode.Describe(g))
		} else {
			for i, c := range g.Content {
				st.Groups = append(st.Groups, p.streamGroup(c, fmt.Sprintf("%s.groups[%d]", field, i+1)))
			}
		}
	}
	if len(p.errs) == before {
		if err := verify.CheckStream(*st); err != nil {
			p.errorf(n, field, "%v", err)
		}
	}
	return st
}

// streamEntry parses [id, {field: value, ...}] or [id, [field, value, ...]]
// (the list form allows a field given twice, as XADD does).
func (p *parser) streamEntry(n *yaml.Node, field string) (verify.StreamEntry, bool) {
	if n.Kind != yaml.SequenceNode || len(n.Content) != 2 {
		p.errorf(n, field, "must be an [id, fields] pair, not %s", describePair(n))
		return verify.StreamEntry{}, false
	}
	en := verify.StreamEntry{ID: p.streamID(n.Content[0], field+".id")}
	fv := n.Content[1]
	switch fv.Kind {
	case yaml.MappingNode:
		for _, kv := range p.pairs(fv, field) {
			en.Fields = append(en.Fields, p.text(kv[0], field), p.text(kv[1], field+"."+kv[0].Value))
		}
	case yaml.SequenceNode:
		for i, c := range fv.Content {
			en.Fields = append(en.Fields, p.text(c, fmt.Sprintf("%s[%d]", field, i+1)))
		}
		if len(fv.Content)%2 != 0 {
			p.errorf(fv, field, "needs field, value pairs: %d texts", len(fv.Content))
		}
	default:
		p.errorf(fv, field, "must be a mapping of fields or a [field, value, ...] list, not %s", yamlnode.Describe(fv))
		return en, false
	}
	if len(fv.Content) == 0 {
		p.errorf(fv, field, "needs at least one field (XADD does)")
	}
	return en, true
}

// streamID parses <ms>-<seq> (a bare <ms> is <ms>-0), as XADD reads an
// explicit ID.
func (p *parser) streamID(n *yaml.Node, field string) verify.StreamID {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" || n.Tag == "!!bool" {
		p.errorf(n, field, "must be a stream ID <ms>-<seq>, not %s", yamlnode.Describe(n))
		return verify.StreamID{}
	}
	id, err := ParseStreamID(n.Value)
	if err != nil {
		p.errorf(n, field, "%v", err)
	}
	return id
}

// ParseStreamID reads <ms>-<seq>, or <ms> for <ms>-0: two unsigned 64-bit
// decimals.
func ParseStreamID(s string) (verify.StreamID, error) {
	ms, seq, dash := strings.Cut(s, "-")
	m, err1 := strconv.ParseUint(ms, 10, 64)
	var q uint64
	var err2 error
	if dash {
		q, err2 = strconv.ParseUint(seq, 10, 64)
	}
	if err1 != nil || err2 != nil || strings.HasPrefix(ms, "+") || strings.HasPrefix(seq, "+") {
		return verify.StreamID{}, fmt.Errorf("stream ID %q is not <ms>-<seq>", s)
	}
	return verify.StreamID{Ms: m, Seq: q}, nil
}

func (p *parser) streamGroup(n *yaml.Node, field string) verify.StreamGroup {
	g := verify.StreamGroup{EntriesRead: -1}
	f := p.fields(n, field, "name", "last_id", "entries_read", "consumers", "pending")
	if n.Kind != yaml.MappingNode {
		p.errorf(n, field, "must be a mapping, not %s", yamlnode.Describe(n))
		return g
	}
	if v := f["name"]; v != nil {
		g.Name = p.text(v, field+".name")
	} else {
		p.errorf(n, field, "needs a name")
	}
	if v := f["last_id"]; v != nil {
		g.LastID = p.streamID(v, field+".last_id")
	}
	if v := f["entries_read"]; v != nil {
		g.EntriesRead = p.posInt(v, field+".entries_read", true)
	}
	if c := f["consumers"]; c != nil {
		for i, cn := range p.seq(c, field+".consumers") {
			cf := fmt.Sprintf("%s.consumers[%d]", field, i+1)
			sc := verify.StreamConsumer{SeenTime: unsetTime}
			if cn.Kind == yaml.ScalarNode {
				sc.Name = p.text(cn, cf)
			} else {
				cfs := p.fields(cn, cf, "name", "seen_time")
				if v := cfs["name"]; v != nil {
					sc.Name = p.text(v, cf+".name")
				} else {
					p.errorf(cn, cf, "needs a name")
				}
				if v := cfs["seen_time"]; v != nil {
					sc.SeenTime = p.posInt(v, cf+".seen_time", true)
				}
			}
			g.Consumers = append(g.Consumers, sc)
		}
	}
	if pn := f["pending"]; pn != nil {
		for i, c := range p.seq(pn, field+".pending") {
			pf := fmt.Sprintf("%s.pending[%d]", field, i+1)
			pe := verify.StreamPending{DeliveryTime: unsetTime, DeliveryCount: 1}
			pfs := p.fields(c, pf, "id", "consumer", "delivery_time", "delivery_count")
			if v := pfs["id"]; v != nil {
				pe.ID = p.streamID(v, pf+".id")
			} else {
				p.errorf(c, pf, "needs an id")
			}
			if v := pfs["consumer"]; v != nil {
				pe.Consumer = p.text(v, pf+".consumer")
			} else {
				p.errorf(c, pf, "needs a consumer")
			}
			if v := pfs["delivery_time"]; v != nil {
				pe.DeliveryTime = p.posInt(v, pf+".delivery_time", true)
			}
			if v := pfs["delivery_count"]; v != nil {
				pe.DeliveryCount = uint64(p.posInt(v, pf+".delivery_count", true))
			}
			g.Pending = append(g.Pending, pe)
		}
		for i := 1; i < len(g.Pending); i++ {
			if cmpID(g.Pending[i-1].ID, g.Pending[i].ID) >= 0 {
				p.errorf(pn.Content[i], fmt.Sprintf("%s.pending[%d]", field, i+1), "pending entries must be in increasing ID order, each once")
			}
		}
	}
	return g
}

func (p *parser) seq(n *yaml.Node, field string) []*yaml.Node {
	if n.Kind != yaml.SequenceNode {
		p.errorf(n, field, "must be a list, not %s", yamlnode.Describe(n))
		return nil
	}
	return n.Content
}

func cmpID(a, b verify.StreamID) int {
	if a.Ms != b.Ms {
		if a.Ms < b.Ms {
			return -1
		}
		return 1
	}
	switch {
	case a.Seq < b.Seq:
		return -1
	case a.Seq > b.Seq:
		return 1
	}
	return 0
}

// normalStream is st with its defaults made explicit (a last ID of 0-0 is
// the last entry's, an entries-added of 0 the entry count) and its groups
// and consumers in name order, the order Redis reports them in.
func normalStream(st verify.StreamState) verify.StreamState {
	if st.LastID == (verify.StreamID{}) && len(st.Entries) > 0 {
		st.LastID = st.Entries[len(st.Entries)-1].ID
	}
	if st.EntriesAdded == 0 {
		st.EntriesAdded = uint64(len(st.Entries))
	}
	st.Groups = slices.Clone(st.Groups)
	slices.SortFunc(st.Groups, func(a, b verify.StreamGroup) int { return strings.Compare(a.Name, b.Name) })
	for i := range st.Groups {
		g := &st.Groups[i]
		g.Consumers = slices.Clone(g.Consumers)
		slices.SortFunc(g.Consumers, func(a, b verify.StreamConsumer) int { return strings.Compare(a.Name, b.Name) })
	}
	return st
}

// sameStream compares two streams exactly, but for delivery and seen
// times, which are compared only when times is set and both give them
// (an offline run's virtual clock and a server's differ).
func sameStream(a, b *verify.StreamState, times bool) bool {
	if a == nil || b == nil {
		return a == b
	}
	x, y := normalStream(*a), normalStream(*b)
	if x.LastID != y.LastID || x.EntriesAdded != y.EntriesAdded || x.MaxDeletedID != y.MaxDeletedID ||
		len(x.Entries) != len(y.Entries) || len(x.Groups) != len(y.Groups) {
		return false
	}
	for i, e := range x.Entries {
		if e.ID != y.Entries[i].ID || !slices.Equal(e.Fields, y.Entries[i].Fields) {
			return false
		}
	}
	sameTime := func(s, t int64) bool { return !times || s == unsetTime || t == unsetTime || s == t }
	for i, g := range x.Groups {
		h := y.Groups[i]
		if g.Name != h.Name || g.LastID != h.LastID || g.EntriesRead != h.EntriesRead ||
			len(g.Consumers) != len(h.Consumers) || len(g.Pending) != len(h.Pending) {
			return false
		}
		for j, c := range g.Consumers {
			if c.Name != h.Consumers[j].Name || !sameTime(c.SeenTime, h.Consumers[j].SeenTime) {
				return false
			}
		}
		for j, pe := range g.Pending {
			q := h.Pending[j]
			if pe.ID != q.ID || pe.Consumer != q.Consumer || pe.DeliveryCount != q.DeliveryCount || !sameTime(pe.DeliveryTime, q.DeliveryTime) {
				return false
			}
		}
	}
	return true
}

// streamString is a stream on one line, for traces and differences.
func streamString(st *verify.StreamState) string {
	if st == nil {
		return "a stream"
	}
	s := normalStream(*st)
	var b strings.Builder
	b.WriteString("stream [")
	for i, e := range s.Entries {
		if i > 0 {
			b.WriteString(", ")
		}
		q := make([]string, len(e.Fields))
		for j, f := range e.Fields {
			q[j] = strconv.Quote(f)
		}
		fmt.Fprintf(&b, "%s {%s}", e.ID, strings.Join(q, " "))
	}
	fmt.Fprintf(&b, "] last_id %s entries_added %d max_deleted_id %s", s.LastID, s.EntriesAdded, s.MaxDeletedID)
	for _, g := range s.Groups {
		fmt.Fprintf(&b, " group %q last_id %s entries_read %d consumers [", g.Name, g.LastID, g.EntriesRead)
		for i, c := range g.Consumers {
			if i > 0 {
				b.WriteString(" ")
			}
			b.WriteString(strconv.Quote(c.Name))
		}
		b.WriteString("] pending [")
		for i, pe := range g.Pending {
			if i > 0 {
				b.WriteString(" ")
			}
			fmt.Fprintf(&b, "%s:%q:%d", pe.ID, pe.Consumer, pe.DeliveryCount)
		}
		b.WriteString("]")
	}
	return b.String()
}

// streamNode writes st in the format stream parses: a mapping of fields
// when an entry gives each field once, else the flat list.
func streamNode(st verify.StreamState) *yaml.Node {
	st = normalStream(st)
	n := &yaml.Node{Kind: yaml.MappingNode}
	add := func(k string, v *yaml.Node) { n.Content = append(n.Content, strNode(k), v) }
	entries := &yaml.Node{Kind: yaml.SequenceNode}
	for _, e := range st.Entries {
		fv := &yaml.Node{Kind: yaml.MappingNode, Style: yaml.FlowStyle}
		seen := map[string]bool{}
		for i := 0; i+1 < len(e.Fields); i += 2 {
			if seen[e.Fields[i]] {
				fv = strList(e.Fields)
				fv.Style = yaml.FlowStyle
				break
			}
			seen[e.Fields[i]] = true
			fv.Content = append(fv.Content, strNode(e.Fields[i]), strNode(e.Fields[i+1]))
		}
		entries.Content = append(entries.Content, &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle, Content: []*yaml.Node{strNode(e.ID.String()), fv}})
	}
	add("entries", entries)
	add("last_id", strNode(st.LastID.String()))
	add("entries_added", intNode(int64(st.EntriesAdded)))
	add("max_deleted_id", strNode(st.MaxDeletedID.String()))
	if len(st.Groups) == 0 {
		return n
	}
	groups := &yaml.Node{Kind: yaml.SequenceNode}
	for _, g := range st.Groups {
		gn := &yaml.Node{Kind: yaml.MappingNode}
		gadd := func(k string, v *yaml.Node) { gn.Content = append(gn.Content, strNode(k), v) }
		gadd("name", strNode(g.Name))
		gadd("last_id", strNode(g.LastID.String()))
		if g.EntriesRead >= 0 {
			gadd("entries_read", intNode(g.EntriesRead))
		}
		cs := &yaml.Node{Kind: yaml.SequenceNode}
		for _, c := range g.Consumers {
			cn := &yaml.Node{Kind: yaml.MappingNode, Style: yaml.FlowStyle, Content: []*yaml.Node{strNode("name"), strNode(c.Name)}}
			if c.SeenTime >= 0 {
				cn.Content = append(cn.Content, strNode("seen_time"), intNode(c.SeenTime))
			}
			cs.Content = append(cs.Content, cn)
		}
		gadd("consumers", cs)
		ps := &yaml.Node{Kind: yaml.SequenceNode}
		for _, pe := range g.Pending {
			pn := &yaml.Node{Kind: yaml.MappingNode, Style: yaml.FlowStyle, Content: []*yaml.Node{strNode("id"), strNode(pe.ID.String()), strNode("consumer"), strNode(pe.Consumer)}}
			if pe.DeliveryTime >= 0 {
				pn.Content = append(pn.Content, strNode("delivery_time"), intNode(pe.DeliveryTime))
			}
			pn.Content = append(pn.Content, strNode("delivery_count"), intNode(int64(pe.DeliveryCount)))
			ps.Content = append(ps.Content, pn)
		}
		gadd("pending", ps)
		groups.Content = append(groups.Content, gn)
	}
	add("groups", groups)
	return n
}

func intNode(v int64) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.FormatInt(v, 10)}
}

// streamPutCommands write st under key (after the DEL PutCommands sends):
// each entry by XADD in order (an empty stream by XGROUP CREATE MKSTREAM of
// a group dropped at once), XSETID for the counters, XGROUP CREATE and
// CREATECONSUMER for the groups, and XCLAIM ... FORCE JUSTID RETRYCOUNT
// (TIME when given) for each pending entry. A pending entry whose ID is not
// in the stream cannot be recreated (XCLAIM drops it), and consumers' seen
// times are the server's clock.
func streamPutCommands(st verify.StreamState, key string) [][]string {
	st = normalStream(st)
	var cmds [][]string
	if len(st.Entries) == 0 {
		cmds = append(cmds, []string{"XGROUP", "CREATE", key, "sctl-mkstream", "0", "MKSTREAM"},
			[]string{"XGROUP", "DESTROY", key, "sctl-mkstream"})
	}
	for _, e := range st.Entries {
		cmds = append(cmds, append([]string{"XADD", key, e.ID.String()}, e.Fields...))
	}
	cmds = append(cmds, []string{"XSETID", key, st.LastID.String(), "ENTRIESADDED", strconv.FormatUint(st.EntriesAdded, 10), "MAXDELETEDID", st.MaxDeletedID.String()})
	for _, g := range st.Groups {
		c := []string{"XGROUP", "CREATE", key, g.Name, g.LastID.String()}
		if g.EntriesRead >= 0 {
			c = append(c, "ENTRIESREAD", strconv.FormatInt(g.EntriesRead, 10))
		}
		cmds = append(cmds, c)
		for _, cn := range g.Consumers {
			cmds = append(cmds, []string{"XGROUP", "CREATECONSUMER", key, g.Name, cn.Name})
		}
		for _, pe := range g.Pending {
			c := []string{"XCLAIM", key, g.Name, pe.Consumer, "0", pe.ID.String(), "FORCE", "JUSTID", "RETRYCOUNT", strconv.FormatUint(pe.DeliveryCount, 10)}
			if pe.DeliveryTime >= 0 {
				c = append(c, "TIME", strconv.FormatInt(pe.DeliveryTime, 10))
			}
			cmds = append(cmds, c)
		}
	}
	return cmds
}

// readStream reads a stream's state from XINFO STREAM key FULL COUNT 0.
func readStream(r verify.Reply) (*verify.StreamState, error) {
	m := replyMap(r)
	st := &verify.StreamState{}
	var err error
	id := func(x verify.Reply) verify.StreamID {
		v, e := ParseStreamID(x.Str)
		if e != nil && err == nil {
			err = e
		}
		return v
	}
	st.LastID = id(m["last-generated-id"])
	st.MaxDeletedID = id(m["max-deleted-entry-id"])
	st.EntriesAdded = uint64(m["entries-added"].Int)
	for _, e := range m["entries"].Elems {
		if len(e.Elems) != 2 {
			return nil, fmt.Errorf("XINFO STREAM FULL: an entry is not [id, fields]")
		}
		en := verify.StreamEntry{ID: id(e.Elems[0])}
		for _, f := range e.Elems[1].Elems {
			en.Fields = append(en.Fields, f.Str)
		}
		st.Entries = append(st.Entries, en)
	}
	for _, gr := range m["groups"].Elems {
		gm := replyMap(gr)
		g := verify.StreamGroup{Name: gm["name"].Str, LastID: id(gm["last-delivered-id"]), EntriesRead: -1}
		if er := gm["entries-read"]; er.Kind == verify.Int {
			g.EntriesRead = er.Int
		}
		for _, pe := range gm["pending"].Elems {
			if len(pe.Elems) != 4 {
				return nil, fmt.Errorf("XINFO STREAM FULL: a pending entry is not [id, consumer, time, count]")
			}
			g.Pending = append(g.Pending, verify.StreamPending{ID: id(pe.Elems[0]), Consumer: pe.Elems[1].Str, DeliveryTime: pe.Elems[2].Int, DeliveryCount: uint64(pe.Elems[3].Int)})
		}
		for _, c := range gm["consumers"].Elems {
			cm := replyMap(c)
			g.Consumers = append(g.Consumers, verify.StreamConsumer{Name: cm["name"].Str, SeenTime: cm["seen-time"].Int})
		}
		st.Groups = append(st.Groups, g)
	}
	return st, err
}

// replyMap reads a flat [name, value, ...] reply (a RESP3 map arrives so
// too).
func replyMap(r verify.Reply) map[string]verify.Reply {
	m := map[string]verify.Reply{}
	for i := 0; i+1 < len(r.Elems); i += 2 {
		m[r.Elems[i].Str] = r.Elems[i+1]
	}
	return m
}

// JSONStream is a stream in the JSON reports, with the keyspace format's
// field names.
type JSONStream struct {
	Entries      []JSONStreamEntry `json:"entries"`
	LastID       string            `json:"last_id"`
	EntriesAdded uint64            `json:"entries_added"`
	MaxDeletedID string            `json:"max_deleted_id"`
	Groups       []JSONStreamGroup `json:"groups,omitempty"`
}

// JSONStreamEntry is one entry: its ID and field, value, ... in order.
type JSONStreamEntry struct {
	ID     string   `json:"id"`
	Fields []string `json:"fields"`
}

// JSONStreamGroup is one consumer group.
type JSONStreamGroup struct {
	Name        string               `json:"name"`
	LastID      string               `json:"last_id"`
	EntriesRead *int64               `json:"entries_read"` // null: unknown
	Consumers   []JSONStreamConsumer `json:"consumers"`
	Pending     []JSONStreamPending  `json:"pending"`
}

// JSONStreamConsumer is one consumer of a group.
type JSONStreamConsumer struct {
	Name     string `json:"name"`
	SeenTime int64  `json:"seen_time"`
}

// JSONStreamPending is one pending entry of a group.
type JSONStreamPending struct {
	ID            string `json:"id"`
	Consumer      string `json:"consumer"`
	DeliveryTime  int64  `json:"delivery_time"`
	DeliveryCount uint64 `json:"delivery_count"`
}

// ToJSONStream converts a stream for the JSON reports; nil stays nil.
func ToJSONStream(st *verify.StreamState) *JSONStream {
	if st == nil {
		return nil
	}
	s := normalStream(*st)
	j := &JSONStream{LastID: s.LastID.String(), EntriesAdded: s.EntriesAdded, MaxDeletedID: s.MaxDeletedID.String(), Entries: []JSONStreamEntry{}}
	for _, e := range s.Entries {
		j.Entries = append(j.Entries, JSONStreamEntry{ID: e.ID.String(), Fields: e.Fields})
	}
	for _, g := range s.Groups {
		jg := JSONStreamGroup{Name: g.Name, LastID: g.LastID.String()}
		if g.EntriesRead >= 0 {
			n := g.EntriesRead
			jg.EntriesRead = &n
		}
		for _, c := range g.Consumers {
			jg.Consumers = append(jg.Consumers, JSONStreamConsumer{c.Name, c.SeenTime})
		}
		for _, p := range g.Pending {
			jg.Pending = append(jg.Pending, JSONStreamPending{p.ID.String(), p.Consumer, p.DeliveryTime, p.DeliveryCount})
		}
		j.Groups = append(j.Groups, jg)
	}
	return j
}
