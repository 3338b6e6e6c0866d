package cli

import (
	"errors"
	"fmt"
	"io"
	"sync/atomic"
	"time"
)

// readWait bounds how long the hook waits for the harness to finish sending its payload. A
// harness that keeps stdin open would otherwise hold the hook until its own timeout, and every
// harness lets the call through when a hook times out.
const readWait = 2 * time.Second

// errReadWait is the payload read outlasting readWait.
var errReadWait = errors.New("stdin was not closed within " + readWait.String())

// readPayload reads at most limit+1 bytes of stdin, so that an oversized payload is seen as such
// without being buffered whole. It reads on this goroutine (a goroutine of its own cost every
// run a thread's wake-up, some 0.1 ms): when the read outlasts readWait, a timer blocks the call
// and ends the process. In process (no exit: the demo, tests) the read is not bounded.
func (c *runner) readPayload(limit int64) ([]byte, error) {
	if c.exit != nil {
		var read atomic.Bool
		t := time.AfterFunc(readWait, func() {
			if read.CompareAndSwap(false, true) {
				c.exit(c.block(entry(fmt.Errorf("read hook payload: %w", errReadWait))))
			}
		})
		defer func() {
			if !read.CompareAndSwap(false, true) {
				select {} // the timer has blocked the call and is ending the process
			}
			t.Stop()
		}()
	}
	return io.ReadAll(io.LimitReader(c.stdin, limit+1))
}
