package safefile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadRegular(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	if err := os.WriteFile(p, []byte("12345"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		limit  int64
		want   string
		tooBig bool
	}{
		{5, "12345", false},
		{100, "12345", false},
		{4, "", true},
	} {
		got, err := Read(p, tc.limit)
		if tc.tooBig {
			var pe *fs.PathError
			if !errors.Is(err, ErrTooLarge) || !errors.As(err, &pe) || pe.Path != p {
				t.Errorf("limit %d: err %v, want ErrTooLarge naming the path", tc.limit, err)
			}
			if msg := Message(err); msg != "larger than the 4 bytes limit" {
				t.Errorf("limit %d: message %q", tc.limit, msg)
			}
			continue
		}
		if err != nil || string(got) != tc.want {
			t.Errorf("limit %d: %q, %v; want %q", tc.limit, got, err, tc.want)
		}
	}
}

func TestReadRefusesSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	cases := map[string]string{
		dir: "is a directory",
	}
	if _, err := os.Stat("/dev/zero"); err == nil {
		cases["/dev/zero"] = "not a regular file: it is a character device"
	}
	fifo := filepath.Join(dir, "fifo")
	if err := mkfifo(fifo); err == nil {
		// No writer: a blocking open would never return.
		cases[fifo] = "not a regular file: it is a named pipe (FIFO)"
	}
	for path, want := range cases {
		data, err := Read(path, 1<<20)
		if !errors.Is(err, ErrNotRegular) || Message(err) != want || data != nil {
			t.Errorf("%s: %q, %v; want ErrNotRegular %q", path, data, err, want)
		}
	}
	if _, err := Read(filepath.Join(dir, "missing"), 10); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v, want fs.ErrNotExist", err)
	}
}

func TestReadFollowsLinkToRegularFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	l := filepath.Join(dir, "l")
	if err := os.Symlink(p, l); err != nil {
		t.Skip(err)
	}
	if got, err := Read(l, 1); err != nil || string(got) != "x" {
		t.Errorf("link: %q, %v", got, err)
	}
}

func TestReadStdin(t *testing.T) {
	if got, err := ReadStdin(strings.NewReader("abc"), 3); err != nil || string(got) != "abc" {
		t.Errorf("at the limit: %q, %v", got, err)
	}
	// An endless stream stops at the cap.
	if _, err := ReadStdin(endless{}, 1<<10); !errors.Is(err, ErrTooLarge) || err.Error() != "larger than the 1 KiB limit" {
		t.Errorf("endless: %v, want ErrTooLarge", err)
	}
}

type endless struct{}

func (endless) Read(p []byte) (int, error) { return len(p), nil }

func TestSize(t *testing.T) {
	for n, want := range map[int64]string{4 << 20: "4 MiB", 64 << 10: "64 KiB", 1000: "1000 bytes", 1536: "1536 bytes"} {
		if got := Size(n); got != want {
			t.Errorf("Size(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestReadLimitedSized: the measured size makes the buffer at once (its
// capacity is the size and one byte to see the end), and a file that grew
// or shrank since it was measured is still read whole, up to the limit.
func TestReadLimitedSized(t *testing.T) {
	data := strings.Repeat("x", 5000)
	got, err := readLimited(strings.NewReader(data), 1<<20, int64(len(data)))
	if err != nil || string(got) != data || cap(got) != len(data)+1 {
		t.Errorf("measured: len %d cap %d, %v; want len %d cap %d", len(got), cap(got), err, len(data), len(data)+1)
	}
	for _, size := range []int64{0, 3, 4999, 5001, 9000} {
		got, err := readLimited(strings.NewReader(data), 1<<20, size)
		if err != nil || string(got) != data {
			t.Errorf("size %d: len %d, %v; want %d bytes", size, len(got), err, len(data))
		}
	}
	if _, err := readLimited(strings.NewReader(data), 4999, 10); !errors.Is(err, ErrTooLarge) {
		t.Errorf("grew past the limit: %v, want ErrTooLarge", err)
	}
	if got, err := readLimited(strings.NewReader(data), 5000, 5000); err != nil || len(got) != 5000 || cap(got) != 5001 {
		t.Errorf("at the limit: len %d, %v", len(got), err)
	}
}
