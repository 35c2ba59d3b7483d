package scenario

import (
	"context"

	"github.com/scriptctl/scriptctl/manifest"
	"github.com/scriptctl/scriptctl/verify"
)

// offline runs a scenario in the verify engine: a fresh engine per run, its
// virtual clock advanced by sleep steps.
type offline struct {
	e    *verify.Engine
	m    *manifest.Manifest
	mode Mode
}

func newOffline(m *manifest.Manifest, mode Mode) (*offline, error) {
	o := &offline{e: verify.New(verify.Options{}), m: m, mode: mode}
	if mode == ModeFunction {
		r, err := o.e.FunctionLoad(m.FunctionsLibrary(), false)
		if err != nil {
			return nil, err
		}
		if r.Kind == verify.Error {
			return nil, libraryError(m, r.Str)
		}
	}
	return o, nil
}

// Entry converts k to the engine's form, for seeding an engine (as
// "scriptctl eval --state" does).
func (k Key) Entry() verify.Entry {
	return verify.Entry{Key: k.Name, Type: k.Type, Value: k.Value, Hash: k.Hash, List: k.List, Set: k.Set, ZSet: k.ZSet, Stream: k.Stream, PTTL: k.PTTL}
}

// KeyOf converts an engine entry to a Key, for WriteKeys.
func KeyOf(en verify.Entry) Key {
	t := en.Type
	if t == "" {
		t = "string"
	}
	return Key{Name: en.Key, Type: t, Value: en.Value, Hash: en.Hash, List: en.List, Set: en.Set, ZSet: en.ZSet, Stream: en.Stream, PTTL: en.PTTL}
}

func (o *offline) Put(_ context.Context, k Key) error {
	o.e.Put(k.Entry())
	return nil
}

func (o *offline) Call(ctx context.Context, script string, keys, args []string) (verify.Reply, error) {
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
