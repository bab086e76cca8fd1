package agent_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hermes-gateway/hermes/internal/agent"
	"github.com/hermes-gateway/hermes/internal/model"
)

// Summarize sends one request: the instruction, then the messages quoted
// as "role: content", tool calls as their JSON (an empty list too); the
// model's error comes back as it is.
func TestSummarize(t *testing.T) {
	t.Parallel()
	m := &fakeModel{steps: []step{{resp: &model.Response{Message: model.Message{Role: "assistant", Content: "the gist"}}}}}
	msgs := []model.Message{
		{Role: "user", Content: "list files"},
		{Role: "assistant", ToolCalls: []model.ToolCall{{ID: "c1", Type: "function", Function: model.FunctionCall{Name: "terminal", Arguments: `{"command":"ls"}`}}}},
		{Role: "tool", Content: "a.txt", ToolCallID: "c1", Name: "terminal"},
		{Role: "assistant", Content: "one file", ToolCalls: []model.ToolCall{}},
	}
	got, err := agent.Summarize(context.Background(), m, "m1", msgs)
	if err != nil || got != "the gist" {
		t.Fatalf("Summarize = %q, %v", got, err)
	}
	reqs := m.requests()
	if len(reqs) != 1 || reqs[0].Model != "m1" || len(reqs[0].Tools) != 0 || len(reqs[0].Messages) != 2 || reqs[0].Messages[0].Role != "system" {
		t.Fatalf("requests: %+v", reqs)
	}
	want := "user: list files\n" +
		"assistant: \n(tool calls: [{\"id\":\"c1\",\"type\":\"function\",\"function\":{\"name\":\"terminal\",\"arguments\":\"{\\\"command\\\":\\\"ls\\\"}\"}}])\n" +
		"tool: a.txt\n" +
		"assistant: one file\n(tool calls: [])\n"
	if diff := cmp.Diff(model.Message{Role: "user", Content: want}, reqs[0].Messages[1]); diff != "" {
		t.Errorf("quoted conversation (-want +got):\n%s", diff)
	}
	boom := errors.New("boom")
	m = &fakeModel{steps: []step{{err: boom}}}
	if _, err := agent.Summarize(context.Background(), m, "m1", msgs); !errors.Is(err, boom) {
		t.Fatalf("err = %v, want the model's", err)
	}
}
