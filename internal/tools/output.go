package tools

import (
	"strconv"
	"sync"
)

// cappedBuffer keeps the first max bytes written to it and counts the rest.
// It is safe for concurrent writers.
type cappedBuffer struct {
	mu      sync.Mutex
	max     int
	buf     []byte // guarded by mu
	dropped int    // guarded by mu: bytes not kept
}

func newCappedBuffer(max int) *cappedBuffer { return &cappedBuffer{max: max} }

// Write never fails: the child keeps running even when output is dropped.
func (b *cappedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	keep := min(len(p), b.max-len(b.buf))
	b.buf = append(b.buf, p[:keep]...)
	b.dropped += len(p) - keep
	return len(p), nil
}

// String returns the kept output, with a note when some was dropped.
func (b *cappedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.dropped == 0 {
		return string(b.buf)
	}
	return string(b.buf) + "\n[output truncated: " + strconv.Itoa(b.dropped) + " more bytes]"
}
