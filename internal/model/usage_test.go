package model_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hermes-gateway/hermes/internal/model"
	"github.com/hermes-gateway/hermes/internal/modeltest"
)

// TestUsageCachedTokens: cached prompt tokens are read where servers report
// them (OpenAI prompt_tokens_details, DeepSeek prompt_cache_hit_tokens), and
// a count that cannot be true is not believed.
func TestUsageCachedTokens(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		in   string
		want model.Usage
	}{
		"openai": {`{"prompt_tokens":100,"completion_tokens":5,"total_tokens":105,"prompt_tokens_details":{"cached_tokens":64}}`,
			model.Usage{PromptTokens: 100, CompletionTokens: 5, TotalTokens: 105, CachedTokens: 64}},
		"deepseek": {`{"prompt_tokens":10,"completion_tokens":1,"total_tokens":11,"prompt_cache_hit_tokens":8,"prompt_cache_miss_tokens":2}`,
			model.Usage{PromptTokens: 10, CompletionTokens: 1, TotalTokens: 11, CachedTokens: 8}},
		"none":          {`{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}`, model.Usage{PromptTokens: 3, CompletionTokens: 1, TotalTokens: 4}},
		"null details":  {`{"prompt_tokens":3,"prompt_tokens_details":null}`, model.Usage{PromptTokens: 3}},
		"more than all": {`{"prompt_tokens":3,"prompt_tokens_details":{"cached_tokens":9}}`, model.Usage{PromptTokens: 3}},
		"negative":      {`{"prompt_tokens":3,"prompt_tokens_details":{"cached_tokens":-1}}`, model.Usage{PromptTokens: 3}},
	}
	for name, c := range cases {
		var got model.Usage
		if err := json.Unmarshal([]byte(c.in), &got); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", name, diff)
		}
		// What MarshalJSON writes reads back the same (the worker codec and
		// modeltest rely on it).
		b, _ := json.Marshal(got)
		var again model.Usage
		if err := json.Unmarshal(b, &again); err != nil || again != got {
			t.Errorf("%s: round trip %s = %+v, %v", name, b, again, err)
		}
	}
}

// TestCachedTokensThroughClient: streamed and JSON replies both carry the
// cached count to Response.Usage.
func TestCachedTokensThroughClient(t *testing.T) {
	t.Parallel()
	for _, stream := range []bool{true, false} {
		srv := modeltest.New(t)
		u := &model.Usage{PromptTokens: 50, CompletionTokens: 2, TotalTokens: 52, CachedTokens: 32}
		srv.Script(modeltest.Reply{Text: "ok", Usage: u})
		resp, err := newClient(srv.URL(), nil).Complete(context.Background(), userReq(stream), nil)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(u, resp.Usage); diff != "" {
			t.Errorf("stream=%t usage (-want +got):\n%s", stream, diff)
		}
	}
}
