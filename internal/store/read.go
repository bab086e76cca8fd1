package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/hermes-gateway/hermes/internal/queue"
)

// Start-up queries; both read only the partial index of pending rows.
const (
	sqlSessionsWithPending = `SELECT target_session_id FROM session_admissions
	WHERE status != 'terminal' GROUP BY target_session_id ORDER BY min(seq)`
	sqlCounts = `SELECT status, count(*) FROM session_admissions WHERE status != 'terminal' GROUP BY status`
)

// Reads run on the query_only pool, outside any write transaction: each sees
// the last committed state (multi-statement reads use one read transaction,
// so they see a single snapshot).

// Session reads a sessions row (ErrNotFound).
func (s *Store) Session(ctx context.Context, id string) (Session, error) {
	sess, err := scanSession(s.r.QueryRowContext(ctx, stmtSQL[sSessionGet], id))
	return one(sess, err, "session "+id)
}

// SessionByTitle is the newest logical session with that exact title.
func (s *Store) SessionByTitle(ctx context.Context, title string) (Session, error) {
	q := `SELECT ` + sessionCols + ` FROM sessions WHERE title = ? AND id = chat_id
	ORDER BY started_at_ms DESC, rowid DESC LIMIT 1`
	sess, err := scanSession(s.r.QueryRowContext(ctx, q, title))
	return one(sess, err, "session titled "+title)
}

// Meta reads a state_meta value.
func (s *Store) Meta(ctx context.Context, key string) (string, bool, error) {
	var v string
	err := s.r.QueryRowContext(ctx, stmtSQL[sMetaGet], key).Scan(&v)
	return maybe(v, err, "meta "+key)
}

// MetaKeys lists the state_meta keys starting with prefix, sorted.
func (s *Store) MetaKeys(ctx context.Context, prefix string) ([]string, error) {
	// A range over the primary key instead of LIKE: no escaping of '%' or
	// '_' in the prefix, and it uses the index.
	q, args := `SELECT key FROM state_meta WHERE key >= ? ORDER BY key`, []any{prefix}
	if prefix != "" {
		q, args = `SELECT key FROM state_meta WHERE key >= ? AND key < ? ORDER BY key`, []any{prefix, prefixEnd(prefix)}
	}
	rows, err := s.r.QueryContext(ctx, q, args...)
	keys, err := collect(rows, err, func(sc scanner) (string, error) {
		var k string
		return k, sc.Scan(&k)
	})
	if err != nil {
		return nil, fmt.Errorf("meta keys %s: %w", prefix, err)
	}
	var out []string
	for _, k := range keys { // guard the byte-range edge cases of prefixEnd
		if strings.HasPrefix(k, prefix) {
			out = append(out, k)
		}
	}
	return out, nil
}

// prefixEnd is the smallest string greater than every string with prefix p.
func prefixEnd(p string) string {
	b := []byte(p)
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] < 0xff {
			b[i]++
			return string(b[:i+1])
		}
	}
	return "\xff\xff\xff\xff" // all 0xff: effectively unbounded for text keys
}

// Messages returns the last limit messages of a physical transcript in
// order (all of them when limit <= 0) and the transcript's total count.
func (s *Store) Messages(ctx context.Context, sessionID string, limit int) (msgs []Message, total int, err error) {
	if limit <= 0 {
		limit = -1 // SQLite: no limit
	}
	rtx, err := s.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, 0, fmt.Errorf("messages of %s: %w", sessionID, classify(err))
	}
	defer rtx.Rollback() //nolint:errcheck // read-only
	err = rtx.QueryRowContext(ctx, `SELECT count(*) FROM messages WHERE session_id = ?`, sessionID).Scan(&total)
	if err != nil {
		return nil, 0, fmt.Errorf("messages of %s: %w", sessionID, classify(err))
	}
	q := `SELECT * FROM (SELECT ` + messageCols + ` FROM messages WHERE session_id = ? ORDER BY id DESC LIMIT ?) ORDER BY id`
	rows, err := rtx.QueryContext(ctx, q, sessionID, limit)
	if msgs, err = collect(rows, err, scanMessage); err != nil {
		return nil, 0, fmt.Errorf("messages of %s: %w", sessionID, err)
	}
	return msgs, total, nil
}

// Admission reads a row by admission id (ErrNotFound).
func (s *Store) Admission(ctx context.Context, admissionID string) (Admission, error) {
	a, err := scanAdmission(s.r.QueryRowContext(ctx, stmtSQL[sAdmissionByID], admissionID))
	return one(a, err, "admission "+admissionID)
}

// AdmissionByKey looks a row up by its idempotency key.
func (s *Store) AdmissionByKey(ctx context.Context, principalID, sessionID, requestID string) (Admission, bool, error) {
	a, err := scanAdmission(s.r.QueryRowContext(ctx, stmtSQL[sAdmissionByKey], principalID, sessionID, requestID))
	return maybe(a, err, "admission by key "+requestID)
}

// PendingAdmissions lists the non-terminal rows of a session by seq.
func (s *Store) PendingAdmissions(ctx context.Context, sessionID string) ([]Admission, error) {
	rows, err := s.r.QueryContext(ctx, stmtSQL[sAdmissionsPending], sessionID)
	return collect(rows, err, scanAdmission)
}

// SessionsWithPending lists the sessions that have non-terminal rows, in
// order of their oldest one.
func (s *Store) SessionsWithPending(ctx context.Context) ([]string, error) {
	rows, err := s.r.QueryContext(ctx, sqlSessionsWithPending)
	return collect(rows, err, func(sc scanner) (string, error) {
		var id string
		return id, sc.Scan(&id)
	})
}

// AdmissionResult reads the stored result of a settled admission.
func (s *Store) AdmissionResult(ctx context.Context, admissionID string) (string, bool, error) {
	var v string
	err := s.r.QueryRowContext(ctx, `SELECT result_json FROM admission_results WHERE admission_id = ?`, admissionID).Scan(&v)
	return maybe(v, err, "admission result "+admissionID)
}

// EventsSince returns up to limit (default 1000) journaled events of a
// session with seq > afterSeq, in order; more reports that others follow. An
// unknown session has no events.
func (s *Store) EventsSince(ctx context.Context, sessionID string, afterSeq int64, limit int) (events []Event, more bool, err error) {
	if limit <= 0 {
		limit = 1000
	}
	q := `SELECT ` + eventCols + ` FROM session_events e JOIN sessions s ON s.id = e.session_id
	WHERE e.session_id = ? AND e.seq > ? ORDER BY e.seq LIMIT ?`
	rows, err := s.r.QueryContext(ctx, q, sessionID, afterSeq, limit+1)
	if events, err = collect(rows, err, scanEvent); err != nil {
		return nil, false, fmt.Errorf("events of %s: %w", sessionID, err)
	}
	if len(events) > limit {
		return events[:limit], true, nil
	}
	return events, false, nil
}

// ListSessions lists logical sessions (id == chat_id), newest started first.
func (s *Store) ListSessions(ctx context.Context, f ListFilter) ([]Session, error) {
	var b strings.Builder
	b.WriteString(`SELECT ` + sessionCols + ` FROM sessions WHERE id = chat_id`)
	var args []any
	if !f.IncludeHidden {
		b.WriteString(` AND hidden = 0`)
	}
	if f.ExcludeArchived {
		b.WriteString(` AND archived = 0`)
	}
	if len(f.ExcludeSources) > 0 {
		b.WriteString(` AND source NOT IN (?` + strings.Repeat(`, ?`, len(f.ExcludeSources)-1) + `)`)
		for _, src := range f.ExcludeSources {
			args = append(args, src)
		}
	}
	if f.Title != "" {
		b.WriteString(` AND title = ?`)
		args = append(args, f.Title)
	}
	limit := f.Limit
	if limit <= 0 {
		limit = -1
	}
	b.WriteString(` ORDER BY started_at_ms DESC, rowid DESC LIMIT ?`)
	rows, err := s.r.QueryContext(ctx, b.String(), append(args, limit)...)
	sessions, err := collect(rows, err, scanSession)
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	return sessions, nil
}

// Counts are the non-terminal admissions by status.
func (s *Store) Counts(ctx context.Context) (Counts, error) {
	rows, err := s.r.QueryContext(ctx, sqlCounts)
	if err != nil {
		return Counts{}, fmt.Errorf("counts: %w", classify(err))
	}
	defer rows.Close()
	var c Counts
	for rows.Next() {
		var status string
		var n int
		if err := rows.Scan(&status, &n); err != nil {
			return Counts{}, fmt.Errorf("counts: %w", classify(err))
		}
		switch queue.Status(status) {
		case queue.Queued:
			c.Queued = n
		case queue.Started:
			c.Started = n
		case queue.Unknown:
			c.Unknown = n
		}
	}
	return c, classify(rows.Err())
}
