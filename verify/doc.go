// Package verify is scriptctl's offline Redis: a sandboxed gopher-lua state
// that runs scripts and Functions the way Redis 7 does, with redis.call backed
// by the offline server's keyspace (package keyspace, below it). It owns the
// engine's API (Engine), the command dispatch, scripts, Functions, the Lua
// sandbox, the reply conversions and the scripting layer's error texts; the
// data types and their commands are keyspace's, and the types both halves
// share are re-exported here (aliases.go). It does not parse scenario files
// (package scenario does) and never talks to a server.
//
// Every known divergence from Redis 7 is listed in README.md.
package verify
