package protocol

import "encoding/json"

// Transcripts (issue 14 item 4): paging a session's messages, importing a
// transcript as a new session, and finding sessions by an id prefix.
// Method names are contract.
const (
	MethodSessionMessages = "session.messages"
	MethodSessionImport   = "session.import"
	MethodSessionFind     = "session.find"
)

// Bounds of the transcript methods.
const (
	MessagesPageDefault = 200   // session.messages limit when omitted
	MessagesPageMax     = 1000  // largest session.messages limit
	ImportMaxMessages   = 20000 // most messages one session.import carries
	FindMinPrefix       = 8     // characters of a prefix after "local-"
	FindMaxMatches      = 20    // session.find lists at most this many
)

// SessionMessagesParams is session.messages: a page of the session's
// current transcript, the newest Limit messages whose row_id is below
// Before (the newest overall when Before is omitted), oldest first.
type SessionMessagesParams struct {
	SessionID string `json:"session_id"`
	Before    *int64 `json:"before,omitempty"` // a row_id; positive
	Limit     *int   `json:"limit,omitempty"`  // 1..MessagesPageMax; default MessagesPageDefault
}

// SessionMessagesResult: More says older messages exist; the next page is
// Before = Messages[0].RowID. MessageCount is the transcript's total.
type SessionMessagesResult struct {
	SessionID    string    `json:"session_id"`
	Messages     []Message `json:"messages"`
	MessageCount int       `json:"message_count"`
	More         bool      `json:"more"`
}

// ImportMessage is one message of session.import: a Message without its
// row id. Role is user, assistant or tool (system and developer messages
// are the new session's own); ToolCalls, on assistant messages only, is
// the array of {id, type: "function", function: {name, arguments}};
// ToolCallID and ToolName belong to tool messages only.
type ImportMessage struct {
	Role       string          `json:"role"`
	Content    string          `json:"content"`
	ToolCallID string          `json:"tool_call_id,omitempty"`
	ToolCalls  json.RawMessage `json:"tool_calls,omitempty"`
	ToolName   string          `json:"tool_name,omitempty"`
	Reasoning  string          `json:"reasoning,omitempty"`
	Timestamp  string          `json:"timestamp,omitempty"` // RFC 3339; kept as the message's time
}

// SessionImportParams is session.import: a new session (source cli, the
// caller its creator) whose transcript is Messages, written in the one
// transaction that creates it. Only messages are imported: never
// admissions, approvals or any other state of the session they came from.
// Idempotent by RequestID per principal: the same params return the same
// session; different ones are invalid_params.
type SessionImportParams struct {
	RequestID string          `json:"request_id"` // 1..256 characters
	Messages  []ImportMessage `json:"messages"`   // 1..ImportMaxMessages
	Title     *string         `json:"title,omitempty"`
	Cwd       *string         `json:"cwd,omitempty"`   // as session.create cwd
	Model     *string         `json:"model,omitempty"` // as session.create model
}

// SessionImportResult is the new session and its message count.
type SessionImportResult struct {
	SessionID    string `json:"session_id"`
	MessageCount int    `json:"message_count"`
}

// SessionFindParams is session.find: the sessions whose id starts with
// Prefix ("local-" and at least FindMinPrefix more characters) that the
// caller may access, of every source, hidden and archived ones included.
type SessionFindParams struct {
	Prefix string `json:"prefix"`
}

// SessionFindResult lists at most FindMaxMatches matches, newest first;
// More says there are others.
type SessionFindResult struct {
	Sessions []SessionSummary `json:"sessions"`
	More     bool             `json:"more"`
}

// Transcript is the file `hermes sessions export` writes and `hermes
// sessions import` reads.
type Transcript struct {
	Format       string    `json:"format"` // TranscriptFormat
	SessionID    string    `json:"session_id"`
	Title        string    `json:"title"`
	Source       string    `json:"source"`
	Model        string    `json:"model"`
	Cwd          string    `json:"cwd"`
	ExportedAt   string    `json:"exported_at"` // RFC 3339 UTC
	MessageCount int       `json:"message_count"`
	Messages     []Message `json:"messages"`
}

// TranscriptFormat names the version of the Transcript file.
const TranscriptFormat = "hermes-transcript-v1"
