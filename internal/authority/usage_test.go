package authority

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hermes-gateway/hermes/internal/protocol"
	"github.com/hermes-gateway/hermes/internal/store"
)

func TestWireUsageCost(t *testing.T) {
	t.Parallel()
	prices := map[string]Price{"m": {Input: 2, Output: 8, CachedInput: 0.5}}
	u := store.Usage{Prompt: 1_000_000, Completion: 250_000, Cached: 400_000}
	got := wireUsage(u, "m", prices)
	// 600k uncached × $2 + 400k cached × $0.5 + 250k out × $8 = 1.2 + 0.2 + 2
	cost := 3.4
	want := protocol.Usage{PromptTokens: 1_000_000, CompletionTokens: 250_000, CachedTokens: 400_000, TotalTokens: 1_250_000, CostUSD: &cost}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got)\n%s", d)
	}
	if got := wireUsage(u, "unpriced", prices); got.CostUSD != nil {
		t.Errorf("an unpriced model has cost %v", *got.CostUSD)
	}
}
