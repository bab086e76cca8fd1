package store

import (
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
)

// scanner is *sql.Row or *sql.Rows.
type scanner interface{ Scan(dest ...any) error }

func scanSession(sc scanner) (Session, error) {
	var s Session
	err := sc.Scan(&s.ID, &s.Source, &s.UserID, &s.SessionKey, &s.ChatID, &s.Model, &s.Cwd, &s.Title,
		&s.ParentSessionID, &s.EndReason, &s.ModelConfig, &s.ReplayEpoch,
		&s.StartedAtMs, &s.EndedAtMs, &s.LastActivityMs, &s.Archived, &s.Hidden,
		&s.RuntimeGeneration, &s.RuntimeRevision, &s.MessageCount, &s.LastEventSeq,
		&s.Usage.Prompt, &s.Usage.Completion, &s.Usage.Cached)
	return s, err
}

func scanAdmission(sc scanner) (Admission, error) {
	var a Admission
	err := sc.Scan(&a.Seq, &a.AdmissionID, &a.RequestID, &a.PrincipalID, &a.TargetSessionID, &a.LineageJSON,
		&a.PayloadJSON, &a.PayloadDigest, &a.Intent, &a.Status, &a.Outcome, &a.OwnerEpoch,
		&a.Generation, &a.CreatedAtMs, &a.SettledAtMs)
	return a, err
}

func scanMessage(sc scanner) (Message, error) {
	var m Message
	err := sc.Scan(&m.ID, &m.SessionID, &m.Role, &m.Content, &m.ToolCallID, &m.ToolCallsJSON, &m.ToolName,
		&m.Reasoning, &m.FinishReason, &m.CreatedAtMs)
	return m, err
}

func scanEvent(sc scanner) (Event, error) {
	var e Event
	err := sc.Scan(&e.SessionID, &e.Seq, &e.Type, &e.PayloadJSON, &e.AuthorityEpoch,
		&e.ExecutionGeneration, &e.AdmissionID, &e.ReplayEpoch, &e.CreatedAtMs)
	return e, err
}

// collect scans every row with scan and closes rows.
func collect[T any](rows *sql.Rows, err error, scan func(scanner) (T, error)) ([]T, error) {
	if err != nil {
		return nil, classify(err)
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, classify(err)
		}
		out = append(out, v)
	}
	return out, classify(rows.Err())
}

// one maps sql.ErrNoRows of a single-row lookup to ErrNotFound.
func one[T any](v T, err error, what string) (T, error) {
	if errors.Is(err, sql.ErrNoRows) {
		return v, fmt.Errorf("%s: %w", what, ErrNotFound)
	}
	if err != nil {
		return v, fmt.Errorf("%s: %w", what, classify(err))
	}
	return v, nil
}

// maybe maps sql.ErrNoRows of a single-row lookup to ok=false.
func maybe[T any](v T, err error, what string) (T, bool, error) {
	if errors.Is(err, sql.ErrNoRows) {
		return v, false, nil
	}
	if err != nil {
		return v, false, fmt.Errorf("%s: %w", what, classify(err))
	}
	return v, true, nil
}

// randomHex returns n random bytes as hex.
func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go ≥ 1.24)
	return hex.EncodeToString(b)
}
