package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"go.uber.org/goleak"

	"github.com/hermes-gateway/hermes/internal/model"
	"github.com/hermes-gateway/hermes/internal/tools"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// step is one scripted model answer.
type step struct {
	resp *model.Response
	err  error
	wait bool // block until ctx is done, then return its error
}

// fakeModel answers from a script and captures requests.
type fakeModel struct {
	mu    sync.Mutex
	steps []step
	reqs  []model.Request
}

func (m *fakeModel) Complete(ctx context.Context, req model.Request, h model.Handler) (*model.Response, error) {
	m.mu.Lock()
	m.reqs = append(m.reqs, req)
	if len(m.steps) == 0 {
		m.mu.Unlock()
		return nil, fmt.Errorf("fake model: no step for request %d", len(m.reqs))
	}
	s := m.steps[0]
	m.steps = m.steps[1:]
	m.mu.Unlock()
	if s.wait {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	if s.resp != nil && h != nil {
		h.Reasoning(s.resp.Message.Reasoning)
		h.Text(s.resp.Message.Content)
	}
	return s.resp, s.err
}

func (m *fakeModel) requests() []model.Request {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]model.Request(nil), m.reqs...)
}

func answer(text string, u int) step {
	return step{resp: &model.Response{Message: model.Message{Role: "assistant", Content: text},
		Usage: &model.Usage{PromptTokens: u, CompletionTokens: u, TotalTokens: 2 * u}}}
}

func calls(cs ...model.ToolCall) step {
	return step{resp: &model.Response{Message: model.Message{Role: "assistant", ToolCalls: cs}}}
}

func tc(id, name, args string) model.ToolCall {
	return model.ToolCall{ID: id, Type: "function", Function: model.FunctionCall{Name: name, Arguments: args}}
}

// event is one Recorder notification, flattened for comparison.
type event struct {
	Kind, ID, Name, Text string
	IsError              bool
}

// fakeRecorder keeps every notification in order.
type fakeRecorder struct {
	mu       sync.Mutex
	events   []event
	msgs     []model.Message
	failRole string // Message fails for this role
	ctxErr   error  // first non-nil ctx.Err seen by Message
}

func (r *fakeRecorder) add(e event) { r.mu.Lock(); r.events = append(r.events, e); r.mu.Unlock() }

func (r *fakeRecorder) Message(ctx context.Context, m model.Message) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ctxErr == nil {
		r.ctxErr = ctx.Err()
	}
	if m.Role == r.failRole {
		return fmt.Errorf("disk full")
	}
	r.msgs = append(r.msgs, m)
	r.events = append(r.events, event{Kind: "msg:" + m.Role, ID: m.ToolCallID, Text: m.Content})
	return nil
}
func (r *fakeRecorder) Text(d string) {
	if d != "" {
		r.add(event{Kind: "text", Text: d})
	}
}
func (r *fakeRecorder) Reasoning(d string) {
	if d != "" {
		r.add(event{Kind: "reasoning", Text: d})
	}
}
func (r *fakeRecorder) ToolStart(id, name string, args json.RawMessage) {
	if !json.Valid(args) {
		panic("ToolStart with invalid JSON args: " + string(args))
	}
	r.add(event{Kind: "start", ID: id, Name: name, Text: string(args)})
}
func (r *fakeRecorder) ToolComplete(id, name string, res tools.Result) {
	r.add(event{Kind: "complete", ID: id, Name: name, Text: res.Output, IsError: res.IsError})
}

func (r *fakeRecorder) snapshot() ([]event, []model.Message) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]event(nil), r.events...), append([]model.Message(nil), r.msgs...)
}

// fakeTool runs f and counts runs.
type fakeTool struct {
	name string
	runs atomic.Int32
	f    func(ctx context.Context, args json.RawMessage) (tools.Result, error)
}

func (t *fakeTool) Spec() tools.Spec {
	return tools.Spec{Name: t.name, Description: "test tool " + t.name,
		Parameters: json.RawMessage(`{"type":"object","properties":{"x":{"type":"string"}}}`)}
}

func (t *fakeTool) Run(ctx context.Context, _ *tools.Env, args json.RawMessage) (tools.Result, error) {
	t.runs.Add(1)
	if t.f == nil {
		return tools.Result{Output: "echo " + string(args)}, nil
	}
	return t.f(ctx, args)
}

// checkPaired asserts every assistant tool call has exactly one tool
// message after it: the transcript is a valid next request.
func checkPaired(t *testing.T, msgs []model.Message) {
	t.Helper()
	want := map[string]int{}
	for _, m := range msgs {
		for _, c := range m.ToolCalls {
			want[c.ID]++
		}
		if m.Role == "tool" {
			want[m.ToolCallID]--
		}
	}
	for id, n := range want {
		if n != 0 {
			t.Fatalf("tool call %s: %d unanswered (transcript %+v)", id, n, msgs)
		}
	}
}
