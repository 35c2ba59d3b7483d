//go:build unix

package safefile

import (
	"os"
	"syscall"
)

// openNonblock opens path for reading with O_NONBLOCK, so opening a named
// pipe without a writer returns at once, and O_NOCTTY, so a terminal never
// becomes the controlling one. Reads of a regular file ignore O_NONBLOCK.
func openNonblock(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
}
