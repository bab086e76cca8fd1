package protocol

import (
	"fmt"
	"strings"
)

// Usage is the token usage of a session's model responses (its turns and
// its automatic title) and, when config.yaml prices the session's model, what
// it cost (issue 14). CachedTokens is the part of PromptTokens the server
// read from its prompt cache, where it said so; TotalTokens is
// PromptTokens + CompletionTokens. CostUSD is at the price table in force
// when read; absent when the model has no price.
type Usage struct {
	PromptTokens     int64    `json:"prompt_tokens"`
	CompletionTokens int64    `json:"completion_tokens"`
	CachedTokens     int64    `json:"cached_tokens"`
	TotalTokens      int64    `json:"total_tokens"`
	CostUSD          *float64 `json:"cost_usd,omitempty"`
}

// String is u on one line for people: "2196 tokens (2140 in, 600 cached,
// 56 out), $0.0038"; the cost only when known, the cached part only when
// reported.
func (u Usage) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d tokens (%d in, ", u.TotalTokens, u.PromptTokens)
	if u.CachedTokens > 0 {
		fmt.Fprintf(&b, "%d cached, ", u.CachedTokens)
	}
	fmt.Fprintf(&b, "%d out)", u.CompletionTokens)
	if u.CostUSD != nil {
		b.WriteString(", " + FormatUSD(*u.CostUSD))
	}
	return b.String()
}

// FormatUSD writes a cost with cents, or four decimals below a dollar.
func FormatUSD(usd float64) string {
	if usd >= 1 {
		return fmt.Sprintf("$%.2f", usd)
	}
	return fmt.Sprintf("$%.4f", usd)
}
