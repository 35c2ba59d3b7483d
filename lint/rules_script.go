package lint

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/scriptctl/scriptctl/internal/lazy"
	"github.com/scriptctl/scriptctl/manifest"
)

var tokenNames = lazy.Value[map[string]string]{New: func() map[string]string {
	return map[string]string{
		"TEqeq": "'=='", "TNeq": "'~='", "TLte": "'<='", "TGte": "'>='", "T2Comma": "'..'",
		"T3Comma": "'...'", "T2Colon": "'::'", "TIdent": "a name", "TNumber": "a number", "TString": "a string",
		"$end": "end of file", "$unk": "an unknown token",
	}
}}

var tokRe = lazy.Regexp(`\$end|\$unk|T[A-Z][A-Za-z0-9]*`)

func luaTokenName(s string) string {
	if n, ok := tokenNames.Get()[s]; ok {
		return n
	}
	if strings.HasPrefix(s, "T") {
		return "'" + strings.ToLower(s[1:]) + "'"
	}
	return s
}

func runSyntax(p *Pass, r *rule) []Diagnostic {
	var out []Diagnostic
	if e := p.ParseErr; e != nil {
		line, col := e.Pos.Line, e.Pos.Column
		if line <= 0 { // at EOF
			line = len(p.lines)
			for line > 1 && strings.TrimSpace(p.lines[line-1]) == "" {
				line--
			}
			col = len(p.lines[line-1]) + 1
		} else if line <= len(p.lines) && e.Token != "" && col >= len(e.Token) {
			// The scanner reports the end of the token; point at its start.
			l := p.lines[line-1]
			if start := col - len(e.Token); start >= 0 && col <= len(l) && l[start:col] == e.Token {
				col = start + 1
			}
		}
		msg := strings.TrimSpace(e.Message)
		msg = tokRe.Get().ReplaceAllStringFunc(msg, luaTokenName)
		if e.Pos.Line <= 0 {
			msg += " at end of file (a missing 'end', ')', '}' or expression?)"
		} else if e.Token != "" {
			msg += fmt.Sprintf(" near %q", e.Token)
		}
		out = append(out, r.at(p.pos(line, col), "%s", msg))
	}
	if p.Facts != nil {
		for _, g := range p.Facts.Lua52 {
			out = append(out, r.at(g.Pos, "%s is Lua 5.2 syntax; Redis runs Lua 5.1 and rejects it", g.Name))
		}
	}
	return out
}

func runGlobalWrite(p *Pass, r *rule) []Diagnostic {
	var out []Diagnostic
	for _, g := range p.Facts.GlobalWrites {
		if strings.Contains(g.Name, ".") || strings.Contains(g.Name, "[") {
			lib := g.Name[:strings.IndexAny(g.Name, ".[")]
			out = append(out, r.at(g.Pos, "assignment to %s: the built-in table %s is read-only in Redis", g.Name, lib))
			continue
		}
		out = append(out, r.at(g.Pos, "assignment to global %s: Redis forbids globals; declare it local", g.Name))
	}
	return out
}

func runUndeclaredGlobal(p *Pass, r *rule) []Diagnostic {
	var out []Diagnostic
	names := slices.Sorted(func(yield func(string) bool) {
		for n := range redisGlobals.Get() {
			if !strings.HasPrefix(n, "__") && !yield(n) {
				return
			}
		}
	})
	written := map[string]bool{}
	for _, g := range p.Facts.GlobalWrites {
		written[g.Name] = true // reported by global-write
	}
	for _, g := range p.Facts.GlobalReads {
		if written[g.Name] {
			continue
		}
		if g.Name == "server" {
			if p.Decl != nil {
				continue // target-command judges it against the manifest's targets
			}
			if lacking := targetsWithoutServerGlobal(p.Decl); len(lacking) > 0 {
				out = append(out, r.at(g.Pos, "server is Valkey 8's alias of redis: it does not exist on %s; use redis", strings.Join(lacking, ", ")))
			}
			continue
		}
		if why, ok := missingGlobals.Get()[g.Name]; ok {
			out = append(out, r.at(g.Pos, "%s", why))
			continue
		}
		msg := fmt.Sprintf("%s is not defined: Redis raises \"Script attempted to access nonexistent global variable '%s'\"", g.Name, g.Name)
		if s := suggest(g.Name, names); s != "" {
			msg += fmt.Sprintf(" (did you mean %s?)", s)
		}
		out = append(out, r.at(g.Pos, "%s", msg))
	}
	for _, g := range p.Facts.BadFields {
		if written[g.Name] {
			continue
		}
		lib, field, _ := strings.Cut(g.Name, ".")
		msg := fmt.Sprintf("%s is not defined: %s has no field %s", g.Name, lib, field)
		if s := suggest(field, slices.Sorted(func(yield func(string) bool) {
			for n := range libFields.Get()[lib] {
				if !yield(n) {
					return
				}
			}
		})); s != "" {
			msg += fmt.Sprintf(" (did you mean %s.%s?)", lib, s)
		}
		out = append(out, r.at(g.Pos, "%s", msg))
	}
	return out
}

func runShebang(p *Pass, r *rule) []Diagnostic {
	at := p.pos(1, 1)
	if p.ShebangErr != nil {
		return []Diagnostic{r.at(at, "%v", p.ShebangErr)}
	}
	var out []Diagnostic
	for _, f := range p.Shebang {
		if !slices.Contains(manifest.ScriptFlags, f) {
			out = append(out, r.at(at, "unknown shebang flag %q: want one of %s", f, strings.Join(manifest.ScriptFlags, ", ")))
		}
	}
	if p.Decl == nil {
		return out
	}
	want, got := set(p.Decl.Flags), set(p.Shebang)
	switch {
	case !p.HasShebang && len(want) > 0 && !p.Decl.FunctionsOnly:
		// Deployed for EVAL/EVALSHA too (manifest deploy: both or
		// scripts): only a shebang carries the flags there.
		out = append(out, r.at(at, "the manifest declares flags [%s] for %s but the script has no shebang, and the manifest deploys it for EVAL/EVALSHA too (deploy: both or scripts), which run it without them; add '#!lua flags=%s', or set deploy: functions", strings.Join(want, " "), p.Decl.Script, strings.Join(want, ",")))
	case p.HasShebang && !slices.Equal(want, got):
		out = append(out, r.at(at, "shebang flags [%s] differ from the manifest's flags [%s] for %s", strings.Join(got, " "), strings.Join(want, " "), p.Decl.Script))
	}
	return out
}

func set(list []string) []string {
	out := slices.Clone(list)
	sort.Strings(out)
	out = slices.Compact(out)
	return slices.DeleteFunc(out, func(s string) bool { return s == "" })
}

// otherCommandsCode says whether code is one other commands honour in a scriptctl:ignore
// comment: lint accepts them as known and leaves them to those commands
// (scriptctl mutate skips the mutants of a line marked mutant-survived).
func otherCommandsCode(code string) bool { return code == "mutant-survived" }

func runBadSuppression(p *Pass, r *rule) []Diagnostic {
	var out []Diagnostic
	for _, s := range p.supps {
		at := p.pos(s.line, 1)
		at.Col = s.col
		switch {
		case s.code == "":
			out = append(out, r.at(at, "scriptctl:ignore needs a rule code and a reason: -- scriptctl:ignore <code> <reason>"))
		case byCode[s.code] == nil && !otherCommandsCode(s.code):
			out = append(out, r.at(at, "scriptctl:ignore names unknown rule %q", s.code))
		case s.reason == "":
			out = append(out, r.at(at, "scriptctl:ignore %s has no reason: say why the finding is acceptable", s.code))
		}
	}
	return out
}

func runReplyContractMissing(p *Pass, r *rule) []Diagnostic {
	if p.Decl == nil || p.Decl.HasReply || len(p.Decl.Callers) == 0 {
		return nil
	}
	return []Diagnostic{r.at(p.pos(1, 1), "script %s has callers (%s) and no reply contract: add reply: to its manifest entry", p.Decl.Script, strings.Join(p.Decl.Callers, ", "))}
}
