package hooks

import (
	"bytes"
	"encoding/json"
	"strings"
)

// Input is the JSON object a hook reads on stdin (Claude Code's fields;
// the per-event ones are omitted where they do not apply).
type Input struct {
	SessionID      string          `json:"session_id"`
	TranscriptPath string          `json:"transcript_path"` // always "": the transcript lives in the gateway's store
	Cwd            string          `json:"cwd"`
	Event          string          `json:"hook_event_name"`
	ToolName       string          `json:"tool_name,omitempty"`
	ToolInput      json.RawMessage `json:"tool_input,omitempty"`
	ToolResponse   json.RawMessage `json:"tool_response,omitempty"`
	Prompt         string          `json:"prompt,omitempty"`
	Source         string          `json:"source,omitempty"`  // SessionStart: startup or resume
	Trigger        string          `json:"trigger,omitempty"` // PreCompact: manual or auto
	Reason         string          `json:"reason,omitempty"`  // SessionEnd
	StopHookActive *bool           `json:"stop_hook_active,omitempty"`
}

// Output is what a hook may print on stdout with exit 0 (Claude Code's
// JSON output). Unknown fields are ignored, as Claude Code does.
type Output struct {
	Continue       *bool  `json:"continue"`
	StopReason     string `json:"stopReason"`
	Decision       string `json:"decision"` // "block"; Claude Code's older "approve" is no opinion
	Reason         string `json:"reason"`
	SystemMessage  string `json:"systemMessage"`
	SuppressOutput bool   `json:"suppressOutput"`
	Specific       struct {
		Event                    string `json:"hookEventName"`
		PermissionDecision       string `json:"permissionDecision"` // allow (no opinion), deny, ask
		PermissionDecisionReason string `json:"permissionDecisionReason"`
		AdditionalContext        string `json:"additionalContext"`
	} `json:"hookSpecificOutput"`
}

// parseOutput reads stdout as Output when it is a JSON object; ok is false
// for plain text (which UserPromptSubmit and SessionStart take as context).
func parseOutput(stdout string) (Output, bool) {
	s := strings.TrimSpace(stdout)
	if !strings.HasPrefix(s, "{") {
		return Output{}, false
	}
	var o Output
	dec := json.NewDecoder(bytes.NewReader([]byte(s)))
	if err := dec.Decode(&o); err != nil {
		return Output{}, false
	}
	return o, true
}
