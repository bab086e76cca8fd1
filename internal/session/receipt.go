package session

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/hermes-gateway/hermes/internal/protocol"
	"github.com/hermes-gateway/hermes/internal/strictjson"
)

// timeLayout is the naive ISO timestamp of entry.created_at/updated_at (UTC,
// microseconds; docs/protocol.md#receipt stores the store clock without a zone).
const timeLayout = "2006-01-02T15:04:05.000000"

// Receipt is the creation receipt of a logical session (docs/protocol.md#receipt),
// stored verbatim under ReceiptKey(SessionID). Only Entry.SessionID,
// Entry.UpdatedAt and Lineage ever change (Advance); everything else is
// frozen at creation.
type Receipt struct {
	ProfileID   string   `json:"profile_id"`
	PrincipalID string   `json:"principal_id"` // the creator's subject
	RequestID   string   `json:"request_id"`
	SessionID   string   `json:"session_id"` // the logical id, for ever
	Route       string   `json:"route"`      // RouteKey(SessionID)
	Entry       Entry    `json:"entry"`
	Policy      Policy   `json:"policy"`
	Lineage     []string `json:"lineage,omitempty"` // absent = [SessionID]
}

// Entry is the routing entry of the session (gateway_routing.entry_json).
type Entry struct {
	SessionKey string `json:"session_key"` // == Receipt.Route
	SessionID  string `json:"session_id"`  // the physical transcript; moves on compress/reset
	CreatedAt  string `json:"created_at"`
	UpdatedAt  string `json:"updated_at"`
	Origin     Origin `json:"origin"`
	Platform   string `json:"platform"` // always "local"
	Yolo       bool   `json:"yolo"`
}

// Origin is the server-owned LOCAL routing identity: platform "local",
// chat_id = the logical id, user_id = the creator, chat_type "dm".
type Origin struct {
	Platform string `json:"platform"`
	ChatID   string `json:"chat_id"`
	UserID   string `json:"user_id"`
	ChatType string `json:"chat_type"`
}

// Policy is the frozen launch policy. It never holds a secret: the launch
// api_key is represented only by CredentialRef.
type Policy struct {
	Source           string          `json:"source"`
	Platform         string          `json:"platform"`
	Cwd              string          `json:"cwd"`
	Model            string          `json:"model"`
	Toolsets         []string        `json:"toolsets"` // sorted; [] = no tools
	Provider         string          `json:"provider"`
	BaseURL          string          `json:"base_url"`
	MaxTurns         int             `json:"max_turns"` // 0 = unlimited
	Reasoning        string          `json:"reasoning"`
	Streaming        bool            `json:"streaming"`
	Yolo             bool            `json:"yolo"`
	Checkpoints      bool            `json:"checkpoints"`
	AcceptHooks      bool            `json:"accept_hooks"`
	PassSessionID    bool            `json:"pass_session_id"`
	IgnoreRules      bool            `json:"ignore_rules"`
	SafeMode         bool            `json:"safe_mode"`
	IgnoreUserConfig bool            `json:"ignore_user_config"`
	Hidden           bool            `json:"hidden"`
	Title            string          `json:"title"`
	ConfigJSON       string          `json:"config_json"`   // canonical JSON object
	RequestJSON      string          `json:"request_json"`  // FrozenRequest
	TerminalJSON     string          `json:"terminal_json"` // {"TERMINAL_CWD": Cwd}
	CredentialRef    *string         `json:"credential_ref"`
	SkillsPrompt     *string         `json:"skills_prompt"`
	Editor           json.RawMessage `json:"editor"` // acp only; null otherwise
	CodingPosture    bool            `json:"coding_posture"`
	// KeyEndpoint is the configured endpoint whose key the session may use
	// (KeyEndpointModel, "provider:NAME") or KeyEndpointNone (endpoint.go).
	// Optional in stored receipts: in one written before it existed, the
	// same binding rule is applied to the current config at each use.
	KeyEndpoint string `json:"key_endpoint,omitempty"`
	// Hooks is the hook set of an accept_hooks session, frozen at
	// creation (issue 12); absent = the session runs no hooks.
	Hooks *HooksPolicy `json:"hooks,omitempty"`
	// Sandbox is the frozen sandbox.* settings; nil (receipts older than
	// the sandbox, or a caller that gave none) means the profile's current
	// settings.
	Sandbox *SandboxPolicy `json:"sandbox,omitempty"`
	// MCP is the MCP servers the session may use, one per mcp:NAME toolset,
	// sorted by name (issue 13); absent = none.
	MCP []MCPServer `json:"mcp,omitempty"`
}

// Required keys of each receipt object; null counts as missing.
var (
	receiptKeys = []string{"profile_id", "principal_id", "request_id", "session_id", "route", "entry", "policy"}
	entryKeys   = []string{"session_key", "session_id", "created_at", "updated_at", "origin", "platform", "yolo"}
	originKeys  = []string{"platform", "chat_id", "user_id", "chat_type"}
	policyKeys  = []string{
		"source", "platform", "cwd", "model", "toolsets", "provider", "base_url", "max_turns",
		"reasoning", "streaming", "yolo", "checkpoints", "accept_hooks", "pass_session_id",
		"ignore_rules", "safe_mode", "ignore_user_config", "hidden", "title", "config_json",
		"request_json", "terminal_json", "coding_posture",
	}
	policyNullable = []string{"credential_ref", "skills_prompt", "editor"} // present, may be null
)

// Timestamp formats t as a receipt timestamp.
func Timestamp(t time.Time) string { return t.UTC().Format(timeLayout) }

// Marshal is the stored form of the receipt.
func (r Receipt) Marshal() (string, error) {
	b, err := marshalNoEscape(r)
	if err != nil {
		return "", fmt.Errorf("marshal receipt: %w", err)
	}
	return string(b), nil
}

// ParseReceipt decodes a stored receipt strictly: malformed or truncated
// JSON, missing or null required fields (checkShape), and what the one
// strict decoder refuses (unknown, case-variant and duplicate keys, wrong
// types, trailing data) are storage_unavailable (the receipt is damaged; the
// session fails closed). Unknown keys are refused: a receipt written by a
// newer binary does not load in an older one.
func ParseReceipt(raw string) (Receipt, error) {
	if err := checkShape(raw); err != nil {
		return Receipt{}, storageErr("receipt: %v", err)
	}
	var r Receipt
	if err := strictjson.Decode([]byte(raw), &r); err != nil {
		// The detail stays generic; the key path goes to the log (Cause).
		return Receipt{}, &protocol.Error{Reason: protocol.ReasonStorageUnavailable,
			Detail: "receipt: wrong field type or unknown field", Cause: err}
	}
	if string(r.Policy.Editor) == "null" {
		r.Policy.Editor = nil // as Build leaves it: no editor
	}
	return r, nil
}

// checkShape verifies that raw is one JSON object holding every required
// key (non-null) at each level.
func checkShape(raw string) error {
	top, err := objectKeys([]byte(raw), "receipt", receiptKeys)
	if err != nil {
		return err
	}
	entry, err := objectKeys(top["entry"], "entry", entryKeys)
	if err != nil {
		return err
	}
	if _, err := objectKeys(entry["origin"], "entry.origin", originKeys); err != nil {
		return err
	}
	pol, err := objectKeys(top["policy"], "policy", policyKeys)
	if err != nil {
		return err
	}
	for _, k := range policyNullable {
		if _, ok := pol[k]; !ok {
			return fmt.Errorf("policy.%s missing", k)
		}
	}
	return nil
}

func objectKeys(raw []byte, what string, required []string) (map[string]json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return nil, fmt.Errorf("%s is not a JSON object", what)
	}
	for _, k := range required {
		if v, ok := m[k]; !ok || string(v) == "null" {
			return nil, fmt.Errorf("%s.%s missing", what, k)
		}
	}
	return m, nil
}

func storageErr(format string, args ...any) *protocol.Error {
	return protocol.Errorf(protocol.ReasonStorageUnavailable, format, args...)
}
