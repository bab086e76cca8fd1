package sandbox

import (
	"strconv"
	"sync"
)

// CappedBuffer keeps the first max bytes written to it and counts the rest,
// so a command that prints megabytes costs max bytes. Writes never fail:
// the child keeps running even when output is dropped. It is safe for
// concurrent writers.
type CappedBuffer struct {
	mu      sync.Mutex
	max     int
	buf     []byte // guarded by mu
	dropped int    // guarded by mu: bytes not kept
}

// NewCappedBuffer returns a buffer that keeps at most max bytes.
func NewCappedBuffer(max int) *CappedBuffer { return &CappedBuffer{max: max} }

// Write keeps what fits and drops the rest; it always reports len(p).
func (b *CappedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	keep := min(len(p), b.max-len(b.buf))
	b.buf = append(b.buf, p[:keep]...)
	b.dropped += len(p) - keep
	return len(p), nil
}

// String returns the kept output, with a note when some was dropped.
func (b *CappedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.dropped == 0 {
		return string(b.buf)
	}
	return string(b.buf) + "\n[output truncated: " + strconv.Itoa(b.dropped) + " more bytes]"
}
