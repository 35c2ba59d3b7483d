package refresh

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"time"
)

// valueMagic starts every value the package stores. The digits after it are
// the publish time in Unix milliseconds, then a ':' and the payload:
//
//	rf1:1764457200123:<payload bytes>
//
// The format is readable in redis-cli and versioned by its prefix.
const valueMagic = "rf1:"

// maxTimeDigits bounds the publish time digits (int64 milliseconds).
const maxTimeDigits = 19

// ErrBadValue is matched by errors.Is when a stored value is not in the
// format EncodeValue writes (for example: written by another program).
var ErrBadValue = errors.New("refresh: value not written by this package")

// EncodeValue returns the stored form of payload published at t: the magic
// prefix, t in Unix milliseconds, ':' and the payload. Services that read a
// value key with a plain GET decode it with DecodeValue.
func EncodeValue(payload []byte, t time.Time) []byte {
	ms := t.UnixMilli()
	if ms < 0 {
		ms = 0
	}
	b := make([]byte, 0, len(valueMagic)+maxTimeDigits+1+len(payload))
	b = append(b, valueMagic...)
	b = strconv.AppendInt(b, ms, 10)
	b = append(b, ':')
	return append(b, payload...)
}

// DecodeValue splits a stored value into its payload (a sub-slice of b) and
// publish time. It fails with an error matching ErrBadValue when b is not in
// the format EncodeValue writes.
func DecodeValue(b []byte) (payload []byte, published time.Time, err error) {
	rest, ok := bytes.CutPrefix(b, []byte(valueMagic))
	if !ok {
		return nil, time.Time{}, fmt.Errorf("%w: missing %q prefix", ErrBadValue, valueMagic)
	}
	i := bytes.IndexByte(rest, ':')
	if i < 0 {
		return nil, time.Time{}, fmt.Errorf("%w: no ':' after the publish time", ErrBadValue)
	}
	digits := rest[:i]
	if len(digits) == 0 || len(digits) > maxTimeDigits || (digits[0] == '0' && len(digits) > 1) {
		return nil, time.Time{}, fmt.Errorf("%w: bad publish time %q", ErrBadValue, digits)
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return nil, time.Time{}, fmt.Errorf("%w: bad publish time %q", ErrBadValue, digits)
		}
	}
	ms, err := strconv.ParseInt(string(digits), 10, 64)
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("%w: bad publish time %q", ErrBadValue, digits)
	}
	return rest[i+1:], time.UnixMilli(ms), nil
}
