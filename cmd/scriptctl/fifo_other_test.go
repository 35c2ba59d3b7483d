//go:build !unix

package main

import "errors"

func mkfifo(path string) error { return errors.New("no FIFOs on this system") }
