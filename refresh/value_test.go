package refresh

import (
	"bytes"
	"errors"
	"testing"
	"time"
)

func TestValueRoundTrip(t *testing.T) {
	at := time.UnixMilli(1764457200123)
	for _, payload := range [][]byte{nil, {}, []byte("summary"), []byte("a:b:c"), []byte("rf1:12:nested"), {0, 255, '\n'}} {
		enc := EncodeValue(payload, at)
		got, pub, err := DecodeValue(enc)
		if err != nil {
			t.Fatalf("DecodeValue(%q): %v", enc, err)
		}
		if !bytes.Equal(got, payload) || !pub.Equal(at) {
			t.Fatalf("DecodeValue(%q) = %q, %v; want %q, %v", enc, got, pub, payload, at)
		}
	}
	if got := string(EncodeValue([]byte("x"), at)); got != "rf1:1764457200123:x" {
		t.Fatalf("EncodeValue = %q", got)
	}
	// Sub-millisecond precision is dropped; times before 1970 are stored as 0.
	if got := string(EncodeValue(nil, time.Unix(-5, 0))); got != "rf1:0:" {
		t.Fatalf("EncodeValue before the epoch = %q", got)
	}
}

func TestDecodeValueErrors(t *testing.T) {
	for _, in := range []string{
		"", "plain", "rf1", "rf1:", "rf1:123", "rf1::x", "rf1:-1:x", "rf1:01:x", "rf1:1a:x",
		"rf1:99999999999999999999:x", "rf1:9999999999999999999:x", "RF1:1:x", "rf2:1:x",
	} {
		if _, _, err := DecodeValue([]byte(in)); !errors.Is(err, ErrBadValue) {
			t.Errorf("DecodeValue(%q) error = %v, want ErrBadValue", in, err)
		}
	}
	if p, pub, err := DecodeValue([]byte("rf1:0:")); err != nil || len(p) != 0 || pub.UnixMilli() != 0 {
		t.Errorf("DecodeValue(rf1:0:) = %q, %v, %v", p, pub, err)
	}
}

func FuzzDecodeValue(f *testing.F) {
	f.Add([]byte("rf1:1764457200123:summary"))
	f.Add([]byte("rf1:0:"))
	f.Add([]byte("rf1:01:x"))
	f.Add([]byte("rf1:9223372036854775807:x"))
	f.Add([]byte("garbage"))
	f.Fuzz(func(t *testing.T, b []byte) {
		payload, pub, err := DecodeValue(b)
		if err != nil {
			if !errors.Is(err, ErrBadValue) {
				t.Fatalf("DecodeValue(%q) error %v does not match ErrBadValue", b, err)
			}
			return
		}
		// Accepted input is canonical: re-encoding gives the same bytes.
		if again := EncodeValue(payload, pub); !bytes.Equal(again, b) {
			t.Fatalf("DecodeValue(%q) then EncodeValue = %q", b, again)
		}
	})
}

func FuzzValueRoundTrip(f *testing.F) {
	f.Add([]byte("summary"), int64(1764457200123))
	f.Add([]byte{}, int64(0))
	f.Fuzz(func(t *testing.T, payload []byte, ms int64) {
		if ms < 0 {
			ms = -ms
		}
		if ms < 0 {
			return
		}
		at := time.UnixMilli(ms)
		got, pub, err := DecodeValue(EncodeValue(payload, at))
		if err != nil || !bytes.Equal(got, payload) || pub.UnixMilli() != ms {
			t.Fatalf("round trip of %q at %d: %q, %d, %v", payload, ms, got, pub.UnixMilli(), err)
		}
	})
}
