package protocol

import "encoding/json"

// Event types (docs/protocol.md#events).
const (
	EventGatewayReady    = "gateway.ready"
	EventSessionInfo     = "session.info"
	EventMessageStart    = "message.start"
	EventMessageDelta    = "message.delta"
	EventReasoningDelta  = "reasoning.delta"
	EventToolStart       = "tool.start"
	EventToolComplete    = "tool.complete"
	EventApprovalRequest = "approval.request"
	EventApprovalSettled = "approval.settled"
	EventClarifyRequest  = "clarify.request"
	EventClarifySettled  = "clarify.settled"
	EventMessageComplete = "message.complete"
	EventSessionUnknown  = "session.unknown"
	EventReplayGap       = "session.replay_gap"
	EventUIOpenFile      = "ui.open_file"
	EventUIShowDiff      = "ui.show_diff"
	EventUINotify        = "ui.notify"
)

// IsDelta reports whether an event type is a delta: never journaled, no seq.
func IsDelta(t string) bool { return t == EventMessageDelta || t == EventReasoningDelta }

// Event is the params of an "event" notification.
type Event struct {
	Type                string          `json:"type"`
	SessionID           string          `json:"session_id,omitempty"`
	Seq                 int64           `json:"seq,omitempty"`
	ReplayEpoch         string          `json:"replay_epoch,omitempty"`
	Payload             json.RawMessage `json:"payload"`
	AuthorityEpoch      int64           `json:"authority_epoch,omitempty"`
	ExecutionGeneration int64           `json:"execution_generation,omitempty"`
	AdmissionID         string          `json:"admission_id,omitempty"`
}

// SessionInfoPayload is the payload of session.info events.
type SessionInfoPayload struct {
	StoredSessionID     string             `json:"stored_session_id"`
	Pending             []PendingAdmission `json:"pending"`
	Running             bool               `json:"running"`
	ExecutionGeneration int64              `json:"execution_generation"`
	Revision            int64              `json:"revision"`
	DesktopProtocol     string             `json:"desktop_protocol"`
	PausedReason        string             `json:"paused_reason,omitempty"`
	// PendingTruncated: Pending holds only the oldest entries of a long FIFO;
	// session.resume has the whole list.
	PendingTruncated bool `json:"pending_truncated,omitempty"`
	// Title is the session's title now ("" = untitled): untrusted text
	// (a model may have written it), shown through Visible (issue 14).
	Title string `json:"title"`
	// Usage is the session's usage now, as session.info has it (issue 14).
	Usage Usage `json:"usage"`
}

// DeltaPayload is the payload of message.delta and reasoning.delta.
type DeltaPayload struct {
	Text string `json:"text"`
}

// ToolStartPayload / ToolCompletePayload share ToolID.
type ToolStartPayload struct {
	ToolID string          `json:"tool_id"`
	Name   string          `json:"name"`
	Args   json.RawMessage `json:"args"`
}
type ToolCompletePayload struct {
	ToolID    string `json:"tool_id"`
	Name      string `json:"name"`
	Result    string `json:"result"`
	Error     string `json:"error,omitempty"`
	Truncated bool   `json:"truncated,omitempty"`
}

// ApprovalRequestPayload is approval.request.
type ApprovalRequestPayload struct {
	Kind                string   `json:"kind"` // "approval"
	PromptID            string   `json:"prompt_id"`
	ExecutionGeneration int64    `json:"execution_generation"`
	Command             string   `json:"command"`
	Description         string   `json:"description"`
	Choices             []string `json:"choices"`
}

// ApprovalSettledPayload is approval.settled; By is a subject or "timeout".
type ApprovalSettledPayload struct {
	PromptID            string `json:"prompt_id"`
	ExecutionGeneration int64  `json:"execution_generation"`
	Choice              string `json:"choice"`
	By                  string `json:"by"`
}

// ClarifyRequestPayload is clarify.request.
type ClarifyRequestPayload struct {
	Kind                string   `json:"kind"` // "clarify"
	PromptID            string   `json:"prompt_id"`
	ExecutionGeneration int64    `json:"execution_generation"`
	Question            string   `json:"question"`
	Choices             []string `json:"choices"`
	MultiSelect         bool     `json:"multi_select"`
}

// ClarifySettledPayload is clarify.settled.
type ClarifySettledPayload struct {
	PromptID            string `json:"prompt_id"`
	ExecutionGeneration int64  `json:"execution_generation"`
}

// MessageCompletePayload is message.complete.
type MessageCompletePayload struct {
	Text        string          `json:"text"`
	AdmissionID string          `json:"admission_id"`
	Outcome     string          `json:"outcome"`
	Error       string          `json:"error,omitempty"`
	Usage       json.RawMessage `json:"usage,omitempty"`
}

// SessionUnknownPayload is session.unknown.
type SessionUnknownPayload struct {
	AdmissionID string `json:"admission_id"`
}

// ReplayGapPayload is session.replay_gap.
type ReplayGapPayload struct {
	ReplayEpoch string `json:"replay_epoch"`
	LatestSeq   int64  `json:"latest_seq"`
}

// ReadyPayload is gateway.ready.
type ReadyPayload struct {
	Protocol string `json:"protocol"`
}
