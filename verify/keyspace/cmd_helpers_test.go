package keyspace

import (
	"context"
	"slices"
	"testing"
)

// cmdCase is one command-family test: set-up commands, one command run at
// the virtual clock (plus advance ms first), its reply, and the stored
// state of some keys afterwards (nil: the key must not exist).
type cmdCase struct {
	name    string
	setup   [][]string
	advance int64
	cmd     []string
	want    Reply
	keys    map[string]*Entry
}

func runCmdCases(t *testing.T, cases []cmdCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			// A standalone server's commands (TestClusterDatabases has a
			// cluster node's refusals).
			e := New(Options{Now: 1_000_000, Topology: TopologyStandalone})
			for _, s := range tc.setup {
				if r, err := e.Do(ctx, s...); err != nil || r.Kind == Error {
					t.Fatalf("setup %q: %s %v", s, r, err)
				}
			}
			e.Advance(tc.advance)
			got, err := e.Do(ctx, tc.cmd...)
			if err != nil {
				t.Fatalf("%q: %v", tc.cmd, err)
			}
			if !got.Equal(tc.want) {
				t.Errorf("%q: reply %s, want %s", tc.cmd, got, tc.want)
			}
			for k, want := range tc.keys {
				en, ok := e.Entry(k)
				if want == nil {
					if ok {
						t.Errorf("key %q exists: %+v", k, en)
					}
					continue
				}
				want.Key = k
				if !ok {
					t.Errorf("key %q missing, want %+v", k, *want)
					continue
				}
				if !sameEntry(en, *want) {
					t.Errorf("key %q = %+v, want %+v", k, en, *want)
				}
			}
		})
	}
}

// sameEntry compares two entries exactly: a hash's fields, a list's
// elements and a sorted set's members in order, a set's members as a set
// (Redis gives a large set no order).
func sameEntry(a, b Entry) bool {
	sa, sb := slices.Clone(a.Set), slices.Clone(b.Set)
	slices.Sort(sa)
	slices.Sort(sb)
	return a.Key == b.Key && a.Type == b.Type && a.Value == b.Value && a.PTTL == b.PTTL &&
		slices.Equal(a.Hash, b.Hash) && slices.Equal(a.List, b.List) && slices.Equal(sa, sb) && slices.Equal(a.ZSet, b.ZSet)
}

func str(v string, pttl int64) *Entry { return &Entry{Type: "string", Value: v, PTTL: pttl} }

// hsh is a hash entry; kv lists field, value, ... in HGETALL's order.
func hsh(pttl int64, kv ...string) *Entry {
	var h []Field
	for i := 0; i+1 < len(kv); i += 2 {
		h = append(h, Field{kv[i], kv[i+1]})
	}
	return &Entry{Type: "hash", Hash: h, PTTL: pttl}
}
func gone() *Entry { return nil }
