package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hermes-gateway/hermes/internal/agent"
	"github.com/hermes-gateway/hermes/internal/model"
	"github.com/hermes-gateway/hermes/internal/modeltest"
	"github.com/hermes-gateway/hermes/internal/tools"
)

// e2eTurn wires a real model client to a modeltest server.
func e2eTurn(srv *modeltest.Server, stream bool, rec agent.Recorder, ts ...tools.Tool) agent.Turn {
	c := model.New(model.Config{BaseURL: srv.URL(), APIKey: "sk-test", Backoff: time.Millisecond})
	return agent.Turn{Model: c, ModelName: "fake-1", Stream: stream, Recorder: rec, Tools: ts,
		System: agent.SystemPrompt(agent.PromptInput{Cwd: "/work/proj"}), Input: "where am I?"}
}

func pwdTool() *fakeTool {
	return &fakeTool{name: "terminal", f: func(_ context.Context, args json.RawMessage) (tools.Result, error) {
		return tools.Result{Output: "/work/proj\n"}, nil
	}}
}

func TestE2EToolRoundTrip(t *testing.T) {
	t.Parallel()
	for _, mode := range []struct {
		name   string
		stream bool
		quirk  string
	}{{"json", false, ""}, {"sse", true, ""}, {"ollama", true, modeltest.QuirkOllama}, {"vllm", true, modeltest.QuirkVLLM}, {"llamacpp", true, modeltest.QuirkLlamaCpp}} {
		t.Run(mode.name, func(t *testing.T) {
			t.Parallel()
			srv := modeltest.New(t)
			first := modeltest.ToolCall("terminal", `{"command":"pwd"}`)
			first.Quirk = mode.quirk
			srv.Script(first, modeltest.Reply{Text: "You are in /work/proj.", Chunk: 4, Quirk: mode.quirk, Reasoning: "easy"})
			rec := &fakeRecorder{}
			term := pwdTool()
			res := agent.Run(context.Background(), e2eTurn(srv, mode.stream, rec, term))
			if res.Outcome != agent.OutcomeCompleted || res.Text != "You are in /work/proj." || term.runs.Load() != 1 {
				t.Fatalf("result = %+v", res)
			}
			reqs := srv.Requests()
			if len(reqs) != 2 || !strings.Contains(reqs[0].System(), "/work/proj") || !reqs[0].HasTool("terminal") || reqs[0].Stream != mode.stream {
				t.Fatalf("first request %+v", reqs[0])
			}
			tr := reqs[1].ToolResults()
			if len(tr) != 1 || tr[0].Content != "/work/proj\n" || tr[0].ToolCallID != reqs[1].Messages[2].ToolCalls[0].ID {
				t.Fatalf("tool results in second request: %+v", reqs[1].Messages)
			}
			events, _ := rec.snapshot()
			var text, reasoning []string
			for _, e := range events {
				switch e.Kind {
				case "text":
					text = append(text, e.Text)
				case "reasoning":
					reasoning = append(reasoning, e.Text)
				}
			}
			if strings.Join(text, "") != res.Text || strings.Join(reasoning, "") != "easy" || (mode.stream && len(text) < 2) {
				t.Fatalf("deltas text=%q reasoning=%q", text, reasoning)
			}
		})
	}
}

func TestE2EBadCallsAndMaxTurns(t *testing.T) {
	t.Parallel()
	srv := modeltest.New(t)
	srv.Script(
		modeltest.ToolCalls(modeltest.Call{Name: "terminal", Args: `{"command":`}, modeltest.Call{Name: "rm_rf", Args: `{}`}),
		modeltest.ToolCall("terminal", `{"command":"pwd"}`),
		modeltest.Text("never requested"),
	)
	rec := &fakeRecorder{}
	term := pwdTool()
	turn := e2eTurn(srv, true, rec, term)
	turn.MaxTurns = 2
	res := agent.Run(context.Background(), turn)
	if res.Outcome != agent.OutcomeCompleted || !res.MaxTurnsReached || term.runs.Load() != 1 || len(srv.Requests()) != 2 {
		t.Fatalf("result %+v, runs %d, requests %d", res, term.runs.Load(), len(srv.Requests()))
	}
	tr := srv.Requests()[1].ToolResults()
	if len(tr) != 2 || !strings.Contains(tr[0].Content, "invalid arguments") || !strings.Contains(tr[1].Content, `unknown tool "rm_rf"`) {
		t.Fatalf("tool results %+v", tr)
	}
}

func TestE2EFailures(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		second   modeltest.Reply
		want     error
		requests int
	}{
		"500 after retries": {modeltest.Reply{Status: 500, ErrorBody: `{"error":{"message":"overloaded"}}`}, nil, 4},
		"reset mid-stream":  {modeltest.Reply{Text: "partial answer", Chunk: 2, ResetAfterChunks: 3}, model.ErrStreamIncomplete, 2},
		"never ends":        {modeltest.Reply{Text: "partial", NeverEnd: true}, model.ErrIdleTimeout, 2},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := modeltest.New(t)
			srv.Script(modeltest.ToolCall("terminal", `{"command":"pwd"}`), c.second, c.second, c.second, modeltest.Text("late"))
			term := pwdTool()
			turn := e2eTurn(srv, true, &fakeRecorder{}, term)
			turn.Model = model.New(model.Config{BaseURL: srv.URL(), Backoff: time.Millisecond, IdleTimeout: 100 * time.Millisecond})
			res := agent.Run(context.Background(), turn)
			if res.Outcome != agent.OutcomeFailed || term.runs.Load() != 1 || len(srv.Requests()) != c.requests {
				t.Fatalf("result %+v, tool runs %d, requests %d", res, term.runs.Load(), len(srv.Requests()))
			}
			var ae *model.APIError
			if c.want == nil && (!errors.As(res.Err, &ae) || ae.Message != "overloaded") {
				t.Fatalf("err = %v", res.Err)
			}
			if c.want != nil && !errors.Is(res.Err, c.want) {
				t.Fatalf("err = %v, want %v", res.Err, c.want)
			}
		})
	}
}

func TestE2EInterruptWhileModelHeld(t *testing.T) {
	t.Parallel()
	srv := modeltest.New(t)
	b := modeltest.NewBarrier()
	srv.Script(modeltest.ToolCall("terminal", `{"command":"pwd"}`), modeltest.Reply{Hold: b, Text: "late"})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rec := &fakeRecorder{}
	term := pwdTool()
	done := make(chan agent.Result, 1)
	go func() { done <- agent.Run(ctx, e2eTurn(srv, true, rec, term)) }()
	if err := b.AwaitWaiting(ctx, 1); err != nil {
		t.Fatal(err)
	}
	cancel()
	res := <-done
	if res.Outcome != agent.OutcomeInterrupted || !errors.Is(res.Err, context.Canceled) || term.runs.Load() != 1 {
		t.Fatalf("result %+v, runs %d", res, term.runs.Load())
	}
	_, msgs := rec.snapshot()
	checkPaired(t, msgs)
}

func BenchmarkTurnWithToolCall(b *testing.B) {
	srv := modeltest.New(b)
	srv.Handle(func(r *modeltest.Request) modeltest.Reply {
		if len(r.ToolResults()) == 0 {
			return modeltest.ToolCall("terminal", `{"command":"pwd"}`)
		}
		return modeltest.Reply{Text: "You are in /work/proj, the project directory.", Chunk: 8}
	})
	turn := e2eTurn(srv, true, nil, pwdTool())
	b.ReportAllocs()
	for b.Loop() {
		if res := agent.Run(context.Background(), turn); res.Outcome != agent.OutcomeCompleted {
			b.Fatal(res.Err)
		}
	}
}
