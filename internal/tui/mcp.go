package tui

import (
	"context"
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/hermes-gateway/hermes/internal/client"
	"github.com/hermes-gateway/hermes/internal/protocol"
)

// mcpPollEvery is how often the header's MCP state is refreshed with
// mcp.status while connected (besides each attach of a new connection and
// each failed MCP tool call).
const mcpPollEvery = 30 * time.Second

type (
	// mcpStatusMsg is the result of mcp.status; poll: it belongs to the
	// periodic refresh of connection gen, which schedules the next one.
	mcpStatusMsg struct {
		gen     int
		servers []protocol.MCPServerStatus
		err     error
		poll    bool
	}
	mcpTickMsg struct{ gen int }
)

func mcpStatusCmd(c *client.Client, gen int, poll bool) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
		defer cancel()
		res, err := c.MCPStatus(ctx)
		return mcpStatusMsg{gen: gen, servers: res.Servers, err: err, poll: poll}
	}
}

// mcpPollOnce starts the periodic mcp.status of this connection unless it
// runs; its first call is immediate, so a reconnect refreshes the header.
func (m *Model) mcpPollOnce() tea.Cmd {
	if m.mcpPolling == m.gen+1 || m.c == nil {
		return nil
	}
	m.mcpPolling = m.gen + 1
	return mcpStatusCmd(m.c, m.gen, true)
}

// onMCP applies an mcp.status result or poll tick of the current connection.
// A failed call keeps the last known state (an older gateway has no
// mcp.status: the header then shows what runtime.describe said at start).
func (m *Model) onMCP(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case mcpStatusMsg:
		if msg.gen != m.gen {
			return nil
		}
		if msg.err == nil {
			m.mcp = msg.servers
		}
		if msg.poll {
			gen := m.gen
			return tea.Tick(mcpPollEvery, func(time.Time) tea.Msg { return mcpTickMsg{gen: gen} })
		}
	case mcpTickMsg:
		if msg.gen != m.gen || m.c == nil {
			return nil // the chain of a closed connection ends; the next attach starts one
		}
		return mcpStatusCmd(m.c, m.gen, true)
	}
	return nil
}

// mcpToolFailed reports a tool.complete of an MCP tool with an error: the
// server may have failed, so the header is refreshed.
func mcpToolFailed(ev protocol.Event) bool {
	if ev.Type != protocol.EventToolComplete {
		return false
	}
	var p protocol.ToolCompletePayload
	return decode(ev.Payload, &p) && p.Error != "" && strings.HasPrefix(p.Name, "mcp__")
}

// mcpLabel is the header's compact MCP state: the failed servers, by name
// (at most two, each cut to 16 columns), or nothing when none failed.
func mcpLabel(servers []protocol.MCPServerStatus) string {
	var names []string
	for _, s := range servers {
		if s.State == protocol.MCPStateFailed {
			names = append(names, ansi.Truncate(vis(s.Name), 16, "…"))
		}
	}
	if len(names) == 0 {
		return ""
	}
	shown := names[:min(len(names), 2)]
	list := strings.Join(shown, ", ")
	if more := len(names) - len(shown); more > 0 {
		list += fmt.Sprintf(", +%d", more)
	}
	return fmt.Sprintf("mcp: %d failed (%s)", len(names), list)
}
