package scenario

import (
	"context"
	"sync"

	"github.com/scriptctl/scriptctl/manifest"
	"github.com/scriptctl/scriptctl/verify"
)

// offline runs a scenario in the verify engine, its virtual clock advanced
// by sleep steps. Every run starts from an empty engine; the engines come
// from a pool, Reset when a run ends, so a worker builds its Lua sandboxes
// once rather than once per run. The engine imitates the target on the
// manifest's topology, with its strict_keys.
type offline struct {
	e      *verify.Engine
	m      *manifest.Manifest
	mode   Mode
	opts   verify.Options
	script string // the script of the last call
}

// engines holds, per engine options, the engines of finished runs, already
// Reset.
var engines sync.Map // poolKey -> *sync.Pool

// poolKey is what an offline run sets of verify.Options.
type poolKey struct {
	target, topology string
	strict           bool
}

func enginePool(opts verify.Options) *sync.Pool {
	k := poolKey{opts.Target, opts.Topology, opts.StrictKeys}
	if p, ok := engines.Load(k); ok {
		return p.(*sync.Pool)
	}
	p, _ := engines.LoadOrStore(k, &sync.Pool{New: func() any { return verify.New(opts) }})
	return p.(*sync.Pool)
}

func newOffline(m *manifest.Manifest, mode Mode, target string) (*offline, error) {
	opts := verify.Options{Target: target, Topology: m.Topology, StrictKeys: m.StrictKeys}
	o := &offline{e: enginePool(opts).Get().(*verify.Engine), m: m, mode: mode, opts: opts}
	if mode == ModeFunction {
		r, err := o.e.FunctionLoad(m.FunctionsLibrary(), false)
		if err != nil {
			o.release()
			return nil, err
		}
		if r.Kind == verify.Error {
			o.release()
			return nil, libraryError(m, r.Str)
		}
	}
	return o, nil
}

// release resets the engine, which frees the run's keyspace, and gives it
// back to the pool once the run is over and nothing of it is read any more.
func (o *offline) release() {
	o.e.Reset()
	enginePool(o.opts).Put(o.e)
	o.e = nil
}

// Entry converts k to the engine's form, for seeding an engine (as
// "scriptctl eval --state" does).
func (k Key) Entry() verify.Entry {
	return verify.Entry{Key: k.Name, Type: k.Type, Value: k.Value, Hash: k.Hash, List: k.List, Set: k.Set, ZSet: k.ZSet, Stream: k.Stream, PTTL: k.PTTL, FieldTTL: k.FieldTTL}
}

// KeyOf converts an engine entry to a Key, for WriteKeys.
func KeyOf(en verify.Entry) Key {
	t := en.Type
	if t == "" {
		t = "string"
	}
	return Key{Name: en.Key, Type: t, Value: en.Value, Hash: en.Hash, List: en.List, Set: en.Set, ZSet: en.ZSet, Stream: en.Stream, PTTL: en.PTTL, FieldTTL: en.FieldTTL}
}

func (o *offline) Put(_ context.Context, k Key) error {
	o.e.Put(k.Entry())
	return nil
}

func (o *offline) Call(ctx context.Context, script string, keys, args []string) (verify.Reply, error) {
	o.script = script
	if o.mode == ModeFunction {
		return o.e.FCall(ctx, o.m.FunctionName(script), keys, args)
	}
	return o.e.Eval(ctx, o.m.Script(script).Source, keys, args)
}

func (o *offline) Do(ctx context.Context, args []string) (verify.Reply, error) {
	return o.e.Do(ctx, args...)
}

// TakePublished returns the messages published since the last call.
func (o *offline) TakePublished() []verify.Message {
	m := o.e.Published()
	o.e.ResetPublished()
	return m
}

// Warnings are the engine's warnings of the last call.
func (o *offline) Warnings() []string { return o.e.Warnings() }

// KeyFindings are the last call's undeclared key accesses, each at the
// script file's line that made it.
func (o *offline) KeyFindings() []KeyFinding {
	var out []KeyFinding
	for _, f := range o.e.Findings() {
		kf := KeyFinding{Finding: f}
		switch {
		case o.mode == ModeFunction && f.Chunk == "user_function":
			if s, line, ok := o.m.LibraryPosition(f.Line); ok {
				kf.File, kf.Line = s.Path, line
			}
		case o.mode != ModeFunction && f.Chunk == "user_script":
			if s := o.m.Script(o.script); s != nil {
				kf.File, kf.Line = s.Path, f.Line
			}
		}
		out = append(out, kf)
	}
	return out
}

// KeyFinding is an offline call's access to a key not declared in KEYS, at
// the script file's line (File "" when unknown).
type KeyFinding struct {
	File string
	Line int
	verify.Finding
}

func (o *offline) Sleep(_ context.Context, ms int64) error {
	o.e.Advance(ms)
	return nil
}

func (o *offline) Get(_ context.Context, key string) (Key, bool, error) {
	en, ok := o.e.Entry(key)
	if !ok {
		return Key{}, false, nil
	}
	return KeyOf(en), true, nil
}

// drifting is an offline backend whose clock gains ms before every step:
// the drift probe of clock.go.
type drifting struct {
	*offline
	ms int64
}

func (d *drifting) Call(ctx context.Context, script string, keys, args []string) (verify.Reply, error) {
	d.e.Advance(d.ms)
	return d.offline.Call(ctx, script, keys, args)
}

func (d *drifting) Do(ctx context.Context, args []string) (verify.Reply, error) {
	d.e.Advance(d.ms)
	return d.offline.Do(ctx, args)
}

func (d *drifting) Sleep(ctx context.Context, ms int64) error {
	d.e.Advance(d.ms)
	return d.offline.Sleep(ctx, ms)
}
