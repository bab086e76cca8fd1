package store

import (
	"context"
	"fmt"
)

const (
	sqlStatsSessions   = `SELECT count(*) FROM sessions WHERE id = chat_id`
	sqlStatsAdmissions = `SELECT CASE WHEN status = 'terminal' THEN outcome ELSE status END, count(*)
		FROM session_admissions GROUP BY 1`
	sqlStatsJournal = `SELECT count(*) FROM session_events`
)

// Stats are the counts the metrics endpoint reads on scrape.
type Stats struct {
	SessionsStored int            // logical sessions (id = chat_id)
	Admissions     map[string]int // queued, started, unknown; terminal rows by outcome
	JournalRows    int64          // rows of session_events
}

// Stats reads the counts in one read transaction of the read pool, so
// they are from one snapshot.
func (s *Store) Stats(ctx context.Context) (Stats, error) {
	tx, err := s.r.BeginTx(ctx, nil)
	if err != nil {
		return Stats{}, fmt.Errorf("stats: %w", classify(err))
	}
	defer func() { _ = tx.Rollback() }()
	st := Stats{Admissions: map[string]int{}}
	if err := tx.QueryRowContext(ctx, sqlStatsSessions).Scan(&st.SessionsStored); err != nil {
		return Stats{}, fmt.Errorf("stats: sessions: %w", classify(err))
	}
	if err := tx.QueryRowContext(ctx, sqlStatsJournal).Scan(&st.JournalRows); err != nil {
		return Stats{}, fmt.Errorf("stats: journal: %w", classify(err))
	}
	rows, err := tx.QueryContext(ctx, sqlStatsAdmissions)
	if err != nil {
		return Stats{}, fmt.Errorf("stats: admissions: %w", classify(err))
	}
	defer rows.Close()
	for rows.Next() {
		var status string
		var n int
		if err := rows.Scan(&status, &n); err != nil {
			return Stats{}, fmt.Errorf("stats: admissions: %w", classify(err))
		}
		st.Admissions[status] = n
	}
	if err := rows.Err(); err != nil {
		return Stats{}, fmt.Errorf("stats: admissions: %w", classify(err))
	}
	return st, nil
}

// Path is the database file (state.db); its WAL is Path()+"-wal".
func (s *Store) Path() string { return s.path }

// QuickCheck runs PRAGMA quick_check on a read-only connection to the
// database at path, as Open does first: nil when it is sound or does not
// exist, an error wrapping ErrCorrupt when it is damaged. It writes
// nothing and may run while a gateway has the database open.
func QuickCheck(ctx context.Context, path string) error {
	_, err := quickCheck(ctx, path)
	return err
}
