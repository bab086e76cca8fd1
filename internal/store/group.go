package store

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// Group commit. Callers of InTxGrouped that arrive while an earlier grouped
// transaction is committing share the next transaction: its fsync is paid
// once for all of them. There is no goroutine of its own: the first caller
// to find no batch running leads (runs every queued fn in one transaction,
// each in a savepoint of its own), then hands the lead to the first caller
// that queued meanwhile. Every caller returns only after the transaction
// holding its fn committed (or failed), so nothing is acknowledged before
// its fsync'd commit.

// grouper is the queue of grouped transactions waiting for a leader.
type grouper struct {
	mu      sync.Mutex
	queue   []*groupItem // guarded by mu: arrived, not yet taken by a leader
	leading bool         // guarded by mu: a leader is running a batch
	batches int          // guarded by mu: batches run (tests)
}

// groupItem is one InTxGrouped call.
type groupItem struct {
	ctx   context.Context
	epoch int64
	fn    func(tx *Tx) error
	wake  chan bool // buffered 1: false = finished, true = lead the next batch

	// Written by the leader before wake; read by the caller after it.
	err      error
	panicked bool
	panicVal any
}

// InTxGrouped is InTx for short transactions that may share one SQLite
// transaction (and its fsync) with other grouped callers that arrived
// together. Per caller the contract is InTx's: fn runs fenced by epoch (each
// fn is fenced on its own, so callers with different epochs may share a
// batch); it returns only after the commit that made fn's writes durable,
// or with fn's error, ErrStaleEpoch or the transaction's error, having
// written nothing; a panic in fn is re-raised in the caller. One fn failing
// does not fail the others: each runs in a savepoint that its failure rolls
// back. If the shared transaction itself fails (BEGIN, a savepoint, COMMIT),
// every fn of it gets that error and nothing of it was written.
//
// fn may run on another caller's goroutine, after the previous fns of its
// batch. So fn must not wait for anything another InTxGrouped caller may
// hold while it waits (a lock, a channel): only database work and pure
// computation. A ctx already done when fn's turn comes skips fn with
// ctx.Err(); once fn started, its statements are not interrupted by ctx,
// since interrupting a write rolls back the whole shared transaction.
func (s *Store) InTxGrouped(ctx context.Context, epoch int64, fn func(tx *Tx) error) error {
	it := &groupItem{ctx: ctx, epoch: epoch, fn: fn, wake: make(chan bool, 1)}
	g := &s.group
	g.mu.Lock()
	g.queue = append(g.queue, it)
	lead := !g.leading
	g.leading = true
	g.mu.Unlock()
	if !lead {
		lead = <-it.wake
	}
	if lead {
		s.leadBatch()
	}
	if it.panicked {
		panic(it.panicVal)
	}
	return it.err
}

// leadBatch takes every queued item (the leader's own among them), runs them
// in one transaction, wakes their callers, and hands the lead on.
func (s *Store) leadBatch() {
	g := &s.group
	g.mu.Lock()
	batch := g.queue
	g.queue = nil
	g.batches++
	g.mu.Unlock()

	s.runBatch(batch)
	g.mu.Lock()
	if len(g.queue) > 0 {
		g.queue[0].wake <- true
	} else {
		g.leading = false
	}
	g.mu.Unlock()
	for _, it := range batch {
		it.wake <- false // the leader's own slot is never read: buffered
	}
}

// runBatch runs batch in one transaction and records each item's outcome.
// A batch of one is exactly InTx (with its ctx, no savepoint).
func (s *Store) runBatch(batch []*groupItem) {
	if len(batch) == 1 {
		it := batch[0]
		it.err = s.inTx(it.ctx, it.epoch, false, func(tx *Tx) error { return tx.runFenced(it) })
		return
	}
	ctx := context.WithoutCancel(batch[0].ctx)
	err := s.inTx(ctx, 0, false, func(tx *Tx) error {
		for _, it := range batch {
			if err := tx.runItem(it); err != nil {
				return err // the shared transaction is broken: all fail
			}
		}
		return nil
	})
	if err == nil {
		return
	}
	// Nothing of the batch was written. Items with an outcome of their own
	// keep it; every other one (done, or never run) fails with the batch.
	for _, it := range batch {
		if it.err == nil && !it.panicked {
			it.err = fmt.Errorf("grouped transaction: %w", err)
		}
	}
}

// runItem runs one item in its own savepoint; its outcome goes to it. The
// error is a failure of the shared transaction itself (the savepoint could
// not be set, rolled back or released).
func (tx *Tx) runItem(it *groupItem) error {
	if err := it.ctx.Err(); err != nil {
		it.err = err
		return nil
	}
	if _, err := tx.tx.ExecContext(tx.ctx, "SAVEPOINT grouped"); err != nil {
		return fmt.Errorf("savepoint: %w", classify(err))
	}
	itx := &Tx{ctx: tx.ctx, tx: tx.tx, s: tx.s, epoch: it.epoch}
	if it.err = itx.runFenced(it); it.err != nil {
		if _, err := tx.tx.ExecContext(tx.ctx, "ROLLBACK TO grouped"); err != nil {
			return fmt.Errorf("rollback to savepoint: %w", classify(err))
		}
	}
	if _, err := tx.tx.ExecContext(tx.ctx, "RELEASE grouped"); err != nil {
		return fmt.Errorf("release savepoint: %w", classify(err))
	}
	return nil
}

// runFenced checks the item's epoch and runs its fn, turning a panic into
// it.panicked (re-raised by its caller).
func (tx *Tx) runFenced(it *groupItem) (err error) {
	defer func() {
		if r := recover(); r != nil {
			it.panicked, it.panicVal = true, r
			err = errPanicked
		}
	}()
	if err := tx.fence(); err != nil {
		return err
	}
	return it.fn(tx)
}

var errPanicked = errors.New("store: grouped fn panicked")
