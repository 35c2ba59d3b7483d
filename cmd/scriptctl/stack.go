package main

// mainStackFrame is the frame growStack asks for: with the few frames
// below it, the main goroutine's stack grows from 8 KB to 64 KB at once.
const mainStackFrame = 56 << 10

// growStack grows the calling goroutine's stack to 64 KB in one step. A
// goroutine starts with 8 KB; a command's calls (cobra, the manifest's
// YAML, the loader over rueidis, the offline engine) go deeper, and each
// time they do the runtime copies the stack to one twice the size and
// adjusts every frame on it, reading each function's tables in the
// binary: three copies of a deep stack on the way to 64 KB. Called at
// the start of the command, with a few frames on the stack, it costs one
// copy of those. n is never above 1<<30 (it is len(os.Args)): the frame
// is only reserved, nothing is written to it, so it touches no memory
// (the result only keeps the frame from being compiled away).
// A functions-only deploy to 6 nodes took 3 to 8% less CPU with it
// (docs/performance.md, "Seventh pass"); TestGrowStack checks the frame
// is there.
//
//go:noinline
func growStack(n int) byte {
	if n > 1<<30 {
		var frame [mainStackFrame]byte
		frame[n&0xff] = 1
		return frame[n>>8&0xff]
	}
	return 0
}
