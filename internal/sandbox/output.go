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

// TailBuffer keeps the last max bytes written to it (a child's stderr,
// for the line that says why it died). Writes never fail. It is safe for
// concurrent writers.
type TailBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte // guarded by mu
}

// NewTailBuffer returns a buffer that keeps the last max bytes.
func NewTailBuffer(max int) *TailBuffer { return &TailBuffer{max: max} }

// Write appends p and drops what is older than the last max bytes.
func (t *TailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

// String returns the bytes kept.
func (t *TailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
