package tui

import (
	"encoding/json"
	"fmt"

	"github.com/hermes-gateway/hermes/internal/protocol"
)

// infoExtras takes the title and usage a session.info event carries (issue
// 14). An event journaled before they existed has neither key and changes
// nothing.
func (m *Model) infoExtras(payload json.RawMessage) {
	var p struct {
		Title *string         `json:"title"`
		Usage *protocol.Usage `json:"usage"`
	}
	if json.Unmarshal(payload, &p) != nil {
		return
	}
	if p.Title != nil {
		m.title = *p.Title
	}
	if p.Usage != nil {
		m.info.Usage = *p.Usage
	}
}

// usageLabel is the header's compact usage: "2.2k tok · $0.0038"; "" before
// the session used any tokens.
func usageLabel(u protocol.Usage) string {
	if u.TotalTokens <= 0 {
		return ""
	}
	s := compactCount(u.TotalTokens) + " tok"
	if u.CostUSD != nil {
		s += " · " + protocol.FormatUSD(*u.CostUSD)
	}
	return s
}

func compactCount(n int64) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 10_000:
		return fmt.Sprintf("%dk", n/1000)
	case n >= 1000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	}
	return fmt.Sprint(n)
}
