package scenario

import (
	"fmt"

	"github.com/scriptctl/scriptctl/verify"
)

// TTLSlack is the fixed part of the tolerance for a live TTL: a live PTTL
// matches an offline one when offline-(drift+TTLSlack) <= live <= offline,
// where drift is how far the real clock ran ahead of the scenario's virtual
// clock (round trips, scheduling) by the time of the step.
const TTLSlack = 25

// Difference is one way a live run differs from the offline run of the same
// steps.
type Difference struct {
	Variant string `json:"variant"`
	Step    int    `json:"step"`
	Line    int    `json:"line"`
	What    string `json:"what"` // "reply", "key <name>", "error", "steps"
	Offline string `json:"offline"`
	Live    string `json:"live"`
}

// diffRuns compares a live run with the offline run of the same variant,
// every number exactly but TTLs.
func (s *Scenario) diffRuns(off, lv *Run) []Difference {
	d, _ := s.diffRunsClock(off, lv, nil)
	return d
}

// diffRunsClock compares a live run with the offline run aligned to its
// clock: clock-derived numbers (cc's taint) within the clock tolerance.
// tolerated lists what was equal only within the tolerance.
func (s *Scenario) diffRunsClock(off, lv *Run, cc *clockCompare) (out, tolerated []Difference) {
	add := func(step, line int, what, o, l string) {
		out = append(out, Difference{Variant: off.Variant, Step: step, Line: line, What: what, Offline: o, Live: l})
	}
	near := func(step, line int, what, o, l string) {
		tolerated = append(tolerated, Difference{Variant: off.Variant, Step: step, Line: line, What: what, Offline: o, Live: l})
	}
	slack := int64(TTLSlack)
	if cc != nil {
		slack = cc.tol
	}
	n := min(len(off.Steps), len(lv.Steps))
	for i := 0; i < n; i++ {
		o, l := off.Steps[i], lv.Steps[i]
		if o.Error != "" || l.Error != "" {
			if o.Error != l.Error {
				add(o.Index, o.Line, "error", orNone(o.Error), orNone(l.Error))
			}
			continue
		}
		spec := s.replySpec(i)
		switch {
		case o.Reply == nil && l.Reply == nil:
		case o.Reply == nil || l.Reply == nil:
			add(o.Index, o.Line, "reply", replyText(o.Reply), replyText(l.Reply))
		case sameReply(*o.Reply, *l.Reply, spec, l.drift, slack):
		default:
			if ok, tol := cc.reply(i, *o.Reply, *l.Reply, l.drift); ok {
				if tol {
					near(o.Index, o.Line, "reply", o.Reply.String(), l.Reply.String())
				}
			} else {
				add(o.Index, o.Line, "reply", o.Reply.String(), l.Reply.String())
			}
		}
		seen := map[string]bool{}
		for _, ok := range o.State {
			seen[ok.Name] = true
			lk, present := find(l.State, ok.Name)
			if !present {
				add(o.Index, o.Line, "key "+ok.Name, KeyString(ok), "absent")
				continue
			}
			same, tol := cc.contents(i, ok, lk, l.drift)
			switch {
			case !ttlClose(ok.PTTL, lk.PTTL, l.drift, slack) || !same || !fieldTTLsClose(ok, lk, l.drift, slack):
				add(o.Index, o.Line, "key "+ok.Name, KeyString(ok), KeyString(lk))
			case tol:
				near(o.Index, o.Line, "key "+ok.Name, KeyString(ok), KeyString(lk))
			}
		}
		for _, lk := range l.State {
			if !seen[lk.Name] {
				add(o.Index, o.Line, "key "+lk.Name, "absent", KeyString(lk))
			}
		}
	}
	if len(off.Steps) != len(lv.Steps) {
		add(n+1, 0, "steps", fmt.Sprintf("%d steps ran", len(off.Steps)), fmt.Sprintf("%d steps ran", len(lv.Steps)))
	}
	return out, tolerated
}

// replySpec is the expected reply of step i, used to know which integers
// are TTLs (compared with tolerance).
func (s *Scenario) replySpec(i int) *ReplySpec {
	if s.bound == nil {
		return nil
	}
	bs := s.bound.steps[i]
	if bs.expect != nil && bs.expect.reply != nil {
		return bs.expect.reply
	}
	if bs.regression != nil {
		return bs.regression.reply
	}
	return nil
}

func orNone(s string) string {
	if s == "" {
		return "(ran)"
	}
	return s
}

func replyText(r *verify.Reply) string {
	if r == nil {
		return "(no reply)"
	}
	return r.String()
}

// ttlClose reports whether a live PTTL l matches an offline PTTL o: it
// may trail by the run's drift plus slack ms.
// fieldTTLsClose reports whether the field TTLs of a live hash l match an
// offline o's, each as ttlClose. A server without hash-field expiry reads
// none, and then an offline run of its target has none either.
func fieldTTLsClose(o, l Key, drift, slack int64) bool {
	if len(o.FieldTTL) != len(l.FieldTTL) {
		return false
	}
	for f, ms := range o.FieldTTL {
		lms, ok := l.FieldTTL[f]
		if !ok || !ttlClose(ms, lms, drift, slack) {
			return false
		}
	}
	return true
}

func ttlClose(o, l, drift, slack int64) bool {
	if o < 0 || l < 0 {
		return o == l
	}
	return l <= o && o-l <= drift+slack
}

func sameReply(o, l verify.Reply, spec *ReplySpec, drift, slack int64) bool {
	if spec != nil && spec.Kind == RTTL && o.Kind == verify.Int && l.Kind == verify.Int {
		return ttlClose(o.Int, l.Int, drift, slack)
	}
	if spec != nil && spec.Kind == RArray && o.Kind == verify.Array && l.Kind == verify.Array &&
		len(spec.Elems) == len(o.Elems) && len(o.Elems) == len(l.Elems) {
		for i := range o.Elems {
			if !sameReply(o.Elems[i], l.Elems[i], spec.Elems[i], drift, slack) {
				return false
			}
		}
		return true
	}
	return o.Equal(l)
}
