package authority

import (
	"context"

	"github.com/hermes-gateway/hermes/internal/store"
)

// Group commit of admissions. Concurrent prompt.submit calls into different
// sessions share one SQLite transaction and one fsync (store.InTxGrouped);
// each is acknowledged only after that commit. The invariants hold as for
// commit:
//
//   - Per-session order: the caller holds its session's hub lock from
//     before its fn is queued until its events are published, so two
//     transactions of one session are never in flight together, and events
//     are published in journal order. A batch therefore spans sessions,
//     never two admissions of one session.
//   - Fence: every fn of a batch is fenced by the epoch on its own.
//   - Isolation: a failing fn rolls back only its savepoint.
//   - No deadlock: a fn may run on another submitter's goroutine while its
//     own caller waits, so it must take no lock any caller may hold while
//     waiting. The in-memory state it needs (liveState) is read by its own
//     caller under the hub lock before queueing, and the fn does only
//     database work and JSON.

// liveState is what a grouped fn may know of its live session: read under
// the session's hub lock just before the transaction instead of inside it.
// A change made under the hub lock (running flips with its commit) is
// excluded either way; one made outside it (needKey cleared by a repeated
// create) races with a read inside the transaction just the same.
type liveState struct {
	running bool
	paused  string // paused_reason, "" when not paused
}

// commitGrouped is commit for fns that may share their transaction with
// other sessions' (store.InTxGrouped). fn must take no lock and wait for
// nothing but the database.
func (a *Authority) commitGrouped(ctx context.Context, l *live, fn func(tx *store.Tx, j *journal, st liveState) error) error {
	var st liveState
	inTx := func(ctx context.Context, epoch int64, txFn func(tx *store.Tx) error) error {
		st = liveState{running: l.isRunning(), paused: l.pausedReason()} // under the hub lock
		return a.cfg.Store.InTxGrouped(ctx, epoch, txFn)
	}
	return a.commitVia(inTx, ctx, l.id, func(tx *store.Tx, j *journal) error { return fn(tx, j, st) }, nil)
}
