package store

import (
	"context"
	"database/sql"
	"fmt"
)

// MessagesPage returns the newest limit messages of a physical transcript
// whose id is below before (before <= 0: the newest overall), oldest first;
// more reports that older ones exist, and total is the transcript's count.
// One read transaction: the page and the count are one snapshot.
func (s *Store) MessagesPage(ctx context.Context, sessionID string, before int64, limit int) (msgs []Message, more bool, total int, err error) {
	rtx, err := s.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, false, 0, fmt.Errorf("messages of %s: %w", sessionID, classify(err))
	}
	defer rtx.Rollback() //nolint:errcheck // read-only
	if err := rtx.QueryRowContext(ctx, `SELECT count(*) FROM messages WHERE session_id = ?`, sessionID).Scan(&total); err != nil {
		return nil, false, 0, fmt.Errorf("messages of %s: %w", sessionID, classify(err))
	}
	if before <= 0 {
		before = 1<<63 - 1
	}
	q := `SELECT * FROM (SELECT ` + messageCols + ` FROM messages WHERE session_id = ? AND id < ?
	ORDER BY id DESC LIMIT ?) ORDER BY id`
	rows, err := rtx.QueryContext(ctx, q, sessionID, before, limit+1)
	if msgs, err = collect(rows, err, scanMessage); err != nil {
		return nil, false, 0, fmt.Errorf("messages of %s: %w", sessionID, err)
	}
	if len(msgs) > limit {
		return msgs[1:], true, total, nil // the oldest row only said that more exist
	}
	return msgs, false, total, nil
}

// SessionsByPrefix lists up to limit logical sessions whose id starts with
// prefix, newest started first, of every source, hidden and archived
// included. A range over the primary key: no LIKE escaping, and the index.
func (s *Store) SessionsByPrefix(ctx context.Context, prefix string, limit int) ([]Session, error) {
	q := `SELECT ` + sessionCols + ` FROM sessions WHERE id >= ? AND id < ? AND id = chat_id
	ORDER BY started_at_ms DESC, rowid DESC LIMIT ?`
	rows, err := s.r.QueryContext(ctx, q, prefix, prefixEnd(prefix), limit)
	sessions, err := collect(rows, err, scanSession)
	if err != nil {
		return nil, fmt.Errorf("sessions by prefix %s: %w", prefix, err)
	}
	return sessions, nil
}
