package explore

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/scriptctl/scriptctl/verify"
)

// jumpKind reports the steps resolved right after the step before them.
func jumpKind(kind string) bool { return kind == "branch" || kind == "if" || kind == "goto" }

// running reports whether worker i can still take steps (paused or not).
func (x *explorer) running(w wstate, i int) bool {
	return !w.crashed && w.pc < len(x.m.Workers[i].Steps) && w.done < x.m.Bounds.Steps
}

// expiring reports whether caller key k exists in n with a TTL.
func (x *explorer) expiring(n *node, k string) bool {
	key := x.m.Keys[k]
	for _, e := range n.keys {
		if e.Key == key {
			return e.PTTL >= 0 // 0: the key lives through its expiry millisecond
		}
	}
	return false
}

// setup runs the model's setup steps on the engine.
func (x *explorer) setup() error {
	var w wstate
	w.regs = make([]string, len(x.m.regs))
	for i, st := range x.m.Setup {
		x.now = verify.DefaultNow
		var rep verify.Reply
		var err error
		if st.Kind == "call" {
			var line Line
			rep, err = x.callStep(st, "setup", &w, &line)
		} else {
			args := make([]string, len(st.Do))
			for i, s := range st.Do {
				args[i] = x.expand(s, "setup", &w)
			}
			rep, err = x.eng.Do(context.Background(), args...)
		}
		if err != nil {
			return fmt.Errorf("%s: setup[%d]: %w", x.m.Path, i, err)
		}
		if rep.Kind == verify.Error {
			return fmt.Errorf("%s:%d: setup[%d] failed: %s", x.m.Path, st.Line, i, rep.Str)
		}
	}
	return nil
}

// callStep runs a call step for worker: its keys and args expanded, the
// reply saved; line gets the action, the reply and the history.
func (x *explorer) callStep(st *Step, worker string, w *wstate, line *Line) (verify.Reply, error) {
	keys := make([]string, len(st.KeyTpl))
	for i, k := range st.KeyTpl {
		keys[i] = x.expand(k, worker, w)
	}
	args := make([]string, len(st.ArgTpl))
	named := make(map[string]string, len(args))
	for i, a := range st.ArgTpl {
		args[i] = x.expand(a, worker, w)
		named[st.ArgNames[i]] = args[i]
	}
	rep, err := x.eng.Eval(context.Background(), st.Src, keys, args)
	if err != nil {
		return rep, fmt.Errorf("%s: %s: call %s: %w", x.m.Path, worker, st.Script, err)
	}
	w.reply = head(rep)
	if x.m.usesIf {
		w.last = rep
	}
	x.saveReply(st, w, rep)
	line.Action = strings.TrimSpace(st.Script + " " + strings.Join(args, " "))
	line.Reply = rep.String()
	line.Script, line.Args, line.rep = st.Script, named, &rep
	return rep, nil
}

// elem is the element of r at path (1-based, into nested arrays); nil
// when there is none.
func elem(r verify.Reply, path []int) verify.Reply {
	for _, i := range path {
		if r.Kind != verify.Array || i > len(r.Elems) {
			return verify.Reply{Kind: verify.Nil}
		}
		r = r.Elems[i-1]
	}
	return r
}

// saveText is a reply as a register holds it: an integer in decimal, a
// string as is, nil as "", an error as its text, an array as redis-cli
// prints it.
func saveText(r verify.Reply) string {
	switch r.Kind {
	case verify.Int:
		return strconv.FormatInt(r.Int, 10)
	case verify.Nil:
		return ""
	case verify.Array:
		return r.String()
	}
	return r.Str
}

func (x *explorer) saveReply(st *Step, w *wstate, rep verify.Reply) {
	for _, s := range st.Save {
		w.regs[slices.Index(x.m.regs, s.Name)] = saveText(elem(rep, s.Path))
	}
}

// test evaluates an if step's condition for worker w.
func (x *explorer) test(c *Cond, w *wstate) bool {
	var r verify.Reply
	if c.Var != "" {
		r = verify.Reply{Kind: verify.Bulk, Str: w.regs[slices.Index(x.m.regs, c.Var)]}
	} else {
		r = elem(w.last, c.Path)
	}
	switch c.Op {
	case "type":
		switch c.Value {
		case "nil":
			return r.Kind == verify.Nil
		case "integer":
			return r.Kind == verify.Int
		case "string":
			return r.Kind == verify.Bulk
		case "status":
			return r.Kind == verify.Status
		case "error":
			return r.Kind == verify.Error
		}
		return r.Kind == verify.Array
	case "matches":
		return r.Kind != verify.Nil && c.re.MatchString(saveText(r))
	}
	if r.Kind == verify.Nil {
		return c.Value == "nil"
	}
	return saveText(r) == c.Value
}

// histKey is a step as the visited-state key records the path.
func histKey(l Line) string {
	return strconv.Quote(l.Actor) + strconv.Quote(l.Action) + strconv.Quote(l.Reply) + strconv.FormatInt(l.at, 10) + ";"
}

// finalCheck checks the invariants with final set when nothing can move
// in n.
func (x *explorer) finalCheck(n *node) (*Violation, error) {
	if !slices.ContainsFunc(x.m.Preds, func(p *Predicate) bool { return p.Lua != "" }) {
		return nil, nil
	}
	for range x.actions(n) {
		return nil, nil
	}
	return x.invariants(n, true)
}

// luaValue is a reply as a Lua script sees it from redis.call: integers
// as numbers, strings, nil as false, status as {ok=...}, errors as
// {err=...}, arrays as tables.
func luaValue(r verify.Reply) any {
	switch r.Kind {
	case verify.Int:
		return r.Int
	case verify.Bulk:
		return r.Str
	case verify.Status:
		return map[string]string{"ok": r.Str}
	case verify.Error:
		return map[string]string{"err": r.Str}
	case verify.Array:
		out := make([]any, len(r.Elems))
		for i, e := range r.Elems {
			out[i] = luaValue(e)
		}
		return out
	}
	return false
}

type luaStep struct {
	Step   int               `json:"step"`
	Actor  string            `json:"actor"`
	Action string            `json:"action"`
	Script string            `json:"script,omitempty"`
	Args   map[string]string `json:"args"`
	Reply  any               `json:"reply"`
	Now    int64             `json:"now"`
}

type luaWorker struct {
	Vars     map[string]string `json:"vars"`
	Crashed  bool              `json:"crashed"`
	Paused   bool              `json:"paused"`
	Finished bool              `json:"finished"`
}

type luaData struct {
	History []luaStep            `json:"history"`
	Replies map[string][]any     `json:"replies"`
	Workers map[string]luaWorker `json:"workers"`
	Keys    map[string]string    `json:"keys"`
	Vars    map[string]string    `json:"vars"`
	Now     int64                `json:"now"`
	Final   bool                 `json:"final"`
}

// luaCheck evaluates Lua predicate p in n (the engine holds n), read-only.
func (x *explorer) luaCheck(p *Predicate, n *node, final bool) (*Violation, error) {
	m := x.m
	d := luaData{History: []luaStep{}, Replies: map[string][]any{}, Workers: map[string]luaWorker{}, Keys: m.Keys, Vars: m.Vars,
		Now: n.now - verify.DefaultNow, Final: final}
	for i, w := range m.Workers {
		ws := n.workers[i]
		lw := luaWorker{Vars: map[string]string{}, Crashed: ws.crashed, Paused: ws.paused, Finished: !ws.crashed && !x.running(ws, i)}
		for j, r := range m.regs {
			lw.Vars[r] = ws.regs[j]
		}
		d.Workers[w.Name] = lw
		d.Replies[w.Name] = []any{}
	}
	if m.usesHist && n.parent >= 0 {
		path := x.timeline(n)
		for _, l := range path {
			s := luaStep{Step: l.N, Actor: l.Actor, Action: l.Action, Script: l.Script, Args: l.Args, Reply: false, Now: l.at}
			if s.Args == nil {
				s.Args = map[string]string{}
			}
			if l.rep != nil {
				s.Reply = luaValue(*l.rep)
				if _, ok := d.Replies[l.Actor]; ok {
					d.Replies[l.Actor] = append(d.Replies[l.Actor], s.Reply)
				}
			}
			d.History = append(d.History, s)
		}
	}
	data, err := json.Marshal(d)
	if err != nil {
		return nil, err
	}
	keys := make([]string, 0, len(m.Keys))
	for _, k := range m.Keys {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	rep, err := x.eng.EvalRO(context.Background(), p.src, keys, []string{string(data)})
	if err != nil {
		return nil, fmt.Errorf("%s: invariant %s: %w", m.Path, p.Name, err)
	}
	when := ""
	if final {
		when = " at the end"
	}
	switch {
	case rep.Kind == verify.Int && rep.Int == 1:
		return nil, nil
	case rep.Kind == verify.Error:
		return &Violation{Invariant: p.Name, Errored: true, Message: fmt.Sprintf("the Lua predicate raised an error%s: %s", when, rep.Str)}, nil
	case rep.Kind == verify.Array && len(rep.Elems) == 2 && rep.Elems[1].Str != "":
		return &Violation{Invariant: p.Name, Message: rep.Elems[1].Str + when}, nil
	}
	return &Violation{Invariant: p.Name, Message: "the predicate does not hold" + when}, nil
}
