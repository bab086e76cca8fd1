package store

import "fmt"

// AppendEvent journals e on the logical session sessionID: seq =
// last_event_seq+1 (written back to the session row in the same statement),
// so seqs are strictly increasing per session across restarts. Zero
// AuthorityEpoch and CreatedAtMs are stamped with the transaction's epoch
// and now. It returns e with SessionID, Seq, ReplayEpoch and the stamps set.
func (tx *Tx) AppendEvent(sessionID string, e Event) (Event, error) {
	e.SessionID = sessionID
	if e.AuthorityEpoch == 0 {
		e.AuthorityEpoch = tx.epoch
	}
	if e.CreatedAtMs == 0 {
		e.CreatedAtMs = nowMs()
	}
	err := tx.queryRow(sEventBump, sessionID).Scan(&e.Seq, &e.ReplayEpoch)
	if e, err = one(e, err, "append event to "+sessionID); err != nil {
		return Event{}, err
	}
	_, err = tx.exec(sEventInsert, e.SessionID, e.Seq, e.Type, e.PayloadJSON, e.AuthorityEpoch,
		e.ExecutionGeneration, e.AdmissionID, e.CreatedAtMs)
	if err != nil {
		return Event{}, fmt.Errorf("append event %s to %s: %w", e.Type, sessionID, classify(err))
	}
	return e, nil
}

// AppendMessage appends m to its (physical) transcript, sets m.ID (and
// CreatedAtMs when 0), and bumps that session's message_count and
// last_activity_ms. ErrNotFound if the session does not exist.
func (tx *Tx) AppendMessage(m Message) (Message, error) {
	if m.CreatedAtMs == 0 {
		m.CreatedAtMs = nowMs()
	}
	if err := tx.execOne("append message to "+m.SessionID, sMessageBump, m.CreatedAtMs, m.SessionID); err != nil {
		return Message{}, err
	}
	err := tx.queryRow(sMessageInsert, m.SessionID, m.Role, m.Content, m.ToolCallID, m.ToolCallsJSON,
		m.ToolName, m.Reasoning, m.FinishReason, m.CreatedAtMs).Scan(&m.ID)
	if err != nil {
		return Message{}, fmt.Errorf("append message to %s: %w", m.SessionID, classify(err))
	}
	return m, nil
}

// Messages returns the whole transcript of a physical session in order.
func (tx *Tx) Messages(sessionID string) ([]Message, error) {
	rows, err := tx.query(sMessagesAll, sessionID)
	msgs, err := collect(rows, err, scanMessage)
	if err != nil {
		return nil, fmt.Errorf("messages of %s: %w", sessionID, err)
	}
	return msgs, nil
}
