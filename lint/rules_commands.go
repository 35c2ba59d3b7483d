package lint

import (
	"strings"

	"github.com/scriptctl/scriptctl/internal/cmdtable"
	"github.com/scriptctl/scriptctl/internal/target"
)

func runWriteInReadonly(p *Pass, r *rule) []Diagnostic {
	if !p.Readonly() {
		return nil
	}
	var out []Diagnostic
	for _, c := range p.Facts.Calls {
		if c.info == nil || c.info.forbidden != "" {
			continue
		}
		switch {
		case c.info.write:
			out = append(out, r.at(c.Pos, "%s writes, but the script is flagged no-writes: Redis rejects it with \"Write commands are not allowed from read-only scripts\"", c.Name))
		case c.info.mayReplicate:
			out = append(out, r.at(c.Pos, "%s is replicated, which Redis counts as a write: the no-writes script fails with \"Write commands are not allowed from read-only scripts\"", c.Name))
		}
	}
	return out
}

// runTargetCommand reports a literal command name that a target's command
// table does not list.
func runTargetCommand(p *Pass, r *rule) []Diagnostic {
	var out []Diagnostic
	targets := p.Decl.Targets
	if len(targets) == 0 {
		targets = []string{lintTarget}
	}
	for _, c := range p.Facts.Calls {
		if c.Name == "" || !anyTargetHas(cmdtable.Targets(), c.Name) {
			continue // no server knows it: a misspelling or a dynamic name
		}
		var missing []string
		for _, t := range targets {
			if tb, err := cmdtable.Load(t); err == nil {
				if _, ok := tb.Command(c.Name); !ok {
					missing = append(missing, t)
				}
			}
		}
		if len(missing) > 0 {
			out = append(out, reached(r.at(c.Pos, "%s does not exist on %s (the manifest's targets: %s)", c.Name, strings.Join(missing, ", "), strings.Join(targets, ", ")), c.Path))
			continue
		}
		for _, o := range targetOptions {
			if o.cmd != c.Name || !c.hasLit(o.opt) {
				continue
			}
			var lack []string
			for _, name := range targets {
				if t, ok := target.Lookup(name); ok && !o.has(t) {
					lack = append(lack, name)
				}
			}
			if len(lack) > 0 {
				out = append(out, reached(r.at(c.Pos, "%s ... %s does not exist on %s (%s; the manifest's targets: %s): the call fails with a syntax error there", c.Name, o.opt, strings.Join(lack, ", "), o.since, strings.Join(targets, ", ")), c.Path))
			}
		}
	}
	for _, g := range p.Facts.GlobalReads {
		if g.Name != "server" {
			continue
		}
		if lacking := targetsWithoutServerGlobal(p.Decl); len(lacking) > 0 {
			out = append(out, r.at(g.Pos, "server is Valkey 8's alias of redis: it does not exist on %s (the manifest's targets: %s), where the script fails with a nonexistent-global error; use redis", strings.Join(lacking, ", "), strings.Join(targets, ", ")))
		}
	}
	return out
}

// targetOptions are command options that only some targets have.
var targetOptions = []struct {
	cmd, opt, since string
	has             func(target.Target) bool
}{
	{"SET", "IFEQ", "Valkey 8.1 and Redis 8.4 added it", func(t target.Target) bool { return since(t, target.Valkey, 8, 1) || since(t, target.Redis, 8, 4) }},
	{"SET", "IFNE", "Redis 8.4 added it", func(t target.Target) bool { return since(t, target.Redis, 8, 4) }},
	{"SET", "IFDEQ", "Redis 8.4 added it", func(t target.Target) bool { return since(t, target.Redis, 8, 4) }},
	{"SET", "IFDNE", "Redis 8.4 added it", func(t target.Target) bool { return since(t, target.Redis, 8, 4) }},
}

// since reports whether t is of family at major.minor or later.
func since(t target.Target, family string, major, minor int) bool {
	return t.Family == family && (t.Major > major || t.Major == major && t.Minor >= minor)
}

func runReplyInjection(p *Pass, r *rule) []Diagnostic {
	var out []Diagnostic
	for _, t := range p.Facts.Replies {
		var from []string
		if t.V.Args != 0 {
			from = append(from, p.describe("ARGV", t.V.Args))
		}
		if t.V.Keys != 0 {
			from = append(from, p.describe("KEYS", t.V.Keys))
		}
		out = append(out, r.at(t.Pos, "the text of %s is built from %s, which may hold CR or LF: the reply line ends early and the client reads the rest as another reply; use a fixed text or strip CR and LF with string.gsub", t.Kind, strings.Join(from, ", ")))
	}
	return out
}

func runNondeterministicOrder(p *Pass, r *rule) []Diagnostic {
	var out []Diagnostic
	for _, u := range p.Facts.Unordered {
		if u.Sink == "returned" {
			out = append(out, r.at(u.Pos, "returns a value that depends on the order of the %s reply (an element picked by its place, or a string joined from it): that order is the server's hash table's, which differs between servers and after a rehash or restore; sort the reply (table.sort) first", u.From))
			continue
		}
		out = append(out, reached(r.at(u.Pos, "writes the reply of %s into %s in the server's hash-table order: sort it (table.sort) first", u.From, u.Sink), u.Path))
	}
	return out
}

func anyTargetHas(targets []string, name string) bool {
	for _, t := range targets {
		if tb, err := cmdtable.Load(t); err == nil {
			if _, ok := tb.Command(name); ok {
				return true
			}
		}
	}
	return false
}

func runForbidden(p *Pass, r *rule) []Diagnostic {
	var out []Diagnostic
	for _, c := range p.Facts.Calls {
		if c.info == nil {
			continue
		}
		if c.info.forbidden != "" {
			out = append(out, r.at(c.Pos, "%s must not run in a script: %s", c.Name, c.info.forbidden))
			continue
		}
		if c.Name == "XREAD" || c.Name == "XREADGROUP" {
			for i := range c.Args {
				if s, ok := c.lit(i + 1); ok && strings.EqualFold(s, "BLOCK") {
					out = append(out, r.at(c.Pos, "%s with BLOCK must not run in a script: a script cannot block", c.Name))
					break
				}
				if s, ok := c.lit(i + 1); ok && strings.EqualFold(s, "STREAMS") {
					break
				}
			}
		}
	}
	return out
}

func runUnbounded(p *Pass, r *rule) []Diagnostic {
	var out []Diagnostic
	for _, c := range p.Facts.Calls {
		switch c.Name {
		case "SMEMBERS", "HGETALL", "HKEYS", "HVALS":
			out = append(out, r.at(c.Pos, "%s reads the whole collection; its cost grows with the data while the server waits", c.Name))
		case "LRANGE", "ZRANGE", "ZREVRANGE":
			start, ok1 := c.lit(2)
			stop, ok2 := c.lit(3)
			if ok1 && ok2 && start == "0" && stop == "-1" && !c.hasLit("LIMIT") && !c.hasLit("BYSCORE") && !c.hasLit("BYLEX") {
				out = append(out, r.at(c.Pos, "%s 0 -1 reads the whole collection; read a bounded range instead", c.Name))
			}
			if by := "BYSCORE"; c.Name == "ZRANGE" && ok1 && ok2 && isInf(start) && isInf(stop) && !c.hasLit("LIMIT") {
				if c.hasLit("BYLEX") {
					by = "BYLEX"
				}
				if c.hasLit(by) {
					out = append(out, r.at(c.Pos, "%s %s %s %s without LIMIT reads the whole collection", c.Name, start, stop, by))
				}
			}
		case "ZRANGEBYSCORE", "ZREVRANGEBYSCORE", "ZRANGEBYLEX", "ZREVRANGEBYLEX":
			lo, ok1 := c.lit(2)
			hi, ok2 := c.lit(3)
			if ok1 && ok2 && isInf(lo) && isInf(hi) && !c.hasLit("LIMIT") {
				out = append(out, r.at(c.Pos, "%s %s %s without LIMIT reads the whole collection", c.Name, lo, hi))
			}
		case "SCAN", "SSCAN", "HSCAN", "ZSCAN":
			if c.InLoop {
				out = append(out, r.at(c.Pos, "%s in a loop walks the whole collection inside one script call; iterate from the application", c.Name))
			}
		}
	}
	return out
}

func isInf(s string) bool { return s == "-inf" || s == "+inf" || s == "inf" || s == "-" || s == "+" }

func runDynamicCommand(p *Pass, r *rule) []Diagnostic {
	var out []Diagnostic
	for _, c := range p.Facts.Calls {
		if c.Name == "" {
			out = append(out, reached(r.at(c.Pos, "the command name is not a literal: its keys and writes cannot be checked"), c.Path))
		}
	}
	return out
}

// ttlArgs returns the positions of a call's TTL arguments.
func ttlArgs(c *Call) []int {
	switch c.Name {
	case "SET", "GETEX":
		var out []int
		for i := 2; i < len(c.Args); i++ {
			if s, ok := c.lit(i); ok {
				switch strings.ToUpper(s) {
				case "EX", "PX", "EXAT", "PXAT":
					out = append(out, i+1)
				}
			}
		}
		return out
	case "SETEX", "PSETEX", "EXPIRE", "PEXPIRE", "EXPIREAT", "PEXPIREAT", "RESTORE":
		if len(c.Args) >= 2 {
			return []int{2}
		}
	}
	return nil
}

func runUnvalidatedTTL(p *Pass, r *rule) []Diagnostic {
	var out []Diagnostic
	for _, c := range p.Facts.Calls {
		for _, i := range ttlArgs(c) {
			a := c.Args[i-1]
			if miss := a.V.Args &^ c.Checked; miss != 0 {
				what := c.Name
				if s, ok := c.lit(i - 1); ok && i > 2 {
					what = strings.ToUpper(s) + " of " + c.Name
				}
				out = append(out, reached(r.at(a.Pos, "%s reaches %s without a check on every path before it; validate it and return redis.error_reply first", p.describe("ARGV", miss), what), c.Path))
			}
		}
	}
	return out
}

func runWriteBeforeValidation(p *Pass, r *rule) []Diagnostic {
	var out []Diagnostic
	for _, wc := range p.Facts.WriteChecks {
		w := wc.Write
		if wc.Raise != "" {
			what := wc.Raise
			if what != "a comparison" && what != "arithmetic" {
				what = "redis.call('" + what + "')"
			}
			out = append(out, reached(r.at(w.Pos, "%s runs before %s at line %d that raises an error when %s is not a number: the script stops half done and this write stays (scripts do not roll back); convert and check the argument first", w.Name, what, wc.Check.Line, p.describe("ARGV", wc.Args)), w.Path))
			continue
		}
		out = append(out, reached(r.at(w.Pos, "%s runs before the ARGV check at line %d: when the check rejects the call, this write stays (scripts do not roll back)", w.Name, wc.Check.Line), w.Path))
	}
	return out
}

func runNondeterministic(p *Pass, r *rule) []Diagnostic {
	// firstWrite returns the first write other than c: a random command
	// that writes (SPOP) is not, on its own, a random value stored.
	firstWrite := func(c *Call) *Call {
		for _, w := range p.Facts.Calls {
			if w != c && w.info != nil && w.info.write {
				return w
			}
		}
		return nil
	}
	var out []Diagnostic
	for _, g := range p.Facts.Randoms {
		if w := firstWrite(nil); w != nil {
			out = append(out, r.at(g.Pos, "math.random in a script that writes (%s at line %d): pass the random value in ARGV", w.Name, w.Pos.Line))
		}
	}
	for _, c := range p.Facts.Calls {
		if c.info != nil && c.info.random {
			if w := firstWrite(c); w != nil {
				out = append(out, r.at(c.Pos, "%s is not deterministic, in a script that writes (%s at line %d): pass the value in ARGV", c.Name, w.Name, w.Pos.Line))
			}
		}
	}
	return out
}
