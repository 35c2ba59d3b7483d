// Package lazy holds values a package would otherwise build at process
// start: a scriptctl process runs one command, and compiling every
// package's regular expressions up front costs each command its start-up
// time.
//
// Each is a struct written so that the compiler lays out a package
// variable holding it (or, for Regexp, a pointer to it) in the binary: the
// variable adds no code to the package's initialiser and allocates nothing
// at start. A package variable
// set to sync.OnceValue(f) or to a closure does not: the call runs at
// start, allocates, and gives the package an initialiser (one more page of
// code every process touches: docs/performance.md, sixth pass).
package lazy

import (
	"regexp"
	"sync"
)

// RE is a regular expression compiled on its first use.
type RE struct {
	expr string
	once sync.Once
	re   *regexp.Regexp
}

// Regexp returns expr, compiled on the first Get. An invalid expression
// panics there, as regexp.MustCompile does.
func Regexp(expr string) *RE { return &RE{expr: expr} }

// Get returns the compiled expression.
func (r *RE) Get() *regexp.Regexp {
	r.once.Do(func() { r.re = regexp.MustCompile(r.expr) })
	return r.re
}

// Value is a value New builds on the first Get:
//
//	var tables = lazy.Value[map[string]int]{New: buildTables}
//
// New must be a top-level function or a function literal that refers to
// no local variable.
type Value[T any] struct {
	New  func() T
	once sync.Once
	v    T
}

// Get returns the value, built by New on the first call.
func (l *Value[T]) Get() T {
	l.once.Do(func() { l.v = l.New() })
	return l.v
}

// Once runs F once, on the first Do.
type Once struct {
	F    func()
	once sync.Once
}

// Do runs F if no Do has run it.
func (o *Once) Do() { o.once.Do(o.F) }
