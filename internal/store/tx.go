package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// Tx is one write transaction fenced by an authority epoch. It is valid only
// inside the fn passed to InTx, on that goroutine.
type Tx struct {
	ctx   context.Context
	tx    *sql.Tx
	s     *Store
	epoch int64
}

// Epoch is the epoch this transaction was fenced with.
func (tx *Tx) Epoch() int64 { return tx.epoch }

// InTx runs fn in one BEGIN IMMEDIATE transaction. Its first statement checks
// runtime_epoch.epoch == epoch (else ErrStaleEpoch, nothing written). It
// commits when fn returns nil and rolls back when fn returns an error or
// panics (the panic continues after the rollback).
func (s *Store) InTx(ctx context.Context, epoch int64, fn func(tx *Tx) error) error {
	return s.inTx(ctx, epoch, true, fn)
}

func (s *Store) inTx(ctx context.Context, epoch int64, fence bool, fn func(tx *Tx) error) (err error) {
	sqlTx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", classify(err))
	}
	committed := false
	defer func() {
		// Runs on error returns and while a panic unwinds; the panic
		// itself keeps propagating because nothing recovers it here.
		if !committed {
			_ = sqlTx.Rollback()
		}
	}()
	tx := &Tx{ctx: ctx, tx: sqlTx, s: s, epoch: epoch}
	if fence {
		if err := tx.fence(); err != nil {
			return err
		}
	}
	if err := fn(tx); err != nil {
		return err
	}
	committed = true // Commit ends the transaction whether or not it succeeds
	if err := sqlTx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", classify(err))
	}
	return nil
}

func (tx *Tx) fence() error {
	var current int64
	err := tx.queryRow(sFence).Scan(&current)
	if err == sql.ErrNoRows {
		return fmt.Errorf("%w: no epoch has begun (caller has %d)", ErrStaleEpoch, tx.epoch)
	}
	if err != nil {
		return fmt.Errorf("epoch fence: %w", classify(err))
	}
	if current != tx.epoch {
		return fmt.Errorf("%w: database is at epoch %d, caller has %d", ErrStaleEpoch, current, tx.epoch)
	}
	return nil
}

// stmt binds a prepared statement to this transaction.
func (tx *Tx) stmt(id stmtID) *sql.Stmt { return tx.tx.StmtContext(tx.ctx, tx.s.stmts[id]) }

func (tx *Tx) exec(id stmtID, args ...any) (sql.Result, error) {
	return tx.stmt(id).ExecContext(tx.ctx, args...)
}

func (tx *Tx) queryRow(id stmtID, args ...any) *sql.Row {
	return tx.stmt(id).QueryRowContext(tx.ctx, args...)
}

func (tx *Tx) query(id stmtID, args ...any) (*sql.Rows, error) {
	return tx.stmt(id).QueryContext(tx.ctx, args...)
}

// execOne runs a statement that must change exactly one row; zero rows is
// ErrNotFound (wrapped with what).
func (tx *Tx) execOne(what string, id stmtID, args ...any) error {
	res, err := tx.exec(id, args...)
	if err != nil {
		return fmt.Errorf("%s: %w", what, classify(err))
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	} else if n != 1 {
		return fmt.Errorf("%s: %w", what, ErrNotFound)
	}
	return nil
}

func nowMs() int64 { return time.Now().UnixMilli() }
