package lint

import (
	"fmt"
	"strings"
)

// undeclaredAdvice ends every dynamic-key message, in the words of the
// offline run's undeclared-key finding about the same line
// (verify.Finding.Message).
const undeclaredAdvice = "on a cluster node it must hash to the declared keys' slot, and proxies that demand declared keys refuse it; pass it in KEYS"

func runDynamicKey(p *Pass, r *rule) []Diagnostic {
	var out []Diagnostic
	for _, c := range p.Facts.Calls {
		if c.info == nil || c.info.forbidden != "" || (c.info.streams && c.Open) {
			continue
		}
		for _, i := range c.keyArgs() {
			a := c.Args[i-1]
			v := a.V
			if c.Open && i == len(c.Args) && c.info.interleaved() && v.O&FromKeys != 0 {
				// unpack(kv) spreads over key and value positions (MSET
				// k1 v1 k2 v2): its elements are not all keys.
				continue
			}
			var why string
			switch {
			case v.O&FromArgv != 0 && v.O&FromBuilt != 0:
				why = "is built by " + v.How + " from " + p.describe("ARGV", v.Args)
			case v.O&FromArgv != 0:
				why = "comes from " + p.describe("ARGV", v.Args)
			case v.O&FromReply != 0 && v.O&FromBuilt == 0:
				why = "is read from a reply"
			case v.O&FromBuilt != 0:
				why = "is built by " + v.How
				var from []string
				if v.Keys != 0 {
					from = append(from, p.describe("KEYS", v.Keys))
				}
				if v.O&FromReply != 0 {
					from = append(from, "a reply")
				}
				if len(from) > 0 {
					why += " from " + strings.Join(from, " and ")
				}
			case v.O&FromLiteral != 0 && v.IsLit && v.O == FromLiteral:
				why = fmt.Sprintf("is the literal %q", v.Lit)
			case v.O&FromLiteral != 0:
				why = "may be a constant"
				if v.How != "" {
					why = "may be " + v.How
				}
			default:
				continue
			}
			if c.outside(v.at) {
				// The cause is the caller's argument: report it there.
				d := reached(r.at(v.at, "this value %s and reaches key argument %d of %s at line %d, not KEYS[n]: %s", why, i, c.label(), a.Pos.Line, undeclaredAdvice), c.Path)
				d.also = a.Pos // an ignore comment left at the helper's argument still counts
				out = append(out, d)
				continue
			}
			out = append(out, reached(r.at(a.Pos, "key argument %d of %s %s, not KEYS[n]: %s", i, c.label(), why, undeclaredAdvice), c.Path))
		}
	}
	return out
}

func runIndexRange(table string) func(*Pass, *rule) []Diagnostic {
	return func(p *Pass, r *rule) []Diagnostic {
		refs, declared, what := p.Facts.KeyRefs, len(p.Decl.Keys), "keys"
		if table == "ARGV" {
			refs, declared, what = p.Facts.ArgRefs, len(p.Decl.Args), "args"
		}
		var out []Diagnostic
		for _, ref := range refs {
			switch {
			case ref.N == -1:
			case ref.N < 1:
				out = append(out, r.at(ref.Pos, "%s[%d] is always nil: Lua tables start at 1", table, ref.N))
			case ref.N > declared:
				out = append(out, r.at(ref.Pos, "%s[%d] is beyond the %d %s the manifest declares for %s; it is always nil", table, ref.N, declared, what, p.Decl.Script))
			}
		}
		return out
	}
}

func runUnused(table string) func(*Pass, *rule) []Diagnostic {
	return func(p *Pass, r *rule) []Diagnostic {
		refs, all, names := p.Facts.KeyRefs, p.Facts.AllKeys, p.Decl.Keys
		if table == "ARGV" {
			refs, all, names = p.Facts.ArgRefs, p.Facts.AllArgs, p.Decl.Args
		}
		if all {
			return nil
		}
		used := map[int]bool{}
		for _, ref := range refs {
			used[ref.N] = true
		}
		var out []Diagnostic
		for i, n := range names {
			if !used[i+1] {
				out = append(out, r.at(p.pos(1, 1), "%s[%d] (%s) is declared in the manifest for %s but the script never reads it", table, i+1, n, p.Decl.Script))
			}
		}
		return out
	}
}

func runKeyAlias(p *Pass, r *rule) []Diagnostic {
	var out []Diagnostic
	touches := false
	for _, c := range p.Facts.Calls {
		if c.info == nil || c.info.forbidden != "" {
			continue
		}
		for _, i := range c.keyArgs() {
			touches = true
			if a := c.Args[i-1]; !a.Direct {
				out = append(out, reached(r.at(a.Pos, "this key argument is not written KEYS[i]: proxies that check scripts reject it; write KEYS[i] there"), c.Path))
			}
		}
	}
	if touches && p.Decl != nil && len(p.Decl.Keys) == 0 {
		out = append(out, r.at(p.pos(1, 1), "the script touches keys but the manifest declares none for %s, so it is called with numkeys 0: proxies that check scripts reject it; declare the keys", p.Decl.Script))
	}
	return out
}
