package store

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/hermes-gateway/hermes/internal/queue"
)

// InsertAdmission commits a queued row: owner_epoch = the transaction's
// epoch; Seq and (when zero) CreatedAtMs, AdmissionID (32 hex), LineageJSON
// (["<target>"]) and Intent ("queue") are filled in. ErrConflict when the
// (principal, target, request) key exists; ErrNotFound when the target
// session does not.
func (tx *Tx) InsertAdmission(a Admission) (Admission, error) {
	a = newAdmission(tx, a)
	err := tx.queryRow(sAdmissionInsert, a.AdmissionID, a.RequestID, a.PrincipalID, a.TargetSessionID,
		a.LineageJSON, a.PayloadJSON, a.PayloadDigest, a.Intent, a.OwnerEpoch, a.CreatedAtMs).Scan(&a.Seq)
	if err != nil {
		return Admission{}, fmt.Errorf("insert admission %s: %w", a.RequestID, classify(err))
	}
	return a, nil
}

// AdmitOnce is the idempotent form of InsertAdmission: it inserts a queued
// row (fresh=true), or, when the (principal, target, request) key exists,
// returns that row unchanged (fresh=false) for the caller to compare
// digests. The fresh path is one statement.
func (tx *Tx) AdmitOnce(a Admission) (saved Admission, fresh bool, err error) {
	a = newAdmission(tx, a)
	err = tx.queryRow(sAdmissionInsertOnce, a.AdmissionID, a.RequestID, a.PrincipalID, a.TargetSessionID,
		a.LineageJSON, a.PayloadJSON, a.PayloadDigest, a.Intent, a.OwnerEpoch, a.CreatedAtMs).Scan(&a.Seq)
	if errors.Is(err, sql.ErrNoRows) {
		old, ok, err := tx.AdmissionByKey(a.PrincipalID, a.TargetSessionID, a.RequestID)
		if err == nil && !ok { // the conflicting row cannot vanish inside the transaction
			err = fmt.Errorf("admit %s: key conflict without a row: %w", a.RequestID, ErrConflict)
		}
		return old, false, err
	}
	if err != nil {
		return Admission{}, false, fmt.Errorf("insert admission %s: %w", a.RequestID, classify(err))
	}
	return a, true, nil
}

// newAdmission fills in the defaults of a row about to be inserted by tx:
// the table's Admit, (none) → Queued, which the INSERT writes.
func newAdmission(tx *Tx, a Admission) Admission {
	if a.AdmissionID == "" {
		a.AdmissionID = randomHex(16)
	}
	if a.LineageJSON == "" {
		b, _ := json.Marshal([]string{a.TargetSessionID}) // a []string always marshals
		a.LineageJSON = string(b)
	}
	if a.Intent == "" {
		a.Intent = "queue"
	}
	if a.CreatedAtMs == 0 {
		a.CreatedAtMs = nowMs()
	}
	a.Status, a.Outcome, a.OwnerEpoch, a.Generation, a.SettledAtMs = string(queue.Queued), "", tx.epoch, 0, 0
	return a
}

// AdmissionByKey looks a row up by its idempotency key.
func (tx *Tx) AdmissionByKey(principalID, sessionID, requestID string) (Admission, bool, error) {
	a, err := scanAdmission(tx.queryRow(sAdmissionByKey, principalID, sessionID, requestID))
	return maybe(a, err, "admission by key "+requestID)
}

// Admission reads a row by admission id (ErrNotFound).
func (tx *Tx) Admission(admissionID string) (Admission, error) {
	a, err := scanAdmission(tx.queryRow(sAdmissionByID, admissionID))
	return one(a, err, "admission "+admissionID)
}

// PendingAdmissions lists the non-terminal rows of a session by seq.
func (tx *Tx) PendingAdmissions(sessionID string) ([]Admission, error) {
	rows, err := tx.query(sAdmissionsPending, sessionID)
	return collect(rows, err, scanAdmission)
}

// PendingBrief returns at most n non-terminal rows of the session, oldest
// first, as a session.info event lists them (no payload decoding in Go).
func (tx *Tx) PendingBrief(sessionID string, n int) ([]PendingBrief, error) {
	rows, err := tx.query(sAdmissionsPendingBrief, sessionID, n)
	return collect(rows, err, func(sc scanner) (PendingBrief, error) {
		var p PendingBrief
		err := sc.Scan(&p.Seq, &p.AdmissionID, &p.RequestID, &p.Status, &p.Generation, &p.Text)
		return p, err
	})
}

// ClaimNext moves the session's oldest queued row to started with a new
// execution generation (sessions.runtime_generation+1, written to both rows).
// An unknown row of the session is ErrUnknownExecution; a started one, or no
// queued one, is ok=false.
func (tx *Tx) ClaimNext(sessionID string) (Admission, bool, error) {
	var unknown, started int64
	var next sql.NullInt64
	if err := tx.queryRow(sClaimScan, sessionID).Scan(&unknown, &started, &next); err != nil {
		return Admission{}, false, fmt.Errorf("claim %s: %w", sessionID, classify(err))
	}
	switch {
	case unknown > 0:
		return Admission{}, false, fmt.Errorf("claim %s: %w", sessionID, ErrUnknownExecution)
	case started > 0 || !next.Valid:
		return Admission{}, false, nil
	}
	var gen int64
	if err := tx.queryRow(sClaimGeneration, sessionID).Scan(&gen); err != nil {
		_, err = one(gen, err, "claim "+sessionID)
		return Admission{}, false, err
	}
	a := Admission{Seq: next.Int64, Status: string(queue.Queued)} // the rest from RETURNING
	if err := tx.move(&a, queue.Claim, moveFields{generation: gen}); err != nil {
		return Admission{}, false, fmt.Errorf("claim %s: %w", sessionID, err)
	}
	return a, true, nil
}

// Settle ends a started row with outcome (completed, failed, rejected or
// interrupted), stores resultJSON (when not empty) in admission_results and
// bumps the target session's revision. The row must be started by this epoch
// with generation == given == the session's runtime_generation, else
// ErrStaleGeneration: that is how a reset under a running turn leaves the row
// started, to become unknown at the next start.
func (tx *Tx) Settle(admissionID string, generation int64, outcome string, resultJSON string) (Admission, error) {
	a, err := tx.Admission(admissionID)
	if err != nil {
		return Admission{}, err
	}
	if a.OwnerEpoch != tx.epoch || a.Generation != generation {
		return Admission{}, fmt.Errorf("settle %s (status %s, epoch %d, generation %d; given generation %d): %w",
			admissionID, a.Status, a.OwnerEpoch, a.Generation, generation, ErrStaleGeneration)
	}
	sess, err := tx.Session(a.TargetSessionID)
	if err != nil {
		return Admission{}, fmt.Errorf("settle %s: %w", admissionID, err)
	}
	if sess.RuntimeGeneration != generation {
		return Admission{}, fmt.Errorf("settle %s: session at generation %d, given %d: %w",
			admissionID, sess.RuntimeGeneration, generation, ErrStaleGeneration)
	}
	if err := tx.move(&a, queue.Settle, moveFields{outcome: queue.Outcome(outcome)}); err != nil {
		return Admission{}, fmt.Errorf("settle %s: %w", admissionID, err)
	}
	if resultJSON != "" {
		if _, err := tx.exec(sResultPut, admissionID, resultJSON); err != nil {
			return Admission{}, fmt.Errorf("settle %s: result: %w", admissionID, classify(err))
		}
	}
	return a, nil
}

// Cancel withdraws a queued row (terminal/cancelled, revision+1). A started
// row is ErrStaleGeneration, an unknown one ErrUnknownExecution, and a
// terminal one is returned unchanged (a retried cancel gets the receipt).
func (tx *Tx) Cancel(admissionID string) (Admission, error) {
	a, err := tx.Admission(admissionID)
	if err != nil {
		return Admission{}, err
	}
	if a.Status == string(queue.Terminal) {
		return a, nil
	}
	if err := tx.move(&a, queue.Cancel, moveFields{outcome: queue.Cancelled}); err != nil {
		return Admission{}, fmt.Errorf("cancel %s: %w", admissionID, err)
	}
	return a, nil
}

// ResolveUnknown closes an unknown row with the given generation as
// terminal/interrupted (revision+1); anything else is ErrStaleGeneration.
func (tx *Tx) ResolveUnknown(admissionID string, generation int64) (Admission, error) {
	a, err := tx.Admission(admissionID)
	if err != nil {
		return Admission{}, err
	}
	if a.Generation != generation {
		return Admission{}, fmt.Errorf("resolve %s (status %s, generation %d; given %d): %w",
			admissionID, a.Status, a.Generation, generation, ErrStaleGeneration)
	}
	if err := tx.move(&a, queue.Resolve, moveFields{outcome: queue.Interrupted}); err != nil {
		return Admission{}, fmt.Errorf("resolve %s: %w", admissionID, err)
	}
	return a, nil
}
