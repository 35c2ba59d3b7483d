package keyspace

// Server is the offline server's data side: its numbered databases on a
// virtual clock, the target's data-command facts, and PUBLISH's record.
// The engine (package verify) owns one and runs every command through it;
// a Server knows nothing of scripts beyond what Script tells a command.
type Server struct {
	now         int64
	t           *Facts
	db          *keyspace         // the selected database (SELECT)
	dbs         [numDBs]*keyspace // every database, created on first use
	clusterNode bool              // a cluster node (Config.Cluster)
	warnf       func(format string, args ...any)
	growf       func(n int64) error // Config.Grow
	// scriptCmd is set while a script's command runs (Handler.Run).
	scriptCmd bool
	// published and subscribers are PUBLISH's record and declared
	// receivers (cmd_pubsub.go).
	published   []Message
	subscribers map[string]int64
}

// Config configures a Server.
type Config struct {
	Now     int64  // the virtual clock's start, Unix ms
	Target  *Facts // the target imitated (TargetFacts); nil is DefaultTarget's
	Cluster bool   // a cluster node (one database, cluster rules), else standalone
	// Warn records an approximation a command made (a reply whose order or
	// pick Redis leaves to chance); nil drops them.
	Warn func(format string, args ...any)
	// Grow charges n bytes a command is about to allocate beyond its
	// arguments (the zero padding of SETRANGE, SETBIT and BITFIELD) to
	// the caller's memory budget; an error (a *RunError) refuses them and
	// is the command's. nil allows every size up to the server's own
	// limits.
	Grow func(n int64) error
}

// NewServer returns an empty server: database 0 selected, the clock at
// c.Now.
func NewServer(c Config) *Server {
	s := &Server{now: c.Now, t: c.Target, clusterNode: c.Cluster, warnf: c.Warn, growf: c.Grow}
	if s.t == nil {
		s.t = targets.Get()[DefaultTarget]
	}
	s.db = newKeyspace(s)
	s.dbs[0] = s.db
	return s
}

// Now returns the virtual clock in Unix milliseconds.
func (e *Server) Now() int64 { return e.now }

// Advance moves the virtual clock forward by ms milliseconds (a negative ms
// is ignored: the clock never runs backwards).
func (e *Server) Advance(ms int64) {
	if ms > 0 {
		e.now += ms
	}
}

// Facts returns the target the server imitates.
func (e *Server) Facts() *Facts { return e.t }

// SelectedDB returns the index of the selected database.
func (e *Server) SelectedDB() int { return e.db.id }

// Select makes database i (0..15) the selected one, as SELECT does: a
// script's SELECT does not change its caller's database, so the engine
// selects the caller's again after a run.
func (e *Server) Select(i int) { e.selectDB(i) }

// warn records an approximation (Config.Warn).
func (e *Server) warn(format string, args ...any) {
	if e.warnf != nil {
		e.warnf(format, args...)
	}
}

// Script is what a command learns of the script that runs it; a client's
// command gets nil. The engine implements it.
type Script interface {
	// ReadOnly reports a script that may not write (EVAL_RO, FCALL_RO, a
	// no-writes script).
	ReadOnly() bool
	// Declared reports whether the script declared key (KEYS).
	Declared(key string) bool
	// Undeclared notes the script's access to key, which it did not
	// declare, by the command cmd; a non-nil *RunError stops the run.
	Undeclared(key, cmd string) *RunError
	// SubcommandError is the script layer's error for a subcommand the
	// command does not know (unknown) or a wrong number of arguments;
	// layer is false when the layer leaves it to the command's own text.
	SubcommandError(unknown bool) (r Reply, layer bool)
}

// grow charges n bytes a command is about to allocate (Config.Grow).
func (e *Server) grow(n int64) error {
	if e.growf == nil {
		return nil
	}
	return e.growf(n)
}

// cluster reports whether the server is a cluster node.
func (e *Server) cluster() bool { return e.clusterNode }
