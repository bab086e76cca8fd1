package store_test

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	_ "modernc.org/sqlite"

	"github.com/hermes-gateway/hermes/internal/store"
)

func TestOpenMigrationsIdempotent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, path := openTemp(t)
	id, err := s.EnsureProfileID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	epoch, _, err := s.BeginEpoch(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	addSession(t, s, epoch, "local-1")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	for i := range 2 { // reopen twice: migrations must not re-run or fail
		s2, err := store.Open(ctx, path)
		if err != nil {
			t.Fatalf("reopen %d: %v", i, err)
		}
		if s2.QuickCheckDuration() <= 0 {
			t.Errorf("reopen %d: quick_check of an existing file took %v", i, s2.QuickCheckDuration())
		}
		id2, err := s2.EnsureProfileID(ctx)
		if err != nil || id2 != id {
			t.Errorf("profile id after reopen = %q, %v; want %q", id2, err, id)
		}
		if _, err := s2.Session(ctx, "local-1"); err != nil {
			t.Errorf("session lost after reopen: %v", err)
		}
		if err := s2.Close(); err != nil {
			t.Fatal(err)
		}
	}
	db := rawDB(t, path)
	var version int
	if err := db.QueryRow("PRAGMA user_version").Scan(&version); err != nil || version != latestMigration {
		t.Errorf("user_version = %d, %v; want %d", version, err, latestMigration)
	}
	var mode string
	if err := db.QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
		t.Errorf("journal_mode = %q, %v; want wal", mode, err)
	}
}

func TestProfileIDShape(t *testing.T) {
	t.Parallel()
	s, _ := openTemp(t)
	id, err := s.EnsureProfileID(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(id) != len("prof-")+32 || id[:5] != "prof-" {
		t.Errorf("profile id %q, want prof-<32 hex>", id)
	}
	v, ok, err := s.Meta(context.Background(), store.ProfileIDKey)
	if err != nil || !ok || v != id {
		t.Errorf("state_meta %s = %q, %v, %v; want plain %q", store.ProfileIDKey, v, ok, err, id)
	}
}

// rawDB opens the file with no gateway code in between, for assertions.
func rawDB(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

func TestOpenCorruptPageIsErrCorrupt(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, path := openTemp(t)
	epoch, _, err := s.BeginEpoch(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	for i := range 50 {
		addSession(t, s, epoch, "local-"+strconv.Itoa(i))
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	root, pageSize := rootPage(t, path, "sessions")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// Overwrite the b-tree page header of the sessions table: structure,
	// not content, which is what quick_check verifies.
	off := (root - 1) * pageSize
	copy(data[off:off+16], bytes.Repeat([]byte{0xA5}, 16))
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = store.Open(ctx, path)
	if !errors.Is(err, store.ErrCorrupt) {
		t.Fatalf("Open(corrupt) = %v, want ErrCorrupt", err)
	}
	t.Logf("Open(corrupt): %v", err)
	after, _ := os.ReadFile(path)
	if !bytes.Equal(after, data) {
		t.Error("Open modified a corrupt database file")
	}
}

// rootPage reads a table's root page number and the page size.
func rootPage(t *testing.T, path, table string) (int, int) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var root, size int
	if err := db.QueryRow("SELECT rootpage FROM sqlite_schema WHERE name = ?", table).Scan(&root); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow("PRAGMA page_size").Scan(&size); err != nil {
		t.Fatal(err)
	}
	return root, size
}

func TestOpenNotADatabase(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "state.db")
	junk := bytes.Repeat([]byte("this is not a sqlite database\n"), 200)
	if err := os.WriteFile(path, junk, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := store.Open(context.Background(), path)
	if !errors.Is(err, store.ErrCorrupt) {
		t.Fatalf("Open(junk) = %v, want ErrCorrupt", err)
	}
	t.Logf("Open(junk): %v", err)
	after, _ := os.ReadFile(path)
	if !bytes.Equal(after, junk) {
		t.Error("Open modified a non-database file")
	}
}

func TestOpenNewFileSkipsCheck(t *testing.T) {
	t.Parallel()
	s, path := openTemp(t)
	if s.QuickCheckDuration() != 0 {
		t.Errorf("quick_check on a new file: %v", s.QuickCheckDuration())
	}
	if _, err := os.Stat(path); err != nil {
		t.Errorf("database not created: %v", err)
	}
}

func TestCheckpoint(t *testing.T) {
	t.Parallel()
	s, epoch := openEpoch(t)
	addSession(t, s, epoch, "local-1")
	if err := s.Checkpoint(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// The database and the -wal and -shm files SQLite makes next to it are
// owner-only, whatever the umask; an existing world-readable one is
// restricted on open.
func TestOpenFilesArePrivate(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "state.db")
	st, err := store.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.EnsureProfileID(t.Context()); err != nil { // a write: the WAL exists now
		t.Fatal(err)
	}
	checkModes := func(when string) {
		t.Helper()
		for _, p := range []string{path, path + "-wal", path + "-shm"} {
			fi, err := os.Stat(p)
			if err != nil {
				t.Fatalf("%s: %v", when, err)
			}
			if m := fi.Mode().Perm(); m != 0o600 {
				t.Errorf("%s: %s mode %04o, want 0600", when, filepath.Base(p), m)
			}
		}
	}
	checkModes("new database")
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path+"-wal", 0o666); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path+"-shm", 0o644); err != nil {
		t.Fatal(err)
	}
	st2, err := store.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	checkModes("reopened")
	_ = st2.Close()
	_ = st.Close()
}

// latestMigration is the number of the newest file in migrations/.
const latestMigration = 4
