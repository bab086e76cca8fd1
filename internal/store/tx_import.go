package store

import "fmt"

// ImportMessages appends msgs, in order, to the (new) physical transcript
// sessionID: the history of session.import, in the caller's transaction
// with the session row, so a failed import leaves no partial transcript.
// A zero CreatedAtMs is now.
func (tx *Tx) ImportMessages(sessionID string, msgs []Message) error {
	for i, m := range msgs {
		m.SessionID = sessionID
		if _, err := tx.AppendMessage(m); err != nil {
			return fmt.Errorf("import message %d: %w", i, err)
		}
	}
	return nil
}
