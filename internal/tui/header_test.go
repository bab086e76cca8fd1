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
