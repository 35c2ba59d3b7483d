package keyspace

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/scriptctl/scriptctl/internal/redistest"
)

// The command-family tests run commands as a client sends them, on a
// Server: read by ClientLookup (the engine's dispatch reads a client's
// command the same way), then run by the handler. Cases that need a script
// (redis.call) are verify's.

// Options are the settings of a test server, named as verify.Options.
type Options struct {
	Now      int64  // 0: DefaultNow
	Target   string // "": DefaultTarget
	Topology string // TopologyCluster ("" too) or TopologyStandalone
	// Grow is Config.Grow: nil allows every size.
	Grow func(n int64) error
}

const (
	TopologyCluster    = "cluster"
	TopologyStandalone = "standalone"
	// DefaultNow is verify.DefaultNow.
	DefaultNow int64 = 1_700_000_000_000
)

// testServer is a Server with the warnings it recorded.
type testServer struct {
	*Server
	warnings []string
}

// New returns an empty test server.
func New(o Options) *testServer {
	if o.Now == 0 {
		o.Now = DefaultNow
	}
	if o.Target == "" {
		o.Target = DefaultTarget
	}
	f := TargetFacts(o.Target)
	if f == nil {
		panic("unknown target " + o.Target)
	}
	ts := &testServer{}
	ts.Server = NewServer(Config{Now: o.Now, Target: f, Cluster: o.Topology != TopologyStandalone, Grow: o.Grow, Warn: func(format string, args ...any) {
		msg := fmt.Sprintf(format, args...)
		for _, w := range ts.warnings {
			if w == msg {
				return
			}
		}
		ts.warnings = append(ts.warnings, msg)
	}})
	return ts
}

// Warnings returns the approximations recorded so far.
func (e *testServer) Warnings() []string { return append([]string(nil), e.warnings...) }

// Do runs one command as a client sends it: read as the server reads it
// (ClientLookup, what the engine's dispatch does for a client), then run.
func (e *testServer) Do(_ context.Context, args ...string) (Reply, error) {
	if len(args) == 0 {
		return ErrorReply("ERR empty command"), nil
	}
	name, info, rep, ok := e.ClientLookup(args)
	if !ok {
		return rep, nil
	}
	h, ok := e.Handler(name)
	if !ok {
		return Reply{}, NotImplemented("%s", strings.ToUpper(strings.ReplaceAll(info.Name, "|", " ")))
	}
	orig := args[0]
	args = append([]string{name}, args[1:]...)
	r, blocked, err := h.Run(e.Server, nil, orig, args)
	if blocked {
		return Reply{}, NotImplemented("%s would block (no other client can push offline)", strings.ToUpper(name))
	}
	return r, err
}

func a(s ...string) []string { return s }

func itoa(n int) string { return strconv.Itoa(n) }

// liveTarget is the target of the live server the tests start.
func liveTarget(t testing.TB) string { return redistest.DefaultKind(t).Target() }
