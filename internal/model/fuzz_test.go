package model

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"
)

// FuzzStream feeds arbitrary bytes to the SSE parser: it must never panic,
// and a successful parse yields well-formed tool calls.
func FuzzStream(f *testing.F) {
	f.Add([]byte("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"))
	f.Add([]byte("data:{\"choices\":[{\"delta\":{\"tool_calls\":[{\"function\":{\"name\":\"t\",\"arguments\":{\"a\":1}}}]},\"finish_reason\":\"stop\"}]}\r\n"))
	f.Add([]byte(": c\nevent: x\ndata: {\"choices\":[],\"usage\":{\"total_tokens\":1}}\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		c := New(Config{BaseURL: "http://127.0.0.1:1/v1", MaxLineBytes: 1 << 16})
		ctx, cancel := context.WithCancelCause(context.Background())
		defer cancel(nil)
		resp, err := c.readStream(ctx, ctx, cancel, bytes.NewReader(b), nopHandler{})
		if err != nil {
			return
		}
		for _, tc := range resp.Message.ToolCalls {
			if tc.ID == "" || tc.Type != "function" || tc.Function.Arguments == "" {
				t.Fatalf("bad tool call %+v", tc)
			}
		}
		if _, err := json.Marshal(resp.Message); err != nil {
			t.Fatal(err)
		}
	})
}
