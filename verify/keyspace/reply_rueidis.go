package keyspace

import (
	"encoding/binary"
	"fmt"

	"github.com/redis/rueidis"
)

// FromMessage converts a reply received by rueidis into a Reply, exactly:
// status and bulk strings stay distinct and error texts keep their code
// ("ERR ..."), which rueidis's own accessors hide (RedisError drops a leading
// "ERR ", ToString does not say status or bulk). It reads the message through
// rueidis's exported, stable serialization (RedisMessage.CacheMarshal: a
// 7-byte TTL, then per value a RESP type byte, an 8-byte big-endian length
// and the payload or elements). Use a RESP2 connection (AlwaysRESP2) to get
// what redis-cli shows.
func FromMessage(msg rueidis.RedisMessage) (Reply, error) {
	buf := msg.CacheMarshal(nil)
	if len(buf) < 7 {
		return Reply{}, fmt.Errorf("verify: short rueidis message")
	}
	r, _, err := decodeMessage(buf, 7, 0)
	return r, err
}

func decodeMessage(buf []byte, at, depth int) (Reply, int, error) {
	if depth > 1000 {
		return Reply{}, 0, fmt.Errorf("verify: reply nested too deep")
	}
	if len(buf) < at+9 {
		return Reply{}, 0, fmt.Errorf("verify: truncated rueidis message")
	}
	typ := buf[at]
	n := binary.BigEndian.Uint64(buf[at+1 : at+9])
	at += 9
	str := func() (string, error) {
		if uint64(len(buf)-at) < n {
			return "", fmt.Errorf("verify: truncated rueidis message")
		}
		return string(buf[at : at+int(n)]), nil
	}
	switch typ {
	case '_': // null (RESP2 nil bulk and nil array)
		return NilReply(), at, nil
	case ':':
		return IntReply(int64(n)), at, nil
	case '#': // RESP3 boolean
		return IntReply(int64(n)), at, nil
	case '+', '$', '-', '!', '=', ',', '(':
		s, err := str()
		if err != nil {
			return Reply{}, 0, err
		}
		at += int(n)
		switch typ {
		case '+':
			return StatusReply(s), at, nil
		case '-', '!':
			return ErrorReply(s), at, nil
		default:
			return BulkReply(s), at, nil
		}
	case '*', '~', '%':
		elems := make([]Reply, 0, min(n, 1<<16))
		for i := uint64(0); i < n; i++ {
			e, next, err := decodeMessage(buf, at, depth+1)
			if err != nil {
				return Reply{}, 0, err
			}
			elems = append(elems, e)
			at = next
		}
		return ArrayReply(elems...), at, nil
	}
	return Reply{}, 0, fmt.Errorf("verify: unsupported rueidis reply type %q", typ)
}
