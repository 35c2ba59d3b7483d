package verify

// set is a Redis set.
//
// Contract used outside cmd_set.go (Entry, Put, COPY, SORT, OBJECT):
// newSet, add, has, rem, len, members (in the order SMEMBERS answers),
// clone, encoding.
type set struct {
	order []string
	has_  map[string]bool
}

func newSet() *set { return &set{has_: map[string]bool{}} }

// add inserts m and reports whether it is new.
func (s *set) add(m string) bool {
	if s.has_[m] {
		return false
	}
	s.has_[m] = true
	s.order = append(s.order, m)
	return true
}

func (s *set) has(m string) bool { return s.has_[m] }

func (s *set) rem(m string) bool {
	if !s.has_[m] {
		return false
	}
	delete(s.has_, m)
	for i, x := range s.order {
		if x == m {
			s.order = append(s.order[:i], s.order[i+1:]...)
			break
		}
	}
	return true
}

func (s *set) len() int          { return len(s.order) }
func (s *set) members() []string { return append([]string(nil), s.order...) }

func (s *set) clone() *set {
	c := newSet()
	for _, m := range s.order {
		c.add(m)
	}
	return c
}

// encoding is what OBJECT ENCODING answers.
func (s *set) encoding() string { return "hashtable" }
