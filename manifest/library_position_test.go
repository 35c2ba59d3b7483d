package manifest

import (
	"bytes"
	"testing"
)

// TestLibraryPosition checks the mapping against the generated library
// itself: every body line of the library must map to the same text in the
// script's file, and the library's own lines must not map.
func TestLibraryPosition(t *testing.T) {
	m := &Manifest{Library: "lib", Version: 2, Scripts: []*Script{
		{Name: "a", Source: []byte("local x = 1\nreturn x\n")},
		{Name: "b", Source: []byte("#!lua flags=no-writes\nreturn redis.call('GET', KEYS[1])")},
		{Name: "c", Source: []byte("\n\nreturn 3\n")},
	}}
	lib := bytes.Split(m.FunctionsLibrary(), []byte("\n"))
	mapped := 0
	for i, text := range lib {
		line := i + 1
		s, sl, ok := m.LibraryPosition(line)
		if !ok {
			if bytes.HasPrefix(text, []byte("redis.register_function")) || bytes.HasPrefix(text, []byte("end, flags=")) {
				continue
			}
			if line <= 2 || len(text) == 0 {
				continue
			}
			t.Errorf("library line %d %q does not map", line, text)
			continue
		}
		mapped++
		src := bytes.Split(StripShebang(s.Source), []byte("\n"))
		if sl < 1 || sl > len(src) || !bytes.Equal(src[sl-1], text) {
			t.Errorf("library line %d %q maps to %s:%d", line, text, s.Name, sl)
		}
	}
	if want := 2 + 2 + 3; mapped != want {
		t.Errorf("mapped %d lines, want %d", mapped, want)
	}
	for _, line := range []int{0, 1, 2, 4, 7, 999} {
		if s, sl, ok := m.LibraryPosition(line); ok {
			t.Errorf("line %d maps to %s:%d, want no script", line, s.Name, sl)
		}
	}
	if s, sl, ok := m.LibraryPosition(11); !ok || s.Name != "b" || sl != 2 {
		t.Errorf("line 11 = %v:%d %v, want b:2", s, sl, ok)
	}
}
