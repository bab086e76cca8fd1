package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hermes-gateway/hermes/internal/agent"
	"github.com/hermes-gateway/hermes/internal/model"
	"github.com/hermes-gateway/hermes/internal/tools"
)

func newTurn(m agent.Model, rec agent.Recorder, ts ...tools.Tool) agent.Turn {
	return agent.Turn{Model: m, ModelName: "m", System: "SYS", Input: "do it", Recorder: rec, Tools: ts,
		History: []model.Message{{Role: "user", Content: "earlier"}, {Role: "assistant", Content: "ok"}}}
}

func TestToolRoundTrip(t *testing.T) {
	t.Parallel()
	m := &fakeModel{steps: []step{calls(tc("c1", "echo", `{"x":"1"}`)), answer("done", 3)}}
	m.steps[0].resp.Usage = &model.Usage{PromptTokens: 1, CompletionTokens: 1, TotalTokens: 2}
	rec := &fakeRecorder{}
	echo := &fakeTool{name: "echo"}
	res := agent.Run(context.Background(), newTurn(m, rec, echo))
	if res.Outcome != agent.OutcomeCompleted || res.Err != nil || res.Text != "done" || res.Rounds != 2 {
		t.Fatalf("result = %+v", res)
	}
	if diff := cmp.Diff(model.Usage{PromptTokens: 4, CompletionTokens: 4, TotalTokens: 8}, res.Usage); diff != "" {
		t.Fatalf("usage: %s", diff)
	}
	events, _ := rec.snapshot()
	want := []event{
		{Kind: "msg:user", Text: "do it"},
		{Kind: "msg:assistant"},
		{Kind: "start", ID: "c1", Name: "echo", Text: `{"x":"1"}`},
		{Kind: "complete", ID: "c1", Name: "echo", Text: `echo {"x":"1"}`},
		{Kind: "msg:tool", ID: "c1", Text: `echo {"x":"1"}`},
		{Kind: "text", Text: "done"},
		{Kind: "msg:assistant", Text: "done"},
	}
	if diff := cmp.Diff(want, events); diff != "" {
		t.Fatalf("events (-want +got):\n%s", diff)
	}
	reqs := m.requests()
	roles := func(r model.Request) (out []string) {
		for _, msg := range r.Messages {
			out = append(out, msg.Role+":"+msg.Content)
		}
		return out
	}
	if diff := cmp.Diff([]string{"system:SYS", "user:earlier", "assistant:ok", "user:do it", "assistant:", "tool:echo {\"x\":\"1\"}"}, roles(reqs[1])); diff != "" {
		t.Fatalf("second request (-want +got):\n%s", diff)
	}
	if len(reqs[0].Tools) != 1 || reqs[0].Tools[0].Function.Name != "echo" || reqs[0].Model != "m" {
		t.Fatalf("first request = %+v", reqs[0])
	}
}

func TestBadCallsAreResultsTheModelSees(t *testing.T) {
	t.Parallel()
	m := &fakeModel{steps: []step{calls(
		tc("a", "nope", `{}`),
		tc("b", "echo", `{"x":`),
		tc("c", "echo", `[1]`),
		tc("d", "echo", `"{\"x\":\"2\"}"`),
		tc("e", "echo", ``),
	), answer("recovered", 1)}}
	rec := &fakeRecorder{}
	echo := &fakeTool{name: "echo"}
	res := agent.Run(context.Background(), newTurn(m, rec, echo))
	if res.Outcome != agent.OutcomeCompleted || res.Text != "recovered" {
		t.Fatalf("result = %+v", res)
	}
	if n := echo.runs.Load(); n != 2 {
		t.Fatalf("echo ran %d times, want 2 (double-encoded and empty args)", n)
	}
	results := map[string]string{}
	errs := map[string]bool{}
	events, msgs := rec.snapshot()
	for _, e := range events {
		if e.Kind == "complete" {
			results[e.ID], errs[e.ID] = e.Text, e.IsError
		}
	}
	checks := map[string]string{"a": `unknown tool "nope"; available tools: echo`, "b": "invalid arguments for echo: not valid JSON",
		"c": "must be a JSON object", "d": `echo {"x":"2"}`, "e": "echo {}"}
	for id, want := range checks {
		if !strings.Contains(results[id], want) || errs[id] != (id < "d") {
			t.Errorf("call %s: result %q (error %v), want %q", id, results[id], errs[id], want)
		}
	}
	checkPaired(t, msgs)
	second := m.requests()[1].Messages
	for _, msg := range second[len(second)-5:] {
		if msg.Role != "tool" {
			t.Fatalf("second request does not end with the five tool results: %+v", second)
		}
	}
}

func TestMaxTurnsCompletesWithNote(t *testing.T) {
	t.Parallel()
	m := &fakeModel{steps: []step{calls(tc("1", "echo", "{}")), calls(tc("2", "echo", "{}")), answer("never", 1)}}
	rec := &fakeRecorder{}
	echo := &fakeTool{name: "echo"}
	turn := newTurn(m, rec, echo)
	turn.MaxTurns = 2
	res := agent.Run(context.Background(), turn)
	if res.Outcome != agent.OutcomeCompleted || !res.MaxTurnsReached || res.Rounds != 2 || !strings.Contains(res.Text, "max_turns") {
		t.Fatalf("result = %+v", res)
	}
	if n := echo.runs.Load(); n != 2 || len(m.requests()) != 2 {
		t.Fatalf("tool runs %d, model calls %d", n, len(m.requests()))
	}
	_, msgs := rec.snapshot()
	checkPaired(t, msgs)
	if last := msgs[len(msgs)-1]; last.Role != "assistant" || last.Content != res.Text {
		t.Fatalf("last message %+v", last)
	}
}

func TestUnlimitedTurns(t *testing.T) {
	t.Parallel()
	var steps []step
	for range 20 {
		steps = append(steps, calls(tc("", "echo", "{}")))
	}
	m := &fakeModel{steps: append(steps, answer("end", 1))}
	rec := &fakeRecorder{}
	res := agent.Run(context.Background(), newTurn(m, rec, &fakeTool{name: "echo"}))
	if res.Outcome != agent.OutcomeCompleted || res.Rounds != 21 || res.MaxTurnsReached {
		t.Fatalf("result = %+v", res)
	}
	_, msgs := rec.snapshot()
	checkPaired(t, msgs) // also checks generated ids are unique per call
}

func TestModelErrorFails(t *testing.T) {
	t.Parallel()
	apiErr := &model.APIError{Status: 500, Message: "boom"}
	m := &fakeModel{steps: []step{
		{resp: &model.Response{Message: model.Message{Content: "let me look", ToolCalls: []model.ToolCall{tc("1", "echo", "{}")}}}},
		{err: apiErr}}}
	echo := &fakeTool{name: "echo"}
	res := agent.Run(context.Background(), newTurn(m, &fakeRecorder{}, echo))
	if res.Outcome != agent.OutcomeFailed || !errors.Is(res.Err, apiErr) || res.Text != "let me look" {
		t.Fatalf("result = %+v", res)
	}
	if !strings.Contains(res.Err.Error(), "round 2") || echo.runs.Load() != 1 {
		t.Fatalf("err %v, runs %d", res.Err, echo.runs.Load())
	}
}

func TestInterruptDuringToolClosesEveryCall(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	block := &fakeTool{name: "block", f: func(ctx context.Context, _ json.RawMessage) (tools.Result, error) {
		cancel()
		<-ctx.Done()
		return tools.Result{}, ctx.Err()
	}}
	echo := &fakeTool{name: "echo"}
	m := &fakeModel{steps: []step{calls(tc("1", "block", "{}"), tc("2", "echo", "{}"))}}
	rec := &fakeRecorder{}
	res := agent.Run(ctx, newTurn(m, rec, block, echo))
	if res.Outcome != agent.OutcomeInterrupted || !errors.Is(res.Err, context.Canceled) {
		t.Fatalf("result = %+v", res)
	}
	_, msgs := rec.snapshot()
	checkPaired(t, msgs)
	if echo.runs.Load() != 0 || len(m.requests()) != 1 {
		t.Fatal("work continued after the interruption")
	}
	if got := msgs[len(msgs)-2].Content + "|" + msgs[len(msgs)-1].Content; !strings.HasPrefix(got, "interrupted:") || !strings.Contains(got, "|not run:") {
		t.Fatalf("closing results %q", got)
	}
	if rec.ctxErr != nil {
		t.Fatalf("Recorder.Message got a cancelled context: %v", rec.ctxErr)
	}
}

func TestInterruptDuringModel(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	m := &fakeModel{steps: []step{{wait: true}}}
	done := make(chan agent.Result, 1)
	go func() { done <- agent.Run(ctx, newTurn(m, &fakeRecorder{})) }()
	cancel()
	if res := <-done; res.Outcome != agent.OutcomeInterrupted || !errors.Is(res.Err, context.Canceled) {
		t.Fatalf("result = %+v", res)
	}
}

func TestInternalFailures(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		tool     *fakeTool
		failRole string
	}{
		"tool error": {tool: &fakeTool{name: "echo", f: func(context.Context, json.RawMessage) (tools.Result, error) {
			return tools.Result{}, errors.New("store gone")
		}}},
		"tool panic": {tool: &fakeTool{name: "echo", f: func(context.Context, json.RawMessage) (tools.Result, error) {
			panic("bug")
		}}},
		"recorder": {tool: &fakeTool{name: "echo"}, failRole: "tool"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			m := &fakeModel{steps: []step{calls(tc("1", "echo", "{}"), tc("2", "echo", "{}")), answer("no", 1)}}
			rec := &fakeRecorder{failRole: c.failRole}
			res := agent.Run(context.Background(), newTurn(m, rec, c.tool))
			if res.Outcome != agent.OutcomeFailed || res.Err == nil || len(m.requests()) != 1 || c.tool.runs.Load() != 1 {
				t.Fatalf("result = %+v, requests %d, runs %d", res, len(m.requests()), c.tool.runs.Load())
			}
			if c.failRole == "" {
				_, msgs := rec.snapshot()
				checkPaired(t, msgs)
			}
		})
	}
}

func TestToolSchemas(t *testing.T) {
	t.Parallel()
	got := agent.ToolSchemas([]tools.Tool{&fakeTool{name: "a"}, bare{}})
	want := []model.ToolSchema{
		{Type: "function", Function: model.FunctionSchema{Name: "a", Description: "test tool a",
			Parameters: json.RawMessage(`{"type":"object","properties":{"x":{"type":"string"}}}`)}},
		{Type: "function", Function: model.FunctionSchema{Name: "bare", Parameters: json.RawMessage(`{"type":"object","properties":{}}`)}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
	if agent.ToolSchemas(nil) != nil {
		t.Fatal("no tools must offer no schemas")
	}
}

type bare struct{}

func (bare) Spec() tools.Spec { return tools.Spec{Name: "bare"} }
func (bare) Run(context.Context, *tools.Env, json.RawMessage) (tools.Result, error) {
	return tools.Result{}, nil
}
