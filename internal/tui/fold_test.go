package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/hermes-gateway/hermes/internal/protocol"
)

func ctrl(code rune) tea.KeyPressMsg { return tea.KeyPressMsg{Code: code, Mod: tea.ModCtrl} }

// TestFoldToolOutput: tool output starts folded; ctrl+o unfolds the latest
// call with output, ctrl+up selects an earlier call, esc follows the latest
// again. The keys work while an approval waits.
func TestFoldToolOutput(t *testing.T) {
	t.Parallel()
	m := attached(t)
	step(t, m, ev(t, protocol.EventToolStart, 11, "a2", protocol.ToolStartPayload{ToolID: "c2", Name: "terminal", Args: raw(t, map[string]string{"command": "go test ./..."})}))
	step(t, m, ev(t, protocol.EventToolComplete, 12, "a2", protocol.ToolCompletePayload{ToolID: "c2", Name: "terminal",
		Result: "--- FAIL: TestX\nFAIL\n[exit code 1]", Error: "--- FAIL: TestX"}))
	if f := frame(m); strings.Contains(f, "│ FAIL") || !strings.Contains(f, "✗ [exit code 1]  (3 lines, ctrl+o)") {
		t.Fatalf("folded frame:\n%s", f)
	}
	step(t, m, ctrl('o'))
	golden(t, "unfolded", frame(m))

	step(t, m, ctrl('o'))
	step(t, m, ctrl(tea.KeyUp))
	if m.sel != 2 {
		t.Fatalf("ctrl+up selected entry %d, want the ls call (2)", m.sel)
	}
	step(t, m, ev(t, protocol.EventApprovalRequest, 13, "a2", protocol.ApprovalRequestPayload{Kind: "approval", PromptID: "p1",
		ExecutionGeneration: 2, Command: "rm -r -- build", Description: "recursive delete", Choices: protocol.ApprovalChoices}))
	step(t, m, ctrl('o'))
	f := frame(m)
	if !strings.Contains(f, "▸ ⚙ terminal ls -la ✓\n    │ a\n    │ b\n") || strings.Contains(f, "│ FAIL") {
		t.Fatalf("selected call not unfolded alone:\n%s", f)
	}
	step(t, m, tea.KeyPressMsg{Code: tea.KeyEscape})
	if m.sel != -1 || m.foldTarget() != 4 {
		t.Fatalf("esc: sel %d target %d", m.sel, m.foldTarget())
	}
}

func TestLongToolOutputShowsHeadAndTail(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for i := range 100 {
		b.WriteString(strings.Repeat("x", i%7) + "\n")
	}
	b.WriteString("last line")
	e := entry{kind: kindTool, tool: "terminal", text: "seq 100", state: toolDone, out: b.String(), open: true}
	lines := (&Model{sel: -1, entries: []entry{e}}).toolLines(0, e, 40)
	if len(lines) != 1+maxOutputLines+1 || !strings.Contains(lines[len(lines)-1], "last line") ||
		!strings.Contains(lines[1+maxOutputLines/2], "… 77 more lines …") {
		t.Fatalf("lines:\n%s", strings.Join(lines, "\n"))
	}
}

// TestFoldsSurviveReconnect: unfolded outputs and the selected call stay
// as they were when the transcript is rebuilt from a new snapshot.
func TestFoldsSurviveReconnect(t *testing.T) {
	t.Parallel()
	m := attached(t)
	step(t, m, ctrl(tea.KeyUp))
	step(t, m, ctrl('o'))
	step(t, m, closedMsg{})
	snap := snapshot(t)
	snap.Messages = append([]protocol.Message{{Role: "user", Content: "earlier"}, {Role: "assistant", Content: "Sure."}}, snap.Messages...)
	step(t, m, attachedMsg{gen: 1, snap: snap})
	if f := frame(m); !strings.Contains(f, "▸ ⚙ terminal ls -la ✓\n    │ a\n    │ b\n") {
		t.Fatalf("fold lost in the rebuild:\n%s", f)
	}
}
