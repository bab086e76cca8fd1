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
	a, err := newAdmission(tx, a)
	if err != nil {
		return Admission{}, err
	}
	err = tx.queryRow(sAdmissionInsert, a.AdmissionID, a.RequestID, a.PrincipalID, a.TargetSessionID,
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
	if a, err = newAdmission(tx, a); err != nil {
		return Admission{}, false, err
	}
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

// newAdmission validates the admit transition and fills in the defaults of
// a row about to be inserted by tx.
func newAdmission(tx *Tx, a Admission) (Admission, error) {
	if _, err := queue.Next("", queue.Admit); err != nil {
		return Admission{}, err
	}
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
	return a, nil
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
	if _, err := queue.Next(queue.Queued, queue.Claim); err != nil {
		return Admission{}, false, err
	}
	var gen int64
	if err := tx.queryRow(sClaimGeneration, sessionID).Scan(&gen); err != nil {
		_, err = one(gen, err, "claim "+sessionID)
		return Admission{}, false, err
	}
	a, err := scanAdmission(tx.queryRow(sClaimUpdate, tx.epoch, gen, next.Int64))
	if errors.Is(err, sql.ErrNoRows) {
		return Admission{}, false, fmt.Errorf("claim %s seq %d: %w", sessionID, next.Int64, ErrStaleGeneration)
	}
	if err != nil {
		return Admission{}, false, fmt.Errorf("claim %s: %w", sessionID, classify(err))
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
	if err := queue.CheckOutcome(queue.Started, queue.Settle, queue.Outcome(outcome)); err != nil {
		return Admission{}, fmt.Errorf("settle %s: %w", admissionID, err)
	}
	if a.Status != string(queue.Started) || a.OwnerEpoch != tx.epoch || a.Generation != generation {
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
	if resultJSON != "" {
		if _, err := tx.exec(sResultPut, admissionID, resultJSON); err != nil {
			return Admission{}, fmt.Errorf("settle %s: result: %w", admissionID, classify(err))
		}
	}
	return tx.finish(a, queue.Outcome(outcome))
}

// Cancel withdraws a queued row (terminal/cancelled, revision+1). A started
// row is ErrStaleGeneration, an unknown one ErrUnknownExecution, and a
// terminal one is returned unchanged.
func (tx *Tx) Cancel(admissionID string) (Admission, error) {
	a, err := tx.Admission(admissionID)
	if err != nil {
		return Admission{}, err
	}
	switch queue.Status(a.Status) {
	case queue.Terminal:
		return a, nil
	case queue.Started:
		return Admission{}, fmt.Errorf("cancel %s: already started: %w", admissionID, ErrStaleGeneration)
	case queue.Unknown:
		return Admission{}, fmt.Errorf("cancel %s: %w", admissionID, ErrUnknownExecution)
	}
	if err := queue.CheckOutcome(queue.Status(a.Status), queue.Cancel, queue.Cancelled); err != nil {
		return Admission{}, fmt.Errorf("cancel %s: %w", admissionID, err)
	}
	return tx.finish(a, queue.Cancelled)
}

// ResolveUnknown closes an unknown row with the given generation as
// terminal/interrupted (revision+1); anything else is ErrStaleGeneration.
func (tx *Tx) ResolveUnknown(admissionID string, generation int64) (Admission, error) {
	a, err := tx.Admission(admissionID)
	if err != nil {
		return Admission{}, err
	}
	if a.Status != string(queue.Unknown) || a.Generation != generation {
		return Admission{}, fmt.Errorf("resolve %s (status %s, generation %d; given %d): %w",
			admissionID, a.Status, a.Generation, generation, ErrStaleGeneration)
	}
	if err := queue.CheckOutcome(queue.Unknown, queue.Resolve, queue.Interrupted); err != nil {
		return Admission{}, fmt.Errorf("resolve %s: %w", admissionID, err)
	}
	return tx.finish(a, queue.Interrupted)
}

// finish moves a (validated) row to terminal with outcome, guarded by its
// current status, and bumps its session's revision.
func (tx *Tx) finish(a Admission, outcome queue.Outcome) (Admission, error) {
	at := nowMs()
	err := tx.execOne("finish admission "+a.AdmissionID, sAdmissionFinish, string(outcome), at, a.AdmissionID, a.Status)
	if errors.Is(err, ErrNotFound) {
		return Admission{}, fmt.Errorf("finish admission %s: moved concurrently: %w", a.AdmissionID, ErrStaleGeneration)
	}
	if err != nil {
		return Admission{}, err
	}
	if _, err := tx.BumpRevision(a.TargetSessionID); err != nil {
		return Admission{}, err
	}
	a.Status, a.Outcome, a.SettledAtMs = string(queue.Terminal), string(outcome), at
	return a, nil
}
