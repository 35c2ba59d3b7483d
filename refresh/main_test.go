package refresh_test

import (
	"flag"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/scriptctl/scriptctl/internal/redistest"
)

// exampleAddr is the address of the redis-server the examples run against.
var exampleAddr string

// TestMain starts one redis-server for the runnable examples, through
// redistest like every other test server. Examples get no testing.TB, so
// mainTB stands in for one here. Without redis-server (and outside CI) the
// examples are skipped, as the other Redis tests are.
func TestMain(m *testing.M) {
	flag.Parse()
	os.Exit(run(m))
}

func run(m *testing.M) int {
	tb := &mainTB{}
	defer tb.cleanup()
	if examplesSelected() {
		s, stop := tb.standalone()
		switch {
		case stop == nil:
			exampleAddr = s.Addr
		case stop.skip:
			fmt.Fprintf(os.Stderr, "skipping the examples: %s\n", stop.msg)
			skip := "^Example"
			if v := flag.Lookup("test.skip").Value.String(); v != "" {
				skip = v + "|" + skip
			}
			flag.Set("test.skip", skip)
		default:
			fmt.Fprintf(os.Stderr, "start redis-server for the examples: %s\n", stop.msg)
			return 1
		}
	}
	return m.Run()
}

// examplesSelected reports whether this run may run an example: not a
// fuzzing run, and -run (when given) can match an example.
func examplesSelected() bool {
	for _, f := range []string{"test.fuzz", "test.fuzzworker", "test.list"} {
		if fl := flag.Lookup(f); fl != nil && fl.Value.String() != "" && fl.Value.String() != "false" {
			return false
		}
	}
	pattern := flag.Lookup("test.run").Value.String()
	if pattern == "" {
		return true
	}
	top, _, _ := strings.Cut(pattern, "/")
	ok, err := regexp.MatchString(top, "Example")
	return err != nil || ok
}

// mainTB implements the part of testing.TB that redistest uses.
type mainTB struct {
	testing.TB // nil: calling another method panics
	cleanups   []func()
}

// tbStop is how Skip and Fatal stop the helper that called them.
type tbStop struct {
	skip bool
	msg  string
}

func (tb *mainTB) standalone() (s *redistest.Server, stop *tbStop) {
	defer func() {
		if r := recover(); r != nil {
			st, ok := r.(*tbStop)
			if !ok {
				panic(r)
			}
			stop = st
		}
	}()
	return redistest.Standalone(tb), nil
}

func (tb *mainTB) Helper()           {}
func (tb *mainTB) Cleanup(f func())  { tb.cleanups = append(tb.cleanups, f) }
func (tb *mainTB) Skip(args ...any)  { panic(&tbStop{skip: true, msg: fmt.Sprint(args...)}) }
func (tb *mainTB) Fatal(args ...any) { panic(&tbStop{msg: fmt.Sprint(args...)}) }
func (tb *mainTB) Fatalf(f string, args ...any) {
	panic(&tbStop{msg: fmt.Sprintf(f, args...)})
}

func (tb *mainTB) TempDir() string {
	dir, err := os.MkdirTemp("", "refresh-example-")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

func (tb *mainTB) cleanup() {
	for i := len(tb.cleanups) - 1; i >= 0; i-- {
		tb.cleanups[i]()
	}
}
