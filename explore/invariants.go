package explore

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/scriptctl/scriptctl/verify"
)

func (m *Model) hasBuiltin(name string) bool { return slices.Contains(m.Builtins, name) }

// invariants checks the state invariants in n (the engine holds n); final
// says n is a state where nothing can move.
func (x *explorer) invariants(n *node, final bool) (*Violation, error) {
	m := x.m
	if m.hasBuiltin(NoRegression) {
		if rev := n.via.Revision; n.via.Present && rev >= 0 {
			if rev < n.floor {
				return &Violation{Invariant: NoRegression, Message: fmt.Sprintf("the cache shows revision %d (%q) after revision %d was visible or invalidated", rev, n.via.Value, n.floor)}, nil
			}
			n.floor = max(n.floor, rev)
		}
	}
	if m.hasBuiltin(SingleOwner) {
		var owners []string
		for i, w := range n.workers {
			if w.owns && n.now < w.ownedUntil && w.ownedEpoch == n.epoch {
				owners = append(owners, m.Workers[i].Name)
			}
		}
		if len(owners) > 1 {
			return &Violation{Invariant: SingleOwner, Message: fmt.Sprintf("%s all believe they own the lease", strings.Join(owners, " and "))}, nil
		}
	}
	for _, p := range m.Preds {
		if p.Lua != "" {
			if v, err := x.luaCheck(p, n, final); err != nil || v != nil {
				return v, err
			}
			continue
		}
		if p.When != nil && !x.holds(*p.When, n) {
			continue
		}
		if !x.holds(p.Assert, n) {
			l, r := x.stateExpand(p.Assert.Left, n), x.stateExpand(p.Assert.Right, n)
			return &Violation{Invariant: p.Name, Message: fmt.Sprintf("%q %s %q does not hold", l, p.Assert.Op, r)}, nil
		}
	}
	return nil, nil
}

// holds evaluates c: integers compare as numbers; otherwise == and != compare
// texts and the order operators are false.
func (x *explorer) holds(c Compare, n *node) bool {
	l, r := x.stateExpand(c.Left, n), x.stateExpand(c.Right, n)
	a, errA := strconv.ParseInt(l, 10, 64)
	b, errB := strconv.ParseInt(r, 10, 64)
	if errA != nil || errB != nil {
		switch c.Op {
		case "==":
			return l == r
		case "!=":
			return l != r
		}
		return false
	}
	switch c.Op {
	case "==":
		return a == b
	case "!=":
		return a != b
	case "<":
		return a < b
	case "<=":
		return a <= b
	case ">":
		return a > b
	}
	return a >= b
}

func (x *explorer) stateExpand(s string, n *node) string {
	return refPattern.Get().ReplaceAllStringFunc(s, func(r string) string {
		name := r[2 : len(r)-1]
		if v, ok := x.m.Vars[name]; ok {
			return v
		}
		switch name {
		case "source.revision":
			return strconv.Itoa(n.source)
		case "now":
			return strconv.FormatInt(n.now-verify.DefaultNow, 10)
		}
		parts := strings.Split(name, ".")
		if len(parts) >= 2 {
			if k, ok := x.m.Keys[parts[1]]; ok && (parts[0] == "key" || parts[0] == "pttl" || parts[0] == "revision" || parts[0] == "field") {
				e, ok := x.eng.Entry(k)
				switch parts[0] {
				case "key":
					if ok && e.Type == "string" {
						return e.Value
					}
					return ""
				case "pttl":
					if !ok {
						return "-2"
					}
					return strconv.FormatInt(e.PTTL, 10)
				case "revision":
					if ok && e.Type == "string" {
						return strconv.Itoa(revisionOf(e.Value))
					}
					return "-1"
				case "field":
					for _, f := range e.Hash {
						if len(parts) == 3 && f.Name == parts[2] {
							return f.Value
						}
					}
					return ""
				}
			}
			for i, w := range x.m.Workers {
				if w.Name == parts[0] {
					ws := n.workers[i]
					return x.register(parts[1], w.Name, &ws)
				}
			}
		}
		return ""
	})
}
