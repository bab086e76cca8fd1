package store

import (
	"context"
	"database/sql"
	"fmt"
)

// Checkpoint is a session_checkpoints row (issue 11). Empty strings and zero
// times stand for NULL.
type Checkpoint struct {
	CheckpointID      string
	SessionID         string // logical
	AdmissionID       string
	Cwd               string
	SnapshotCommit    string // the tree before the turn's first mutating tool call
	LedgerCommit      string // the tree the turn left; "" until it ended (or if it never did)
	LedgerSkippedJSON string // JSON array of paths skipped in the ledger
	TranscriptID      string // the physical transcript when the turn began
	MessageCount      int64  // its messages before the turn
	Files             int
	SkippedJSON       string // JSON array of paths skipped in the snapshot
	Summary           string
	CreatedAtMs       int64
	LedgerAtMs        int64
	PrunedAtMs        int64
}

// Rewind is a session_rewinds row. Status is "planned" or "done".
type Rewind struct {
	RewindID          string
	SessionID         string
	CheckpointID      string
	Mode              string
	Status            string
	Forced            bool
	PlanJSON          string
	BeforeCommit      string
	BeforeSkippedJSON string
	AfterCommit       string
	CreatedAtMs       int64
	FinishedAtMs      int64
}

const (
	checkpointCols = `checkpoint_id, session_id, admission_id, cwd, snapshot_commit, coalesce(ledger_commit, ''),
	ledger_skipped, transcript_id, message_count, files, skipped_json, summary, created_at_ms,
	coalesce(ledger_at_ms, 0), coalesce(pruned_at_ms, 0)`
	rewindCols = `rewind_id, session_id, checkpoint_id, mode, status, forced, plan_json,
	coalesce(before_commit, ''), before_skipped, coalesce(after_commit, ''), created_at_ms,
	coalesce(finished_at_ms, 0)`
)

func scanCheckpoint(sc scanner) (Checkpoint, error) {
	var c Checkpoint
	err := sc.Scan(&c.CheckpointID, &c.SessionID, &c.AdmissionID, &c.Cwd, &c.SnapshotCommit, &c.LedgerCommit,
		&c.LedgerSkippedJSON, &c.TranscriptID, &c.MessageCount, &c.Files, &c.SkippedJSON, &c.Summary,
		&c.CreatedAtMs, &c.LedgerAtMs, &c.PrunedAtMs)
	return c, err
}

func scanRewind(sc scanner) (Rewind, error) {
	var r Rewind
	err := sc.Scan(&r.RewindID, &r.SessionID, &r.CheckpointID, &r.Mode, &r.Status, &r.Forced, &r.PlanJSON,
		&r.BeforeCommit, &r.BeforeSkippedJSON, &r.AfterCommit, &r.CreatedAtMs, &r.FinishedAtMs)
	return r, err
}

func (tx *Tx) execSQL(what, q string, args ...any) (sql.Result, error) {
	res, err := tx.tx.ExecContext(tx.ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, classify(err))
	}
	return res, nil
}

// InsertCheckpoint records a turn's checkpoint; ErrConflict when the turn
// already has one.
func (tx *Tx) InsertCheckpoint(c Checkpoint) error {
	_, err := tx.execSQL("insert checkpoint "+c.CheckpointID, `INSERT INTO session_checkpoints (checkpoint_id,
	session_id, admission_id, cwd, snapshot_commit, transcript_id, message_count, files, skipped_json, summary,
	created_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		c.CheckpointID, c.SessionID, c.AdmissionID, c.Cwd, c.SnapshotCommit, c.TranscriptID, c.MessageCount,
		c.Files, c.SkippedJSON, c.Summary, c.CreatedAtMs)
	return err
}

// SetLedger records the tree a checkpointed turn left (ErrNotFound).
func (tx *Tx) SetLedger(checkpointID, commit, skippedJSON string, atMs int64) error {
	res, err := tx.execSQL("set ledger "+checkpointID, `UPDATE session_checkpoints
	SET ledger_commit = ?, ledger_skipped = ?, ledger_at_ms = ? WHERE checkpoint_id = ?`,
		commit, skippedJSON, atMs, checkpointID)
	return affectedOne("set ledger "+checkpointID, res, err)
}

// PruneCheckpoint marks a checkpoint pruned: its commits are gone.
func (tx *Tx) PruneCheckpoint(checkpointID string, atMs int64) error {
	_, err := tx.execSQL("prune checkpoint "+checkpointID,
		`UPDATE session_checkpoints SET pruned_at_ms = ? WHERE checkpoint_id = ? AND pruned_at_ms IS NULL`,
		atMs, checkpointID)
	return err
}

// InsertRewind writes a rewind's plan before anything is changed.
func (tx *Tx) InsertRewind(r Rewind) error {
	_, err := tx.execSQL("insert rewind "+r.RewindID, `INSERT INTO session_rewinds (rewind_id, session_id,
	checkpoint_id, mode, status, forced, plan_json, before_commit, before_skipped, created_at_ms)
	VALUES (?, ?, ?, ?, 'planned', ?, ?, nullif(?, ''), ?, ?)`,
		r.RewindID, r.SessionID, r.CheckpointID, r.Mode, r.Forced, r.PlanJSON, r.BeforeCommit,
		r.BeforeSkippedJSON, r.CreatedAtMs)
	return err
}

// FinishRewind marks a planned rewind done (ErrNotFound when it is not
// planned).
func (tx *Tx) FinishRewind(rewindID, afterCommit string, atMs int64) error {
	res, err := tx.execSQL("finish rewind "+rewindID, `UPDATE session_rewinds
	SET status = 'done', after_commit = nullif(?, ''), finished_at_ms = ? WHERE rewind_id = ? AND status = 'planned'`,
		afterCommit, atMs, rewindID)
	return affectedOne("finish rewind "+rewindID, res, err)
}

func affectedOne(what string, res sql.Result, err error) error {
	if err != nil {
		return err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if n != 1 {
		return fmt.Errorf("%s: %w", what, ErrNotFound)
	}
	return nil
}

// CheckpointRow reads one checkpoint row, pruned or not (ErrNotFound).
func (s *Store) CheckpointRow(ctx context.Context, id string) (Checkpoint, error) {
	c, err := scanCheckpoint(s.r.QueryRowContext(ctx,
		`SELECT `+checkpointCols+` FROM session_checkpoints WHERE checkpoint_id = ?`, id))
	return one(c, err, "checkpoint "+id)
}

// Checkpoints lists a logical session's checkpoints that are not pruned,
// oldest first.
func (s *Store) Checkpoints(ctx context.Context, sessionID string) ([]Checkpoint, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT `+checkpointCols+` FROM session_checkpoints
	WHERE session_id = ? AND pruned_at_ms IS NULL ORDER BY created_at_ms, rowid`, sessionID)
	return collect(rows, err, scanCheckpoint)
}

// LiveCheckpoints lists every checkpoint not pruned, oldest first (pruning).
func (s *Store) LiveCheckpoints(ctx context.Context) ([]Checkpoint, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT `+checkpointCols+` FROM session_checkpoints
	WHERE pruned_at_ms IS NULL ORDER BY created_at_ms, rowid`)
	return collect(rows, err, scanCheckpoint)
}

// Rewinds lists a session's rewinds created at or after sinceMs, oldest first.
func (s *Store) Rewinds(ctx context.Context, sessionID string, sinceMs int64) ([]Rewind, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT `+rewindCols+` FROM session_rewinds
	WHERE session_id = ? AND created_at_ms >= ? ORDER BY created_at_ms, rowid`, sessionID, sinceMs)
	return collect(rows, err, scanRewind)
}

// PlannedRewinds lists the rewinds a crash left planned, oldest first.
func (s *Store) PlannedRewinds(ctx context.Context) ([]Rewind, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT `+rewindCols+` FROM session_rewinds
	WHERE status = 'planned' ORDER BY created_at_ms, rowid`)
	return collect(rows, err, scanRewind)
}
