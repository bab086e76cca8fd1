package store

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// groupFixture holds the writer with a plain InTx until release, starts a
// grouped leader that waits for it, then queues the given grouped calls
// behind that leader: they all share the next transaction.
type groupFixture struct {
	s     *Store
	epoch int64
}

func newGroupFixture(t *testing.T) *groupFixture {
	t.Helper()
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	epoch, _, err := s.BeginEpoch(ctx, "inst")
	if err != nil {
		t.Fatal(err)
	}
	return &groupFixture{s: s, epoch: epoch}
}

func insertSession(id string) func(tx *Tx) error {
	return func(tx *Tx) error {
		return tx.InsertSession(Session{ID: id, ChatID: id, Source: "cli", UserID: "u", Model: "m", Cwd: "/"})
	}
}

type groupCall struct {
	ctx   context.Context
	epoch int64
	fn    func(tx *Tx) error
}

type groupResult struct {
	err      error
	panicked any
}

// batch queues calls in order so that they share one grouped transaction
// and returns their outcomes, in order.
func (f *groupFixture) batch(t *testing.T, calls []groupCall) []groupResult {
	t.Helper()
	ctx := context.Background()
	hold, held := make(chan struct{}), make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		_ = f.s.InTx(ctx, f.epoch, func(*Tx) error { close(held); <-hold; return nil })
	})
	<-held
	wg.Go(func() { // the leader: takes only itself, then waits for the writer
		if err := f.s.InTxGrouped(ctx, f.epoch, insertSession("leader-"+t.Name())); err != nil {
			t.Errorf("leader: %v", err)
		}
	})
	awaitGroup(t, f.s, func(g *grouper) bool { return g.leading && len(g.queue) == 0 })
	out := make([]groupResult, len(calls))
	for i, c := range calls {
		wg.Go(func() {
			defer func() { out[i].panicked = recover() }()
			out[i].err = f.s.InTxGrouped(c.ctx, c.epoch, c.fn)
		})
		// One at a time: the batch runs its calls in queue order, and the
		// tests' expectations (a later duplicate conflicts) depend on it.
		awaitGroup(t, f.s, func(g *grouper) bool { return len(g.queue) == i+1 })
	}
	before := f.s.group.batches
	close(hold)
	wg.Wait()
	if got := f.s.group.batches - before; got != 1 {
		t.Errorf("%d queued calls ran in %d transactions, want 1", len(calls), got)
	}
	return out
}

// awaitGroup waits until cond holds for the store's grouper.
func awaitGroup(t *testing.T, s *Store, cond func(g *grouper) bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		s.group.mu.Lock()
		ok := cond(&s.group)
		s.group.mu.Unlock()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("grouper never reached the expected state")
		}
		time.Sleep(time.Millisecond) // polling a condition, not waiting for time
	}
}

func (f *groupFixture) exists(t *testing.T, id string) bool {
	t.Helper()
	_, err := f.s.Session(context.Background(), id)
	if err != nil && !errors.Is(err, ErrNotFound) {
		t.Fatal(err)
	}
	return err == nil
}

// One failing, panicking, stale or cancelled call in a shared transaction
// rolls back only its own writes; the others commit.
func TestInTxGroupedIsolatesFailures(t *testing.T) {
	t.Parallel()
	f := newGroupFixture(t)
	ctx := context.Background()
	boom := errors.New("boom")
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	writeThen := func(id string, then func() error) func(tx *Tx) error {
		return func(tx *Tx) error {
			if err := insertSession(id)(tx); err != nil {
				return err
			}
			return then()
		}
	}
	calls := []groupCall{
		{ctx, f.epoch, insertSession("ok-1")},
		{ctx, f.epoch, writeThen("failed", func() error { return boom })},
		{ctx, f.epoch, writeThen("panicked", func() error { panic("kaboom") })},
		{ctx, f.epoch + 1, insertSession("stale")},
		{cancelled, f.epoch, insertSession("cancelled")},
		{ctx, f.epoch, insertSession("ok-1")}, // conflicts with the first: it sees the shared transaction
		{ctx, f.epoch, insertSession("ok-2")},
	}
	got := f.batch(t, calls)
	checks := []struct {
		want    error
		panics  bool
		id      string
		written bool
	}{
		{nil, false, "ok-1", true},
		{boom, false, "failed", false},
		{errPanicked, true, "panicked", false},
		{ErrStaleEpoch, false, "stale", false},
		{context.Canceled, false, "cancelled", false},
		{ErrConflict, false, "ok-1", true},
		{nil, false, "ok-2", true},
	}
	for i, c := range checks {
		if c.panics != (got[i].panicked != nil) || !errors.Is(got[i].err, c.want) && !c.panics {
			t.Errorf("call %d: err %v, panic %v; want %v, panic %v", i, got[i].err, got[i].panicked, c.want, c.panics)
		}
		if f.exists(t, c.id) != c.written {
			t.Errorf("call %d: session %s written = %v, want %v", i, c.id, !c.written, c.written)
		}
	}
	if got[2].panicked != "kaboom" {
		t.Errorf("panic value = %v, want kaboom", got[2].panicked)
	}
}

// When the shared transaction itself breaks, every call of it fails and
// none of its writes survive (nothing is acknowledged without its commit).
func TestInTxGroupedSharedFailureFailsAll(t *testing.T) {
	t.Parallel()
	f := newGroupFixture(t)
	ctx := context.Background()
	calls := []groupCall{
		{ctx, f.epoch, insertSession("before")},
		{ctx, f.epoch, func(tx *Tx) error {
			_, err := tx.tx.ExecContext(tx.ctx, "ROLLBACK") // breaks the shared transaction
			return err
		}},
		{ctx, f.epoch, insertSession("after")},
	}
	got := f.batch(t, calls)
	for i, r := range got {
		if r.err == nil || r.panicked != nil {
			t.Errorf("call %d: err %v, panic %v; want an error", i, r.err, r.panicked)
		}
	}
	for _, id := range []string{"before", "after"} {
		if f.exists(t, id) {
			t.Errorf("session %s was written by a failed shared transaction", id)
		}
	}
	// The store keeps working afterwards, grouped or not.
	if err := f.s.InTxGrouped(ctx, f.epoch, insertSession("later")); err != nil || !f.exists(t, "later") {
		t.Errorf("grouped transaction after a failed one: %v", err)
	}
}

// Many concurrent grouped callers: every one returns after its own commit
// and sees its write; ErrConflict reaches exactly the duplicate.
func TestInTxGroupedConcurrent(t *testing.T) {
	t.Parallel()
	f := newGroupFixture(t)
	ctx := context.Background()
	const n = 64
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			errs[i] = f.s.InTxGrouped(ctx, f.epoch, insertSession(fmt.Sprintf("s-%d", i%(n-1))))
			if errs[i] == nil && !f.exists(t, fmt.Sprintf("s-%d", i%(n-1))) {
				t.Errorf("call %d returned before its write was visible", i)
			}
		})
	}
	wg.Wait()
	conflicts := 0
	for i, err := range errs {
		switch {
		case errors.Is(err, ErrConflict):
			conflicts++
		case err != nil:
			t.Errorf("call %d: %v", i, err)
		}
	}
	if conflicts != 1 {
		t.Errorf("%d conflicts, want exactly 1 (one id was used twice)", conflicts)
	}
	if f.s.group.leading || len(f.s.group.queue) != 0 {
		t.Error("grouper left a leader or a queue behind")
	}
}
