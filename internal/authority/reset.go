package authority

import "github.com/hermes-gateway/hermes/internal/faults"

// resetChild is the child a reset publishes: an empty transcript. The frozen
// policy and every queued admission stay (they belong to the logical id); a
// running turn refuses the reset with admission_conflict (reserve) and
// nothing is cancelled. Called with the FIFO reserved.
func resetChild(l *live) child {
	return child{
		endReason: "session_reset", modelConfig: map[string]any{"_reset_from": l.current().Entry.SessionID},
		beforeCommit: faults.ResetBeforeCommit, afterCommit: faults.ResetAfterCommit,
	}
}
