package refresh

import (
	"sync"
	"time"
)

// staleStore keeps the last value this process read or published per id,
// with its publish time, bounded to max entries.
type staleStore struct {
	mu  sync.Mutex
	max int
	m   map[string]staleEntry
}

type staleEntry struct {
	data      []byte
	published time.Time
}

func newStaleStore(max int) *staleStore {
	return &staleStore{max: max, m: map[string]staleEntry{}}
}

// put keeps a copy of data unless the copy held is as new or newer: an older
// value never replaces a newer one, so a deadline never moves back or forth
// except by a newer publication.
func (s *staleStore) put(id string, data []byte, published time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e, ok := s.m[id]; ok {
		if !published.After(e.published) {
			return
		}
	} else if len(s.m) >= s.max {
		for victim := range s.m { // map order: an arbitrary entry
			delete(s.m, victim)
			break
		}
	}
	s.m[id] = staleEntry{data: cloneBytes(data), published: published}
}

// get returns a copy of id's data while now is before its publish time plus
// maxAge; an entry past that deadline is dropped.
func (s *staleStore) get(id string, now time.Time, maxAge time.Duration) ([]byte, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.m[id]
	if !ok {
		return nil, false
	}
	if !now.Before(e.published.Add(maxAge)) {
		delete(s.m, id)
		return nil, false
	}
	return cloneBytes(e.data), true
}

// delete drops id's entry.
func (s *staleStore) delete(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, id)
}

func (s *staleStore) len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.m)
}
