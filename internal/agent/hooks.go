package agent

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/hermes-gateway/hermes/internal/tools"
)

// ToolHooks runs the user's PreToolUse and PostToolUse hooks around each
// tool call (issue 12). The agent calls PreToolUse after the call's
// tool.start and before the tool runs, that is before any approval gate
// inside the tool: a hook may block a call, or force a human's consent,
// but can never consent for the gate.
type ToolHooks interface {
	// PreToolUse decides whether the call may run. An error (ctx ended)
	// interrupts the turn.
	PreToolUse(ctx context.Context, tool string, args json.RawMessage) (PreToolDecision, error)
	// PostToolUse sees the result; the feedback it returns ("" = none) is
	// appended to what the model sees.
	PostToolUse(ctx context.Context, tool string, args json.RawMessage, res tools.Result) (string, error)
}

// PreToolDecision is what the PreToolUse hooks decided for one call.
type PreToolDecision struct {
	Block  bool   // the tool does not run; Reason goes to the model
	Reason string // why it was blocked (a hook's stderr or decision reason)
	// Ask forces a human's consent (once or deny) before the tool runs,
	// even where the tool's own gate would not ask; AskDescription names
	// the hook.
	Ask            bool
	AskDescription string
}

// preToolUse runs the hooks before call; stop means the tool must not run
// and res (with err, for an interruption) is its result.
func (r *run) preToolUse(ctx context.Context, name, command string, args json.RawMessage) (res tools.Result, stop bool, err error) {
	d, err := r.t.Hooks.PreToolUse(ctx, name, args)
	if err != nil {
		return errResult(resultInterrupted), true, fmt.Errorf("PreToolUse hook of %s: %w", name, err)
	}
	if d.Block {
		return errResult(fmt.Sprintf("blocked by a PreToolUse hook: %s was not run. %s", name, d.Reason)), true, nil
	}
	if !d.Ask {
		return tools.Result{}, false, nil
	}
	req := tools.ApprovalRequest{Kind: tools.KindCommand, Mandatory: true, Command: command, Description: d.AskDescription}
	allowed := false
	if r.t.Env.Approver != nil {
		if allowed, err = r.t.Env.Approver.Approve(ctx, req); err != nil {
			return errResult(resultInterrupted), true, fmt.Errorf("approve %s for a hook: %w", name, err)
		}
	}
	if !allowed {
		return errResult(fmt.Sprintf("denied by the user: a PreToolUse hook asked for consent and %s was not run.", name)), true, nil
	}
	return tools.Result{}, false, nil
}

// postToolUse appends the PostToolUse hooks' feedback to res.
func (r *run) postToolUse(ctx context.Context, name string, args json.RawMessage, res tools.Result) (tools.Result, error) {
	fb, err := r.t.Hooks.PostToolUse(ctx, name, args, res)
	if err != nil {
		return res, fmt.Errorf("PostToolUse hook of %s: %w", name, err)
	}
	if fb != "" {
		res.Output += "\n\n[PostToolUse hook] " + fb
	}
	return res, nil
}

// hookCommand is what a hook's consent prompt shows for a call: the
// terminal command, else the tool name and its arguments.
func hookCommand(name string, args json.RawMessage) string {
	var a struct {
		Command string `json:"command"`
	}
	if name == "terminal" && json.Unmarshal(args, &a) == nil && a.Command != "" {
		return a.Command
	}
	return name + " " + string(args)
}
