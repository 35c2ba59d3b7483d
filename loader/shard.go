package loader

import (
	"fmt"
	"strings"
)

// SlotRanges is the slots a cluster primary serves, "0-5460" or
// "0-100, 5461-10922"; "" for any other node (a replica, a standalone
// server, a primary that serves none).
func (n *Node) SlotRanges() string {
	if n == nil || n.Role != RolePrimary || len(n.slots) == 0 {
		return ""
	}
	parts := make([]string, len(n.slots))
	for i, r := range n.slots {
		if r[0] == r[1] {
			parts[i] = fmt.Sprint(r[0])
		} else {
			parts[i] = fmt.Sprintf("%d-%d", r[0], r[1])
		}
	}
	return strings.Join(parts, ", ")
}

// shardGap explains a missing item on a primary that serves slots: the
// callers of every key in those slots fail there. A shard added to a
// cluster starts empty, and moving slots to it (resharding, Valkey 9's
// atomic slot migration) carries keys but neither scripts nor Functions,
// so a topology change leaves such a gap until deploy runs again.
func shardGap(n *Node, kind string) string {
	slots := n.SlotRanges()
	if slots == "" {
		return ""
	}
	what := "scripts"
	if kind == KindLibrary {
		what = "Functions"
	}
	return fmt.Sprintf("primary serving slots %s: calls on keys of those slots fail (a new shard starts empty and slot migration does not carry %s; deploy loads it)", slots, what)
}
