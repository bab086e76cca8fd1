package tui

import (
	"context"

	tea "charm.land/bubbletea/v2"

	"github.com/hermes-gateway/hermes/internal/client"
	"github.com/hermes-gateway/hermes/internal/protocol"
)

// pickRow is one session in the picker.
type pickRow struct {
	protocol.SessionSummary
	live bool
}

// picker is the open session picker.
type picker struct {
	rows   []pickRow
	cursor int
}

// listCmd lists live then stored sessions (live first, no duplicates).
func listCmd(c *client.Client) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
		defer cancel()
		var rows []pickRow
		seen := map[string]bool{}
		for _, scope := range []string{"live", "stored"} {
			sc := scope
			res, err := c.ListSessions(ctx, protocol.SessionListParams{Scope: &sc})
			if err != nil {
				return listMsg{err: err}
			}
			for _, s := range res.Sessions {
				if !seen[s.SessionID] {
					seen[s.SessionID] = true
					rows = append(rows, pickRow{SessionSummary: s, live: scope == "live"})
				}
			}
		}
		return listMsg{rows: rows}
	}
}

func (m *Model) onList(msg listMsg) {
	if msg.err != nil {
		m.note = "sessions: " + msg.err.Error()
		return
	}
	m.picker = &picker{rows: msg.rows}
	for i, r := range msg.rows {
		if r.SessionID == m.sid {
			m.picker.cursor = i
		}
	}
}

// pickerKey moves, picks (enter: attach) or closes (esc) the picker.
func (m *Model) pickerKey(k tea.KeyPressMsg) tea.Cmd {
	p := m.picker
	switch k.String() {
	case "up", "k":
		p.cursor = max(p.cursor-1, 0)
	case "down", "j":
		p.cursor = min(p.cursor+1, len(p.rows)-1)
	case "esc", "q":
		m.picker = nil
	case "enter":
		m.picker = nil
		if len(p.rows) == 0 || m.c == nil || p.rows[p.cursor].SessionID == m.sid {
			return nil
		}
		m.texts = map[string]string{}
		return m.attachCmd(attach{old: m.sid, subID: m.subID, sid: p.rows[p.cursor].SessionID})
	}
	return nil
}
