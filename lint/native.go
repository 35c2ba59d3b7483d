package lint

import (
	"fmt"
	"strings"

	"github.com/yuin/gopher-lua/ast"

	"github.com/scriptctl/scriptctl/internal/cmdtable"
	"github.com/scriptctl/scriptctl/internal/lazy"
	"github.com/scriptctl/scriptctl/internal/target"
)

// The native-alternative rule: a script whose whole effect is one
// conditional command a newer server has natively. It recognises the
// token-safe shapes only:
//
//	if redis.call('GET', K) == T then <effect> end return 0
//	if redis.call('GET', K) ~= T then return 0 end <effect>
//
// where K is a KEYS element and T an ARGV element (directly or through a
// local), after any number of argument checks that only return an error
// reply, and <effect> is one of
//
//	DEL K                 -> DELIFEQ K T
//	PEXPIRE|EXPIRE K ttl  -> SET K T IFEQ T PX|EX ttl
//	SET K V [PX|EX ttl]   -> SET K V IFEQ T [PX|EX ttl]
//
// followed by a return of 1 (or of the call's own reply).

// nativeForm is one native alternative: the command's name as the
// targets' data knows it, and whether a target has it.
type nativeForm struct {
	name string // "DELIFEQ", "SET ... IFEQ"
	has  func(targetName string) bool
}

// nativeForms are the alternatives, keyed by the shape's effect. Which
// target has them is data: DELIFEQ is in a target's recorded command
// table (Valkey 9's), SET's IFEQ option in targetOptions; a target added
// with that data lights the rule up without a change here.
var nativeForms = lazy.Value[map[string]nativeForm]{New: func() map[string]nativeForm {
	return map[string]nativeForm{
		"delete": {name: "DELIFEQ", has: func(name string) bool {
			tb, err := cmdtable.Load(name)
			if err != nil {
				return false
			}
			_, ok := tb.Command("DELIFEQ")
			return ok
		}},
		"set": {name: "SET ... IFEQ", has: func(name string) bool { return targetHasOption(name, "SET", "IFEQ") }},
	}
}}

// targetHasOption reports whether the target called name has option opt
// of cmd, by targetOptions.
func targetHasOption(name, cmd, opt string) bool {
	t, ok := target.Lookup(name)
	if !ok {
		return false
	}
	for _, o := range targetOptions {
		if o.cmd == cmd && o.opt == opt {
			return o.has(t)
		}
	}
	return false
}

func runNativeAlternative(p *Pass, r *rule) []Diagnostic {
	if p.Decl == nil || len(p.Decl.Targets) == 0 || len(p.Chunk) == 0 {
		return nil
	}
	m := nativeMatch(p.Chunk)
	if m == nil {
		return nil
	}
	form := nativeForms.Get()[m.kind]
	for _, t := range p.Decl.Targets {
		if !form.has(t) {
			return nil
		}
	}
	msg := fmt.Sprintf("the whole effect of this script is one native command on every target (%s): %s", strings.Join(p.Decl.Targets, ", "), m.command)
	if m.checks {
		msg += " (the script's argument checks aside)"
	}
	msg += "; " + m.reply + ". Call it instead and the script need not be deployed"
	return []Diagnostic{r.at(p.pos(m.line, 1), "%s", msg)}
}

// nativeShape is a recognised script.
type nativeShape struct {
	kind    string // key of nativeForms
	command string // the native command, written with the script's KEYS and ARGV
	reply   string // how its reply differs from the script's
	line    int    // the line of the GET comparison
	checks  bool   // argument checks precede it
}

// nativeMatch recognises the token-safe shapes in a chunk; nil when the
// chunk is anything else.
func nativeMatch(stmts []ast.Stmt) *nativeShape {
	locals := map[string]string{} // local name -> "KEYS[1]" / "ARGV[2]"
	ref := func(e ast.Expr) string {
		switch x := e.(type) {
		case *ast.IdentExpr:
			return locals[x.Value]
		case *ast.AttrGetExpr:
			return indexRef(x)
		}
		return ""
	}
	checks := false
	i := 0
	for ; i < len(stmts); i++ {
		switch s := stmts[i].(type) {
		case *ast.LocalAssignStmt:
			if len(s.Names) != len(s.Exprs) {
				return nil
			}
			for j, n := range s.Names {
				v := indexRef(s.Exprs[j])
				if v == "" {
					return nil
				}
				locals[n] = v
			}
			continue
		case *ast.IfStmt:
			if len(s.Else) == 0 && len(s.Then) == 1 && returnsError(s.Then[0]) {
				checks = true
				continue
			}
		}
		break
	}
	rest := stmts[i:]
	if len(rest) == 0 {
		return nil
	}
	ifs, ok := rest[0].(*ast.IfStmt)
	if !ok {
		return nil
	}
	op, key, tok := getCompare(ifs.Condition, ref)
	if key == "" || tok == "" || !strings.HasPrefix(key, "KEYS[") || !strings.HasPrefix(tok, "ARGV[") {
		return nil
	}
	var body []ast.Stmt
	switch {
	case op == "==" && len(rest) == 2 && len(ifs.Else) == 0 && returnsZero(rest[1]):
		body = ifs.Then
	case op == "==" && len(rest) == 1 && len(ifs.Else) == 1 && returnsZero(ifs.Else[0]):
		body = ifs.Then
	case op == "~=" && len(ifs.Else) == 0 && len(ifs.Then) == 1 && returnsZero(ifs.Then[0]):
		body = rest[1:]
	default:
		return nil
	}
	shape := effect(body, key, tok, ref)
	if shape == nil {
		return nil
	}
	shape.line, shape.checks = ifs.Line(), checks
	return shape
}

// indexRef is "KEYS[1]" or "ARGV[2]" for such an index expression.
func indexRef(e ast.Expr) string {
	a, ok := e.(*ast.AttrGetExpr)
	if !ok {
		return ""
	}
	id, ok := a.Object.(*ast.IdentExpr)
	if !ok || id.Value != "KEYS" && id.Value != "ARGV" {
		return ""
	}
	n, ok := a.Key.(*ast.NumberExpr)
	if !ok {
		return ""
	}
	return id.Value + "[" + n.Value + "]"
}

// redisCall returns the upper-case command name and arguments of a
// redis.call(...) (or server.call) expression.
func redisCall(e ast.Expr) (name string, args []ast.Expr) {
	c, ok := e.(*ast.FuncCallExpr)
	if !ok || c.Receiver != nil || len(c.Args) == 0 {
		return "", nil
	}
	a, ok := c.Func.(*ast.AttrGetExpr)
	if !ok {
		return "", nil
	}
	obj, ok1 := a.Object.(*ast.IdentExpr)
	k, ok2 := a.Key.(*ast.StringExpr)
	if !ok1 || !ok2 || obj.Value != "redis" && obj.Value != "server" || k.Value != "call" {
		return "", nil
	}
	s, ok := c.Args[0].(*ast.StringExpr)
	if !ok {
		return "", nil
	}
	return strings.ToUpper(s.Value), c.Args[1:]
}

// getCompare matches redis.call('GET', K) == T (either side), returning
// the operator and the references.
func getCompare(e ast.Expr, ref func(ast.Expr) string) (op, key, tok string) {
	r, ok := e.(*ast.RelationalOpExpr)
	if !ok || r.Operator != "==" && r.Operator != "~=" {
		return "", "", ""
	}
	for _, pair := range [][2]ast.Expr{{r.Lhs, r.Rhs}, {r.Rhs, r.Lhs}} {
		if name, args := redisCall(pair[0]); name == "GET" && len(args) == 1 {
			return r.Operator, ref(args[0]), ref(pair[1])
		}
	}
	return "", "", ""
}

// returnsError matches return redis.error_reply(...) and return {err=...}.
func returnsError(s ast.Stmt) bool {
	ret, ok := s.(*ast.ReturnStmt)
	if !ok || len(ret.Exprs) != 1 {
		return false
	}
	switch x := ret.Exprs[0].(type) {
	case *ast.FuncCallExpr:
		a, ok := x.Func.(*ast.AttrGetExpr)
		if !ok {
			return false
		}
		obj, ok1 := a.Object.(*ast.IdentExpr)
		k, ok2 := a.Key.(*ast.StringExpr)
		return ok1 && ok2 && (obj.Value == "redis" || obj.Value == "server") && k.Value == "error_reply"
	case *ast.TableExpr:
		if len(x.Fields) != 1 {
			return false
		}
		k, ok := x.Fields[0].Key.(*ast.StringExpr)
		return ok && k.Value == "err"
	}
	return false
}

// returnsZero matches return 0, return nil and return false.
func returnsZero(s ast.Stmt) bool {
	ret, ok := s.(*ast.ReturnStmt)
	if !ok || len(ret.Exprs) != 1 {
		return false
	}
	switch x := ret.Exprs[0].(type) {
	case *ast.NumberExpr:
		return x.Value == "0"
	case *ast.NilExpr, *ast.FalseExpr:
		return true
	}
	return false
}

// effect matches the body run when the key holds the token: one call on
// the key and a return of 1 or of the call's reply.
func effect(body []ast.Stmt, key, tok string, ref func(ast.Expr) string) *nativeShape {
	var call ast.Expr
	switch len(body) {
	case 1:
		ret, ok := body[0].(*ast.ReturnStmt)
		if !ok || len(ret.Exprs) != 1 {
			return nil
		}
		call = ret.Exprs[0]
	case 2:
		cs, ok := body[0].(*ast.FuncCallStmt)
		ret, ok2 := body[1].(*ast.ReturnStmt)
		if !ok || !ok2 || len(ret.Exprs) != 1 {
			return nil
		}
		if n, ok := ret.Exprs[0].(*ast.NumberExpr); !ok || n.Value != "1" {
			return nil
		}
		call = cs.Expr
	default:
		return nil
	}
	name, args := redisCall(call)
	if len(args) == 0 || ref(args[0]) != key {
		return nil
	}
	refs := make([]string, len(args))
	for i, a := range args {
		if refs[i] = ref(a); refs[i] == "" {
			if s, ok := a.(*ast.StringExpr); ok {
				refs[i] = strings.ToUpper(s.Value)
			} else {
				return nil
			}
		}
	}
	switch {
	case (name == "DEL" || name == "UNLINK") && len(args) == 1:
		return &nativeShape{kind: "delete", command: fmt.Sprintf("DELIFEQ %s %s", key, tok), reply: "it replies 1 when it deleted the key, 0 otherwise"}
	case (name == "PEXPIRE" || name == "EXPIRE") && len(args) == 2 && strings.HasPrefix(refs[1], "ARGV["):
		unit := map[string]string{"PEXPIRE": "PX", "EXPIRE": "EX"}[name]
		return &nativeShape{kind: "set", command: fmt.Sprintf("SET %s %s IFEQ %s %s %s", key, tok, tok, unit, refs[1]),
			reply: "it replies OK when it renewed the key and nil otherwise, where the script replies 1 or 0"}
	case name == "SET" && (len(args) == 2 || len(args) == 4 && (refs[2] == "PX" || refs[2] == "EX")) && strings.HasPrefix(refs[1], "ARGV["):
		cmd := fmt.Sprintf("SET %s %s IFEQ %s", key, refs[1], tok)
		if len(args) == 4 {
			cmd += " " + refs[2] + " " + refs[3]
		}
		return &nativeShape{kind: "set", command: cmd, reply: "it replies OK when it set the key and nil otherwise, where the script replies 1 or 0"}
	}
	return nil
}
