package tools

import (
	"cmp"
	"context"
	"encoding/json"
)

// UI event kinds published through Env.UI.
const (
	UIOpenFile = "ui.open_file"
	UIShowDiff = "ui.show_diff"
	UINotify   = "ui.notify"
)

// UIOpenFilePayload asks GUI viewers to open a file.
type UIOpenFilePayload struct {
	Path string `json:"path"` // absolute
	Line int    `json:"line,omitempty"`
}

// UIShowDiffPayload asks GUI viewers to show a diff.
type UIShowDiffPayload struct {
	Path string `json:"path"` // absolute
	Diff string `json:"diff"`
}

// UINotifyPayload asks GUI viewers to show a notification.
type UINotifyPayload struct {
	Message string `json:"message"`
	Level   string `json:"level"` // info, warning or error
}

// publishUI sends one event to the GUI viewers.
func publishUI(env *Env, kind string, payload any) Result {
	if env.UI == nil {
		return failf("no graphical viewer is attached to this session")
	}
	env.UI.UIEvent(kind, payload)
	return Result{Output: "shown"}
}

// uiOpenFileTool: docs/protocol.md#tools "ui_open_file".
type uiOpenFileTool struct{}

func (uiOpenFileTool) Spec() Spec {
	return spec("ui_open_file", "Open a file in the user's editor view, optionally at a line.", `{
  "type": "object",
  "properties": {
    "path": {"type": "string", "minLength": 1, "description": "File to open; relative to the session directory."},
    "line": {"type": "integer", "minimum": 1, "description": "Line to show."}
  },
  "required": ["path"],
  "additionalProperties": false
}`)
}

func (uiOpenFileTool) Run(ctx context.Context, env *Env, raw json.RawMessage) (Result, error) {
	var a struct {
		Path string `json:"path"`
		Line int    `json:"line"`
	}
	if err := decodeArgs(raw, &a); err != nil {
		return failf("%v", err), nil
	}
	abs, err := absPath(env, a.Path)
	if err != nil || a.Line < 0 {
		return failf("invalid arguments: %v", cmpOrErr(err, "line must be positive")), nil
	}
	return publishUI(env, UIOpenFile, UIOpenFilePayload{Path: abs, Line: a.Line}), nil
}

// uiShowDiffTool: docs/protocol.md#tools "ui_show_diff".
type uiShowDiffTool struct{}

func (uiShowDiffTool) Spec() Spec {
	return spec("ui_show_diff", "Show the user a unified diff for a file.", `{
  "type": "object",
  "properties": {
    "path": {"type": "string", "minLength": 1, "description": "File the diff applies to."},
    "diff": {"type": "string", "minLength": 1, "description": "Unified diff text."}
  },
  "required": ["path", "diff"],
  "additionalProperties": false
}`)
}

func (uiShowDiffTool) Run(ctx context.Context, env *Env, raw json.RawMessage) (Result, error) {
	var a struct {
		Path string `json:"path"`
		Diff string `json:"diff"`
	}
	if err := decodeArgs(raw, &a); err != nil {
		return failf("%v", err), nil
	}
	abs, err := absPath(env, a.Path)
	if err != nil || a.Diff == "" {
		return failf("invalid arguments: %v", cmpOrErr(err, "diff is empty")), nil
	}
	return publishUI(env, UIShowDiff, UIShowDiffPayload{Path: abs, Diff: a.Diff}), nil
}

// uiNotifyTool: docs/protocol.md#tools "ui_notify".
type uiNotifyTool struct{}

func (uiNotifyTool) Spec() Spec {
	return spec("ui_notify", "Show the user a short notification.", `{
  "type": "object",
  "properties": {
    "message": {"type": "string", "minLength": 1, "description": "Notification text."},
    "level": {"type": "string", "enum": ["info", "warning", "error"], "description": "Severity (default info)."}
  },
  "required": ["message"],
  "additionalProperties": false
}`)
}

func (uiNotifyTool) Run(ctx context.Context, env *Env, raw json.RawMessage) (Result, error) {
	var a struct {
		Message string `json:"message"`
		Level   string `json:"level"`
	}
	if err := decodeArgs(raw, &a); err != nil {
		return failf("%v", err), nil
	}
	a.Level = cmp.Or(a.Level, "info")
	if a.Message == "" || (a.Level != "info" && a.Level != "warning" && a.Level != "error") {
		return failf("invalid arguments: message must be non-empty and level info, warning or error"), nil
	}
	return publishUI(env, UINotify, UINotifyPayload{Message: a.Message, Level: a.Level}), nil
}

// cmpOrErr returns err's text, or msg when err is nil.
func cmpOrErr(err error, msg string) string {
	if err != nil {
		return err.Error()
	}
	return msg
}
