package verify

// stream is a Redis stream (cmd_stream.go).
//
// Contract used outside cmd_stream.go (Entry, Put, COPY, OBJECT): newStream,
// clone, encoding.
type stream struct{}

func newStream() *stream { return &stream{} }

func (s *stream) clone() *stream { return &stream{} }

// encoding is what OBJECT ENCODING answers.
func (s *stream) encoding() string { return "stream" }
