package protocol

import "testing"

func TestUsageString(t *testing.T) {
	t.Parallel()
	cost, big := 0.003828, 12.5
	cases := []struct {
		u    Usage
		want string
	}{
		{Usage{}, "0 tokens (0 in, 0 out)"},
		{Usage{PromptTokens: 2140, CompletionTokens: 56, CachedTokens: 600, TotalTokens: 2196, CostUSD: &cost},
			"2196 tokens (2140 in, 600 cached, 56 out), $0.0038"},
		{Usage{PromptTokens: 9, CompletionTokens: 1, TotalTokens: 10, CostUSD: &big}, "10 tokens (9 in, 1 out), $12.50"},
	}
	for _, c := range cases {
		if got := c.u.String(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.u, got, c.want)
		}
	}
}
