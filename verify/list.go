package verify

// list is a Redis list.
//
// Contract used outside cmd_list.go (Entry, Put, COPY, SORT, OBJECT):
// newList, pushBack, pushFront, len, index (0-based, in range), items (a
// copy, head first), clone, encoding.
type list struct {
	elems []string
}

func newList() *list { return &list{} }

func (l *list) pushBack(s string)  { l.elems = append(l.elems, s) }
func (l *list) pushFront(s string) { l.elems = append([]string{s}, l.elems...) }
func (l *list) len() int           { return len(l.elems) }
func (l *list) index(i int) string { return l.elems[i] }
func (l *list) items() []string    { return append([]string(nil), l.elems...) }
func (l *list) clone() *list       { return &list{elems: l.items()} }

// encoding is what OBJECT ENCODING answers.
func (l *list) encoding() string { return "quicklist" }
