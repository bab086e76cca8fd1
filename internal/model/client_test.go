package model_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/hermes-gateway/hermes/internal/model"
	"github.com/hermes-gateway/hermes/internal/modeltest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// recorder is a Handler that keeps every delta.
type recorder struct {
	mu              sync.Mutex
	text, reasoning []string
}

func (r *recorder) Text(d string) { r.mu.Lock(); r.text = append(r.text, d); r.mu.Unlock() }
func (r *recorder) Reasoning(d string) {
	r.mu.Lock()
	r.reasoning = append(r.reasoning, d)
	r.mu.Unlock()
}

func newClient(url string, mod func(*model.Config)) *model.Client {
	cfg := model.Config{BaseURL: url, Backoff: time.Millisecond}
	if mod != nil {
		mod(&cfg)
	}
	return model.New(cfg)
}

func userReq(stream bool) model.Request {
	return model.Request{Model: "m", Stream: stream, Messages: []model.Message{{Role: "user", Content: "hi"}}}
}

func TestStreamingTextDeltasUsageAndKey(t *testing.T) {
	t.Parallel()
	srv := modeltest.New(t)
	srv.Script(modeltest.Reply{Text: "hello, wörld!", Reasoning: "think", Chunk: 3,
		Usage: &model.Usage{PromptTokens: 7, CompletionTokens: 3, TotalTokens: 10}})
	c := newClient(srv.URL(), func(c *model.Config) { c.APIKey = "sk-secret" })
	var h recorder
	resp, err := c.Complete(context.Background(), userReq(true), &h)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Message.Content != "hello, wörld!" || resp.Message.Reasoning != "think" || resp.FinishReason != "stop" {
		t.Fatalf("resp = %+v", resp)
	}
	if len(h.text) < 4 || strings.Join(h.text, "") != "hello, wörld!" {
		t.Fatalf("text deltas = %q", h.text)
	}
	if diff := cmp.Diff(&model.Usage{PromptTokens: 7, CompletionTokens: 3, TotalTokens: 10}, resp.Usage); diff != "" {
		t.Fatalf("usage (-want +got):\n%s", diff)
	}
	r := srv.Requests()[0]
	if got := r.Header.Get("Authorization"); got != "Bearer sk-secret" {
		t.Fatalf("Authorization = %q", got)
	}
	if !r.Stream || !r.IncludeUsage || r.LastUserText() != "hi" {
		t.Fatalf("request = %+v", r)
	}
}

func TestNoKeyNoAuthorizationHeader(t *testing.T) {
	t.Parallel()
	srv := modeltest.New(t)
	srv.Script(modeltest.Text("ok"))
	if _, err := newClient(srv.URL(), nil).Complete(context.Background(), userReq(false), nil); err != nil {
		t.Fatal(err)
	}
	if _, ok := srv.Requests()[0].Header["Authorization"]; ok {
		t.Fatal("Authorization header sent without a key")
	}
}

func TestJSONReplyToolCallsAndSingleDelta(t *testing.T) {
	t.Parallel()
	srv := modeltest.New(t)
	srv.Script(modeltest.Reply{Text: "running", Reasoning: "r", ToolCalls: []modeltest.Call{
		{Name: "terminal", Args: `{"command":"pwd"}`}, {ID: "x2", Name: "clarify", Args: `{}`}}})
	var h recorder
	resp, err := newClient(srv.URL(), nil).Complete(context.Background(), userReq(false), &h)
	if err != nil {
		t.Fatal(err)
	}
	want := []model.ToolCall{
		{ID: "call_1_0", Type: "function", Function: model.FunctionCall{Name: "terminal", Arguments: `{"command":"pwd"}`}},
		{ID: "x2", Type: "function", Function: model.FunctionCall{Name: "clarify", Arguments: `{}`}},
	}
	if diff := cmp.Diff(want, resp.Message.ToolCalls); diff != "" {
		t.Fatalf("tool calls (-want +got):\n%s", diff)
	}
	if resp.FinishReason != "tool_calls" || resp.Usage == nil {
		t.Fatalf("resp = %+v", resp)
	}
	if diff := cmp.Diff([]string{"running"}, h.text); diff != "" {
		t.Fatalf("text deltas: %s", diff)
	}
	if diff := cmp.Diff([]string{"r"}, h.reasoning); diff != "" {
		t.Fatalf("reasoning deltas: %s", diff)
	}
}

// TestDialects runs the same reply through every stream dialect of
// modeltest: the result must be the same.
func TestDialects(t *testing.T) {
	t.Parallel()
	for _, quirk := range []string{"", modeltest.QuirkOllama, modeltest.QuirkVLLM, modeltest.QuirkLlamaCpp} {
		t.Run("quirk="+quirk, func(t *testing.T) {
			t.Parallel()
			srv := modeltest.New(t)
			u := &model.Usage{PromptTokens: 1, CompletionTokens: 2, TotalTokens: 3}
			srv.Script(modeltest.Reply{Quirk: quirk, Reasoning: "hmm", Text: "a", Chunk: 2, Usage: u, ToolCalls: []modeltest.Call{
				{ID: "c0", Name: "terminal", Args: `{"command":"ls -la"}`}, {ID: "c1", Name: "todo", Args: `{"a":[1,2]}`}}})
			var h recorder
			resp, err := newClient(srv.URL(), nil).Complete(context.Background(), userReq(true), &h)
			if err != nil {
				t.Fatal(err)
			}
			want := &model.Response{FinishReason: "tool_calls", Usage: u, Message: model.Message{
				Role: "assistant", Content: "a", Reasoning: "hmm", ToolCalls: []model.ToolCall{
					{ID: "c0", Type: "function", Function: model.FunctionCall{Name: "terminal", Arguments: `{"command":"ls -la"}`}},
					{ID: "c1", Type: "function", Function: model.FunctionCall{Name: "todo", Arguments: `{"a":[1,2]}`}},
				}}}
			if diff := cmp.Diff(want, resp); diff != "" {
				t.Fatalf("(-want +got):\n%s", diff)
			}
			if strings.Join(h.reasoning, "") != "hmm" {
				t.Fatalf("reasoning deltas %q", h.reasoning)
			}
		})
	}
}

func TestRetriesBeforeOutput(t *testing.T) {
	t.Parallel()
	cases := map[string]modeltest.Reply{
		"500":     {Status: 500},
		"503":     {Status: 503, ErrorBody: "upstream down"},
		"429":     {Status: 429},
		"dropped": {Drop: true},
	}
	for name, first := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := modeltest.New(t)
			srv.Script(first, first, modeltest.Text("ok"))
			resp, err := newClient(srv.URL(), nil).Complete(context.Background(), userReq(true), nil)
			if err != nil {
				t.Fatal(err)
			}
			if resp.Message.Content != "ok" || len(srv.Requests()) != 3 {
				t.Fatalf("content %q after %d requests", resp.Message.Content, len(srv.Requests()))
			}
		})
	}
}

func TestAPIErrorAfterRetries(t *testing.T) {
	t.Parallel()
	srv := modeltest.New(t)
	body := `{"error":{"message":"boom sk-secret","type":"server_error","code":500}}`
	srv.Script(modeltest.Reply{Status: 500, ErrorBody: body}, modeltest.Reply{Status: 500, ErrorBody: body})
	c := newClient(srv.URL(), func(c *model.Config) { c.APIKey = "sk-secret"; c.MaxRetries = 1 })
	_, err := c.Complete(context.Background(), userReq(true), nil)
	var ae *model.APIError
	if !errors.As(err, &ae) {
		t.Fatalf("err = %v, want *APIError", err)
	}
	want := &model.APIError{Status: 500, Type: "server_error", Code: "500", Message: "boom [redacted]", Retryable: true}
	if diff := cmp.Diff(want, ae); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
	if strings.Contains(err.Error(), "sk-secret") || !strings.Contains(err.Error(), "HTTP 500") {
		t.Fatalf("error text %q", err)
	}
	if n := len(srv.Requests()); n != 2 {
		t.Fatalf("%d requests, want 2 (1 retry)", n)
	}
}

func TestClientErrorsNotRetried(t *testing.T) {
	t.Parallel()
	srv := modeltest.New(t)
	srv.Script(modeltest.Reply{Status: 400, ErrorBody: `{"error":"model not found"}`}) // Ollama shape
	_, err := newClient(srv.URL(), nil).Complete(context.Background(), userReq(false), nil)
	var ae *model.APIError
	if !errors.As(err, &ae) || ae.Message != "model not found" || ae.Retryable {
		t.Fatalf("err = %#v", err)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Fatalf("%d requests, want 1", n)
	}
}

func TestPartialStreamNeverRetried(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		reply modeltest.Reply
		want  error
	}{
		"reset":   {modeltest.Reply{Text: "abcdefgh", Chunk: 2, ResetAfterChunks: 3}, model.ErrStreamIncomplete},
		"invalid": {modeltest.Reply{Text: "abcdefgh", Chunk: 2, InvalidSSE: true}, model.ErrMalformed},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := modeltest.New(t)
			srv.Script(tc.reply, modeltest.Text("must not be asked"))
			var h recorder
			_, err := newClient(srv.URL(), nil).Complete(context.Background(), userReq(true), &h)
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			if n := len(srv.Requests()); n != 1 {
				t.Fatalf("%d requests, want 1", n)
			}
			if len(h.text) == 0 {
				t.Fatal("no partial output reached the handler")
			}
		})
	}
}

func TestIdleTimeout(t *testing.T) {
	t.Parallel()
	srv := modeltest.New(t)
	srv.Script(modeltest.Reply{Text: "partial", NeverEnd: true})
	c := newClient(srv.URL(), func(c *model.Config) { c.IdleTimeout = 50 * time.Millisecond })
	_, err := c.Complete(context.Background(), userReq(true), nil)
	if !errors.Is(err, model.ErrIdleTimeout) || !errors.Is(err, model.ErrStreamIncomplete) {
		t.Fatalf("err = %v", err)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Fatalf("%d requests, want 1", n)
	}
}

func TestContextCancelWhileHeldAndDuringBackoff(t *testing.T) {
	t.Parallel()
	srv := modeltest.New(t)
	b := modeltest.NewBarrier()
	srv.Script(modeltest.Reply{Hold: b, Text: "x"}, modeltest.Reply{Status: 500})
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { _, err := newClient(srv.URL(), nil).Complete(ctx, userReq(true), nil); errc <- err }()
	if err := b.AwaitWaiting(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("held: err = %v", err)
	}

	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	c := newClient(srv.URL(), func(c *model.Config) { c.Backoff = time.Hour })
	go func() { _, err := c.Complete(ctx, userReq(true), nil); errc <- err }()
	if _, err := srv.AwaitRequests(ctx, 2); err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("backoff: err = %v", err)
	}
}

func TestConnectionRefused(t *testing.T) {
	t.Parallel()
	dead := httptest.NewServer(http.NotFoundHandler())
	url := dead.URL
	dead.Close()
	_, err := newClient(url+"/v1", nil).Complete(context.Background(), userReq(true), nil)
	var ae *model.APIError
	if err == nil || errors.As(err, &ae) || errors.Is(err, model.ErrStreamIncomplete) {
		t.Fatalf("err = %v", err)
	}
}

func TestWireShape(t *testing.T) {
	t.Parallel()
	req := model.Request{Model: "m", Stream: true, ReasoningEffort: "low", MaxTokens: 9,
		Tools: []model.ToolSchema{{Type: "function", Function: model.FunctionSchema{Name: "t", Parameters: json.RawMessage(`{"type":"object"}`)}}},
		Messages: []model.Message{
			{Role: "assistant", Reasoning: "secret thoughts", ToolCalls: []model.ToolCall{{ID: "1", Function: model.FunctionCall{Name: "t", Arguments: "{}"}}}},
			{Role: "tool", ToolCallID: "1", Name: "t", Content: "out"},
			{Role: "assistant"},
		}}
	b, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"model":"m","messages":[{"role":"assistant","content":null,"tool_calls":[{"id":"1","type":"function","function":{"name":"t","arguments":"{}"}}]},` +
		`{"role":"tool","content":"out","tool_call_id":"1","name":"t"},{"role":"assistant","content":""}],` +
		`"tools":[{"type":"function","function":{"name":"t","parameters":{"type":"object"}}}],"stream":true,` +
		`"stream_options":{"include_usage":true},"reasoning_effort":"low","max_tokens":9}`
	if string(b) != want {
		t.Fatalf("got  %s\nwant %s", b, want)
	}
}

func TestAttemptTimeoutNotRetried(t *testing.T) {
	t.Parallel()
	srv := modeltest.New(t)
	b := modeltest.NewBarrier()
	defer b.Release()
	srv.Script(modeltest.Reply{Hold: b}, modeltest.Reply{Hold: b})
	c := newClient(srv.URL(), func(c *model.Config) { c.Timeout = 50 * time.Millisecond })
	_, err := c.Complete(context.Background(), userReq(true), nil)
	if err == nil || !strings.Contains(err.Error(), "timed out after 50ms") {
		t.Fatalf("err = %v", err)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Fatalf("%d requests, want 1", n)
	}
}

func TestSSEWithoutContentType(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		_, _ = w.Write([]byte("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"x\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"))
	}))
	t.Cleanup(srv.Close)
	resp, err := newClient(srv.URL, nil).Complete(context.Background(), userReq(true), nil)
	if err != nil || resp.Message.Content != "x" {
		t.Fatalf("%v %+v", err, resp)
	}
}

func TestMessageJSONRoundTrip(t *testing.T) {
	t.Parallel()
	in := []model.Message{
		{Role: "assistant", ToolCalls: []model.ToolCall{{ID: "1", Type: "function", Function: model.FunctionCall{Name: "t", Arguments: `{"a":1}`}}}},
		{Role: "tool", ToolCallID: "1", Name: "t", Content: "out"},
		{Role: "user", Content: "hi"},
	}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var out []model.Message
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(in, out); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
}
