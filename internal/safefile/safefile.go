// Package safefile reads the files scriptctl takes as input (manifests,
// ledgers, scripts, scenarios, models, state, password and certificate
// files) so that no input can hang the process or grow its memory without
// end: a path is opened without blocking, must name a regular file, and is
// read up to a size cap. Standard input is read up to the same cap. It does
// not parse anything, and it does not decide the caps: each caller names its
// own, and the documented caps live beside the callers.
package safefile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
)

// ErrNotRegular is matched by errors.Is when a path names a directory, a
// named pipe, a device or a socket rather than a regular file.
var ErrNotRegular = errors.New("safefile: not a regular file")

// ErrTooLarge is matched by errors.Is when an input is over its cap.
var ErrTooLarge = errors.New("safefile: too large")

// Error is a refused input: what it is (a directory, a named pipe, ...) or
// how large it may be. Its text names neither the path nor the operation;
// Read wraps it in an *fs.PathError that does.
type Error struct {
	Kind  string // for ErrNotRegular: "a directory", "a named pipe (FIFO)", ...
	Limit int64  // for ErrTooLarge: the cap in bytes
	err   error
}

func (e *Error) Error() string {
	if e.err == ErrTooLarge {
		return fmt.Sprintf("larger than the %s limit", Size(e.Limit))
	}
	if e.Kind == "a directory" {
		return "is a directory"
	}
	return "not a regular file: it is " + e.Kind
}

// Is makes errors.Is(err, ErrNotRegular) and errors.Is(err, ErrTooLarge) work.
func (e *Error) Is(target error) bool { return target == e.err }

// Size formats a byte count the way the caps are documented: "4 MiB",
// "64 KiB", "100 bytes".
func Size(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// Read returns the contents of the regular file at path, at most limit
// bytes. The file is opened without blocking (a named pipe with no writer,
// a terminal or a device does not stall the open) and checked on the open
// descriptor, so a path swapped for a pipe after a check cannot slip
// through. The error is an *fs.PathError (Op "read") whose Err is an *Error
// for a refused input, or the system's error.
func Read(path string, limit int64) ([]byte, error) {
	f, err := openNonblock(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "read", Path: path, Err: &Error{Kind: kind(fi.Mode()), err: ErrNotRegular}}
	}
	if fi.Size() > limit {
		return nil, &fs.PathError{Op: "read", Path: path, Err: &Error{Limit: limit, err: ErrTooLarge}}
	}
	data, err := readLimited(f, limit, fi.Size())
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: path, Err: err}
	}
	return data, nil
}

// ReadStdin reads r (standard input, which may be a pipe or a terminal)
// up to limit bytes; more is an *Error matching ErrTooLarge.
func ReadStdin(r io.Reader, limit int64) ([]byte, error) {
	return readLimited(r, limit, 0)
}

// readLimited reads r to its end, failing once it passes limit bytes: the
// file may have grown since it was measured. size is the length the file
// had when it was measured (0 when unknown): the buffer is made that large
// at once, as os.ReadFile does, rather than grown step by step (each step a
// new allocation, and at a process's start fresh memory to fault in).
func readLimited(r io.Reader, limit, size int64) ([]byte, error) {
	n := int64(512)
	if size > 0 && size <= limit {
		n = size + 1 // the extra byte sees the end without a second buffer
	}
	data := make([]byte, 0, n)
	lr := io.LimitReader(r, limit+1)
	for {
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
		m, err := lr.Read(data[len(data):cap(data)])
		data = data[:len(data)+m]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	if int64(len(data)) > limit {
		return nil, &Error{Limit: limit, err: ErrTooLarge}
	}
	return data, nil
}

// kind names what a non-regular file is, for the diagnostic.
func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "not a regular file"
}

// Message returns err's text without the operation and path an
// *fs.PathError repeats, for callers that name the file themselves.
func Message(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
