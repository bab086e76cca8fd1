package model_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hermes-gateway/hermes/internal/model"
)

// rawSSE serves body verbatim as an event stream and counts requests.
func rawSSE(t *testing.T, body string) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	n := new(atomic.Int32)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		n.Add(1)
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv, n
}

func call(id, name, args string) model.ToolCall {
	return model.ToolCall{ID: id, Type: "function", Function: model.FunctionCall{Name: name, Arguments: args}}
}

// TestStreamQuirks feeds the byte-level habits of real servers.
func TestStreamQuirks(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, body string
		want       model.Message
		usage      *model.Usage
	}{{
		name: "crlf, no space, comments, event lines",
		body: ": keep-alive\r\n\r\nevent: message\r\ndata:{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}\r\n\r\n" +
			"id: 3\r\nretry: 10\r\ndata: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"b\"},\"finish_reason\":\"stop\"}]}\r\n\r\ndata: [DONE]\r\n\r\n",
		want: model.Message{Role: "assistant", Content: "ab"},
	}, {
		name: "vllm reasoning_content and usage chunk with empty choices",
		body: `data: {"choices":[{"index":0,"delta":{"reasoning_content":"r1"}}]}` + "\n\n" +
			`data: {"choices":[{"index":0,"delta":{"content":"x"},"finish_reason":"stop"}]}` + "\n\n" +
			`data: {"choices":[],"usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3}}` + "\n\n" + "data: [DONE]\n\n",
		want:  model.Message{Role: "assistant", Content: "x", Reasoning: "r1"},
		usage: &model.Usage{PromptTokens: 1, CompletionTokens: 2, TotalTokens: 3},
	}, {
		name: "ollama reasoning, whole tool call without index, finish stop",
		body: `data: {"choices":[{"index":0,"delta":{"role":"assistant","reasoning":"why"}}]}` + "\n\n" +
			`data: {"choices":[{"index":0,"delta":{"tool_calls":[{"id":"call_a","type":"function","function":{"name":"terminal","arguments":"{\"command\":\"pwd\"}"}},{"id":"call_b","function":{"name":"todo","arguments":"{}"}}]}}]}` + "\n\n" +
			`data: {"choices":[{"index":0,"delta":{"content":""},"finish_reason":"stop"}]}` + "\n\n" + "data: [DONE]\n\n",
		want: model.Message{Role: "assistant", Reasoning: "why", ToolCalls: []model.ToolCall{
			call("call_a", "terminal", `{"command":"pwd"}`), call("call_b", "todo", "{}")}},
	}, {
		name: "llama.cpp object arguments, timings, no DONE after finish",
		body: `data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c","type":"function","function":{"name":"t","arguments":{"a": 1, "b": "x"}}}]}}]}` + "\n\n" +
			`data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}],"timings":{"prompt_n":3,"predicted_ms":1.5}}` + "\n\n",
		want: model.Message{Role: "assistant", ToolCalls: []model.ToolCall{call("c", "t", `{"a":1,"b":"x"}`)}},
	}, {
		name: "fragments out of index order, later fragments without id",
		body: `data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"c1","function":{"name":"second","arguments":""}}]}}]}` + "\n\n" +
			`data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c0","function":{"name":"first","arguments":"{\"x\""}}]}}]}` + "\n\n" +
			`data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":"{}"}}]}}]}` + "\n\n" +
			`data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":":2}"}}]}}]}` + "\n\n" +
			`data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}` + "\n\n" + "data: [DONE]\n\n",
		want: model.Message{Role: "assistant", ToolCalls: []model.ToolCall{call("c0", "first", `{"x":2}`), call("c1", "second", "{}")}},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv, _ := rawSSE(t, tc.body)
			var h recorder
			resp, err := newClient(srv.URL, nil).Complete(context.Background(), userReq(true), &h)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, resp.Message); diff != "" {
				t.Fatalf("message (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.usage, resp.Usage); diff != "" {
				t.Fatalf("usage (-want +got):\n%s", diff)
			}
			if strings.Join(h.reasoning, "") != tc.want.Reasoning || strings.Join(h.text, "") != tc.want.Content {
				t.Fatalf("deltas text=%q reasoning=%q", h.text, h.reasoning)
			}
			if len(tc.want.ToolCalls) > 0 && resp.FinishReason != "tool_calls" {
				t.Fatalf("finish = %q", resp.FinishReason)
			}
		})
	}
}

func TestStreamFailures(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, body string
		want       error
		requests   int32
	}{
		{"EOF after output without finish", `data: {"choices":[{"index":0,"delta":{"content":"a"}}]}` + "\n\n", model.ErrStreamIncomplete, 1},
		{"invalid JSON", "data: {nope\n\n", model.ErrMalformed, 1},
		{"error event", `data: {"error":{"message":"overloaded","type":"server_error"}}` + "\n\n", nil, 1},
		{"10 MB line", "data: " + `{"choices":[{"index":0,"delta":{"content":"` + strings.Repeat("x", 10<<20) + `"}}]}` + "\n\n", model.ErrTooLarge, 1},
		{"empty body is retried", "", model.ErrStreamIncomplete, 3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv, n := rawSSE(t, tc.body)
			_, err := newClient(srv.URL, nil).Complete(context.Background(), userReq(true), nil)
			if tc.want == nil {
				var ae *model.APIError
				if !errors.As(err, &ae) || ae.Message != "overloaded" {
					t.Fatalf("err = %v, want APIError", err)
				}
			} else if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			if got := n.Load(); got != tc.requests {
				t.Fatalf("%d requests, want %d", got, tc.requests)
			}
		})
	}
}

func TestJSONBodyTooLarge(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"choices":[{"message":{"content":"`+strings.Repeat("y", 2<<20)+`"}}]}`)
	}))
	t.Cleanup(srv.Close)
	c := newClient(srv.URL, func(c *model.Config) { c.MaxLineBytes = 1 << 20 })
	if _, err := c.Complete(context.Background(), userReq(false), nil); !errors.Is(err, model.ErrTooLarge) {
		t.Fatalf("err = %v", err)
	}
}
