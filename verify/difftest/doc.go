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
//	targets      only on these targets (verify.Targets, such as
//	             [valkey-8.1]); without it the snippet runs on every one
//
// Both sides start empty: the server gets FLUSHALL, SCRIPT FLUSH (which
// also resets library settings such as cjson's, kept in the Lua state) and
// FUNCTION FLUSH; the engine is new, its clock at the wall clock. On a
// difference the test prints both transcripts and the script.
//
// The live commands run through one redis-cli process per server that
// reads them from its standard input, a marker (ECHO of a random word)
// after each, and prints what `redis-cli --no-raw -p PORT args...` prints
// for each.
// A snippet with a command whose effect lasts on the connection (SELECT,
// HELLO, MULTI, CLIENT, ...) or that redis-cli's interactive loop handles
// itself (a number as first word, help, quit, connect, ...) runs one
// process per command, as does one whose session printed to stderr (a
// connection or protocol error: a crash; the process is then started
// anew), lost a marker or took 500 ms for a command (the loop then prints
// the time). TestLiveSession runs
// snippets both ways and requires the same transcripts; -session-every 1
// runs the whole corpus.
//
// The corpus runs against the server build SCRIPTCTL_TEST_SERVER names
// (redis-7.0 by default, redis-8.0, valkey-8.1: see internal/redistest),
// and the engine imitates that build's target. A snippet that crashes the
// server (at once, or in function mode at the FUNCTION FLUSH run after
// it) matches an engine run that ends in a server-crash RunError.
//
// Targets no CI server runs (redis-7.2, redis-7.4, valkey-7.2, valkey-8.0)
// were recorded once from servers built from their release tags:
// testdata/recorded/<target>.json holds each snippet's live transcript and
// start time, and TestRecordedTargets replays the engine against them. To
// record a target again (after adding snippets):
//
//	go test ./verify/difftest -run 'TestRecord$' -count=1 -timeout 120m \
//	    -record -server /path/to/redis-server -target redis-7.2
//
// A snippet that cannot match is listed in KnownDivergences
// (divergences.go) with its reason and in verify/README.md's "Known
// divergences", or, when it diverges on one target only, in
// TargetDivergences; differences the engine should fix are described in
// ENGINE_BUGS.md.
package difftest
