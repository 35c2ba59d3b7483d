// Package difftest holds the differential corpus of the offline engine: about
// 800 Lua snippets under testdata/snippets, each run through a real
// redis-server with redis-cli --no-raw and through verify.Engine with
// rediscli.Format, whose outputs must be byte-for-byte identical, as EVAL
// (TestEvalCorpus) and as FCALL of a generated one-function library
// (TestFCallCorpus). Outside its tests it holds only KnownDivergences.
//
// A snippet file is a YAML list. Each snippet has:
//
//	name         unique across files; go test -run 'TestEvalCorpus/<name>'
//	script       the script's exact bytes (or file: a path from the
//	             repository root, such as lua/acquire.lua)
//	keys, args   KEYS and ARGV
//	setup        commands run before the script on both sides
//	after        commands run after it, replies compared too: how stored
//	             values and TTLs are checked
//	readonly     run as EVAL_RO (a no-writes function and FCALL_RO)
//	no_function  why the snippet cannot be a function body (a shebang)
//	library      instead of script: a whole Functions library, loaded as
//	             written and called in function mode only, with
//	function     the function FCALL calls
//
// Both sides start empty: the server gets FLUSHALL, SCRIPT FLUSH (which
// also resets library settings such as cjson's, kept in the Lua state) and
// FUNCTION FLUSH; the engine is new, its clock at the wall clock. On a
// difference the test prints both transcripts and the script.
//
// A snippet that cannot match is listed in KnownDivergences
// (divergences.go) with its reason and in verify/README.md's "Known
// divergences"; differences the engine should fix are described in
// ENGINE_BUGS.md.
package difftest
