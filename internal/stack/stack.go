// Package stack grows the main goroutine's stack before any other package is initialised.
//
// Go starts a goroutine with a small stack and copies it to one twice as large each time it runs
// out, adjusting every frame on it. A hook run ran out three or four times, each time deep down
// (twice in the libraries' package init, compiling regular expressions; once or twice deciding
// the line), and each copy cost 20–45 K instructions and a new stack's pages: together 5–6 % of
// the instructions of a run of one to seven calls (callgrind). Growing it at once, while it
// holds a frame or two, costs one shallow copy.
//
// It is done in init, by a package that imports nothing and whose path sorts before those of
// the libraries: Go initialises packages in the order of their import paths, each as soon as
// what it imports is (https://go.dev/ref/spec#Package_initialization). The command imports it
// for that effect alone.
package stack

func init() { grow(0) }

// grow takes a frame of 24 KB, which makes the stack 32 KB: what deciding a line of a few calls
// needs. A longer line grows it further as it needs.
//
//go:noinline
func grow(i int) byte {
	var frame [24 << 10]byte
	frame[i] = 1 // the frame is used, so that it is not compiled away
	return frame[len(frame)-1-i]
}
