package authority

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"time"

	"github.com/hermes-gateway/hermes/internal/agent"
	"github.com/hermes-gateway/hermes/internal/model"
	"github.com/hermes-gateway/hermes/internal/tools"
)

// Observer receives the authority's measurements (the daemon passes
// *metrics.Metrics). Every argument is from a fixed set or a number: no
// user content. Calls are made on turn goroutines and must not block.
type Observer interface {
	// TurnDone: one settled turn, claim to settle.
	TurnDone(outcome string, d time.Duration)
	// ModelRequest: one chat completion request. outcome is "ok", "error"
	// or "interrupted"; ttft < 0 when there was no first delta to time
	// (not streamed, or no text); tokens are 0 when usage was not reported.
	ModelRequest(outcome string, d, ttft time.Duration, promptTokens, completionTokens int)
	// ToolDone: one tool call; tool is a built-in name or "mcp"; outcome is
	// "ok", "error" (an error result the model sees) or "failed"
	// (interrupted, internal failure or panic).
	ToolDone(tool, outcome string, d time.Duration)
	// PromptOpened / PromptClosed bracket a pending approval or clarify
	// prompt of kind (approval, file, escalation, clarify); outcome is
	// "answered", "timeout" or "interrupted".
	PromptOpened(kind string)
	PromptClosed(kind, outcome string, wait time.Duration)
}

// Model request and tool outcomes reported to the Observer.
const (
	ObservedOK          = "ok"
	ObservedError       = "error"
	ObservedFailed      = "failed"
	ObservedInterrupted = "interrupted"
	ObservedAnswered    = "answered"
	ObservedTimeout     = "timeout"
)

type nopObserver struct{}

func (nopObserver) TurnDone(string, time.Duration)                              {}
func (nopObserver) ModelRequest(string, time.Duration, time.Duration, int, int) {}
func (nopObserver) ToolDone(string, string, time.Duration)                      {}
func (nopObserver) PromptOpened(string)                                         {}
func (nopObserver) PromptClosed(string, string, time.Duration)                  {}

func (a *Authority) observer() Observer {
	if a.cfg.Observer == nil {
		return nopObserver{}
	}
	return a.cfg.Observer
}

// LiveSessions is the number of sessions held live (hermes_sessions_live).
func (a *Authority) LiveSessions() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.live)
}

// instrument wraps the turn's model and tools so that each request and call
// is reported to the observer. An isolated (safe_mode) turn runs its model
// and tools in the worker process, so only its turn and prompts are seen.
func (a *Authority) instrument(t *agent.Turn) {
	obs := a.observer()
	if _, nop := obs.(nopObserver); nop {
		return
	}
	t.Model = observedModel{m: t.Model, obs: obs}
	wrapped := make([]tools.Tool, len(t.Tools))
	for i, tl := range t.Tools {
		wrapped[i] = observedTool{Tool: tl, label: toolLabel(tl.Spec().Name), obs: obs}
	}
	t.Tools = wrapped
}

// toolLabel is the tool label of a call: built-in tools by name, every
// other tool (MCP servers' tools) in the one bucket "mcp", so that names
// chosen outside the gateway never become label values.
func toolLabel(name string) string {
	if _, ok := tools.ByName(name); ok {
		return name
	}
	return "mcp"
}

// observePrompt reports the end of a prompt opened at since; it reads the
// results of ask (deferred there).
func observePrompt(obs Observer, kind string, since time.Time, got *answer, err *error) {
	outcome := ObservedAnswered
	switch {
	case *err != nil:
		outcome = ObservedInterrupted
	case got.by == "timeout":
		outcome = ObservedTimeout
	}
	obs.PromptClosed(kind, outcome, time.Since(since))
}

// observedModel times each request and its first delta.
type observedModel struct {
	m   agent.Model
	obs Observer
}

func (o observedModel) Complete(ctx context.Context, req model.Request, h model.Handler) (*model.Response, error) {
	fh := &firstDelta{h: h, start: time.Now()}
	resp, err := o.m.Complete(ctx, req, fh)
	d := time.Since(fh.start)
	outcome := ObservedOK
	switch {
	case err != nil && ctx.Err() != nil:
		outcome = ObservedInterrupted
	case err != nil:
		outcome = ObservedError
	}
	ttft := time.Duration(-1)
	if first := fh.first.Load(); req.Stream && first > 0 {
		ttft = time.Duration(first)
	}
	var in, out int
	if resp != nil && resp.Usage != nil {
		in, out = resp.Usage.PromptTokens, resp.Usage.CompletionTokens
	}
	o.obs.ModelRequest(outcome, d, ttft, in, out)
	return resp, err
}

// firstDelta forwards to h and notes when the first delta arrived.
type firstDelta struct {
	h     model.Handler
	start time.Time
	first atomic.Int64 // ns after start; 0 = none yet
}

func (f *firstDelta) mark() {
	if f.first.Load() == 0 {
		f.first.CompareAndSwap(0, max(int64(time.Since(f.start)), 1))
	}
}

func (f *firstDelta) Text(delta string) {
	f.mark()
	if f.h != nil {
		f.h.Text(delta)
	}
}

func (f *firstDelta) Reasoning(delta string) {
	f.mark()
	if f.h != nil {
		f.h.Reasoning(delta)
	}
}

// observedTool times each call of its tool.
type observedTool struct {
	tools.Tool
	label string
	obs   Observer
}

func (t observedTool) Run(ctx context.Context, env *tools.Env, args json.RawMessage) (res tools.Result, err error) {
	start := time.Now()
	outcome := ObservedFailed // also when Run panics (the agent contains it)
	defer func() { t.obs.ToolDone(t.label, outcome, time.Since(start)) }()
	res, err = t.Tool.Run(ctx, env, args)
	switch {
	case err != nil:
	case res.IsError:
		outcome = ObservedError
	default:
		outcome = ObservedOK
	}
	return res, err
}
