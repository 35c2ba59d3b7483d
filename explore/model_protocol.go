package explore

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/scriptctl/scriptctl/internal/yamlnode"
	"github.com/scriptctl/scriptctl/manifest"
)

var roleFields = []string{"script", "file", "keys", "args", "do", "owned", "accepted", "save", "ttl_arg", "ends_leases"}

func (p *parser) protocol(n *yaml.Node, caller *manifest.Caller) {
	for _, kv := range p.pairs(n, "protocol") {
		name := yamlnode.Deref(kv[0]).Value
		path := "protocol." + name
		if !slices.Contains(roleNames, name) {
			p.errorf(kv[0], path, "unknown role %q: want one of %s", name, strings.Join(roleNames, ", "))
			continue
		}
		f := p.fields(kv[1], path, roleFields)
		r := &Role{Name: name, Save: map[string]int{}}
		p.md.Roles[name] = r
		var manifestArgs []string
		switch {
		case f["do"] != nil:
			if name != "invalidate" {
				p.errorf(f["do"], path+".do", "only invalidate may be a raw command")
			}
			if f["script"] != nil || f["file"] != nil {
				p.errorf(f["do"], path+".do", "give one of script, file and do")
			}
			r.Do, _ = p.strList(f["do"], path+".do")
			if len(r.Do) == 0 {
				p.errorf(f["do"], path+".do", "must name a command")
			}
			for i, a := range r.Do {
				p.refs = append(p.refs, ref{n: f["do"], field: fmt.Sprintf("%s.do[%d]", path, i), text: a})
			}
		case f["script"] != nil && f["file"] != nil:
			p.errorf(f["file"], path+".file", "give one of script and file")
		case f["script"] != nil:
			s, ok := p.str(f["script"], path+".script")
			if !ok {
				break
			}
			r.Script = s
			var sc *manifest.Script
			for _, x := range p.man.Scripts {
				if x.Name == s {
					sc = x
				}
			}
			if sc == nil {
				p.errorf(f["script"], path+".script", "the manifest has no script %q", s)
				break
			}
			r.Src, r.Keys, manifestArgs = sc.Source, sc.Keys, sc.Args
			r.Reply = sc.Reply
			if f["keys"] != nil {
				p.errorf(f["keys"], path+".keys", "a manifest script's keys come from the manifest")
			}
		case f["file"] != nil:
			file, ok := p.str(f["file"], path+".file")
			if !ok {
				break
			}
			r.Script = file
			// The script must stay inside the manifest's folder, links
			// followed: checked before anything is opened.
			full, err := manifest.InsideFrom(p.man.Dir, p.file, file)
			if err != nil {
				p.errorf(f["file"], path+".file", "%v", err)
				break
			}
			src, err := manifest.ReadScriptFile(full)
			if err != nil {
				p.errorf(f["file"], path+".file", "cannot read %s: %v", file, err)
			}
			r.Src = src
			if f["keys"] == nil {
				p.errorf(f["file"], path+".keys", "missing: the caller key names of the file's KEYS")
			} else {
				r.Keys, _ = p.strList(f["keys"], path+".keys")
			}
		default:
			p.errorf(kv[0], path, "missing: script, file or do")
		}
		if caller != nil {
			for i, k := range r.Keys {
				if _, ok := p.md.Keys[k]; !ok {
					p.errorf(orNode(f["keys"], f["script"]), fmt.Sprintf("%s.keys[%d]", path, i), "caller %s has no key template %q", caller.Name, k)
				}
			}
		}
		if a := f["args"]; a != nil {
			if r.Do != nil {
				p.errorf(a, path+".args", "a raw command takes no args")
			}
			for _, akv := range p.pairs(a, path+".args") {
				an := yamlnode.Deref(akv[0]).Value
				v, ok := p.str(akv[1], path+".args."+an)
				if ok {
					p.refs = append(p.refs, ref{n: akv[1], field: path + ".args." + an, text: v})
				}
				if manifestArgs != nil && !slices.Contains(manifestArgs, an) {
					p.errorf(akv[0], path+".args."+an, "script %s has no arg %q: want %s", r.Script, an, strings.Join(manifestArgs, ", "))
				}
				r.Args = append(r.Args, Arg{Name: an, Value: v})
			}
		}
		if manifestArgs != nil {
			// a manifest script's args are sent in the manifest's order
			var ordered []Arg
			for _, an := range manifestArgs {
				i := slices.IndexFunc(r.Args, func(a Arg) bool { return a.Name == an })
				if i < 0 {
					p.errorf(orNode(f["args"], kv[0]), path+".args."+an, "missing: script %s takes %s", r.Script, strings.Join(manifestArgs, ", "))
					continue
				}
				ordered = append(ordered, r.Args[i])
			}
			if src, ok := p.md.Control[r.Script]; ok {
				r.Src = src
			}
			r.Args = ordered
		} else if r.Do == nil && f["args"] == nil && r.Src != nil {
			p.errorf(kv[0], path+".args", "missing: the file's ARGV, as name: template")
		}
		if v := f["owned"]; v != nil {
			if name != "acquire" && name != "renew" {
				p.errorf(v, path+".owned", "only acquire and renew own a lease")
			}
			r.Owned, _ = p.str(v, path+".owned")
		} else if name == "acquire" || name == "renew" {
			p.errorf(kv[0], path+".owned", "missing: the reply head that means the lease is owned")
		}
		if v := f["accepted"]; v != nil {
			if name != "publish" {
				p.errorf(v, path+".accepted", "only publish accepts a candidate")
			}
			r.Accepted, _ = p.str(v, path+".accepted")
		} else if name == "publish" {
			p.errorf(kv[0], path+".accepted", "missing: the reply head that means the candidate was accepted")
		}
		if v := f["ttl_arg"]; v != nil {
			r.TTLArg, _ = p.str(v, path+".ttl_arg")
			if !slices.ContainsFunc(r.Args, func(a Arg) bool { return a.Name == r.TTLArg }) {
				p.errorf(v, path+".ttl_arg", "no arg %q", r.TTLArg)
			}
		} else if name == "acquire" || name == "renew" {
			p.errorf(kv[0], path+".ttl_arg", "missing: the arg that holds the lease TTL in ms")
		}
		if v := f["save"]; v != nil {
			for _, skv := range p.pairs(v, path+".save") {
				sn := yamlnode.Deref(skv[0]).Value
				if !regName.Get().MatchString(sn) || slices.Contains(reserved, sn) {
					p.errorf(skv[0], path+".save."+sn, "register names are [a-z][a-z0-9_]* and not one of %s", strings.Join(reserved, ", "))
					continue
				}
				i, ok := p.posInt(skv[1], path+".save."+sn, 1000)
				if ok {
					r.Save[sn] = int(i)
					if !slices.Contains(p.md.regs, sn) {
						p.md.regs = append(p.md.regs, sn)
					}
				}
			}
		}
		if v := f["ends_leases"]; v != nil {
			b := yamlnode.Deref(v)
			if b.Kind != yaml.ScalarNode || b.Tag != "!!bool" {
				p.errorf(v, path+".ends_leases", "must be true or false, not %s", yamlnode.Describe(v))
			} else if name != "invalidate" {
				p.errorf(v, path+".ends_leases", "only invalidate ends leases")
			} else {
				r.EndsLeases = b.Value == "true"
			}
		}
	}
	sort.Strings(p.md.regs)
}

// checkRole reports a role step whose role the protocol does not declare.
func (p *parser) checkRole(n *yaml.Node, field, kind string) {
	if slices.Contains(roleNames, kind) && p.md.Roles[kind] == nil {
		p.errorf(n, field, "step %s needs protocol.%s", kind, kind)
	}
}
