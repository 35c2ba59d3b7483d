// Package keyspace is the offline server's keyspace and data commands: the
// numbered databases on a virtual clock (Server), every data type (strings,
// hashes, lists, sets, sorted sets, streams, HyperLogLog, geo, bitmaps) and
// its commands, one cmd_<family>.go file per family after Redis's t_*.c,
// with Redis's argument parsing, order of checks, error texts, reply shapes
// and encodings, and each target's differences as data (Facts).
//
// It does not own Lua, scripts, Functions, the sandbox or the scripting
// layer's checks (package verify does, and runs every command through
// Handler.Run). It never imports verify: what a command must know of the
// script that calls it, it asks through Script.
package keyspace
