package verify

import (
	"fmt"
	"strings"

	"github.com/scriptctl/scriptctl/slot"
)

// Topologies the engine can imitate (Options.Topology).
const (
	// TopologyCluster is a node of a Redis Cluster: declared keys in
	// different slots are CROSSSLOT, a script's command on a key of a slot
	// the node does not serve fails, scripts with a shebang and functions
	// stay in one slot unless allow-cross-slot-keys, no-cluster scripts are
	// refused (Redis 7.0 src/script.c scriptPrepareForRun,
	// scriptVerifyClusterState). The default.
	TopologyCluster = "cluster"
	// TopologyStandalone is a standalone server: no slot rule at all.
	TopologyStandalone = "standalone"
)

// DefaultTopology is the topology of Options.Topology "".
const DefaultTopology = TopologyCluster

// Topologies lists the topology names.
func Topologies() []string { return []string{TopologyCluster, TopologyStandalone} }

// CheckTopology reports whether name is a topology ("" is the default).
func CheckTopology(name string) error {
	switch name {
	case "", TopologyCluster, TopologyStandalone:
		return nil
	}
	return fmt.Errorf("unknown topology %q: want cluster or standalone", name)
}

// SlotRange is the slots First..Last, both included.
type SlotRange struct{ First, Last int }

// Finding is something a run did that a server allows but that a team may
// want to know: today an access to a key the script did not declare in KEYS
// (CodeUndeclaredKey). Chunk and Line are where the script stood (the
// chunk as Redis names it, user_script or user_function, and its 1-based
// line); "" and 0 when unknown.
type Finding struct {
	Code    string `json:"code"`
	Key     string `json:"key"`
	Command string `json:"command"` // upper case, as the script named it
	Chunk   string `json:"chunk,omitempty"`
	Line    int    `json:"line,omitempty"`
}

// Message is the finding as a sentence, worded as lint's dynamic-key
// finding about the same line.
func (f Finding) Message() string {
	return fmt.Sprintf("key %q of %s is not in KEYS: on a cluster node it must hash to the declared keys' slot, and proxies that demand declared keys refuse it; pass it in KEYS", f.Key, f.Command)
}

// maxFindings bounds the findings of one run: a loop over many undeclared
// keys reports the first ones, then a warning that more were left out.
const maxFindings = 100

// Findings returns what the last Eval, EvalRO, FCall or FCallRO found: each
// distinct undeclared key access (key, command and line), in the order the
// run made them. A run under Options.StrictKeys stops at the first one
// instead (a RunError with code undeclared-key).
func (e *Engine) Findings() []Finding { return append([]Finding(nil), e.findings...) }

// cluster reports whether the engine imitates a cluster node.
func (e *Engine) cluster() bool { return e.opts.Topology != TopologyStandalone }

// errNonLocal and errSameSlot are scriptVerifyClusterState's texts, the same
// on every target (checked live on redis-7.0, redis-8.0 and valkey-8.1).
const (
	errNonLocal  = "ERR Script attempted to access a non local key in a cluster node"
	errSameSlot  = "ERR Script attempted to access keys that do not hash to the same slot"
	errNoCluster = "ERR Can not run script on cluster, 'no-cluster' flag is set."
	errCrossSlot = "CROSSSLOT Keys in request don't hash to the same slot"
)

// crossSlot is the reply a cluster gives before running a script whose
// declared keys hash to different slots (processCommand's getNodeByQuery);
// a standalone server has none.
func (e *Engine) crossSlot(keys []string) (Reply, bool) {
	if !e.cluster() {
		return Reply{}, false
	}
	for _, k := range keys[1:] {
		if slot.Of(k) != slot.Of(keys[0]) {
			return ErrorReply(errCrossSlot), true
		}
	}
	return Reply{}, false
}

// startRun sets up the cluster state of a run: the declared keys' slot
// (the one the client's EVAL or FCALL was routed by), which also is the
// slot a strict script stays in; crossSlotOK for EVAL without a shebang
// (compat mode) and the allow-cross-slot-keys flag.
func (r *scriptRun) startRun(keys []string, crossSlotOK bool) {
	r.slot, r.home = -1, -1
	if len(keys) > 0 {
		r.slot = slot.Of(keys[0])
		r.home = r.slot
	}
	r.crossSlotOK = crossSlotOK
	r.recorded, r.recordFull = 0, false // recordRoom: charged per run
}

// serves reports whether the node the run imitates serves slot s. With
// Options.NodeSlots it serves those slots and the declared keys'; without,
// only the declared keys' slot, or, for a run without declared keys, the
// slot of the first key it touches (as if the client had sent it there).
func (r *scriptRun) serves(s int) bool {
	if r.home < 0 && len(r.e.opts.NodeSlots) == 0 {
		r.home = s
	}
	if s == r.home {
		return true
	}
	for _, sr := range r.e.opts.NodeSlots {
		if s >= sr.First && s <= sr.Last {
			return true
		}
	}
	return false
}

// shardChannel says whether the command's first argument is a shard
// channel: not a key, but routed by its slot like one (getNodeByQuery).
func shardChannel(name string) bool { return name == "spublish" }

// checkKeys applies the key rules to a script's command name (lower case)
// on keys: each undeclared key is a Finding (a RunError under
// StrictKeys); on a cluster, scriptVerifyClusterState's rules give the
// error reply the server answers. ok is false when the command must not
// run (rep or err set).
func (r *scriptRun) checkKeys(name string, args, keys []string) (rep Reply, ok bool, err error) {
	for _, k := range keys {
		if !r.declared(k) {
			if re := r.undeclared(k, name); re != nil {
				return Reply{}, false, re
			}
		}
	}
	if !r.e.cluster() {
		return Reply{}, true, nil
	}
	routed := keys
	if shardChannel(name) && len(args) > 1 {
		routed = append([]string{args[1]}, keys...)
	}
	if len(routed) == 0 {
		return Reply{}, true, nil
	}
	first := slot.Of(routed[0])
	for _, k := range routed[1:] {
		if k != routed[0] && slot.Of(k) != first {
			if r.e.t.scriptCrossSlotText {
				return ErrorReply("ERR Command '" + name + "' in script attempted to access keys that don't hash to the same slot"), false, nil
			}
			return ErrorReply(r.e.t.text(errNonLocal)), false, nil
		}
	}
	if !r.serves(first) {
		return ErrorReply(r.e.t.text(errNonLocal)), false, nil
	}
	if !r.crossSlotOK {
		if r.slot < 0 {
			r.slot = first
		} else if r.slot != first {
			return ErrorReply(errSameSlot), false, nil
		}
	}
	return Reply{}, true, nil
}

// undeclared records an access to key k, not in KEYS, by command name; under
// StrictKeys it is the RunError that stops the run.
func (r *scriptRun) undeclared(k, name string) *RunError {
	if r.e.opts.StrictKeys {
		return &RunError{Code: CodeUndeclaredKey, Msg: fmt.Sprintf("undeclared key %q: pass it in KEYS (%s)", k, strings.ToUpper(name))}
	}
	chunk, line := r.luaLine()
	f := Finding{Code: CodeUndeclaredKey, Key: k, Command: strings.ToUpper(name), Chunk: chunk, Line: line}
	for _, x := range r.e.findings {
		if x == f {
			return nil
		}
	}
	if len(r.e.findings) >= maxFindings {
		r.warn("more than %d undeclared key accesses: only the first %d are listed", maxFindings, maxFindings)
		return nil
	}
	r.e.findings = append(r.e.findings, f)
	return nil
}

// luaLine is the position of the innermost Lua function on the stack: the
// line that called redis.call (directly, or through pcall).
func (r *scriptRun) luaLine() (string, int) {
	for level := 1; level <= 4; level++ {
		if chunk, line := luaPos(r.L, level); line > 0 {
			return chunk, line
		}
	}
	return "", 0
}
