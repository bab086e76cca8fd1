package worker

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"

	"github.com/hermes-gateway/hermes/internal/agent"
	"github.com/hermes-gateway/hermes/internal/model"
	"github.com/hermes-gateway/hermes/internal/sandbox"
	"github.com/hermes-gateway/hermes/internal/tools"
)

// Spec is everything a turn needs, frozen by the daemon. It is sent as the
// first line on the worker's stdin; it is the only way the API key reaches
// the worker (never argv, never the environment). Spec's LogValue redacts
// the key; do not log it any other way.
type Spec struct {
	BaseURL         string          `json:"base_url"`
	APIKey          string          `json:"api_key,omitempty"`
	Model           string          `json:"model"`
	Stream          bool            `json:"stream"`
	ReasoningEffort string          `json:"reasoning_effort,omitempty"`
	MaxTurns        int             `json:"max_turns"` // <= 0 = unlimited
	System          string          `json:"system,omitempty"`
	History         []model.Message `json:"history,omitempty"`
	Input           string          `json:"input,omitempty"`
	Toolsets        []string        `json:"toolsets"`
	Cwd             string          `json:"cwd,omitempty"` // the worker's directory and tools.Env.Cwd
	SessionID       string          `json:"session_id,omitempty"`
	SkillsDir       string          `json:"skills_dir,omitempty"`
	// Sandbox is how the worker's tool processes run: the daemon sends the
	// session's; nil runs them bare (only a daemon wired without a
	// launcher, in tests). Safe mode and yolo never skip it.
	Sandbox *SandboxSpec `json:"sandbox,omitempty"`
}

// SandboxSpec is the session's sandbox for a worker: the worker builds its
// own Launcher (Exe in Mode) and runs every tool command under Policy.
type SandboxSpec struct {
	Exe    string         `json:"exe"` // the hermes binary serving sandbox-exec; "" = the worker's own
	Mode   sandbox.Mode   `json:"mode"`
	Policy sandbox.Policy `json:"policy"` // Cwd is filled per command
	// What the file tools treat specially (tools.Env fields of the same name).
	ProfileHome    string   `json:"profile_home,omitempty"`
	WritableRoots  []string `json:"writable_roots,omitempty"`
	ProtectedPaths []string `json:"protected_paths,omitempty"`
}

// LogValue describes the spec without the API key, the prompt or the history.
func (s Spec) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("base_url", s.BaseURL), slog.String("model", s.Model),
		slog.Bool("api_key_set", s.APIKey != ""), slog.Int("history", len(s.History)),
		slog.Any("toolsets", s.Toolsets), slog.String("cwd", s.Cwd),
		slog.String("session_id", s.SessionID), slog.Any("sandbox_mode", s.sandboxMode()),
	)
}

// sandboxMode is the spec's sandbox mode for the log; "none" = bare.
func (s Spec) sandboxMode() sandbox.Mode {
	if s.Sandbox == nil {
		return "none"
	}
	return s.Sandbox.Mode
}

// Host is the daemon side of a worker: everything the worker asks of the
// gateway. Run calls the Recorder methods, UIEvent, Started and Exited from
// its own goroutine, in the order the worker sent them; Approve and Ask run
// on goroutines of their own (one per pending request) with a context that
// ends when the turn is interrupted or the worker is gone.
type Host interface {
	agent.Recorder // Message, Text, Reasoning, ToolStart, ToolComplete
	Approve(ctx context.Context, req tools.ApprovalRequest) (bool, error)
	Ask(ctx context.Context, q tools.Question) (string, error)
	// UIEvent receives the payload as the json.RawMessage the worker sent.
	UIEvent(kind string, payload any)
	// Started and Exited report tool processes inside the worker, and the
	// worker process itself (Started right after it starts, Exited once it
	// has been reaped).
	Started(pid int)
	Exited(pid int)
}

// toWire converts an agent.Result for the result frame.
func toWire(r agent.Result) *result {
	w := &result{Text: r.Text, Usage: r.Usage, Outcome: r.Outcome, Rounds: r.Rounds, MaxTurnsReached: r.MaxTurnsReached}
	if r.Err != nil {
		w.Error = r.Err.Error()
	}
	return w
}

// fromWire converts a result frame back; Err carries the worker's text.
func fromWire(w *result) agent.Result {
	r := agent.Result{Text: w.Text, Usage: w.Usage, Outcome: w.Outcome, Rounds: w.Rounds, MaxTurnsReached: w.MaxTurnsReached}
	if w.Error != "" {
		r.Err = errors.New(w.Error)
	}
	return r
}

// rawPayload makes a UI payload embeddable in a frame.
func rawPayload(payload any) json.RawMessage {
	if raw, ok := payload.(json.RawMessage); ok && json.Valid(raw) {
		return raw
	}
	b, err := json.Marshal(payload)
	if err != nil {
		b, _ = json.Marshal(map[string]string{"error": "unencodable ui payload: " + err.Error()})
	}
	return b
}
