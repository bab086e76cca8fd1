package modeltest

import (
	"context"
	"sync"
)

// Barrier holds replies (Reply.Hold) until Release, so a test can act while
// a model request is in flight. A Barrier may hold any number of requests.
type Barrier struct {
	released chan struct{}
	once     sync.Once

	mu      sync.Mutex
	waiting int           // requests currently held; guarded by mu
	changed chan struct{} // closed and replaced when waiting changes; guarded by mu
}

// NewBarrier returns a closed gate.
func NewBarrier() *Barrier {
	return &Barrier{released: make(chan struct{}), changed: make(chan struct{})}
}

// Release lets every held and future request through. It is idempotent.
func (b *Barrier) Release() { b.once.Do(func() { close(b.released) }) }

// Waiting reports how many requests are held right now.
func (b *Barrier) Waiting() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.waiting
}

// AwaitWaiting blocks until at least n requests are held, or ctx ends.
func (b *Barrier) AwaitWaiting(ctx context.Context, n int) error {
	for {
		b.mu.Lock()
		ok, ch := b.waiting >= n, b.changed
		b.mu.Unlock()
		if ok {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-ch:
		}
	}
}

func (b *Barrier) add(d int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.waiting += d
	close(b.changed)
	b.changed = make(chan struct{})
}

// wait holds until Release (true) or until gone is closed (false).
func (b *Barrier) wait(gone, closed <-chan struct{}) bool {
	b.add(1)
	defer b.add(-1)
	select {
	case <-b.released:
		return true
	case <-gone:
		return false
	case <-closed:
		return false
	}
}
