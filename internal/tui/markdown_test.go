package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/hermes-gateway/hermes/internal/protocol"
)

const answerMD = "## Build\n\nRun **two** steps:\n\n1. `go vet ./...`\n2. `go test ./...`\n\n```sh\nmake verify\n```\n\n| target | time |\n|---|---|\n| vet | 2s |"

// TestMarkdownAfterComplete: a streaming message is plain text; when it
// completes it is rendered as markdown, and again at a new width.
func TestMarkdownAfterComplete(t *testing.T) {
	t.Parallel()
	m := attached(t)
	step(t, m, ev(t, protocol.EventMessageStart, 11, "a2", struct{}{}))
	step(t, m, ev(t, protocol.EventMessageDelta, 0, "a2", protocol.DeltaPayload{Text: answerMD[:30]}))
	if f := frame(m); !strings.Contains(f, "## Build") || !strings.Contains(f, "Run **two** steps:") {
		t.Fatalf("streaming text is not plain:\n%s", f)
	}
	step(t, m, ev(t, protocol.EventMessageComplete, 12, "a2", protocol.MessageCompletePayload{AdmissionID: "a2", Outcome: "completed", Text: answerMD}))
	f := frame(m)
	for _, s := range []string{"**", "```", "`go"} {
		if strings.Contains(f, s) {
			t.Errorf("markdown syntax %q left in the frame:\n%s", s, f)
		}
	}
	golden(t, "markdown", f)
	step(t, m, tea.WindowSizeMsg{Width: 30, Height: 22})
	for _, l := range strings.Split(frame(m), "\n") {
		if w := len([]rune(l)); w > 30 {
			t.Errorf("line wider than 30 after resize (%d): %q", w, l)
		}
	}
}
