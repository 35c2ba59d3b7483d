//go:build !unix

package manifest

import "errors"

func mkfifo(path string) error { return errors.New("no FIFOs on this system") }
