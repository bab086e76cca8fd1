package store

// Session is one sessions row: a logical session (ID == ChatID) or a physical
// transcript child of one (ChatID = the logical id). Empty strings and zero
// times stand for SQL NULL where the column is optional.
type Session struct {
	ID              string
	Source          string
	UserID          string // owning principal subject
	SessionKey      string // route key (gateway_routing.session_key)
	ChatID          string // the logical id this transcript belongs to
	Model           string
	Cwd             string
	Title           string // "" = untitled
	ParentSessionID string // "" = none
	EndReason       string // "" = not ended
	ModelConfig     string // JSON, frozen at insert
	ReplayEpoch     string // random hex set at insert when empty; changes only when the journal is pruned

	StartedAtMs    int64 // unix ms; InsertSession sets now when 0
	EndedAtMs      int64 // unix ms; 0 = not ended
	LastActivityMs int64 // unix ms of the last message (or start)

	Archived bool
	Hidden   bool

	RuntimeGeneration int64 // execution generation of the last claim (0 = never claimed)
	RuntimeRevision   int64 // CAS revision, bumped by settle/cancel/resolve and mutations
	MessageCount      int64 // messages of this transcript; maintained by AppendMessage
	LastEventSeq      int64 // seq of the newest journaled event; maintained by AppendEvent

	Usage Usage // tokens of the session's model responses (logical rows; AddUsage)
}

// Usage counts tokens of model responses. Cached is the part of Prompt the
// server read from its prompt cache (0 when it did not say).
type Usage struct {
	Prompt     int64
	Completion int64
	Cached     int64
}

// Header is the part of a sessions row a session.info event carries.
type Header struct {
	Generation int64 // runtime_generation
	Revision   int64 // runtime_revision
	Title      string
	Model      string // sessions.model: the frozen model
	Usage      Usage
}

// Route is one gateway_routing row. Local routes use Scope "".
type Route struct {
	Scope       string
	SessionKey  string
	EntryJSON   string
	UpdatedAtMs int64 // unix ms; PutRoute sets now when 0
}

// Admission is one session_admissions row (one prompt.submit).
type Admission struct {
	Seq             int64 // global FIFO order, assigned at insert
	AdmissionID     string
	RequestID       string // the client's submission id
	PrincipalID     string
	TargetSessionID string // the LOGICAL session id
	LineageJSON     string // JSON array, ["<target>"] when inserted empty
	PayloadJSON     string
	PayloadDigest   string
	Intent          string // queue | steer | redirect ("" inserts "queue")
	Status          string // a queue.Status
	Outcome         string // a queue.Outcome; "" = NULL (not terminal)

	OwnerEpoch int64 // epoch that inserted or claimed the row
	Generation int64 // execution generation of the claim; 0 = NULL (never claimed)

	CreatedAtMs int64 // unix ms
	SettledAtMs int64 // unix ms; 0 = not terminal
}

// PendingBrief is what a session.info event shows of a non-terminal
// admission: its identity, status, generation and the text of its payload.
type PendingBrief struct {
	Seq         int64
	AdmissionID string
	RequestID   string
	Status      string // a queue.Status other than terminal
	Generation  int64  // 0 = never claimed
	Text        string // payload_json's "text"; "" if the payload is not JSON
}

// Message is one messages row of a physical transcript.
type Message struct {
	ID            int64 // assigned at insert, increasing
	SessionID     string
	Role          string // system | developer | user | assistant | tool
	Content       string
	ToolCallID    string
	ToolCallsJSON string
	ToolName      string
	Reasoning     string
	FinishReason  string
	CreatedAtMs   int64 // unix ms; AppendMessage sets now when 0
}

// Event is one session_events journal row. SessionID is the logical id.
type Event struct {
	SessionID           string
	Seq                 int64 // per session, strictly increasing; assigned by AppendEvent
	Type                string
	PayloadJSON         string
	AuthorityEpoch      int64  // AppendEvent stamps the transaction's epoch when 0
	ExecutionGeneration int64  // 0 = none
	AdmissionID         string // "" = none
	ReplayEpoch         string // the session's replay_epoch, filled on read and append
	CreatedAtMs         int64  // unix ms; AppendEvent sets now when 0
}

// ListFilter selects logical sessions for ListSessions.
type ListFilter struct {
	Limit           int // <= 0: no limit
	IncludeHidden   bool
	ExcludeArchived bool
	ExcludeSources  []string
	Title           string // "" = any; else exact match
}

// Counts are the non-terminal admissions by status, profile-wide.
type Counts struct {
	Queued, Started, Unknown int
}
