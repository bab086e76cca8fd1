package tui

import (
	"context"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/hermes-gateway/hermes/internal/protocol"
)

// The header shows the sandbox level compactly, and tools running
// unsandboxed as a warning that truncation of the title never hides.
func TestHeaderShowsSandbox(t *testing.T) {
	t.Parallel()
	cases := []struct {
		level string
		want  string
	}{
		{protocol.SandboxLevelFull, "sandbox: full"},
		{protocol.SandboxLevelLandlock, "sandbox: landlock-only"},
		{protocol.SandboxLevelNone, "SANDBOX OFF"},
	}
	for _, c := range cases {
		m := New(Options{Sandbox: &protocol.SandboxInfo{Mode: "auto", Level: c.level}})
		step(t, m, tea.WindowSizeMsg{Width: 64, Height: 22})
		step(t, m, attachedMsg{snap: snapshot(t)})
		m.title = strings.Repeat("a very long title ", 10)
		head := ansi.Strip(m.header(64))
		if !strings.HasSuffix(head, c.want) || ansi.StringWidth(head) > 64 {
			t.Errorf("level %s: header %q, want it to end with %q within 64 columns", c.level, head, c.want)
		}
	}
	if head := ansi.Strip(New(Options{}).header(64)); strings.Contains(strings.ToLower(head), "sandbox") {
		t.Errorf("header without a reported sandbox: %q", head)
	}
}

// A session.info event carries the title (an automatic one arrives this
// way) and the usage, which the header shows compactly; an event without
// them (journaled before issue 14) changes neither.
func TestHeaderTitleAndUsageFromInfoEvent(t *testing.T) {
	t.Parallel()
	m := attached(t)
	cost := 0.0038
	step(t, m, ev(t, protocol.EventSessionInfo, 20, "", protocol.SessionInfoPayload{Revision: 5, Title: "Fix the \u202ebuild",
		Usage: protocol.Usage{PromptTokens: 2140, CompletionTokens: 56, TotalTokens: 2196, CostUSD: &cost}}))
	head := ansi.Strip(m.header(100))
	for _, want := range []string{`Fix the \u202ebuild`, "2.2k tok · $0.0038"} {
		if !strings.Contains(head, want) {
			t.Errorf("header %q lacks %q", head, want)
		}
	}
	step(t, m, eventMsg{ev: protocol.Event{Type: protocol.EventSessionInfo, SessionID: sid, Seq: 21, Payload: []byte(`{"revision":6}`)}})
	if head2 := ansi.Strip(m.header(100)); head2 != head {
		t.Errorf("an event without title and usage changed the header: %q → %q", head, head2)
	}
}

// A failed MCP server shows compactly in the header in the warning style,
// by its visible name, next to the sandbox level; none failed shows nothing.
func TestHeaderShowsFailedMCPServers(t *testing.T) {
	t.Parallel()
	failed := func(name string) protocol.MCPServerStatus {
		return protocol.MCPServerStatus{Name: name, Source: "config", Transport: "stdio", State: protocol.MCPStateFailed, Error: "exec: not found"}
	}
	ready := protocol.MCPServerStatus{Name: "fs", Source: "config", Transport: "stdio", State: protocol.MCPStateReady, Tools: 3}
	cases := []struct {
		servers []protocol.MCPServerStatus
		want    string
	}{
		{[]protocol.MCPServerStatus{ready, failed("broken")}, "mcp: 1 failed (broken)"},
		{[]protocol.MCPServerStatus{failed("a"), failed("b\x1b[2J"), failed("c")}, `mcp: 3 failed (a, b\x1b[2J, +1)`},
	}
	for _, c := range cases {
		m := New(Options{Sandbox: &protocol.SandboxInfo{Mode: "auto", Level: protocol.SandboxLevelNone}, MCPServers: c.servers})
		step(t, m, tea.WindowSizeMsg{Width: 80, Height: 22})
		step(t, m, attachedMsg{snap: snapshot(t)})
		m.title = strings.Repeat("a very long title ", 10)
		raw := m.header(80)
		head := ansi.Strip(raw)
		if !strings.HasSuffix(head, c.want+"  SANDBOX OFF") || ansi.StringWidth(head) > 80 {
			t.Errorf("header %q, want it to end with %q and the sandbox within 80 columns", head, c.want)
		}
		if !strings.Contains(raw, styleWarn.Render(c.want)) {
			t.Errorf("the MCP label is not in the warning style: %q", raw)
		}
	}
	m := New(Options{MCPServers: []protocol.MCPServerStatus{ready}})
	if head := ansi.Strip(m.header(80)); strings.Contains(head, "mcp") {
		t.Errorf("header with no failed server: %q", head)
	}
}

// mcp.status replaces what runtime.describe said at start; a result of an
// older connection is dropped, and the periodic one schedules the next.
func TestHeaderMCPRefresh(t *testing.T) {
	t.Parallel()
	m := New(Options{MCPServers: []protocol.MCPServerStatus{{Name: "broken", State: protocol.MCPStateFailed}}})
	step(t, m, tea.WindowSizeMsg{Width: 80, Height: 22})
	step(t, m, attachedMsg{snap: snapshot(t)})
	if head := ansi.Strip(m.header(80)); !strings.Contains(head, "mcp: 1 failed (broken)") {
		t.Fatalf("header %q", head)
	}
	step(t, m, mcpStatusMsg{gen: m.gen - 1, servers: nil})
	if head := ansi.Strip(m.header(80)); !strings.Contains(head, "mcp: 1 failed (broken)") {
		t.Errorf("a stale mcp.status changed the header: %q", head)
	}
	if cmd := step(t, m, mcpStatusMsg{gen: m.gen, servers: []protocol.MCPServerStatus{{Name: "broken", State: protocol.MCPStateReady}}, poll: true}); cmd == nil {
		t.Error("the periodic mcp.status scheduled no next one")
	}
	if head := ansi.Strip(m.header(80)); strings.Contains(head, "mcp") {
		t.Errorf("header after the server recovered: %q", head)
	}
	step(t, m, mcpStatusMsg{gen: m.gen, servers: []protocol.MCPServerStatus{{Name: "other", State: protocol.MCPStateFailed}}})
	step(t, m, mcpStatusMsg{gen: m.gen, err: context.DeadlineExceeded})
	if head := ansi.Strip(m.header(80)); !strings.Contains(head, "mcp: 1 failed (other)") {
		t.Errorf("a failed mcp.status dropped the last known state: %q", head)
	}
	mcpFail := ev(t, protocol.EventToolComplete, 11, "", protocol.ToolCompletePayload{ToolID: "t1", Name: "mcp__broken__echo", Error: "tool_error", Result: "error: the server exited"})
	if !mcpToolFailed(mcpFail.ev) {
		t.Error("a failed MCP tool call does not refresh the header")
	}
	if mcpToolFailed(ev(t, protocol.EventToolComplete, 12, "", protocol.ToolCompletePayload{ToolID: "t2", Name: "terminal", Error: "exit 1"}).ev) {
		t.Error("a failed built-in tool refreshes the MCP state")
	}
}
