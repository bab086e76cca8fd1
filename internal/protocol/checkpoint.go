package protocol

// Checkpoints and rewind (issue 11). Method and event names are contract.
const (
	MethodSessionCheckpoints = "session.checkpoints"
	MethodSessionRewind      = "session.rewind"

	// EventCheckpointCreated is journaled in the transaction that records
	// the checkpoint, just before the first mutating tool call of a turn.
	EventCheckpointCreated = "checkpoint.created"
	// EventCheckpointFailed says a turn of a session with checkpoints on
	// went ahead without one (git missing, a timeout, the cwd gone): a
	// checkpoint is never skipped silently.
	EventCheckpointFailed = "checkpoint.failed"
	// EventSessionRewound is journaled when a rewind completed.
	EventSessionRewound = "session.rewound"
)

// Rewind modes.
const (
	RewindFiles        = "files"
	RewindConversation = "conversation"
	RewindBoth         = "both"
)

// Rewind statuses.
const (
	RewindStatusRewound   = "rewound"   // applied
	RewindStatusConflicts = "conflicts" // nothing changed: see Conflicts, or pass force
)

// CheckpointCreatedPayload is checkpoint.created.
type CheckpointCreatedPayload struct {
	CheckpointID string   `json:"checkpoint_id"`
	AdmissionID  string   `json:"admission_id"`
	CreatedAt    string   `json:"created_at"` // RFC 3339 UTC
	Files        int      `json:"files"`
	Skipped      []string `json:"skipped,omitempty"` // above checkpoints.max_file_bytes, not in the checkpoint
}

// CheckpointFailedPayload is checkpoint.failed.
type CheckpointFailedPayload struct {
	AdmissionID string `json:"admission_id"`
	Reason      string `json:"reason"` // public text: why there is no checkpoint for this turn
}

// SessionCheckpointsParams is session.checkpoints.
type SessionCheckpointsParams struct {
	SessionID string `json:"session_id"`
}

// Checkpoint is one entry of session.checkpoints.
type Checkpoint struct {
	CheckpointID string   `json:"checkpoint_id"`
	AdmissionID  string   `json:"admission_id"`
	CreatedAt    string   `json:"created_at"` // RFC 3339 UTC
	Files        int      `json:"files"`
	Summary      string   `json:"summary"` // the turn's prompt text, cut short
	Skipped      []string `json:"skipped,omitempty"`
}

// SessionCheckpointsResult lists a session's checkpoints, oldest first.
type SessionCheckpointsResult struct {
	Checkpoints []Checkpoint `json:"checkpoints"`
}

// SessionRewindParams is session.rewind.
type SessionRewindParams struct {
	SessionID    string `json:"session_id"`
	CheckpointID string `json:"checkpoint_id"`
	Mode         string `json:"mode"` // files | conversation | both
	Force        *bool  `json:"force,omitempty"`
}

// SessionRewindResult is session.rewind's answer. With status "conflicts"
// nothing was changed and Restored/Removed say what a forced rewind would do.
type SessionRewindResult struct {
	Status    string   `json:"status"`
	Restored  []string `json:"restored"`
	Removed   []string `json:"removed"`
	Conflicts []string `json:"conflicts"`
}

// SessionRewoundPayload is session.rewound.
type SessionRewoundPayload struct {
	CheckpointID string   `json:"checkpoint_id"`
	Mode         string   `json:"mode"`
	Restored     []string `json:"restored"`
	Removed      []string `json:"removed"`
	Forced       bool     `json:"forced,omitempty"`
	// Recovered: the daemon died during this rewind and the next start
	// completed it from its written plan.
	Recovered bool `json:"recovered,omitempty"`
}
