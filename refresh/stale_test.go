package refresh

import (
	"testing"
	"time"
)

func TestStaleStore(t *testing.T) {
	t0 := time.UnixMilli(1_000_000)
	s := newStaleStore(2)
	data := []byte("v0")
	s.put("a", data, t0)
	data[0] = 'X' // the store keeps its own copy
	got, ok := s.get("a", t0.Add(9*time.Second), 10*time.Second)
	if !ok || string(got) != "v0" {
		t.Fatalf("get = %q, %v; want v0", got, ok)
	}
	got[0] = 'Y' // and hands out copies
	if got, _ := s.get("a", t0, 10*time.Second); string(got) != "v0" {
		t.Fatalf("after mutating a returned copy: %q", got)
	}
	// An older value never replaces a newer one.
	s.put("a", []byte("older"), t0.Add(-time.Second))
	if got, _ := s.get("a", t0, 10*time.Second); string(got) != "v0" {
		t.Fatalf("older put replaced the copy: %q", got)
	}
	// The deadline is publish time + maxAge, exclusive, and the entry goes.
	if _, ok := s.get("a", t0.Add(10*time.Second), 10*time.Second); ok {
		t.Fatal("copy served at its deadline")
	}
	if s.len() != 0 {
		t.Fatalf("expired entry kept: %d entries", s.len())
	}
	// Bounded: a third id evicts one entry.
	s.put("a", []byte("1"), t0)
	s.put("b", []byte("2"), t0)
	s.put("c", []byte("3"), t0)
	if s.len() != 2 {
		t.Fatalf("%d entries, want 2", s.len())
	}
	if _, ok := s.get("c", t0, time.Second); !ok {
		t.Fatal("the newest entry was evicted")
	}
}
