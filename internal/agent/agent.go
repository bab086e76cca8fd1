// Package agent runs one agent turn: build request → call model → record
// the assistant message → dispatch tool calls → record results → repeat,
// until an answer without tool calls, Turn.MaxTurns model rounds, an error
// or cancellation. It knows nothing of SQLite or WebSockets: persistence and
// fanout happen behind Recorder.
//
// It also owns the summary request compression makes (Summarize). It may
// import only model and tools, and must never import store, events, server
// or authority: Recorder is all it sees of a session, which is what lets the
// worker run the same loop in another process.
//
// Guarantees:
//   - Every message is handed to Recorder.Message as soon as it is complete,
//     in transcript order (user input, assistant, its tool results, …).
//   - Every assistant tool call gets exactly one tool message, even when the
//     turn fails or is interrupted half-way ("interrupted"/"not run"
//     results), so the transcript stays a valid next request.
//   - Nothing is retried here: a model error fails the turn, and a tool is
//     run at most once (the model client retries only before any output).
//   - Run owns no goroutines; the tools it calls own theirs.
package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/hermes-gateway/hermes/internal/model"
	"github.com/hermes-gateway/hermes/internal/tools"
)

// Turn outcomes (the admission outcomes of docs/protocol.md#admissions a turn can produce).
const (
	OutcomeCompleted   = "completed"
	OutcomeFailed      = "failed"
	OutcomeInterrupted = "interrupted"
)

// Model is the chat completion client (*model.Client, or a test double).
type Model interface {
	Complete(ctx context.Context, req model.Request, h model.Handler) (*model.Response, error)
}

// Recorder receives the turn as it happens. Message persists one completed
// message and is called with a context that is not cancelled by an
// interruption (the closing messages of an interrupted turn must land); an
// error from it fails the turn. The other methods are notifications.
type Recorder interface {
	Message(ctx context.Context, m model.Message) error
	Text(delta string)
	Reasoning(delta string)
	ToolStart(callID, name string, args json.RawMessage)
	ToolComplete(callID, name string, res tools.Result)
}

// Turn is everything one turn needs.
type Turn struct {
	Model           Model
	ModelName       string
	Stream          bool
	ReasoningEffort string
	MaxTurns        int             // model rounds; <= 0 means unlimited
	History         []model.Message // prior transcript, without the system message
	System          string          // system prompt; "" = none
	Input           string          // this turn's user text; "" = no user message
	Tools           []tools.Tool
	Env             *tools.Env // nil = an empty Env
	Recorder        Recorder   // nil = discard
	Hooks           ToolHooks  // PreToolUse/PostToolUse hooks; nil = none
}

// Result is how a turn ended.
type Result struct {
	Text    string      // the turn's last assistant message
	Usage   model.Usage // summed over the turn's model calls
	Outcome string      // OutcomeCompleted, OutcomeFailed or OutcomeInterrupted
	Err     error       // why it failed or was interrupted; nil when completed
	Rounds  int         // model calls made
	// MaxTurnsReached: the turn stopped after MaxTurns rounds that all asked
	// for tools. The outcome is still completed; a note was recorded as the
	// last assistant message.
	MaxTurnsReached bool
}

// run is the state of one turn.
type run struct {
	t       Turn
	byName  map[string]tools.Tool
	schemas []model.ToolSchema
	msgs    []model.Message // this turn's messages so far
	last    string          // content of the last assistant message
	usage   model.Usage
	rounds  int
}

// Run executes one turn. It never panics on a tool panic (the turn fails).
func Run(ctx context.Context, t Turn) Result {
	r := newRun(t)
	if t.Input != "" {
		if err := r.record(ctx, model.Message{Role: model.RoleUser, Content: t.Input}); err != nil {
			return r.end(ctx, err)
		}
	}
	for {
		if t.MaxTurns > 0 && r.rounds >= t.MaxTurns {
			return r.stopAtMaxTurns(ctx)
		}
		msg, err := r.callModel(ctx)
		if err != nil {
			return r.end(ctx, err)
		}
		if err := r.record(ctx, msg); err != nil {
			return r.end(ctx, err)
		}
		if len(msg.ToolCalls) == 0 {
			return r.result(OutcomeCompleted, nil)
		}
		if err := r.dispatch(ctx, msg.ToolCalls); err != nil {
			return r.end(ctx, err)
		}
	}
}

func newRun(t Turn) *run {
	if t.Recorder == nil {
		t.Recorder = nopRecorder{}
	}
	if t.Env == nil {
		t.Env = &tools.Env{}
	}
	r := &run{t: t, byName: make(map[string]tools.Tool, len(t.Tools)), schemas: ToolSchemas(t.Tools)}
	for _, tl := range t.Tools {
		r.byName[tl.Spec().Name] = tl
	}
	return r
}

// request builds the next model request: system + history + this turn.
func (r *run) request() model.Request {
	msgs := make([]model.Message, 0, 1+len(r.t.History)+len(r.msgs))
	if r.t.System != "" {
		msgs = append(msgs, model.Message{Role: model.RoleSystem, Content: r.t.System})
	}
	msgs = append(append(msgs, r.t.History...), r.msgs...)
	return model.Request{
		Model: r.t.ModelName, Messages: msgs, Tools: r.schemas,
		Stream: r.t.Stream, ReasoningEffort: r.t.ReasoningEffort,
	}
}

// callModel performs one round and returns the assistant message, with
// tool call ids guaranteed.
func (r *run) callModel(ctx context.Context) (model.Message, error) {
	r.rounds++
	resp, err := r.t.Model.Complete(ctx, r.request(), r.t.Recorder) // a Recorder is a model.Handler
	if err != nil {
		return model.Message{}, fmt.Errorf("model request (round %d): %w", r.rounds, err)
	}
	if resp.Usage != nil {
		r.usage = r.usage.Add(*resp.Usage)
	}
	msg := resp.Message
	msg.Role = model.RoleAssistant
	for i := range msg.ToolCalls {
		if msg.ToolCalls[i].ID == "" {
			msg.ToolCalls[i].ID = fmt.Sprintf("call_r%d_%d", r.rounds, i)
		}
		msg.ToolCalls[i].Type = "function"
	}
	return msg, nil
}

// record persists m and appends it to the turn.
func (r *run) record(ctx context.Context, m model.Message) error {
	if err := r.t.Recorder.Message(context.WithoutCancel(ctx), m); err != nil {
		return fmt.Errorf("record %s message: %w", m.Role, err)
	}
	r.msgs = append(r.msgs, m)
	if m.Role == model.RoleAssistant {
		r.last = m.Content
	}
	return nil
}

// stopAtMaxTurns ends a turn whose every round asked for tools.
func (r *run) stopAtMaxTurns(ctx context.Context) Result {
	note := fmt.Sprintf("Stopped: this turn reached its limit of %d model rounds (max_turns) before a final answer.", r.t.MaxTurns)
	r.t.Recorder.Text(note)
	if err := r.record(ctx, model.Message{Role: model.RoleAssistant, Content: note}); err != nil {
		return r.end(ctx, err)
	}
	res := r.result(OutcomeCompleted, nil)
	res.MaxTurnsReached = true
	return res
}

// end classifies err: a cancelled ctx is an interruption, anything else a
// failure.
func (r *run) end(ctx context.Context, err error) Result {
	if ctx.Err() != nil || errors.Is(err, context.Canceled) {
		return r.result(OutcomeInterrupted, fmt.Errorf("turn interrupted: %w", err))
	}
	return r.result(OutcomeFailed, err)
}

func (r *run) result(outcome string, err error) Result {
	return Result{Text: r.last, Usage: r.usage, Outcome: outcome, Err: err, Rounds: r.rounds}
}

type nopRecorder struct{}

func (nopRecorder) Message(context.Context, model.Message) error { return nil }
func (nopRecorder) Text(string)                                  {}
func (nopRecorder) Reasoning(string)                             {}
func (nopRecorder) ToolStart(string, string, json.RawMessage)    {}
func (nopRecorder) ToolComplete(string, string, tools.Result)    {}
