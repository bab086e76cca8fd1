package tui

import (
	"strings"
	"testing"

	"github.com/hermes-gateway/hermes/internal/protocol"
)

func TestToolError(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, content, want string
	}{
		{"terminal", `denied by the user: "rm -r -- build" was not run (it recursive delete).`, `denied by the user: "rm -r -- build" was not run (it recursive delete).`},
		{"terminal", "blocked: this command wipes the disk and is never run (rule mkfs), not even with approval.", "blocked: this command wipes the disk and is never run (rule mkfs), not even with approval."},
		{"terminal", "ls: cannot access 'x': No such file or directory\n[exit code 2]", "[exit code 2]"},
		{"terminal", "partial\n[timed out after 3m0s; the command and its children were killed]", "[timed out after 3m0s; the command and its children were killed]"},
		{"terminal", "interrupted: the turn was interrupted before this call finished", "interrupted: the turn was interrupted before this call finished"},
		{"terminal", "cannot open the pod bay doors\nerror: no such door", ""}, // a command's own output
		{"terminal", "error: printed by a command that exited 0", ""},
		{"terminal", "", ""},
		{"read_file", "cannot read /x: permission denied", "cannot read /x: permission denied"},
		{"read_file", "/work/demo is a directory", "/work/demo is a directory"},
		{"read_file", "     1\tcannot is a word", ""},
		{"search_files", "no matches", ""},
		{"patch", "old text not found in /a; nothing changed", "old text not found in /a; nothing changed"},
		{"clarify", "no viewer can answer questions in this session; continue with your best judgement", "no viewer can answer questions in this session; continue with your best judgement"},
		{"write_file", "wrote 3 bytes to /a", ""},
		{"mystery", "unknown tool \"mystery\"; available tools: terminal", "unknown tool \"mystery\"; available tools: terminal"},
	} {
		if got := toolError(c.name, c.content); got != c.want {
			t.Errorf("toolError(%s, %q) = %q, want %q", c.name, c.content, got, c.want)
		}
	}
}

// TestDeniedToolFailsAfterReconnect: a snapshot's tool results carry no
// error flag; a denied call still shows ✗ with the reason, and an error
// that a tool.complete event reported outlives the rebuild even when the
// stored text does not show it.
func TestDeniedToolFailsAfterReconnect(t *testing.T) {
	t.Parallel()
	m := attached(t)
	step(t, m, ev(t, protocol.EventToolStart, 11, "a2", protocol.ToolStartPayload{ToolID: "c9", Name: "custom", Args: raw(t, map[string]string{"path": "x"})}))
	step(t, m, ev(t, protocol.EventToolComplete, 12, "a2", protocol.ToolCompletePayload{ToolID: "c9", Name: "custom", Result: "it broke", Error: "it broke"}))
	if f := frame(m); !strings.Contains(f, "⚙ custom x ✗ it broke") {
		t.Fatalf("live failure not shown:\n%s", f)
	}
	snap := snapshot(t)
	snap.LastSequence = 12
	snap.Messages = append(snap.Messages,
		protocol.Message{Role: "user", Content: "delete it"},
		protocol.Message{Role: "assistant", ToolCalls: raw(t, []map[string]any{
			{"id": "c2", "function": map[string]string{"name": "terminal", "arguments": `{"command":"rm -r -- build"}`}},
			{"id": "c9", "function": map[string]string{"name": "custom", "arguments": `{"path":"x"}`}}})},
		protocol.Message{Role: "tool", ToolCallID: "c2", ToolName: "terminal", Content: `denied by the user: "rm -r -- build" was not run (it recursive delete).`},
		protocol.Message{Role: "tool", ToolCallID: "c9", ToolName: "custom", Content: "it broke"},
		protocol.Message{Role: "assistant", Content: "Left it alone."})
	step(t, m, closedMsg{})
	step(t, m, attachedMsg{gen: 1, snap: snap})
	f := frame(m)
	for _, s := range []string{"⚙ terminal rm -r -- build ✗ denied by the user", "⚙ custom x ✗ it broke", "⚙ terminal ls -la ✓"} {
		if !strings.Contains(f, s) {
			t.Errorf("frame lacks %q:\n%s", s, f)
		}
	}
}
