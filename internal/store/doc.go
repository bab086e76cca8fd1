// Package store is the gateway's only SQL: the SQLite file state.db, its
// embedded numbered migrations, the epoch-fenced write transaction InTx, and
// typed reads and writes for sessions, routes, state_meta, admissions,
// results, the event journal, transcripts and mutation receipts.
//
// It may import only queue (the transition table every admission move is
// looked up in) and faults, and must never import session, events or
// authority: it keeps receipts and policies as the JSON session builds, and
// its journal rows reach viewers only when the authority publishes them to
// the hub.
//
// # Connections and concurrency
//
// One writer connection (MaxOpenConns 1, never recycled, holding every hot
// statement prepared once at Open) with WAL, foreign keys, synchronous=FULL,
// busy_timeout and _txlock=immediate, so every write transaction is BEGIN
// IMMEDIATE and write transactions run one at a time in the order they get
// the connection. A separate query_only pool serves reads; readers never
// block the writer and see only committed state. A *Tx belongs to the
// goroutine running the InTx callback and dies with it. Store methods are
// safe for concurrent use.
//
// InTxGrouped (group.go) lets short transactions that arrive together share
// one SQLite transaction and fsync: the first caller leads and runs every
// queued fn, each fenced and in its own savepoint (a failing fn rolls back
// only itself), and every caller returns only after that commit. Its fns may
// run on another caller's goroutine, so they must wait for nothing but the
// database.
//
// # Invariants
//
//   - Fence: every InTx first reads runtime_epoch.epoch; if it is not the
//     caller's epoch the transaction returns ErrStaleEpoch having written
//     nothing. BeginEpoch is the only writer of runtime_epoch, so once a new
//     daemon began an epoch, an old one can change nothing.
//   - Admissions move only through Tx.move (move.go): the next status is
//     looked up in queue.Transitions from the status the caller read, and
//     written by one UPDATE … WHERE seq = ? AND status = <that status>, so a
//     row that moved meanwhile is a *MoveError (stale generation, or unknown
//     execution for a cancel of an unknown row) and nothing is overwritten.
//   - A session has at most one started row, and nothing is claimed while it
//     has an unknown row (ClaimNext reads its whole pending set first).
//   - execution generation: ClaimNext sets sessions.runtime_generation+1 on
//     the session and the row together; Settle requires row generation ==
//     given == session generation and owner_epoch == the current epoch.
//   - Journal: session_events.seq = sessions.last_event_seq+1, both written
//     in the same statement pair of the same transaction, so seqs are
//     strictly increasing per session for ever, across restarts, and a
//     rolled-back transaction consumes none.
//   - runtime_revision is bumped by Settle, Cancel (of a queued row) and
//     ResolveUnknown here, and by callers (BumpRevision) for mutations.
//   - Start-up work reads only the partial index of non-terminal admissions.
//   - Open runs PRAGMA quick_check on a read-only connection before anything
//     can write; a damaged file is ErrCorrupt and stays byte-for-byte intact.
//
// # Crash semantics of each transaction
//
// SQLite commits atomically; a crash before COMMIT returns leaves the
// previous state, after it the new one (synchronous=FULL: also on power loss).
//
//   - migrate: all pending migrations and user_version in one transaction;
//     a crash leaves the old schema, and the next Open migrates again.
//   - BeginEpoch: epoch+1, started rows of older epochs → unknown, their
//     session.unknown events. Crash before commit: the next start does all
//     of it again (with the same epoch number); after: rows are unknown and
//     journaled once; a later start finds no started rows to orphan.
//   - InsertAdmission (prompt.submit): a crash before commit loses the
//     submission, which was never acknowledged; after commit the row is
//     queued and runs exactly once after the next start.
//   - ClaimNext: before commit the row stays queued (runs after restart);
//     after commit it is started with a new generation and, if the daemon
//     dies, becomes unknown at the next start (never replayed).
//   - Settle / Cancel / ResolveUnknown: before commit the row keeps its
//     status (started → unknown at restart; queued; unknown); after commit
//     it is terminal with its outcome, result and revision bump.
//   - AppendEvent / AppendMessage: part of the caller's transaction; an
//     event or message exists if and only if the state change it belongs to
//     committed.
//   - Checkpoint: copies the WAL into the main file; a crash during it is
//     recovered by SQLite from the WAL at the next open.
package store
