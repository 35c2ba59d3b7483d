// Package lua51 reimplements the parts of Lua 5.1.5's runtime whose effects
// a script can see and that gopher-lua does differently: here, the layout of
// a table (ltable.c), which fixes the order in which next, pairs,
// cjson.encode and cmsgpack.pack visit its keys, and the border #t finds.
//
// The model tracks which keys a table holds and where Lua 5.1 would keep
// them (the array part, the hash nodes, their collision chains and the free
// pointer), not their values: the values stay in the interpreter's own
// table. It follows ltable.c step by step: main positions from Lua's string
// and number hashes, Brent's variation when a main position is taken, the
// free pointer that walks down from the last node, rehash sizes computed
// from the integer keys (computesizes), and the reverse order in which a
// resize re-inserts the old nodes. A key set to nil keeps its node until the
// next rehash drops it, as in Lua.
//
// The string hash is a per-server fact (StringHash): Redis hashes every
// byte of a string (Redis 7.0 dropped Lua's sampling of long strings,
// redis#9449); Valkey 8.1 replaced the function with MurmurHash3
// (valkey#1168). Keys that Lua hashes by address (tables, functions,
// userdata) cannot be placed as a server places them; Table.Approximate
// reports a table holding one.
//
// The package imports nothing of the engine: keys are plain values (Key).
package lua51
