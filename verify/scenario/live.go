package scenario

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/scriptctl/scriptctl/manifest"
	"github.com/scriptctl/scriptctl/verify"
)

// Conn is a connection to a live deployment: one standalone server, or a
// Redis Cluster with every key routed to its slot's primary (package
// liveconn's Conn, which the command layer dials). It speaks RESP2 (what
// redis-cli and most clients see: Lua false is a nil bulk, not a boolean)
// and converts replies with verify.FromMessage, which keeps status and
// bulk apart and error texts whole ("ERR ..."). Do sends one command; DoAll
// sends a command every primary must see (FUNCTION DELETE) to each.
type Conn interface {
	Do(ctx context.Context, args ...string) (verify.Reply, error)
	DoAll(ctx context.Context, args ...string) (verify.Reply, error)
	Close()
}

// Server is a live deployment the differential runs scenarios against,
// reached through a Conn.
type Server struct {
	Addr string // host:port, never the password; "host:port (cluster)" for a cluster
	conn Conn
	run  string // random per Server: every key and function name of its runs carries it
	seq  atomic.Int64
}

// NewServer runs live scenarios over c, the deployment named addr in
// messages. The Server owns c and closes it.
func NewServer(c Conn, addr string) *Server {
	var b [4]byte
	rand.Read(b[:])
	return &Server{Addr: addr, conn: c, run: hex.EncodeToString(b[:])}
}

// Close closes the connection.
func (s *Server) Close() { s.conn.Close() }

// live runs one scenario variant on the server. Every key the scenario
// names gets a prefix unique to the run inside its hash tag
// ("catalog:{product-42}:lease" becomes "catalog:{sctl-1a2b3c4d-7-product-42}:lease"),
// so runs never collide and keys that shared a slot still do; a key
// without a hash tag gets the prefix in front. Functions are loaded under a
// library and function names with a run suffix, so a control variant never
// replaces a deployed library. Replies are mapped back before comparing.
type live struct {
	s       *Server
	m       *manifest.Manifest
	mode    Mode
	prefix  string // key prefix
	suffix  string // function name suffix
	lib     string
	shas    map[string]string
	known   map[string]bool
	start   time.Time
	virtual int64
	// clockStart is the server's TIME in Unix ms when the steps began: the
	// offline run compared with this one starts its clock there.
	clockStart int64
}

func (s *Server) newLive(ctx context.Context, m *manifest.Manifest, mode Mode, universe []string) (*live, error) {
	n := s.seq.Add(1)
	l := &live{
		s: s, m: m, mode: mode,
		prefix: fmt.Sprintf("sctl-%s-%d-", s.run, n),
		suffix: fmt.Sprintf("_sctl%s_%d", s.run, n),
		shas:   map[string]string{},
		known:  map[string]bool{},
	}
	for _, k := range universe {
		l.known[k] = true
	}
	if err := l.cleanKeys(ctx); err != nil {
		return nil, err
	}
	switch mode {
	case ModeEval:
		for _, sc := range m.Scripts {
			r, err := l.s.conn.DoAll(ctx, "SCRIPT", "LOAD", string(sc.Source))
			if err != nil {
				return nil, err
			}
			if r.Kind == verify.Bulk {
				l.shas[sc.Name] = r.Str
			}
			// A script that does not compile has no SHA: Call sends EVAL
			// and the compile error comes back as the step's reply.
		}
	case ModeFunction:
		// The library offline runs load, renamed: same bytes line for line,
		// so error texts that carry line numbers compare equal.
		l.lib = m.LibraryName() + l.suffix
		lib := string(m.FunctionsLibrary())
		lib = strings.Replace(lib, "#!lua name="+m.LibraryName()+"\n", "#!lua name="+l.lib+"\n", 1)
		for _, sc := range m.Scripts {
			fn := m.FunctionName(sc.Name)
			lib = strings.Replace(lib, "function_name='"+fn+"'", "function_name='"+fn+l.suffix+"'", 1)
		}
		r, err := l.s.conn.DoAll(ctx, "FUNCTION", "LOAD", lib)
		if err != nil {
			return nil, err
		}
		if r.Kind == verify.Error {
			l.lib = ""
			return nil, libraryError(m, l.unmap(r).Str)
		}
	}
	r, err := l.do(ctx, "TIME")
	if err != nil {
		return nil, err
	}
	if r.Kind == verify.Array && len(r.Elems) == 2 {
		sec, _ := strconv.ParseInt(r.Elems[0].Str, 10, 64)
		usec, _ := strconv.ParseInt(r.Elems[1].Str, 10, 64)
		l.clockStart = sec*1000 + usec/1000
	}
	l.start = time.Now()
	return l, nil
}

// close deletes the run's keys and functions library.
func (l *live) close(ctx context.Context) error {
	err := l.cleanKeys(ctx)
	if l.lib != "" {
		if _, ferr := l.s.conn.DoAll(ctx, "FUNCTION", "DELETE", l.lib); ferr != nil && err == nil {
			err = ferr
		}
	}
	return err
}

func (l *live) cleanKeys(ctx context.Context) error {
	for k := range l.known {
		if _, err := l.do(ctx, "DEL", l.mapKey(k)); err != nil {
			return err
		}
	}
	return nil
}

// mapKey gives key the run's prefix inside its hash tag.
func (l *live) mapKey(key string) string {
	if i := strings.IndexByte(key, '{'); i >= 0 {
		if j := strings.IndexByte(key[i+1:], '}'); j > 0 {
			return key[:i+1] + l.prefix + key[i+1:]
		}
	}
	return l.prefix + key
}

// unmap removes the run's prefix and suffix from every string in r.
func (l *live) unmap(r verify.Reply) verify.Reply {
	switch r.Kind {
	case verify.Bulk, verify.Status, verify.Error:
		r.Str = strings.ReplaceAll(strings.ReplaceAll(r.Str, l.prefix, ""), l.suffix, "")
	case verify.Array:
		elems := make([]verify.Reply, len(r.Elems))
		for i, e := range r.Elems {
			elems[i] = l.unmap(e)
		}
		r.Elems = elems
	}
	return r
}

// do sends one command and converts the reply exactly. err is a
// connection or protocol failure, never an error reply.
func (l *live) do(ctx context.Context, args ...string) (r verify.Reply, err error) {
	return l.doKeys(ctx, args, nil, nil)
}

func (l *live) doKeys(ctx context.Context, head, keys, tail []string) (verify.Reply, error) {
	args := append(append(append([]string(nil), head...), keys...), tail...)
	r, err := l.s.conn.Do(ctx, args...)
	if err != nil {
		return verify.Reply{}, fmt.Errorf("live %s: %w", l.s.Addr, err)
	}
	return r, nil
}

// Put writes k in the order it was given (PutCommands), so a hash's
// fields are where the offline engine has them.
func (l *live) Put(ctx context.Context, k Key) error {
	for _, c := range PutCommands(k, l.mapKey(k.Name)) {
		r, err := l.do(ctx, c...)
		if err != nil {
			return err
		}
		if r.Kind == verify.Error {
			return fmt.Errorf("live %s: %s: %s", l.s.Addr, c[0], r.Str)
		}
	}
	return nil
}

// beforeLiveCall, when set (tests only), runs before every script call of
// a live run: a stand-in for a machine too loaded to keep up.
var beforeLiveCall func(script string)

func (l *live) Call(ctx context.Context, script string, keys, args []string) (verify.Reply, error) {
	if beforeLiveCall != nil {
		beforeLiveCall(script)
	}
	mapped := make([]string, len(keys))
	for i, k := range keys {
		mapped[i] = l.mapKey(k)
	}
	n := strconv.Itoa(len(keys))
	var r verify.Reply
	var err error
	switch l.mode {
	case ModeFunction:
		r, err = l.doKeys(ctx, []string{"FCALL", l.m.FunctionName(script) + l.suffix, n}, mapped, args)
	default:
		sha, ok := l.shas[script]
		if ok {
			r, err = l.doKeys(ctx, []string{"EVALSHA", sha, n}, mapped, args)
		}
		if !ok || (err == nil && r.Kind == verify.Error && strings.HasPrefix(r.Str, "NOSCRIPT")) {
			r, err = l.doKeys(ctx, []string{"EVAL", string(l.m.Script(script).Source), n}, mapped, args)
		}
	}
	if err != nil {
		return verify.Reply{}, err
	}
	return l.unmap(r), nil
}

func (l *live) Do(ctx context.Context, args []string) (verify.Reply, error) {
	mapped := make([]string, len(args))
	for i, a := range args {
		if i > 0 && l.known[a] {
			a = l.mapKey(a)
		}
		mapped[i] = a
	}
	r, err := l.do(ctx, mapped...)
	if err != nil {
		return r, err
	}
	return l.unmap(r), nil
}

// Sleep waits for real: the server's clock cannot be advanced.
func (l *live) Sleep(ctx context.Context, ms int64) error {
	l.virtual += ms
	t := time.NewTimer(time.Duration(ms) * time.Millisecond)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Drift is how many ms the real clock ran ahead of the scenario's virtual
// clock since the run started: the slack a live TTL may show.
func (l *live) Drift() int64 {
	return max(time.Since(l.start).Milliseconds()-l.virtual, 0)
}

func (l *live) Get(ctx context.Context, key string) (Key, bool, error) {
	return ReadKey(ctx, func(ctx context.Context, args ...string) (verify.Reply, error) { return l.do(ctx, args...) }, l.mapKey(key), key)
}
