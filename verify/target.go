package verify

import (
	"fmt"
	"sort"
	"strings"
)

// serverFacts is what a script can observe that differs between server
// lines, as data: the engine's code asks these fields and never compares
// version strings. Each row is checked by running the same cases on the
// real server (live in CI for redis-7.0, redis-8.0 and valkey-8.1; from the
// source and recordings of the exact release named in version for the
// others).
type serverFacts struct {
	name   string // the target name, internal/target's
	family string // "redis" or "valkey"

	// REDIS_VERSION and REDIS_VERSION_NUM; Valkey reports the Redis
	// compatibility version 7.2.4 there.
	redisVersion    string
	redisVersionNum int
	// Valkey's own VALKEY_VERSION, VALKEY_VERSION_NUM and SERVER_NAME
	// constants; empty on Redis.
	valkeyVersion    string
	valkeyVersionNum int
	serverName       string
	// serverGlobal: `server` is the same table as `redis` (Valkey 8.0+).
	serverGlobal bool

	// Script-layer errors (raised by redis.call, returned by redis.pcall).
	errUnknownCommand string
	errArity          string
	errNoScript       string
	// noscript is EVALSHA's reply for an unknown SHA.
	noscript string
	// texts rewrites the engine's Redis 7.0 wording of a library error into
	// this target's (exact text -> text); see text.
	texts map[string]string
	// libName replaces "redis." in redis.register_function's errors.
	libName string
}

// text returns msg as this target words it: the engine writes Redis
// 7.0.15's texts, and a target that words one differently lists it in texts.
func (f *serverFacts) text(msg string) string {
	if t, ok := f.texts[msg]; ok {
		return t
	}
	if f.libName != "" && strings.Contains(msg, "redis.register_function") {
		return strings.ReplaceAll(msg, "redis.register_function", f.libName+".register_function")
	}
	return msg
}

// The error texts of each family and era, from the servers' sources
// (script_lua.c, server.c) and checked live where a server runs in CI.
const (
	redisErrUnknown = "ERR Unknown Redis command called from script"
	redisErrArity   = "ERR Wrong number of args calling Redis command from script"
	redisErrNoScrpt = "ERR This Redis command is not allowed from script"
	redisNoscript   = "NOSCRIPT No matching script. Please use EVAL."

	valkeyErrUnknown = "ERR Unknown command called from script"
	valkeyErrArity   = "ERR Wrong number of args calling command from script"
	valkeyNoscript   = "NOSCRIPT No matching script."
)

func redisFacts(name, version string, num int) *serverFacts {
	return &serverFacts{name: name, family: "redis", redisVersion: version, redisVersionNum: num,
		errUnknownCommand: redisErrUnknown, errArity: redisErrArity, errNoScript: redisErrNoScrpt, noscript: redisNoscript}
}

// valkeyFacts: Valkey 7.2 kept Redis's texts; 8.0 renamed the script errors
// and shortened NOSCRIPT, and added the `server` global.
func valkeyFacts(name, version string, num int, v8 bool) *serverFacts {
	f := &serverFacts{name: name, family: "valkey", redisVersion: "7.2.4", redisVersionNum: 0x070204,
		valkeyVersion: version, valkeyVersionNum: num, serverName: "valkey",
		errUnknownCommand: redisErrUnknown, errArity: redisErrArity, errNoScript: redisErrNoScrpt, noscript: redisNoscript}
	if v8 {
		f.serverGlobal = true
		f.errUnknownCommand, f.errArity, f.noscript = valkeyErrUnknown, valkeyErrArity, valkeyNoscript
		f.texts = valkey8Texts
		f.libName = "server"
	}
	return f
}

// valkey8Texts are the library errors Valkey 8.0 reworded (script_lua.c,
// function_lua.c of 8.0.1; checked live on 8.1.1).
var valkey8Texts = map[string]string{
	"ERR redis.log() requires two arguments or more.":                  "ERR server.log() requires two arguments or more.",
	"ERR redis.setresp() requires one argument.":                       "ERR server.setresp() requires one argument.",
	"ERR redis.set_repl() requires two arguments.":                     "ERR server.set_repl() requires one argument.",
	"ERR Please specify at least one argument for this redis lib call": "ERR Please specify at least one argument for this call",
	"ERR Invalid command passed to redis.acl_check_cmd()":              "ERR Invalid command passed to server.acl_check_cmd()",
	"ERR Lua redis lib command arguments must be strings or integers":  "ERR Command arguments must be strings or integers",
}

// targets holds every target the engine can imitate, by name.
var targets = map[string]*serverFacts{
	"redis-7.0":  redisFacts("redis-7.0", "7.0.15", 0x07000f),
	"redis-7.2":  redisFacts("redis-7.2", "7.2.6", 0x070206),
	"redis-7.4":  redisFacts("redis-7.4", "7.4.1", 0x070401),
	"redis-8.0":  redisFacts("redis-8.0", "8.0.2", 0x080002),
	"valkey-7.2": valkeyFacts("valkey-7.2", "7.2.7", 0x070207, false),
	"valkey-8.0": valkeyFacts("valkey-8.0", "8.0.1", 0x080001, true),
	"valkey-8.1": valkeyFacts("valkey-8.1", "8.1.1", 0x080101, true),
}

// DefaultTarget is the server the engine imitates when Options.Target is
// empty.
const DefaultTarget = "redis-7.0"

// Targets returns the names of the targets the engine can imitate, sorted.
func Targets() []string {
	out := make([]string, 0, len(targets))
	for n := range targets {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// lookupTarget returns the facts of name ("" is DefaultTarget).
func lookupTarget(name string) (*serverFacts, error) {
	if name == "" {
		name = DefaultTarget
	}
	f, ok := targets[name]
	if !ok {
		return nil, fmt.Errorf("unknown target %q: the engine imitates %s", name, strings.Join(Targets(), ", "))
	}
	return f, nil
}

// CheckTarget reports whether the engine can imitate target name.
func CheckTarget(name string) error {
	_, err := lookupTarget(name)
	return err
}
