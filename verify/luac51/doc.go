// Package luac51 is Lua 5.1.5's compiler as the servers the engine imitates
// embed it: lparser.c and lcode.c, which turn a chunk into function
// prototypes (instructions, constants, debug information), and ldump.c,
// which writes a prototype as the bytes string.dump returns. The engine
// runs scripts on gopher-lua, whose instructions are its own; this package
// exists so that string.dump gives the server's bytes. It does not run
// code, and its compiler is not on the path of a script's run: the engine
// compiles with it only when a script calls string.dump. Its lexer
// (llex.c, Lexer) is: the engine's Lua 5.1 syntax checker reads every
// chunk with it.
package luac51
