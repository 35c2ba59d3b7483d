// Package luac51 is Lua 5.1.5's compiler as the servers the engine imitates
// embed it: lparser.c and lcode.c, which turn a chunk into function
// prototypes (instructions, constants, debug information), and ldump.c,
// which writes a prototype as the bytes string.dump returns. The engine
// runs scripts on gopher-lua, whose instructions are its own; this package
// exists so that string.dump gives the server's bytes, and so that each
// function's one zero constant has the server's sign. It does not run
// code, and its compiler is not on the path of most scripts' runs: the
// engine compiles with it when a script calls string.dump, or when a
// numeral of the chunk folds to -0 (verify/zeroconst.go). Its lexer
// (llex.c, Lexer) is: the engine's Lua 5.1 syntax checker reads every
// chunk with it.
package luac51
