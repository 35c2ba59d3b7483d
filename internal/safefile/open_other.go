//go:build !unix

package safefile

import "os"

// openNonblock opens path for reading; systems without O_NONBLOCK have no
// named pipes that block an open.
func openNonblock(path string) (*os.File, error) { return os.Open(path) }
