// Package verify is scriptctl's offline Redis: a sandboxed gopher-lua state
// that runs scripts and Functions the way Redis 7 does, with redis.call backed
// by an in-memory keyspace on a virtual clock. It owns the Lua sandbox, the
// reply conversions, the keyspace and its commands, and the Redis-style error
// texts. It does not parse scenario files (package scenario does) and never
// talks to a server.
//
// Every known divergence from Redis 7 is listed in README.md.
package verify
