package protocol

import "encoding/json"

// SessionCreateParams are the flat fields of session.create (docs/protocol.md#create-fields). Pointer
// fields distinguish "omitted" from an explicit zero value, because the frozen
// request used for idempotency keeps that difference.
type SessionCreateParams struct {
	RequestID        *string         `json:"request_id,omitempty"`
	Source           *string         `json:"source,omitempty"`
	Cwd              *string         `json:"cwd,omitempty"`
	Model            *string         `json:"model,omitempty"`
	Toolsets         *[]string       `json:"toolsets,omitempty"`
	Provider         *string         `json:"provider,omitempty"`
	BaseURL          *string         `json:"base_url,omitempty"`
	APIKey           *string         `json:"api_key,omitempty"` // secret: memory only, never echoed
	Reasoning        *string         `json:"reasoning,omitempty"`
	MaxTurns         json.RawMessage `json:"max_turns,omitempty"` // int, or 0/-1/"none"/"unlimited"
	Skills           *[]string       `json:"skills,omitempty"`
	Yolo             *bool           `json:"yolo,omitempty"`
	Checkpoints      *bool           `json:"checkpoints,omitempty"`
	AcceptHooks      *bool           `json:"accept_hooks,omitempty"`
	PassSessionID    *bool           `json:"pass_session_id,omitempty"`
	IgnoreRules      *bool           `json:"ignore_rules,omitempty"`
	SafeMode         *bool           `json:"safe_mode,omitempty"`
	IgnoreUserConfig *bool           `json:"ignore_user_config,omitempty"`
	Editor           json.RawMessage `json:"editor,omitempty"`
	Title            *string         `json:"title,omitempty"`
	Hidden           *bool           `json:"hidden,omitempty"`
}

// CreateParameterNames lists every session.create field, sorted
// (runtime.describe session_create.parameters).
var CreateParameterNames = []string{
	"accept_hooks", "api_key", "base_url", "checkpoints", "cwd", "editor", "hidden",
	"ignore_rules", "ignore_user_config", "max_turns", "model", "pass_session_id",
	"provider", "reasoning", "request_id", "safe_mode", "skills", "source", "title",
	"toolsets", "yolo",
}

// SessionResumeParams: exactly one of SessionID or Title.
type SessionResumeParams struct {
	SessionID *string         `json:"session_id,omitempty"`
	Title     *string         `json:"title,omitempty"`
	APIKey    *string         `json:"api_key,omitempty"` // secret: re-supplied launch key
	Editor    json.RawMessage `json:"editor,omitempty"`
}

// Snapshot is the result of session.create and session.resume.
type Snapshot struct {
	SessionID           string             `json:"session_id"`
	StoredSessionID     string             `json:"stored_session_id"`
	Messages            []Message          `json:"messages"`
	MessageCount        int                `json:"message_count"`
	Running             bool               `json:"running"`
	AuthorityEpoch      int64              `json:"authority_epoch"`
	ReplayEpoch         string             `json:"replay_epoch"`
	LastSequence        int64              `json:"last_sequence"`
	SubscriptionID      string             `json:"subscription_id"`
	Revision            int64              `json:"revision"`
	ExecutionGeneration int64              `json:"execution_generation"`
	Pending             []PendingAdmission `json:"pending"`
	Prompts             []Prompt           `json:"prompts"`
	Info                SessionInfo        `json:"info"`
}

// Message is one row of a transcript as clients see it.
type Message struct {
	RowID      int64           `json:"row_id"`
	Role       string          `json:"role"`
	Content    string          `json:"content"`
	ToolCallID string          `json:"tool_call_id,omitempty"`
	ToolCalls  json.RawMessage `json:"tool_calls,omitempty"`
	ToolName   string          `json:"tool_name,omitempty"`
	Reasoning  string          `json:"reasoning,omitempty"`
	Timestamp  string          `json:"timestamp,omitempty"`
}

// SessionInfo is the result of session.info and Snapshot.Info.
type SessionInfo struct {
	Source          string          `json:"source"`
	Model           string          `json:"model"`
	Lazy            bool            `json:"lazy"`
	ProfileID       string          `json:"profile_id"`
	DesktopProtocol string          `json:"desktop_protocol"`
	Cwd             string          `json:"cwd"`
	LaunchRequest   json.RawMessage `json:"launch_request"`
	Title           string          `json:"title"`
	PausedReason    string          `json:"paused_reason,omitempty"`
	Archived        bool            `json:"archived,omitempty"`
	Usage           Usage           `json:"usage"` // the session's tokens and cost (issue 14)
}

// SessionIDParams is the exact shape {session_id}.
type SessionIDParams struct {
	SessionID string `json:"session_id"`
}

// SessionDetachParams / SessionDetachResult: session.detach.
type SessionDetachParams struct {
	SessionID      string `json:"session_id"`
	SubscriptionID string `json:"subscription_id"`
}
type SessionDetachResult struct {
	SessionID      string `json:"session_id"`
	SubscriptionID string `json:"subscription_id"`
	Detached       bool   `json:"detached"`
}

// SessionListParams: session.list.
type SessionListParams struct {
	Limit         *int    `json:"limit,omitempty"`
	Scope         *string `json:"scope,omitempty"`
	Title         *string `json:"title,omitempty"`
	IncludeHidden *bool   `json:"include_hidden,omitempty"`
}
type SessionListResult struct {
	Sessions []SessionSummary `json:"sessions"`
	Scope    string           `json:"scope"`
}
type SessionSummary struct {
	SessionID    string `json:"session_id"`
	Title        string `json:"title"`
	Source       string `json:"source"`
	StartedAt    string `json:"started_at"` // RFC 3339 UTC
	MessageCount int    `json:"message_count"`
	Running      bool   `json:"running"`
}

// SessionMutateParams: session.mutate.
type SessionMutateParams struct {
	SessionID          string          `json:"session_id"`
	RequestID          string          `json:"request_id"`
	ExpectedRevision   int64           `json:"expected_revision"`
	ExpectedGeneration *int64          `json:"expected_generation,omitempty"`
	Operation          string          `json:"operation"`
	Payload            json.RawMessage `json:"payload"`
}
type SessionMutateResult struct {
	SessionID    string `json:"session_id"`
	Revision     int64  `json:"revision"`
	Operation    string `json:"operation"`
	MessageCount *int   `json:"message_count,omitempty"`
}

// SessionInterruptParams: session.interrupt.
type SessionInterruptParams struct {
	SessionID           string `json:"session_id"`
	ExecutionGeneration int64  `json:"execution_generation"`
}

// SessionHandle is the result of session.interrupt.
type SessionHandle struct {
	Ref                 Ref    `json:"ref"`
	InstanceID          string `json:"instance_id"`
	AuthorityEpoch      int64  `json:"authority_epoch"`
	Revision            int64  `json:"revision"`
	ExecutionGeneration int64  `json:"execution_generation"`
	ExecutionState      string `json:"execution_state"` // idle | running | unknown
}

// EventsSinceParams / EventsSinceResult: session.events.since.
type EventsSinceParams struct {
	SessionID    string  `json:"session_id"`
	ReplayEpoch  *string `json:"replay_epoch,omitempty"`
	LastSequence *int64  `json:"last_sequence,omitempty"`
}
type EventsSinceResult struct {
	Events           []Event `json:"events"`
	LatestSeq        int64   `json:"latest_seq"`
	ReplayEpoch      string  `json:"replay_epoch"`
	SnapshotRequired bool    `json:"snapshot_required"`
	More             bool    `json:"more"`
}

// PingResult: ping.
type PingResult struct {
	Pong bool `json:"pong"`
}

// RuntimeDescribeResult: runtime.describe.
type RuntimeDescribeResult struct {
	InstanceID     string        `json:"instance_id"`
	ProfileID      string        `json:"profile_id"`
	AuthorityEpoch int64         `json:"authority_epoch"`
	Capabilities   []string      `json:"capabilities"`
	SessionCreate  CreateSurface `json:"session_create"`
	// Sandbox is the OS boundary the gateway puts under tool processes;
	// nil only from a gateway that has no sandbox launcher.
	Sandbox *SandboxInfo `json:"sandbox,omitempty"`
	// MCPServers are the MCP servers, as mcp.status reports them (issue 13).
	MCPServers []MCPServerStatus `json:"mcp_servers,omitempty"`
}

// SandboxInfo is what the sandbox enforces (runtime.describe sandbox). A
// client shows Level, and shows LevelNone as a warning: tools then run
// with the user's full rights.
type SandboxInfo struct {
	Mode        string `json:"mode"`         // sandbox.mode: auto, strict or off
	Level       string `json:"level"`        // what is built: SandboxLevel*
	LandlockABI int    `json:"landlock_abi"` // Landlock ABI enforced; 0 = none
	Network     string `json:"network"`      // tools' network by default: on, or off (loopback only)
}

// Sandbox levels (sandbox.Level), strongest first.
const (
	SandboxLevelFull     = "namespaces+landlock+seccomp"
	SandboxLevelLandlock = "landlock+seccomp" // no user namespaces on this machine
	SandboxLevelNone     = "none"             // mode off, or nothing available
)

type CreateSurface struct {
	Sources    []string `json:"sources"`
	Parameters []string `json:"parameters"`
}
