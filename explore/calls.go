package explore

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/scriptctl/scriptctl/internal/lazy"
	"github.com/scriptctl/scriptctl/verify"
)

func (x *explorer) call(r *Role, st *Step, worker string, w *wstate) (verify.Reply, error) {
	ctx := context.Background()
	if st.Kind == "acquire" {
		w.acquired++
		w.token = fmt.Sprintf("%s-%d", worker, w.acquired)
	}
	if r.Do != nil {
		args := make([]string, len(r.Do))
		for i, s := range r.Do {
			args[i] = x.expand(s, worker, w)
		}
		rep, err := x.eng.Do(ctx, args...)
		if err != nil {
			return rep, fmt.Errorf("%s: %s: %w", x.m.Path, worker, err)
		}
		return rep, nil
	}
	keys := make([]string, len(r.Keys))
	for i, k := range r.Keys {
		keys[i] = x.m.Keys[k]
	}
	args := make([]string, len(r.Args))
	for i, a := range r.Args {
		v := a.Value
		if o, ok := st.Args[a.Name]; ok {
			v = o
		}
		args[i] = x.expand(v, worker, w)
	}
	rep, err := x.eng.Eval(ctx, r.Src, keys, args)
	if err != nil {
		return rep, fmt.Errorf("%s: %s: %s %s: %w", x.m.Path, worker, st.Kind, r.Script, err)
	}
	return rep, nil
}

func (x *explorer) ttl(r *Role, st *Step, worker string, w *wstate) int64 {
	for _, a := range r.Args {
		if a.Name == r.TTLArg {
			v := a.Value
			if o, ok := st.Args[a.Name]; ok {
				v = o
			}
			n, _ := strconv.ParseInt(x.expand(v, worker, w), 10, 64)
			return n
		}
	}
	return 0
}

// expand replaces ${...} in s for worker's step.
func (x *explorer) expand(s, worker string, w *wstate) string {
	if !strings.Contains(s, "${") {
		return s
	}
	return refPattern.Get().ReplaceAllStringFunc(s, func(r string) string {
		name := r[2 : len(r)-1]
		if v, ok := x.m.Vars[name]; ok {
			return v
		}
		if k, ok := strings.CutPrefix(name, "key."); ok {
			return x.m.Keys[k]
		}
		switch name {
		case "now":
			return strconv.FormatInt(x.now, 10)
		case "worker":
			return worker
		}
		return x.register(name, worker, w)
	})
}

func (x *explorer) register(name, worker string, w *wstate) string {
	switch name {
	case "token":
		return w.token
	case "candidate":
		return w.candidate(worker)
	case "revision":
		if w.revision < 0 {
			return ""
		}
		return strconv.Itoa(w.revision)
	case "reply":
		return w.reply
	case "owns":
		return strconv.FormatBool(w.owns)
	case "accepted":
		return strconv.FormatBool(w.accepted)
	}
	if i := slices.Index(x.m.regs, name); i >= 0 {
		return w.regs[i]
	}
	return ""
}

// value is the visible value: the value key's string, if any.
func (x *explorer) value() (string, bool) {
	e, ok := x.eng.Entry(x.m.Keys[x.m.ValueKey])
	if !ok || e.Type != "string" {
		return "", false
	}
	return e.Value, true
}

var revSuffix = lazy.Regexp(`@rev([0-9]{1,9})$`)

// revisionOf reads the revision a candidate text carries: its trailing
// @rev<n>; -1 when it has none.
func revisionOf(v string) int {
	m := revSuffix.Get().FindStringSubmatch(v)
	if m == nil {
		return -1
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// head is a reply's head: an array's first element, else the reply itself,
// as text (an integer in decimal, a string as is, nil as "nil", an error
// as "error").
func head(r verify.Reply) string {
	if r.Kind == verify.Array {
		if len(r.Elems) == 0 {
			return "empty"
		}
		return text(r.Elems[0])
	}
	return text(r)
}

func text(r verify.Reply) string {
	switch r.Kind {
	case verify.Int:
		return strconv.FormatInt(r.Int, 10)
	case verify.Nil:
		return "nil"
	case verify.Error:
		return "error"
	case verify.Array:
		return r.String()
	}
	return r.Str
}
