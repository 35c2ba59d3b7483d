// Package difftest holds the differential corpus of the offline engine: more
// than 200 Lua snippets under testdata/snippets, each run through a real
// redis-server with redis-cli --no-raw and through verify.Engine with
// rediscli.Format, whose outputs must be byte-for-byte identical, as EVAL
// and as FCALL. It has no code outside its tests.
//
// A snippet file is a YAML list; each snippet has a name, the script's
// exact bytes, and optional keys, args, setup commands (run before the
// script on both sides), after commands (run after it, replies compared
// too: this is how stored values and TTLs are checked) and no_function (the
// reason the snippet cannot run as a function, such as a shebang line).
//
// A snippet that cannot match is listed in knownDivergences (difftest_test.go)
// with its reason and in verify/README.md's "Known divergences".
package difftest
