package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/hermes-gateway/hermes/internal/queue"
)

// ProfileIDKey is the state_meta key of the profile id (docs/protocol.md#control-socket).
const ProfileIDKey = "gateway.profile_id"

// EventSessionUnknown is the journal type BeginEpoch writes for each row it
// marks unknown.
const EventSessionUnknown = "session.unknown"

const (
	sqlEpochBegin = `INSERT INTO runtime_epoch (singleton, epoch, instance_id) VALUES (1, 1, ?)
	ON CONFLICT (singleton) DO UPDATE SET epoch = epoch + 1, instance_id = excluded.instance_id
	RETURNING epoch`
	// status != 'terminal' repeats the partial index's condition so SQLite
	// scans that index (covering: seq is the rowid): the scan costs the
	// pending rows, not the history. The epoch is checked by the update.
	// No ORDER BY: ordering by seq makes SQLite prefer a rowid-order table
	// scan; the handful of rows is sorted in Go instead.
	sqlOrphans = `SELECT seq FROM session_admissions WHERE status = 'started' AND status != 'terminal'`
)

// BeginEpoch starts a new authority epoch in one transaction: runtime_epoch
// becomes epoch+1 (1 if none) with instanceID, every started row of an older
// epoch becomes unknown, and a session.unknown event ({"admission_id":…},
// AdmissionID and ExecutionGeneration stamped) is journaled on each such
// row's session. It returns the new epoch and those events, to publish after
// the commit. Any daemon still holding the old epoch is fenced off from then on.
func (s *Store) BeginEpoch(ctx context.Context, instanceID string) (int64, []Event, error) {
	var epoch int64
	var events []Event
	err := s.inTx(ctx, 0, false, func(tx *Tx) error {
		if err := tx.tx.QueryRowContext(ctx, sqlEpochBegin, instanceID).Scan(&epoch); err != nil {
			return fmt.Errorf("begin epoch: %w", classify(err))
		}
		tx.epoch = epoch
		var err error
		events, err = tx.orphanStarted()
		return err
	})
	if err != nil {
		return 0, nil, err
	}
	return epoch, events, nil
}

// orphanStarted marks the started rows of older epochs unknown.
func (tx *Tx) orphanStarted() ([]Event, error) {
	rows, err := tx.tx.QueryContext(tx.ctx, sqlOrphans)
	seqs, err := collect(rows, err, func(sc scanner) (int64, error) {
		var seq int64
		return seq, sc.Scan(&seq)
	})
	if err != nil {
		return nil, fmt.Errorf("begin epoch: orphans: %w", err)
	}
	slices.Sort(seqs) // journal in admission order
	var events []Event
	for _, seq := range seqs {
		a := Admission{Seq: seq, Status: string(queue.Started)} // the rest from RETURNING
		err := tx.move(&a, queue.Orphan, moveFields{})
		if errors.As(err, new(*MoveError)) {
			continue // claimed by this very epoch: not an orphan
		}
		if err != nil {
			return nil, fmt.Errorf("begin epoch: mark unknown seq %d: %w", seq, err)
		}
		payload, _ := json.Marshal(map[string]string{"admission_id": a.AdmissionID}) // strings always marshal
		e, err := tx.AppendEvent(a.TargetSessionID, Event{
			Type: EventSessionUnknown, PayloadJSON: string(payload),
			AdmissionID: a.AdmissionID, ExecutionGeneration: a.Generation,
		})
		if err != nil {
			return nil, err
		}
		events = append(events, e)
	}
	return events, nil
}

// Epoch is the current runtime_epoch.epoch (0 if none has begun).
func (s *Store) Epoch(ctx context.Context) (int64, error) {
	var epoch int64
	err := s.r.QueryRowContext(ctx, stmtSQL[sFence]).Scan(&epoch)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("epoch: %w", classify(err))
	}
	return epoch, nil
}

// EnsureProfileID returns the profile id, creating it ("prof-" + 32 random
// hex) the first time. It needs no epoch: it is written once, before any.
func (s *Store) EnsureProfileID(ctx context.Context) (string, error) {
	var id string
	err := s.inTx(ctx, 0, false, func(tx *Tx) error {
		v, ok, err := tx.Meta(ProfileIDKey)
		if err != nil || ok {
			id = v
			return err
		}
		id = "prof-" + randomHex(16)
		return tx.PutMeta(ProfileIDKey, id)
	})
	if err != nil {
		return "", fmt.Errorf("profile id: %w", err)
	}
	return id, nil
}
