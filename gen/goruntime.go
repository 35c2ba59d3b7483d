package gen

// goRuntime is the part of every Go binding that does not depend on the
// manifest: the reply value, the connection interface, the call protocol
// (EVALSHA with one EVAL on NOSCRIPT, _RO commands, FCALL, one retry after
// a timeout for idempotent scripts only, the one-slot check) and the errors.
// It and the client adapters are written in gofmt's layout: the generator
// does not format the binding.
const goRuntime = `// Kind is the RESP type of a reply.
type Kind int

// The kinds of a reply. A client adapter maps its own reply to one of them.
const (
	KindNil    Kind = iota // nil bulk string or nil array
	KindInt                // integer
	KindBulk               // bulk string
	KindStatus             // status (simple string); adapters that cannot tell give KindBulk
	KindError              // error reply; Str holds the full text, code included ("ERR ...")
	KindArray              // array; Elems holds the elements
	KindBool               // RESP3 boolean
	KindDouble             // RESP3 double
)

// Value is one reply as a Conn returns it.
type Value struct {
	Kind  Kind
	Int   int64
	Str   string
	Bool  bool
	Float float64
	Elems []Value
}

// String prints v in one line: 1, "bulk", (nil), +OK, -ERR ..., [a, b].
func (v Value) String() string {
	switch v.Kind {
	case KindNil:
		return "(nil)"
	case KindInt:
		return strconv.FormatInt(v.Int, 10)
	case KindBulk:
		return strconv.Quote(v.Str)
	case KindStatus:
		return "+" + v.Str
	case KindError:
		return "-" + v.Str
	case KindBool:
		return "(" + strconv.FormatBool(v.Bool) + ")"
	case KindDouble:
		return strconv.FormatFloat(v.Float, 'g', -1, 64)
	}
	parts := make([]string, len(v.Elems))
	for i, e := range v.Elems {
		parts[i] = e.String()
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// Command is one command a binding sends: Name Script numkeys Keys... Args...
type Command struct {
	Name     string   // EVALSHA, EVALSHA_RO, EVAL, EVAL_RO, FCALL or FCALL_RO
	Script   string   // the SHA1, the script's body or the function's name
	Keys     []string // the keys, for routing
	Args     []string
	ReadOnly bool // a _RO command: a client may send it to a replica
}

// Strings returns the whole command.
func (c Command) Strings() []string {
	out := make([]string, 0, 3+len(c.Keys)+len(c.Args))
	out = append(out, c.Name, c.Script, strconv.Itoa(len(c.Keys)))
	out = append(out, c.Keys...)
	return append(out, c.Args...)
}

// Conn sends one command and returns its reply. An error reply is a Value
// of KindError with a nil error; the error is for everything else (a
// timeout, a closed connection). NewRueidisConn and NewGoRedisConn adapt the
// clients.
type Conn interface {
	Do(ctx context.Context, cmd Command) (Value, error)
}

// Mode is how a Client calls the scripts.
type Mode int

const (
	// ModeScripts sends EVALSHA (EVALSHA_RO for no-writes scripts) with
	// the released SHA1, and EVAL of the embedded body once when the
	// server replies NOSCRIPT.
	ModeScripts Mode = iota + 1
	// ModeFunctions sends FCALL (FCALL_RO) of the versioned function
	// name: the library must be deployed as Functions.
	ModeFunctions
)

// Client calls the library's scripts over a Conn. It is safe for
// concurrent use when the Conn is.
type Client struct {
	conn Conn
	mode Mode
}

// Option configures a Client.
type Option func(*Client)

// WithMode picks how the scripts are called; the default is DefaultMode.
func WithMode(m Mode) Option { return func(c *Client) { c.mode = m } }

// New returns a Client that calls the scripts over conn.
func New(conn Conn, opts ...Option) *Client {
	c := &Client{conn: conn, mode: DefaultMode}
	for _, o := range opts {
		o(c)
	}
	return c
}

// script is what the binding knows of one script.
type script struct {
	name       string
	sha        string // the released SHA1 (scripts.sum)
	body       string // the exact bytes, for EVAL after NOSCRIPT
	function   string // the versioned function name
	readOnly   bool   // no-writes: EVALSHA_RO, EVAL_RO, FCALL_RO
	idempotent bool   // may be sent again after a timeout
	anySlot    bool   // no-cluster: the keys need not share a slot
}

// DeclaredError is an error reply a script's contract declares
// (error("ERR ...") in the manifest): errors.Is(err, ErrX) reports whether
// err is such a reply.
type DeclaredError struct {
	Prefix string // the reply's text starts with it
}

func (e *DeclaredError) Error() string { return e.Prefix }

// ScriptError is an error reply of a script: one its contract declares
// (errors.Is matches the DeclaredError) or another (WRONGTYPE, OOM, ...).
type ScriptError struct {
	Script   string
	Msg      string // the full error text, code included
	Declared *DeclaredError
}

func (e *ScriptError) Error() string { return e.Script + ": " + e.Msg }

// Is reports whether target is the declared error this reply is.
func (e *ScriptError) Is(target error) bool { return e.Declared != nil && target == e.Declared }

// ContractError is a reply that does not fit the script's reply contract:
// the script and the manifest disagree.
type ContractError struct {
	Script string
	Path   string // where inside the reply: "" the reply, "[1]" its second element
	Want   string // the type expected there
	Reply  Value  // the whole reply
	got    Value
}

func (e *ContractError) Error() string {
	return fmt.Sprintf("%s: the reply breaks its contract: reply%s: want %s, got %s (the reply: %s)", e.Script, e.Path, e.Want, e.got, e.Reply)
}

// CrossSlotError is a call whose keys do not hash to one cluster slot: it
// is refused before anything is sent.
type CrossSlotError struct {
	Script string
	Keys   []string
}

func (e *CrossSlotError) Error() string {
	return fmt.Sprintf("%s: keys %q do not hash to one cluster slot: give them a common hash tag such as {id}", e.Script, e.Keys)
}

// PlaceholderError is a value a caller's key builder refuses: one its
// declared placeholders (non_empty, pattern) exclude, or one that would
// break a key's hash tag (a '{' before the tag, a '}' inside it, an empty
// tag). Nothing is built or sent.
type PlaceholderError struct {
	Caller      string
	Placeholder string // the placeholder's name (names, comma-separated, for an empty tag)
	Value       string
	Reason      string
}

func (e *PlaceholderError) Error() string {
	return fmt.Sprintf("caller %s: placeholder <%s> = %q %s", e.Caller, e.Placeholder, e.Value, e.Reason)
}

// mismatch is a decoder's failure: path and want, the part of the reply.
type mismatch struct {
	path, want string
	got        Value
}

func (m *mismatch) Error() string {
	return "reply" + m.path + ": want " + m.want + ", got " + m.got.String()
}

func miss(path, want string, v Value) error { return &mismatch{path, want, v} }

func decodeInteger(v Value, path string) (int64, error) {
	if v.Kind != KindInt {
		return 0, miss(path, "integer", v)
	}
	return v.Int, nil
}

func decodeString(v Value, path string) (string, error) {
	if v.Kind != KindBulk && v.Kind != KindStatus {
		return "", miss(path, "string", v)
	}
	return v.Str, nil
}

func decodeStatus(v Value, path string) (string, error) {
	if v.Kind != KindBulk && v.Kind != KindStatus {
		return "", miss(path, "status", v)
	}
	return v.Str, nil
}

func decodeBoolean(v Value, path string) (bool, error) {
	switch {
	case v.Kind == KindBool:
		return v.Bool, nil
	case v.Kind == KindInt && v.Int == 1:
		return true, nil // RESP2: Lua true
	case v.Kind == KindNil:
		return false, nil // RESP2: Lua false
	}
	return false, miss(path, "boolean", v)
}

func decodeDouble(v Value, path string) (float64, error) {
	switch v.Kind {
	case KindDouble:
		return v.Float, nil
	case KindBulk:
		if f, err := strconv.ParseFloat(v.Str, 64); err == nil {
			return f, nil
		}
	}
	return 0, miss(path, "double", v)
}

func decodeAny(v Value, path string) (Value, error) { return v, nil }

func expectInt(v Value, path string, n int64) error {
	if v.Kind != KindInt || v.Int != n {
		return miss(path, strconv.FormatInt(n, 10), v)
	}
	return nil
}

func expectString(v Value, path, s string) error {
	if (v.Kind != KindBulk && v.Kind != KindStatus) || v.Str != s {
		return miss(path, strconv.Quote(s), v)
	}
	return nil
}

func expectNil(v Value, path string) error {
	if v.Kind != KindNil {
		return miss(path, "nil", v)
	}
	return nil
}

func elemPath(path string, i int) string { return path + "[" + strconv.Itoa(i) + "]" }

// call sends s with keys and args and returns its reply: an error reply
// as a *ScriptError (errs are the script's declared errors), a transport
// failure as is.
func (c *Client) call(ctx context.Context, s *script, keys, args []string, errs []*DeclaredError) (Value, error) {
	if !s.anySlot && len(keys) > 1 {
		first := keySlot(keys[0])
		for _, k := range keys[1:] {
			if keySlot(k) != first {
				return Value{}, &CrossSlotError{Script: s.name, Keys: keys}
			}
		}
	}
	var v Value
	var err error
	if c.mode == ModeFunctions {
		name := "FCALL"
		if s.readOnly {
			name = "FCALL_RO"
		}
		v, err = c.send(ctx, s, Command{Name: name, Script: s.function, Keys: keys, Args: args, ReadOnly: s.readOnly})
	} else {
		sha, eval := "EVALSHA", "EVAL"
		if s.readOnly {
			sha, eval = "EVALSHA_RO", "EVAL_RO"
		}
		v, err = c.send(ctx, s, Command{Name: sha, Script: s.sha, Keys: keys, Args: args, ReadOnly: s.readOnly})
		// NOSCRIPT: this node does not have the script (a new node, a
		// restart, SCRIPT FLUSH). EVAL sends the body once, which loads
		// it; matched by the code alone, as servers word the rest
		// differently.
		if err == nil && v.Kind == KindError && (v.Str == "NOSCRIPT" || strings.HasPrefix(v.Str, "NOSCRIPT ")) {
			v, err = c.send(ctx, s, Command{Name: eval, Script: s.body, Keys: keys, Args: args, ReadOnly: s.readOnly})
		}
	}
	if err != nil {
		return Value{}, fmt.Errorf("%s: %w", s.name, err)
	}
	if v.Kind == KindError {
		var best *DeclaredError
		for _, d := range errs {
			if strings.HasPrefix(v.Str, d.Prefix) && (best == nil || len(d.Prefix) > len(best.Prefix)) {
				best = d
			}
		}
		return Value{}, &ScriptError{Script: s.name, Msg: v.Str, Declared: best}
	}
	return v, nil
}

// send sends cmd once; an idempotent script is sent once more after a
// timeout, while the context lasts. Any other failure is returned as is:
// the script may have run, and running it twice may write twice.
func (c *Client) send(ctx context.Context, s *script, cmd Command) (Value, error) {
	v, err := c.conn.Do(ctx, cmd)
	if err != nil && s.idempotent && isTimeout(err) && ctx.Err() == nil {
		v, err = c.conn.Do(ctx, cmd)
	}
	return v, err
}

func isTimeout(err error) bool {
	var t interface{ Timeout() bool }
	return errors.Is(err, context.DeadlineExceeded) || errors.As(err, &t) && t.Timeout()
}

// contractError wraps a decoder's failure for script s.
func contractError(s *script, reply Value, err error) error {
	var m *mismatch
	if errors.As(err, &m) {
		return &ContractError{Script: s.name, Path: m.path, Want: m.want, Reply: reply, got: m.got}
	}
	return err
}

// keySlot is the Redis Cluster slot of key: CRC16 (XMODEM) of the key, or
// of its hash tag (the bytes between the first { and the next }, when not
// empty), modulo 16384.
func keySlot(key string) uint16 {
	if i := strings.IndexByte(key, '{'); i >= 0 {
		if j := strings.IndexByte(key[i+1:], '}'); j > 0 {
			key = key[i+1 : i+1+j]
		}
	}
	var crc uint16
	for i := 0; i < len(key); i++ {
		crc ^= uint16(key[i]) << 8
		for b := 0; b < 8; b++ {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
	}
	return crc % 16384
}
`

// goRueidis is the rueidis adapter.
const goRueidis = `
// NewRueidisConn adapts a rueidis client (standalone, cluster or sentinel;
// RESP2 or RESP3). A _RO command is built read-only, so a cluster client
// with SendToReplicas may send it to a replica.
func NewRueidisConn(c rueidis.Client) Conn { return rueidisConn{c} }

type rueidisConn struct{ c rueidis.Client }

func (r rueidisConn) Do(ctx context.Context, cmd Command) (Value, error) {
	b := r.c.B().Arbitrary(cmd.Name, cmd.Script, strconv.Itoa(len(cmd.Keys))).Keys(cmd.Keys...).Args(cmd.Args...)
	var built rueidis.Completed
	if cmd.ReadOnly {
		built = b.ReadOnly()
	} else {
		built = b.Build()
	}
	res := r.c.Do(ctx, built)
	if err := res.NonRedisError(); err != nil {
		return Value{}, err
	}
	msg, _ := res.ToMessage()
	return fromRueidis(msg)
}

// fromRueidis converts a message exactly: rueidis's accessors drop an
// error's leading "ERR " and do not tell status from bulk, so it reads the
// message's exported serialization (RedisMessage.CacheMarshal: a 7-byte
// TTL, then per value a RESP type byte, an 8-byte big-endian length or
// integer, and the payload or the elements).
func fromRueidis(msg rueidis.RedisMessage) (Value, error) {
	buf := msg.CacheMarshal(nil)
	if len(buf) < 7 {
		return Value{}, errors.New("rueidis: short message")
	}
	v, _, err := decodeRueidis(buf, 7, 0)
	return v, err
}

func decodeRueidis(buf []byte, at, depth int) (Value, int, error) {
	if depth > 1000 || len(buf) < at+9 {
		return Value{}, 0, errors.New("rueidis: malformed message")
	}
	typ := buf[at]
	n := binary.BigEndian.Uint64(buf[at+1 : at+9])
	at += 9
	switch typ {
	case '_':
		return Value{Kind: KindNil}, at, nil
	case ':':
		return Value{Kind: KindInt, Int: int64(n)}, at, nil
	case '#':
		return Value{Kind: KindBool, Bool: n != 0}, at, nil
	case '+', '$', '-', '!', '=', ',', '(':
		if uint64(len(buf)-at) < n {
			return Value{}, 0, errors.New("rueidis: truncated message")
		}
		s := string(buf[at : at+int(n)])
		at += int(n)
		switch typ {
		case '+':
			return Value{Kind: KindStatus, Str: s}, at, nil
		case '-', '!':
			return Value{Kind: KindError, Str: s}, at, nil
		case ',':
			f, err := strconv.ParseFloat(s, 64)
			if err != nil {
				return Value{Kind: KindBulk, Str: s}, at, nil
			}
			return Value{Kind: KindDouble, Float: f}, at, nil
		}
		return Value{Kind: KindBulk, Str: s}, at, nil
	case '*', '~', '%':
		elems := make([]Value, 0, min(n, 1<<16))
		for i := uint64(0); i < n; i++ {
			e, next, err := decodeRueidis(buf, at, depth+1)
			if err != nil {
				return Value{}, 0, err
			}
			elems = append(elems, e)
			at = next
		}
		return Value{Kind: KindArray, Elems: elems}, at, nil
	}
	return Value{}, 0, fmt.Errorf("rueidis: reply type %q", typ)
}
`

// goGoRedis is the go-redis adapter.
const goGoRedis = `
// NewGoRedisConn adapts a go-redis client (Client, ClusterClient, Ring or
// UniversalClient). A ClusterClient with ReadOnly or RouteByLatency sends
// the _RO commands to replicas.
func NewGoRedisConn(c GoRedisClient) Conn { return goRedisConn{c} }

// GoRedisClient is what NewGoRedisConn needs of a go-redis client.
type GoRedisClient interface {
	Do(ctx context.Context, args ...any) *redis.Cmd
}

type goRedisConn struct{ c GoRedisClient }

func (g goRedisConn) Do(ctx context.Context, cmd Command) (Value, error) {
	parts := cmd.Strings()
	args := make([]any, len(parts))
	for i, p := range parts {
		args[i] = p
	}
	v, err := g.c.Do(ctx, args...).Result()
	if err == redis.Nil {
		return Value{Kind: KindNil}, nil
	}
	if err != nil {
		var re redis.Error
		if errors.As(err, &re) {
			return Value{Kind: KindError, Str: re.Error()}, nil
		}
		return Value{}, err
	}
	return fromGoRedis(v), nil
}

func fromGoRedis(v any) Value {
	switch x := v.(type) {
	case nil:
		return Value{Kind: KindNil}
	case int64:
		return Value{Kind: KindInt, Int: x}
	case string:
		return Value{Kind: KindBulk, Str: x}
	case bool:
		return Value{Kind: KindBool, Bool: x}
	case float64:
		return Value{Kind: KindDouble, Float: x}
	case redis.Error:
		return Value{Kind: KindError, Str: x.Error()}
	case []any:
		elems := make([]Value, len(x))
		for i, e := range x {
			elems[i] = fromGoRedis(e)
		}
		return Value{Kind: KindArray, Elems: elems}
	case map[any]any:
		elems := make([]Value, 0, 2*len(x))
		for k, e := range x {
			elems = append(elems, fromGoRedis(k), fromGoRedis(e))
		}
		return Value{Kind: KindArray, Elems: elems}
	}
	return Value{Kind: KindBulk, Str: fmt.Sprint(v)}
}
`
