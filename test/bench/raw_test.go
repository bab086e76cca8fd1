package bench

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	_ "modernc.org/sqlite" // the driver the store uses
)

// rawDB is the baseline of the submit benchmarks: plain database/sql and
// modernc SQLite with the store's pragmas (WAL, synchronous FULL, BEGIN
// IMMEDIATE, one connection), one INSERT and one COMMIT per operation into
// a table shaped like session_admissions (same unique keys, one partial
// index).
type rawDB struct {
	db  *sql.DB
	ins *sql.Stmt
	n   int
}

const rawSchema = `CREATE TABLE IF NOT EXISTS admissions (
	seq               INTEGER PRIMARY KEY AUTOINCREMENT,
	admission_id      TEXT    NOT NULL UNIQUE,
	request_id        TEXT    NOT NULL,
	principal_id      TEXT    NOT NULL,
	target_session_id TEXT    NOT NULL,
	lineage_json      TEXT    NOT NULL,
	payload_json      TEXT    NOT NULL,
	payload_digest    TEXT    NOT NULL,
	status            TEXT    NOT NULL CHECK (status IN ('queued', 'started', 'unknown', 'terminal')),
	owner_epoch       INTEGER NOT NULL,
	created_at_ms     INTEGER NOT NULL,
	UNIQUE (principal_id, target_session_id, request_id)
) STRICT;
CREATE INDEX IF NOT EXISTS admissions_pending ON admissions (target_session_id, status, seq) WHERE status != 'terminal';`

const rawInsert = `INSERT INTO admissions (admission_id, request_id, principal_id, target_session_id,
	lineage_json, payload_json, payload_digest, status, owner_epoch, created_at_ms)
	VALUES (?, ?, 'uid:1000', 'local-bench', '["local-bench"]', ?, ?, 'queued', 1, ?)`

// submitText is the prompt of every submit; the raw row stores the same
// bytes as its payload.
const submitText = "hello world, please refactor the store"

func openRaw(b testing.TB) *rawDB {
	b.Helper()
	path := filepath.Join(benchHome(b), "raw.db")
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)&_pragma=foreign_keys(1)"+
		"&_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)&_txlock=immediate")
	if err != nil {
		b.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	b.Cleanup(func() { _ = db.Close() })
	if _, err := db.Exec(rawSchema); err != nil {
		b.Fatal(err)
	}
	ins, err := db.Prepare(rawInsert)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = ins.Close() })
	return &rawDB{db: db, ins: ins}
}

// pragmas reads back journal_mode and synchronous (2 = FULL).
func (r *rawDB) pragmas(b testing.TB) (mode string, sync int) {
	b.Helper()
	if err := r.db.QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil {
		b.Fatal(err)
	}
	if err := r.db.QueryRow("PRAGMA synchronous").Scan(&sync); err != nil {
		b.Fatal(err)
	}
	return mode, sync
}

// insert commits one row: BEGIN IMMEDIATE; INSERT; COMMIT. Safe for
// concurrent use (the pool has one connection, like the store's writer).
func (r *rawDB) insert(ctx context.Context, requestID string) error {
	tx, err := r.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	// A random id like the store's: a sequential one would append to the
	// unique index and flatter the baseline.
	payload := `{"input":{"text":"` + submitText + `"},"intent":"queue"}`
	if _, err := tx.StmtContext(ctx, r.ins).ExecContext(ctx, randomID(), requestID, payload, randomID(),
		time.Now().UnixMilli()); err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}

// timedInsert is insert with a fresh request id, returning its duration.
func (r *rawDB) timedInsert(b testing.TB, worker int) time.Duration {
	r.n++
	return r.timedInsertID(b, "raw-"+strconv.Itoa(worker)+"-"+strconv.Itoa(r.n))
}

func (r *rawDB) timedInsertID(b testing.TB, id string) time.Duration {
	start := time.Now()
	if err := r.insert(context.Background(), id); err != nil {
		b.Fatal(err)
	}
	return time.Since(start)
}

func randomID() string {
	p := make([]byte, 16)
	_, _ = rand.Read(p)
	return hex.EncodeToString(p)
}
