package connect

import (
	"net"
	"reflect"
	"testing"

	"github.com/scriptctl/scriptctl/internal/perf/floor"
)

// TestFloorOption: the deploy floors (internal/perf/floor) connect with
// scriptctl's rueidis options, less the reply-limit guard and the dial
// timeout, so a change here is not measured against a floor that kept the
// old ones.
func TestFloorOption(t *testing.T) {
	ours := (&Config{}).Option("127.0.0.1:7000")
	if ours.DialCtxFn == nil {
		t.Fatal("Option sets no DialCtxFn: the guard this test leaves out is gone")
	}
	ours.DialCtxFn = nil
	ours.Dialer = net.Dialer{}
	if got := floor.Option("127.0.0.1:7000"); !reflect.DeepEqual(got, ours) {
		t.Errorf("the floors' options differ from scriptctl's:\nfloor: %+v\nours:  %+v", got, ours)
	}
}
