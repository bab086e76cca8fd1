package daemon

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/hermes-gateway/hermes/internal/client"
	"github.com/hermes-gateway/hermes/internal/modeltest"
	"github.com/hermes-gateway/hermes/internal/protocol"
)

// Every viewer of a session receives the same journaled events in the same
// order, and the same streamed text.
func TestEightViewersSeeTheSameEvents(t *testing.T) {
	t.Parallel()
	d := startTest(t, "streaming: {enabled: true}\n")
	ctx := ctxT(t)
	cwd := t.TempDir()
	d.model.Script(
		modeltest.Reply{Text: "let me look", ToolCalls: []modeltest.Call{{Name: "terminal", Args: `{"command":"echo hi"}`}}, Chunk: 3},
		modeltest.Reply{Text: "the answer is forty-two", Chunk: 2},
	)
	owner := d.connect()
	snap, err := owner.CreateSession(ctx, protocol.SessionCreateParams{RequestID: ptr("fan"), Cwd: &cwd, Toolsets: &[]string{"terminal"}})
	if err != nil {
		t.Fatal(err)
	}
	viewers := make([]*client.Client, 8)
	for i := range viewers {
		viewers[i] = d.connect()
		if _, err := viewers[i].ResumeSession(ctx, protocol.SessionResumeParams{SessionID: &snap.SessionID}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := owner.Submit(ctx, protocol.PromptSubmitParams{SessionID: snap.SessionID, SubmissionID: ptr("go"), Text: "compute"}); err != nil {
		t.Fatal(err)
	}
	var want string
	for i, v := range viewers {
		got := collect(t, v)
		if i == 0 {
			want = got
			continue
		}
		if got != want {
			t.Fatalf("viewer %d saw\n%s\nviewer 0 saw\n%s", i, got, want)
		}
	}
	if !strings.Contains(want, "text=let me look") || !strings.Contains(want, "tool.complete") {
		t.Fatalf("unexpected stream:\n%s", want)
	}
}

// collect renders a viewer's events until message.complete: journaled events
// by type and seq, deltas merged into the text between them.
func collect(t *testing.T, c *client.Client) string {
	t.Helper()
	var b, text strings.Builder
	ctx := ctxT(t)
	for {
		select {
		case e := <-c.Events():
			if protocol.IsDelta(e.Type) {
				var p protocol.DeltaPayload
				_ = json.Unmarshal(e.Payload, &p)
				text.WriteString(p.Text)
				continue
			}
			if text.Len() > 0 {
				fmt.Fprintf(&b, "text=%s\n", text.String())
				text.Reset()
			}
			fmt.Fprintf(&b, "%d %s\n", e.Seq, e.Type)
			if e.Type == protocol.EventMessageComplete {
				return b.String()
			}
		case <-ctx.Done():
			t.Fatalf("no message.complete; so far:\n%s", b.String())
		}
	}
}
