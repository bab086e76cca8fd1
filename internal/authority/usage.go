package authority

import (
	"encoding/json"
	"math"

	"github.com/hermes-gateway/hermes/internal/model"
	"github.com/hermes-gateway/hermes/internal/protocol"
	"github.com/hermes-gateway/hermes/internal/store"
)

// Price is config.yaml pricing.<model>: US dollars per million tokens.
// CachedInput prices the prompt tokens a server read from its cache.
type Price struct {
	Input, Output, CachedInput float64
}

// Usage accounting (issue 14). Every model response of a turn adds to the
// turn's usage (agent.Result.Usage); the turn's total is kept in its
// admission result and message.complete, and added to the session's
// counters in the settle transaction (store.AddUsage). The automatic title
// request adds its own in the title's transaction. Cost is never stored: it
// is the counters at the price table read now.

// usageJSON is the usage a turn's result and message.complete carry; nil
// when the server reported none.
func usageJSON(u model.Usage) json.RawMessage {
	if u == (model.Usage{}) {
		return nil
	}
	m := map[string]int{
		"prompt_tokens": u.PromptTokens, "completion_tokens": u.CompletionTokens, "total_tokens": u.TotalTokens,
	}
	if u.CachedTokens > 0 {
		m["cached_tokens"] = u.CachedTokens
	}
	b, _ := json.Marshal(m)
	return b
}

// storeUsage is u for the session counters; a negative count a server
// reported counts as 0.
func storeUsage(u model.Usage) store.Usage {
	return store.Usage{
		Prompt: int64(max(u.PromptTokens, 0)), Completion: int64(max(u.CompletionTokens, 0)),
		Cached: int64(max(u.CachedTokens, 0)),
	}
}

// wireUsage is a session's counters as clients see them, with the cost
// when prices names the session's model.
func wireUsage(u store.Usage, modelName string, prices map[string]Price) protocol.Usage {
	out := protocol.Usage{
		PromptTokens: u.Prompt, CompletionTokens: u.Completion, CachedTokens: u.Cached,
		TotalTokens: u.Prompt + u.Completion,
	}
	if p, ok := prices[modelName]; ok {
		cached := min(u.Cached, u.Prompt)
		usd := (float64(u.Prompt-cached)*p.Input + float64(cached)*p.CachedInput + float64(u.Completion)*p.Output) / 1e6
		usd = math.Round(usd*1e6) / 1e6 // micro-dollars: no float noise on the wire
		out.CostUSD = &usd
	}
	return out
}

// sessionUsage is wireUsage at the live price table.
func (a *Authority) sessionUsage(u store.Usage, modelName string) protocol.Usage {
	return wireUsage(u, modelName, a.cfg.Settings().Pricing)
}
