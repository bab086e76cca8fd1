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

// move applies ev to *a, the row as the caller read it inside this
// transaction (from is a.Status). The table gives the next status and the
// outcome rule; UPDATE … WHERE seq = ? AND status = from writes it, so a row
// that moved since it was read is refused, not overwritten. A move into
// Terminal stamps settled_at_ms and bumps the session's runtime_revision
// (its receipt changed). On success *a is the row as stored: a caller that
// found the row by a scan passes only Seq and Status, and the UPDATE's
// RETURNING fills in the rest; a caller holding the whole row gets it
// updated in place, without reading it back. A refused status is a
// *MoveError, a refused outcome (a programming error) wraps
// queue.ErrInvalidTransition, and neither writes anything.
func (tx *Tx) move(a *Admission, ev queue.Event, f moveFields) error {
	from := queue.Status(a.Status)
	t, ok := queue.Lookup(from, ev)
	if !ok {
		return &MoveError{Seq: a.Seq, Event: ev, From: from, Now: from}
	}
	if err := t.CheckOutcome(f.outcome); err != nil {
		return fmt.Errorf("admission seq %d: %w", a.Seq, err)
	}
	moved := *a
	moved.Status, moved.Outcome = string(t.To), string(f.outcome)
	if t.To == queue.Terminal {
		moved.SettledAtMs = nowMs()
	}
	if f.generation > 0 {
		moved.Generation, moved.OwnerEpoch = f.generation, tx.epoch
	}
	// No move touches a row of a later epoch (the fence already makes that
	// moot); an orphan must belong to an earlier one: a row claimed by this
	// very epoch is not orphaned.
	newest := tx.epoch
	if ev == queue.Orphan {
		newest--
	}
	n, err := tx.moveRow(&moved, from, newest, f.generation)
	if err != nil {
		return fmt.Errorf("%s admission seq %d: %w", ev, a.Seq, err)
	}
	if n == 0 {
		return tx.refused(a.Seq, ev, from)
	}
	if t.To == queue.Terminal {
		if _, err := tx.BumpRevision(moved.TargetSessionID); err != nil {
			return err
		}
	}
	*a = moved
	return nil
}

// moveRow runs sAdmissionMove, writing m's status, outcome and settled_at_ms
// and (gen > 0) its generation and epoch, and reports the rows it changed. A
// row known by Seq alone is scanned back into m from RETURNING; otherwise m
// already holds what the statement wrote.
func (tx *Tx) moveRow(m *Admission, from queue.Status, newest, gen int64) (int64, error) {
	args := []any{m.Status, m.Seq, string(from), newest, m.Outcome, m.SettledAtMs, gen, tx.epoch}
	if m.AdmissionID == "" {
		row, err := scanAdmission(tx.queryRow(sAdmissionMove, args...))
		if errors.Is(err, sql.ErrNoRows) {
			return 0, nil
		}
		*m = row
		return 1, classify(err)
	}
	res, err := tx.exec(sAdmissionMove, args...)
	if err != nil {
		return 0, classify(err)
	}
	return res.RowsAffected()
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
