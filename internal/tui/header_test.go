package tui

import (
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
