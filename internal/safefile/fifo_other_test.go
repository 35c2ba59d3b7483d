//go:build !unix

package safefile

import "errors"

func mkfifo(path string) error { return errors.New("no FIFOs on this system") }
