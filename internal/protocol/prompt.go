package protocol

import "encoding/json"

// Admission statuses and outcomes (docs/protocol.md#admissions).
const (
	StatusQueued   = "queued"
	StatusStarted  = "started"
	StatusUnknown  = "unknown"
	StatusTerminal = "terminal"

	OutcomeCompleted   = "completed"
	OutcomeFailed      = "failed"
	OutcomeRejected    = "rejected"
	OutcomeInterrupted = "interrupted"
	OutcomeCancelled   = "cancelled"
)

// Ref names a session in a profile.
type Ref struct {
	ProfileID string `json:"profile_id"`
	SessionID string `json:"session_id"`
}

// PromptSubmitParams: prompt.submit. InputID is another name for
// SubmissionID; exactly one must be given.
type PromptSubmitParams struct {
	SessionID    string          `json:"session_id"`
	SubmissionID *string         `json:"submission_id,omitempty"`
	InputID      *string         `json:"input_id,omitempty"`
	Text         string          `json:"text"`
	Attachments  json.RawMessage `json:"attachments,omitempty"`
}

// AdmissionParams: prompt.receipt and prompt.cancel.
type AdmissionParams struct {
	SessionID   string `json:"session_id"`
	AdmissionID string `json:"admission_id"`
}

// ResolveUnknownParams: prompt.resolve_unknown.
type ResolveUnknownParams struct {
	SessionID           string `json:"session_id"`
	AdmissionID         string `json:"admission_id"`
	ExecutionGeneration int64  `json:"execution_generation"`
}

// Receipt is an admission receipt. Outcome and ExecutionGeneration are null
// until known.
type Receipt struct {
	AdmissionID         string  `json:"admission_id"`
	Ref                 Ref     `json:"ref"`
	Sequence            int64   `json:"sequence"`
	Status              string  `json:"status"`
	Outcome             *string `json:"outcome"`
	AuthorityEpoch      int64   `json:"authority_epoch"`
	ExecutionGeneration *int64  `json:"execution_generation"`
}

// PendingAdmission is a non-terminal admission in a snapshot or session.info event.
type PendingAdmission struct {
	AdmissionID         string `json:"admission_id"`
	InputID             string `json:"input_id"`
	Status              string `json:"status"`
	Sequence            int64  `json:"sequence"`
	ExecutionGeneration *int64 `json:"execution_generation"`
	Text                string `json:"text"`
}

// ApprovalRespondParams: exactly these four keys.
type ApprovalRespondParams struct {
	SessionID           string `json:"session_id"`
	ExecutionGeneration int64  `json:"execution_generation"`
	PromptID            string `json:"prompt_id"`
	Choice              string `json:"choice"`
}

// ClarifyRespondParams: exactly these four keys.
type ClarifyRespondParams struct {
	SessionID           string `json:"session_id"`
	ExecutionGeneration int64  `json:"execution_generation"`
	PromptID            string `json:"prompt_id"`
	Answer              string `json:"answer"`
}

// RespondResult: approval.respond and clarify.respond.
type RespondResult struct {
	Status   string `json:"status"` // resolved | already_resolved
	PromptID string `json:"prompt_id"`
}

// Approval choices.
const (
	ChoiceOnce    = "once"
	ChoiceSession = "session"
	ChoiceAlways  = "always"
	ChoiceDeny    = "deny"
)

// ApprovalChoices is the full choice list of a dangerous command.
var ApprovalChoices = []string{ChoiceOnce, ChoiceSession, ChoiceAlways, ChoiceDeny}

// Prompt is a pending approval or clarify request in a snapshot.
type Prompt struct {
	PromptID            string   `json:"prompt_id"`
	Kind                string   `json:"kind"` // approval | clarify
	ExecutionGeneration int64    `json:"execution_generation"`
	Command             string   `json:"command,omitempty"`
	Description         string   `json:"description,omitempty"`
	Question            string   `json:"question,omitempty"`
	Choices             []string `json:"choices"`
	MultiSelect         bool     `json:"multi_select,omitempty"`
}
