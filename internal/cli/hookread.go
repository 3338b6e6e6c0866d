package cli

import (
	"errors"
	"io"
	"time"
)

// readWait bounds how long the hook waits for the harness to finish sending its payload. A
// harness that keeps stdin open would otherwise hold the hook until its own timeout, and every
// harness lets the call through when a hook times out.
const readWait = 2 * time.Second

// errReadWait is the payload read outlasting readWait.
var errReadWait = errors.New("stdin was not closed within " + readWait.String())

// readPayload reads at most limit+1 bytes of r, so that an oversized payload is seen as such
// without being buffered whole, and gives up after readWait.
func readPayload(r io.Reader, limit int64) ([]byte, error) {
	type result struct {
		data []byte
		err  error
	}
	done := make(chan result, 1)
	go func() {
		data, err := io.ReadAll(io.LimitReader(r, limit+1))
		done <- result{data, err}
	}()
	t := time.NewTimer(readWait)
	defer t.Stop()
	select {
	case res := <-done:
		return res.data, res.err
	case <-t.C:
		return nil, errReadWait
	}
}
