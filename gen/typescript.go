package gen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/scriptctl/scriptctl/contract"
	"github.com/scriptctl/scriptctl/manifest"
)

// tsGen writes one TypeScript binding.
type tsGen struct {
	m     *manifest.Manifest
	decls bytes.Buffer
	errs  map[string]string // declared error prefix -> constant name
	order []string
	decs  map[string]string // decoder body -> name
	n     int
}

func generateTS(m *manifest.Manifest, sum *manifest.Sum) ([]File, error) {
	g := &tsGen{m: m, errs: map[string]string{}, decs: map[string]string{}}
	shas := map[string]string{}
	for _, e := range sum.Version(m.Version) {
		shas[e.Script] = e.SHA
	}
	var scripts, methods, callers bytes.Buffer
	for _, s := range m.Scripts {
		g.script(&scripts, &methods, s, shas[s.Name])
	}
	for _, c := range m.Callers {
		g.caller(&methods, &callers, c)
	}
	mode := "scripts"
	if m.Deploy == manifest.DeployFunctions {
		mode = "functions"
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "// %s\n//\n// Calls the scripts of library %s, version %d. See docs/bindings.md of scriptctl.\n/* eslint-disable */\n", Header(m), m.Library, m.Version)
	b.WriteString(tsRuntime)
	b.WriteString("\n")
	fmt.Fprintf(&b, "export const LIBRARY = %q;\nexport const VERSION = %d;\n/** How a Client calls the scripts unless told otherwise: the manifest says deploy: %s. */\nexport const DEFAULT_MODE: Mode = %q;\n\n", m.Library, m.Version, m.Deploy, mode)
	if len(g.order) > 0 {
		b.WriteString("// The error replies the scripts' contracts declare: err.declared === ErrX.\n")
		for _, p := range g.order {
			fmt.Fprintf(&b, "export const %s = new DeclaredError(%s);\n", g.errs[p], jsString(p))
		}
		b.WriteString("\n")
	}
	b.Write(scripts.Bytes())
	b.Write(g.decls.Bytes())
	b.WriteString("/** Calls the library's scripts over a Conn. */\nexport class Client {\n  private readonly core: Core;\n\n  constructor(conn: Conn, opts: { mode?: Mode } = {}) {\n    this.core = new Core(conn, opts.mode ?? DEFAULT_MODE);\n  }\n")
	b.Write(methods.Bytes())
	b.WriteString("}\n\n")
	b.Write(callers.Bytes())
	return []File{{Name: GoPackage(m.Library) + ".ts", Data: b.Bytes()}}, nil
}

func jsString(s string) string {
	out, _ := json.Marshal(s)
	return string(out)
}

func (g *tsGen) script(w, methods *bytes.Buffer, s *manifest.Script, sha string) {
	n := camel(s.Name)
	fmt.Fprintf(w, "/** The keys of script %s, in KEYS order. */\nexport interface %sKeys {\n", s.Name, n)
	for _, k := range s.Keys {
		fmt.Fprintf(w, "  %s: string;\n", tsField(k))
	}
	fmt.Fprintf(w, "}\n\n/** The arguments of script %s, in ARGV order. */\nexport interface %sArgs {\n", s.Name, n)
	for _, a := range s.Args {
		fmt.Fprintf(w, "  %s: string;\n", tsField(a))
	}
	w.WriteString("}\n\n")
	fmt.Fprintf(w, "/** The SHA1 of script %s as released in version %d (scripts.sum). */\nexport const %sSHA1 = %q;\n\n", s.Name, g.m.Version, n, sha)
	fmt.Fprintf(w, "const script%s: Script = {\n  name: %q,\n  sha: %sSHA1,\n  fn: %q,\n  readOnly: %v,\n  idempotent: %v,\n  anySlot: %v,\n  body: %s,\n};\n\n",
		n, s.Name, n, g.m.FunctionName(s.Name), s.HasFlag("no-writes"), s.Idempotent, s.HasFlag("no-cluster"), jsString(string(s.Source)))
	var errVars []string
	var succ *contract.Type
	if s.Reply != nil {
		for _, e := range s.Reply.Errors() {
			if e.Str == "" {
				continue
			}
			v, ok := g.errs[e.Str]
			if !ok {
				v = "Err" + errName(e)
				g.errs[e.Str] = v
				g.order = append(g.order, e.Str)
			}
			errVars = append(errVars, v)
		}
		succ = s.Reply.Success()
	}
	typ, dec := "Reply", "decodeAny"
	doc := "Its reply has no contract in the manifest: it is returned as is."
	if s.Reply != nil {
		doc = "Its reply contract: " + s.Reply.String()
		if succ != nil {
			typ, dec = g.tsType(succ, n+"Reply", n)
			fmt.Fprintf(&g.decls, "export type %sReply = %s;\n\n", n, typ)
			typ = n + "Reply"
		} else {
			typ = "void"
		}
	}
	keys := make([]string, len(s.Keys))
	for i, k := range s.Keys {
		keys[i] = "keys." + tsField(k)
	}
	args := make([]string, len(s.Args))
	for i, a := range s.Args {
		args[i] = "args." + tsField(a)
	}
	fmt.Fprintf(methods, "\n  /** Calls script %s (%s). %s */\n  async %s(keys: %sKeys, args: %sArgs): Promise<%s> {\n", s.Name, s.File, strings.ReplaceAll(doc, "*/", "* /"), lower(n), n, n, typ)
	fmt.Fprintf(methods, "    const v = await this.core.call(script%s, [%s], [%s], [%s]);\n", n, strings.Join(keys, ", "), strings.Join(args, ", "), strings.Join(errVars, ", "))
	if typ == "void" {
		methods.WriteString("    void v;\n  }\n")
		return
	}
	fmt.Fprintf(methods, "    return decode(script%s, v, %s);\n  }\n", n, dec)
}

func lower(s string) string { return strings.ToLower(s[:1]) + s[1:] }

// tsField is a key's or argument's property name.
func tsField(name string) string {
	c := camel(name)
	if strings.HasPrefix(c, "X") && len(name) > 0 && name[0] >= '0' && name[0] <= '9' {
		return "_" + name
	}
	words := strings.FieldsFunc(name, func(r rune) bool { return r == '_' || r == '-' })
	if up, ok := initialisms[strings.ToLower(words[0])]; ok {
		return strings.ToLower(up) + c[len(up):]
	}
	return lower(c)
}

var tsReserved = map[string]bool{"break": true, "case": true, "catch": true, "class": true, "const": true, "continue": true, "debugger": true, "default": true, "delete": true, "do": true, "else": true, "enum": true, "export": true, "extends": true, "false": true, "finally": true, "for": true, "function": true, "if": true, "import": true, "in": true, "instanceof": true, "new": true, "null": true, "return": true, "super": true, "switch": true, "this": true, "throw": true, "true": true, "try": true, "typeof": true, "var": true, "void": true, "while": true, "with": true, "let": true, "static": true, "yield": true, "await": true, "args": true}

func tsParam(name string) string {
	p := tsField(name)
	if tsReserved[p] {
		p += "_"
	}
	return p
}

// decoder declares a decoder function returning typ with body, sharing
// equal ones.
func (g *tsGen) decoder(typ, body string) string {
	key := typ + "\n" + body
	if n, ok := g.decs[key]; ok {
		return n
	}
	g.n++
	n := fmt.Sprintf("decode%d", g.n)
	g.decs[key] = n
	fmt.Fprintf(&g.decls, "function %s(v: Reply, path: string): %s {\n%s}\n\n", n, typ, body)
	return n
}

func tsLiteral(t *contract.Type) string {
	switch t.Kind {
	case contract.IntLit:
		return strconv.FormatInt(t.Int, 10)
	case contract.Nil:
		return "null"
	}
	return jsString(t.Str)
}

// tsType returns the TypeScript type of t and its decoder's name.
func (g *tsGen) tsType(t *contract.Type, name, prefix string) (string, string) {
	switch t.Kind {
	case contract.Integer:
		return "number", "decodeInteger"
	case contract.String, contract.Status:
		return "string", "decodeString"
	case contract.Boolean:
		return "boolean", "decodeBoolean"
	case contract.Double:
		return "number", "decodeDouble"
	case contract.Any:
		return "Reply", "decodeAny"
	case contract.IntLit, contract.StrLit, contract.StatLit, contract.Nil:
		lit := tsLiteral(t)
		return lit, g.decoder(lit, fmt.Sprintf("  expect(v, path, %s);\n  return %s;\n", lit, lit))
	case contract.Array:
		et, ed := g.tsType(t.Elem, name+"Elem", prefix)
		typ := "Array<" + et + ">"
		return typ, g.decoder(typ, fmt.Sprintf("  return arrayOf(v, path, -1, %s).map((e, i) => %s(e, path + \"[\" + i + \"]\"));\n", jsString(t.Plain()), ed))
	case contract.Tuple:
		return g.tuple(t, name, prefix, "")
	case contract.Union:
		return g.union(t, name, prefix)
	}
	return "Reply", "decodeAny"
}

// tuple declares an interface for tuple t; kind, when set, is the
// discriminant of a tagged union.
func (g *tsGen) tuple(t *contract.Type, name, prefix, kind string) (string, string) {
	var fields, body bytes.Buffer
	fmt.Fprintf(&body, "  const a = arrayOf(v, path, %d, %s);\n", len(t.Elems), jsString(t.Plain()))
	var build []string
	if kind != "" {
		fmt.Fprintf(&fields, "  kind: %s;\n", jsString(kind))
		build = append(build, "kind: "+jsString(kind))
	}
	used := map[string]bool{"kind": kind != ""}
	for i, e := range t.Elems {
		at := fmt.Sprintf("path + \"[%d]\"", i)
		if isLiteral(e) {
			fmt.Fprintf(&body, "  expect(a[%d], %s, %s);\n", i, at, tsLiteral(e))
			continue
		}
		f := fmt.Sprintf("e%d", i)
		if e.Label != "" {
			f = tsField(e.Label)
		}
		if used[f] {
			f = fmt.Sprintf("%sE%d", f, i)
		}
		used[f] = true
		et, ed := g.tsType(e, name+camel(f), prefix)
		fmt.Fprintf(&fields, "  /** reply[%d]: %s */\n  %s: %s;\n", i, e.Plain(), f, et)
		build = append(build, fmt.Sprintf("%s: %s(a[%d], %s)", f, ed, i, at))
	}
	fmt.Fprintf(&body, "  return { %s };\n", strings.Join(build, ", "))
	fmt.Fprintf(&g.decls, "/** The reply %s. */\nexport interface %s {\n%s}\n\n", t.Plain(), name, fields.String())
	dec := "decode" + name
	fmt.Fprintf(&g.decls, "function %s(v: Reply, path: string): %s {\n%s}\n\n", dec, name, body.String())
	return name, dec
}

func (g *tsGen) union(t *contract.Type, name, prefix string) (string, string) {
	alts := t.Alts
	if len(alts) == 2 && (alts[0].Kind == contract.Nil) != (alts[1].Kind == contract.Nil) {
		other := alts[0]
		if other.Kind == contract.Nil {
			other = alts[1]
		}
		et, ed := g.tsType(other, name, prefix)
		typ := et + " | null"
		return typ, g.decoder(typ, fmt.Sprintf("  return v === null ? null : %s(v, path);\n", ed))
	}
	all := func(k contract.Kind) bool {
		for _, a := range alts {
			if a.Kind != k {
				return false
			}
		}
		return true
	}
	if all(contract.IntLit) || all(contract.StrLit) {
		lits := make([]string, len(alts))
		var names []string
		for i, a := range alts {
			lits[i] = tsLiteral(a)
			n := ""
			switch {
			case a.Label != "":
				n = camel(a.Label)
			case a.Kind == contract.IntLit:
				n = "V" + intName(a.Int)
			default:
				n = literalName(a.Str)
			}
			names = append(names, fmt.Sprintf("%s: %s", n, lits[i]))
		}
		typ := strings.Join(lits, " | ")
		fmt.Fprintf(&g.decls, "/** The values of the reply %s. */\nexport const %s = { %s } as const;\n\n", t.Plain(), name, strings.Join(names, ", "))
		return typ, g.decoder(typ, fmt.Sprintf("  for (const x of [%s] as const) if (v === x) return x;\n  throw new Mismatch(path, %s);\n", strings.Join(lits, ", "), jsString(t.Plain())))
	}
	if tags, ok := tagged(alts); ok {
		var types []string
		var body bytes.Buffer
		body.WriteString("  if (Array.isArray(v) && v.length > 0) {\n")
		for i, a := range alts {
			kind := tags[i][1:]
			if a.Label != "" {
				kind = a.Label
			}
			vn := variantNames(alts, tags, prefix)[i]
			vt, vd := g.tuple(a, vn, vn, kind)
			types = append(types, vt)
			fmt.Fprintf(&body, "    if (v[0] === %s) return %s(v, path);\n", tsLiteral(a.Elems[0]), vd)
		}
		fmt.Fprintf(&body, "  }\n  throw new Mismatch(path, %s);\n", jsString(t.Plain()))
		typ := strings.Join(types, " | ")
		return typ, g.decoder(typ, body.String())
	}
	var body bytes.Buffer
	for i, a := range alts {
		_, ad := g.tsType(a, fmt.Sprintf("%sAlt%d", name, i+1), prefix)
		fmt.Fprintf(&body, "  try {\n    %s(v, path);\n    return v;\n  } catch {}\n", ad)
	}
	fmt.Fprintf(&body, "  throw new Mismatch(path, %s);\n", jsString(t.Plain()))
	return "Reply", g.decoder("Reply", body.String())
}

func (g *tsGen) caller(methods, w *bytes.Buffer, c *manifest.Caller) {
	n := camel(c.Name)
	var params []string
	seen := map[string]bool{}
	for _, k := range c.Keys {
		for _, seg := range templateSegments(k.Template) {
			if seg.placeholder && !seen[seg.text] {
				seen[seg.text] = true
				params = append(params, seg.text)
			}
		}
	}
	sig := make([]string, len(params))
	pass := make([]string, len(params))
	fields := make([]string, len(params))
	for i, p := range params {
		sig[i] = tsParam(p) + ": string"
		pass[i] = tsParam(p)
		fields[i] = "private readonly " + tsParam(p) + ": string"
	}
	fmt.Fprintf(methods, "\n  /** Caller %s's scripts, with its keys built from %s. */\n  for%s(%s): %sCaller {\n    return new %sCaller(%s);\n  }\n", c.Name, strings.Join(params, ", "), n, strings.Join(sig, ", "), n, n, strings.Join(append([]string{"this"}, pass...), ", "))
	fmt.Fprintf(w, "/** Calls the scripts of caller %s with its key templates. */\nexport class %sCaller {\n  constructor(private readonly c: Client%s) {}\n", c.Name, n, prefixJoin(", ", fields))
	for _, sn := range c.Scripts {
		s := g.m.Script(sn)
		if s == nil {
			continue
		}
		sname := camel(s.Name)
		var keys []string
		for _, k := range s.Keys {
			tmpl, _ := c.Template(k)
			var parts []string
			for _, seg := range templateSegments(tmpl) {
				if seg.placeholder {
					parts = append(parts, "this."+tsParam(seg.text))
				} else {
					parts = append(parts, jsString(seg.text))
				}
			}
			if len(parts) == 0 {
				parts = []string{`""`}
			}
			keys = append(keys, tsField(k)+": "+strings.Join(parts, " + "))
		}
		fmt.Fprintf(w, "\n  /** Calls script %s with caller %s's keys. */\n  %s(args: %sArgs) {\n    return this.c.%s({ %s }, args);\n  }\n", s.Name, c.Name, lower(sname), sname, lower(sname), strings.Join(keys, ", "))
	}
	w.WriteString("}\n\n")
}

func prefixJoin(sep string, items []string) string {
	if len(items) == 0 {
		return ""
	}
	return sep + strings.Join(items, sep)
}
