package store

import (
	"database/sql"
	"errors"
	"fmt"

	"github.com/hermes-gateway/hermes/internal/queue"
)

// Every admission move (claim, settle, cancel, orphan, resolve) goes through
// move: the next status comes from queue.Transitions, never from the caller,
// and the write is one UPDATE guarded by the status the caller read the row
// in. The exported operations (ClaimNext, Settle, Cancel, ResolveUnknown,
// BeginEpoch) add the checks that are not about the row's status: the
// session-wide claim rules, the execution generation, the owning epoch.

// moveFields are the columns a move writes beside status.
type moveFields struct {
	outcome    queue.Outcome // a move into Terminal: its outcome (the table says which); else ""
	generation int64         // Claim: the new execution generation; the row joins the tx's epoch. Else 0
}

// MoveError is a refused admission move; nothing was written. Either the
// table has no Event from the status the row was read in (Now == From), or
// the row was no longer in From when the guarded UPDATE ran: it moved
// meanwhile (Now is its status then, "" if it is gone). Callers branch on the
// sentinel it wraps: ErrUnknownExecution when a cancel meets an unknown row
// (the session waits for prompt.resolve_unknown), ErrStaleGeneration for
// every other refusal.
type MoveError struct {
	Seq   int64        // session_admissions.seq of the row
	Event queue.Event  // the refused move
	From  queue.Status // the status the caller read the row in
	Now   queue.Status // the status the row is in
}

func (e *MoveError) Error() string {
	if e.Now == e.From {
		return fmt.Sprintf("admission seq %d: %s from %s refused: %v", e.Seq, e.Event, e.From, e.Unwrap())
	}
	return fmt.Sprintf("admission seq %d: %s from %s refused, the row is %q now: %v", e.Seq, e.Event, e.From, e.Now, e.Unwrap())
}

// Unwrap returns the sentinel of the refusal (see MoveError).
func (e *MoveError) Unwrap() error {
	if e.Event == queue.Cancel && e.Now == queue.Unknown {
		return ErrUnknownExecution
	}
	return ErrStaleGeneration
}

// move applies ev to the admission at seq, which the caller read (or found
// by a scan) in status from inside this transaction. The table gives the
// next status and the outcome rule; UPDATE … WHERE seq = ? AND status = from
// writes it, so a row that moved since it was read is refused, not
// overwritten. A move into Terminal stamps settled_at_ms and bumps the
// session's runtime_revision (its receipt changed). It returns the row as
// stored; a refused status is a *MoveError, a refused outcome (a programming
// error) wraps queue.ErrInvalidTransition, and neither writes anything.
func (tx *Tx) move(seq int64, from queue.Status, ev queue.Event, f moveFields) (Admission, error) {
	t, ok := queue.Lookup(from, ev)
	if !ok {
		return Admission{}, &MoveError{Seq: seq, Event: ev, From: from, Now: from}
	}
	if err := t.CheckOutcome(f.outcome); err != nil {
		return Admission{}, fmt.Errorf("admission seq %d: %w", seq, err)
	}
	var settledAt int64
	if t.To == queue.Terminal {
		settledAt = nowMs()
	}
	// No move touches a row of a later epoch (the fence already makes that
	// moot); an orphan must belong to an earlier one: a row claimed by this
	// very epoch is not orphaned.
	newest := tx.epoch
	if ev == queue.Orphan {
		newest--
	}
	a, err := scanAdmission(tx.queryRow(sAdmissionMove, string(t.To), seq, string(from), newest,
		string(f.outcome), settledAt, f.generation, tx.epoch))
	if errors.Is(err, sql.ErrNoRows) {
		return Admission{}, tx.refused(seq, ev, from)
	}
	if err != nil {
		return Admission{}, fmt.Errorf("%s admission seq %d: %w", ev, seq, classify(err))
	}
	if t.To == queue.Terminal {
		if _, err := tx.BumpRevision(a.TargetSessionID); err != nil {
			return Admission{}, err
		}
	}
	return a, nil
}

// refused builds the MoveError of a guarded UPDATE that matched no row,
// with the status the row is in now (the error path only).
func (tx *Tx) refused(seq int64, ev queue.Event, from queue.Status) error {
	var now string
	err := tx.tx.QueryRowContext(tx.ctx, `SELECT status FROM session_admissions WHERE seq = ?`, seq).Scan(&now)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("%s admission seq %d: %w", ev, seq, classify(err))
	}
	return &MoveError{Seq: seq, Event: ev, From: from, Now: queue.Status(now)}
}
