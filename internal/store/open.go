package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"sync"
	"time"

	_ "modernc.org/sqlite" // registers driver "sqlite"
)

// Store is the gateway's SQLite database: one writer connection that every
// write transaction serializes on, and a read pool for snapshots and lists.
type Store struct {
	path      string
	w         *sql.DB // MaxOpenConns 1: the writer; all InTx run here in turn
	r         *sql.DB // query_only read pool
	stmts     [nStmts]*sql.Stmt
	checkTook time.Duration // start-up quick_check, for benchmarks and logs
	group     grouper       // InTxGrouped's queue and leader

	closeOnce sync.Once
	closeErr  error
}

// Pragmas, each with its reason:
//   - busy_timeout(10000): wait for a lock instead of failing at once (the
//     read pool and a checkpoint can briefly hold one).
//   - foreign_keys(1): SQLite leaves them off per connection by default.
//   - journal_mode(WAL): readers never block the writer and vice versa.
//   - synchronous(FULL): a commit acknowledged to a client survives power
//     loss (set explicitly; drivers differ in their defaults).
//   - _txlock=immediate: every write transaction is BEGIN IMMEDIATE, so a
//     read-then-write transaction can never fail with SQLITE_BUSY mid-way.
//   - query_only(1) on the read pool: a bug there cannot write.
const (
	writerParams = "_pragma=busy_timeout(10000)&_pragma=foreign_keys(1)&_pragma=journal_mode(WAL)" +
		"&_pragma=synchronous(FULL)&_txlock=immediate"
	readerParams = "_pragma=busy_timeout(10000)&_pragma=foreign_keys(1)&_pragma=query_only(1)&_txlock=deferred"
	// mode=ro is SQLite's own URI parameter: the check opens nothing for
	// writing, so a damaged file stays byte-for-byte as it was.
	checkParams = "mode=ro&_pragma=busy_timeout(10000)"
	readPoolMax = 4
)

// dsn builds a SQLite URI filename; the path is escaped so that '?' or '#'
// in a directory name cannot be read as parameters.
func dsn(path, params string) string {
	esc := strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(path)
	return "file:" + esc + "?" + params
}

// Open opens or creates the database at path. It runs PRAGMA quick_check
// before anything can write (ErrCorrupt, file untouched), makes the files
// owner-only (ensurePrivateFiles), then runs the pending migrations in one
// transaction and prepares the write statements.
func Open(ctx context.Context, path string) (*Store, error) {
	s := &Store{path: path}
	took, err := quickCheck(ctx, path)
	if err != nil {
		return nil, err
	}
	s.checkTook = took
	if err := ensurePrivateFiles(path); err != nil {
		return nil, err
	}
	if s.w, err = sql.Open("sqlite", dsn(path, writerParams)); err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	// One connection, never recycled: it holds the prepared statements.
	s.w.SetMaxOpenConns(1)
	s.w.SetMaxIdleConns(1)
	s.w.SetConnMaxLifetime(0)
	s.w.SetConnMaxIdleTime(0)
	if err := s.init(ctx); err != nil {
		_ = s.Close()
		return nil, err
	}
	return s, nil
}

func (s *Store) init(ctx context.Context) error {
	if err := migrate(ctx, s.w); err != nil {
		return fmt.Errorf("migrate %s: %w", s.path, classify(err))
	}
	for id, q := range stmtSQL {
		st, err := s.w.PrepareContext(ctx, q)
		if err != nil {
			return fmt.Errorf("prepare statement %d: %w", id, err)
		}
		s.stmts[id] = st
	}
	r, err := sql.Open("sqlite", dsn(s.path, readerParams))
	if err != nil {
		return fmt.Errorf("open read pool %s: %w", s.path, err)
	}
	r.SetMaxOpenConns(readPoolMax)
	r.SetMaxIdleConns(readPoolMax)
	s.r = r
	return nil
}

// quickCheck runs PRAGMA quick_check on a read-only connection. A missing
// file is fine (Open creates it); a damaged one or a file that is not a
// database is ErrCorrupt.
func quickCheck(ctx context.Context, path string) (time.Duration, error) {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	start := time.Now()
	db, err := sql.Open("sqlite", dsn(path, checkParams))
	if err != nil {
		return 0, fmt.Errorf("quick_check %s: %w", path, err)
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, "PRAGMA quick_check")
	if err != nil {
		return 0, fmt.Errorf("quick_check %s: %w", path, classify(err))
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return 0, fmt.Errorf("quick_check %s: %w", path, classify(err))
		}
		if line != "ok" {
			problems = append(problems, line)
		}
	}
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("quick_check %s: %w", path, classify(err))
	}
	if len(problems) > 0 {
		return 0, fmt.Errorf("quick_check %s: %w: %s", path, ErrCorrupt, strings.Join(problems, "; "))
	}
	return time.Since(start), nil
}

// QuickCheckDuration is how long the start-up quick_check took (0 for a new
// file).
func (s *Store) QuickCheckDuration() time.Duration { return s.checkTook }

// Close closes both pools. The last writer close checkpoints the WAL.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		var errs []error
		for _, st := range s.stmts {
			if st != nil {
				errs = append(errs, st.Close())
			}
		}
		if s.r != nil {
			errs = append(errs, s.r.Close())
		}
		if s.w != nil {
			errs = append(errs, s.w.Close())
		}
		s.closeErr = errors.Join(errs...)
	})
	return s.closeErr
}

// Checkpoint copies the WAL into the database file and truncates it (used
// at graceful shutdown so the next start reads a short WAL).
func (s *Store) Checkpoint(ctx context.Context) error {
	var busy, logFrames, done int
	err := s.w.QueryRowContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)").Scan(&busy, &logFrames, &done)
	if err != nil {
		return fmt.Errorf("checkpoint: %w", classify(err))
	}
	if busy != 0 {
		return fmt.Errorf("checkpoint: a reader blocked it (%d of %d frames copied)", done, logFrames)
	}
	return nil
}

// privateMode is the mode of the database and its -wal and -shm files.
const privateMode fs.FileMode = 0o600

// ensurePrivateFiles creates the database file 0600 when it is missing
// (SQLite would create it 0644 less the umask, and it gives the -wal and
// -shm files it creates the database file's mode), and takes group and
// other bits away from an existing database, -wal or -shm file. Only
// metadata changes: the bytes stay as they are.
func ensurePrivateFiles(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, privateMode)
	if err == nil {
		return f.Close()
	}
	if !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("create %s: %w", path, err)
	}
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		fi, err := os.Stat(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("stat %s: %w", p, err)
		}
		if fi.Mode().Perm()&^privateMode != 0 {
			if err := os.Chmod(p, privateMode); err != nil {
				return fmt.Errorf("restrict %s to its owner: %w", p, err)
			}
		}
	}
	return nil
}
