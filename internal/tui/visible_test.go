package tui

import (
	"regexp"
	"strings"
	"testing"

	"github.com/hermes-gateway/hermes/internal/protocol"
)

// sgr matches the styling escapes the view itself writes.
var sgr = regexp.MustCompile(`\x1b\[[0-9;:]*m`)

// TestViewEscapesSpoofing (issue 10 item 5): a command, tool output, title
// or question cannot put its own escape sequences, carriage returns or bidi
// controls on the terminal; they are shown escaped.
func TestViewEscapesSpoofing(t *testing.T) {
	t.Parallel()
	m := attached(t)
	m.title = "demo\u202eexe.txt"
	step(t, m, ev(t, protocol.EventToolStart, 11, "a2", protocol.ToolStartPayload{ToolID: "c2", Name: "terminal",
		Args: raw(t, map[string]string{"command": "cat notes\x1b[2K\r"})}))
	step(t, m, ev(t, protocol.EventToolComplete, 12, "a2", protocol.ToolCompletePayload{ToolID: "c2", Name: "terminal",
		Result: "line\x1b]0;pwned\x07\nnext\u2067line\r"}))
	step(t, m, ctrl('o'))
	step(t, m, ev(t, protocol.EventApprovalRequest, 13, "a2", protocol.ApprovalRequestPayload{Kind: "approval", PromptID: "p1",
		ExecutionGeneration: 2, Command: "rm -rf ~ \x1b[2K\recho harmless", Description: "recursive delete", Choices: protocol.ApprovalChoices}))
	content := m.View().Content
	rest := sgr.ReplaceAllString(content, "")
	for _, bad := range []string{"\x1b", "\r", "\u202e", "\u2067", "\x07"} {
		if strings.Contains(rest, bad) {
			t.Errorf("the frame holds a raw %q:\n%q", bad, rest)
		}
	}
	f := frame(m)
	for _, want := range []string{`rm -rf ~ \x1b[2K\recho harmless`, `│ line\x1b]0;pwned\x07`, `next\u2067line\r`, `demo\u202eexe.txt`} {
		if !strings.Contains(f, want) {
			t.Errorf("frame lacks %q:\n%s", want, f)
		}
	}
}

func TestHookRunNoteIsVisible(t *testing.T) {
	t.Parallel()
	m := attached(t)
	step(t, m, ev(t, protocol.EventHookRun, 12, "a2", protocol.HookRunPayload{Event: "PreToolUse", Tool: "terminal",
		Command: "./deny.sh", ExitCode: 2, Outcome: protocol.HookBlocked, Blocks: true, Reason: "no\x1b[31m"}))
	step(t, m, ev(t, protocol.EventHookRun, 13, "a2", protocol.HookRunPayload{Event: "Stop", Command: "fine.sh", Outcome: protocol.HookOK}))
	f := frame(m)
	if !strings.Contains(f, `hook blocked: PreToolUse terminal: ./deny.sh (exit 2, 0 ms)`) || !strings.Contains(f, `no\x1b[31m`) ||
		strings.Contains(f, "fine.sh") {
		t.Fatalf("frame:\n%s", f)
	}
}
