// Package lazy holds values a package would otherwise build at process
// start: a scriptctl process runs one command, and compiling every
// package's regular expressions up front costs each command its start-up
// time.
package lazy

import (
	"regexp"
	"sync"
)

// Regexp returns a function that compiles expr on its first call and
// returns the same *regexp.Regexp from then on; it panics, as
// regexp.MustCompile does, if expr is invalid (a test that uses the
// expression finds that).
func Regexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
