package gatewaytest

import (
	"database/sql"
	"net/url"
	"path/filepath"
	"testing"

	_ "modernc.org/sqlite" // the "sqlite" driver, as the store uses
)

// OpenDB opens home's state.db read-only. Call it only after the daemon
// exited (never while it runs). The handle is closed in t.Cleanup.
func OpenDB(t testing.TB, home string) *sql.DB {
	t.Helper()
	return openDB(t, home, "mode=ro&_pragma=busy_timeout(5000)")
}

// OpenDBWritable opens home's state.db for writing, to damage state while
// the daemon is down (edit a receipt, hold a write lock). Close it before
// the next start.
func OpenDBWritable(t testing.TB, home string) *sql.DB {
	t.Helper()
	return openDB(t, home, "_pragma=busy_timeout(5000)&_pragma=foreign_keys(1)&_txlock=immediate")
}

func openDB(t testing.TB, home, params string) *sql.DB {
	t.Helper()
	path := filepath.Join(home, "state.db")
	u := url.URL{Scheme: "file", Opaque: path, RawQuery: params}
	db, err := sql.Open("sqlite", u.String())
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	if err := db.Ping(); err != nil {
		t.Fatalf("gatewaytest: open %s: %v", path, err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// Admission is one session_admissions row.
type Admission struct {
	Seq        int64
	ID         string
	RequestID  string
	Principal  string
	Target     string
	Status     string
	Outcome    sql.NullString
	OwnerEpoch int64
	Generation sql.NullInt64
}

// Admissions returns every admission row in seq order.
func Admissions(t testing.TB, db *sql.DB) []Admission {
	t.Helper()
	rows, err := db.Query(`SELECT seq, admission_id, request_id, principal_id, target_session_id,
		status, outcome, owner_epoch, generation FROM session_admissions ORDER BY seq`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []Admission
	for rows.Next() {
		var a Admission
		if err := rows.Scan(&a.Seq, &a.ID, &a.RequestID, &a.Principal, &a.Target,
			&a.Status, &a.Outcome, &a.OwnerEpoch, &a.Generation); err != nil {
			t.Fatal(err)
		}
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// ByRequest indexes admissions by request_id (submission_id); it fails t
// when one request_id has more than one row (I4).
func ByRequest(t testing.TB, adms []Admission) map[string]Admission {
	t.Helper()
	m := map[string]Admission{}
	for _, a := range adms {
		if _, dup := m[a.RequestID]; dup {
			t.Errorf("I4: more than one admission row for submission %q", a.RequestID)
		}
		m[a.RequestID] = a
	}
	return m
}

// Meta reads state_meta[key]; ok is false when the key is missing.
func Meta(t testing.TB, db *sql.DB, key string) (string, bool) {
	t.Helper()
	var v sql.NullString
	err := db.QueryRow(`SELECT value FROM state_meta WHERE key = ?`, key).Scan(&v)
	if err == sql.ErrNoRows {
		return "", false
	}
	if err != nil {
		t.Fatal(err)
	}
	return v.String, true
}

// Count runs a SELECT count(*) … query.
func Count(t testing.TB, db *sql.DB, query string, args ...any) int {
	t.Helper()
	var n int
	if err := db.QueryRow(query, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

// CheckIntegrity asserts I7: integrity_check is ok and foreign_key_check
// returns nothing.
func CheckIntegrity(t testing.TB, db *sql.DB) {
	t.Helper()
	var res string
	if err := db.QueryRow(`PRAGMA integrity_check`).Scan(&res); err != nil {
		t.Fatal(err)
	}
	if res != "ok" {
		t.Errorf("I7: integrity_check = %q", res)
	}
	rows, err := db.Query(`PRAGMA foreign_key_check`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	if rows.Next() {
		t.Errorf("I7: foreign_key_check reports violations")
	}
}
