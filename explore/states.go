package explore

import (
	"fmt"
	"slices"
	"strconv"
	"unsafe"

	"github.com/scriptctl/scriptctl/verify"
)

// timeline walks back from n to the root.
func (x *explorer) timeline(n *node) []Line {
	var out []Line
	out = append(out, n.via)
	for i := n.parent; i > 0; i = x.nodes[i].parent {
		out = append(out, x.nodes[i].via)
	}
	slices.Reverse(out)
	for i := range out {
		out[i].N = i + 1
	}
	return out
}

// key is the visited-state key of n: keyspace (with absolute expiries),
// clock, source, floor, epoch, environment counters and every worker's
// state. Equal keys are equal states (texts are quoted, so no two states
// share a key).
func (x *explorer) key(n *node) string {
	b := make([]byte, 0, 256)
	num := func(v int64) {
		b = strconv.AppendInt(b, v, 10)
		b = append(b, ',')
	}
	str := func(s string) {
		b = strconv.AppendQuote(b, s)
		b = append(b, ',')
	}
	num(n.now)
	num(int64(n.source))
	num(int64(n.floor))
	num(int64(n.epoch))
	for _, c := range n.env {
		num(int64(c))
	}
	for _, w := range n.workers {
		b = append(b, '|')
		num(int64(w.pc))
		num(int64(w.done))
		num(int64(w.acquired))
		str(w.token)
		num(int64(w.revision))
		str(w.reply)
		b = strconv.AppendBool(b, w.owns)
		num(w.ownedUntil)
		num(int64(w.ownedEpoch))
		b = strconv.AppendBool(b, w.accepted)
		b = strconv.AppendBool(b, w.published)
		for _, r := range w.regs {
			str(r)
		}
		if w.crashed || w.paused {
			b = strconv.AppendBool(b, w.crashed)
			b = strconv.AppendBool(b, w.paused)
			num(w.resumeAt)
		}
		if x.m.usesIf {
			b = fmt.Appendf(b, "%v,", w.last)
		}
	}
	if x.m.usesHist {
		str(n.hist)
	}
	for _, e := range n.keys {
		b = append(b, '|')
		str(e.Key)
		str(e.Type)
		exp := int64(-1)
		if e.PTTL >= 0 {
			exp = n.now + e.PTTL
		}
		num(exp)
		switch e.Type {
		case "string":
			str(e.Value)
		case "hash":
			for _, f := range e.Hash {
				str(f.Name)
				str(f.Value)
			}
		case "stream":
			b = fmt.Appendf(b, "%+v", *e.Stream) // the contents, not the pointer
		default:
			b = fmt.Appendf(b, "%q%q%+v", e.List, e.Set, e.ZSet)
		}
	}
	return string(b)
}

// storedBytes estimates what storing n, reached under visited-state key
// k, holds: the node and its slices, every keyspace entry's strings, the
// workers' registers and tokens, the key in the visited map and n's place
// in the node list. An estimate from above (Go's headers and map buckets
// at their sizes), so that MaxMemory bounds the live heap the states take.
func storedBytes(n *node, k string) int64 {
	const (
		str   = int64(unsafe.Sizeof(""))
		slice = int64(unsafe.Sizeof([]int(nil)))
		entry = int64(unsafe.Sizeof(verify.Entry{}))
		work  = int64(unsafe.Sizeof(wstate{}))
		mapKV = 64 // a visited entry: key header, id, bucket share
	)
	// succ grows once the node is stored: an edge per enabled action.
	b := int64(unsafe.Sizeof(node{})) + 8 + mapKV + int64(len(k)) + 8*int64(len(n.env)) + 8*int64(len(n.workers)+len(n.env))
	for _, e := range n.keys {
		b += entry + int64(len(e.Key)+len(e.Value))
		for _, f := range e.Hash {
			b += 2*str + int64(len(f.Name)+len(f.Value))
		}
		for _, v := range e.List {
			b += str + int64(len(v))
		}
		for _, v := range e.Set {
			b += str + int64(len(v))
		}
		for _, z := range e.ZSet {
			b += str + 8 + int64(len(z.Member))
		}
		if e.Stream != nil {
			b += 1024 // streams are rare in models: a flat share
		}
		b += int64(len(e.FieldTTL)) * (str + 8 + 16)
	}
	b += int64(len(n.hist))
	for _, w := range n.workers {
		b += work + int64(len(w.token)+len(w.reply)) + slice
		for _, r := range w.regs {
			b += str + int64(len(r))
		}
	}
	return b
}
