package store

import (
	"errors"
	"fmt"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// Sentinels callers branch on. Every returned error that means one of these
// wraps it (errors.Is), usually with the row id for context.
var (
	// ErrNotFound: the row does not exist. Callers answer not_found.
	ErrNotFound = errors.New("store: not found")
	// ErrStaleEpoch: runtime_epoch.epoch differs from the caller's epoch, so
	// another daemon owns the database. Nothing was written; the caller must
	// stop serving writes (answer stale_epoch).
	ErrStaleEpoch = errors.New("store: stale epoch")
	// ErrStaleGeneration: a settle/resolve/cancel named a wrong or stale
	// execution generation, or the row was not in a status the move applies
	// to (a *MoveError: a started row cancelled, a row settled twice, a row
	// that moved meanwhile). Nothing was written; answer stale_generation.
	ErrStaleGeneration = errors.New("store: stale generation")
	// ErrUnknownExecution: an unknown row blocks the session (claim), or the
	// row itself is unknown (cancel). Nothing was written; the session waits
	// for prompt.resolve_unknown.
	ErrUnknownExecution = errors.New("store: unknown execution")
	// ErrCorrupt: quick_check failed or the file is not a database. The file
	// was not modified; the daemon exits 5 and repairs nothing.
	ErrCorrupt = errors.New("store: database is corrupt")
	// ErrConflict: a UNIQUE or PRIMARY KEY constraint refused the write (for
	// example a duplicate idempotency key). The transaction should roll back
	// or look the existing row up.
	ErrConflict = errors.New("store: conflict")
)

// classify wraps a driver error with the sentinel it means, keeping the
// driver error in the chain for the log.
func classify(err error) error {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return err
	}
	switch se.Code() {
	case sqlite3.SQLITE_CONSTRAINT_UNIQUE, sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY:
		return fmt.Errorf("%w: %w", ErrConflict, err)
	case sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY:
		return fmt.Errorf("%w: referenced row: %w", ErrNotFound, err)
	}
	switch se.Code() & 0xff { // primary code of an extended one
	case sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB:
		return fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	return err
}
