package tui

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/google/go-cmp/cmp"

	"github.com/hermes-gateway/hermes/internal/protocol"
)

var update = flag.Bool("update", false, "rewrite the golden frames under testdata")

const sid = "local-abc"

func raw(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func ev(t *testing.T, typ string, seq int64, adm string, payload any) eventMsg {
	return eventMsg{ev: protocol.Event{Type: typ, SessionID: sid, Seq: seq, AdmissionID: adm, ExecutionGeneration: 2, Payload: raw(t, payload)}}
}

func snapshot(t *testing.T) protocol.Snapshot {
	calls := raw(t, []map[string]any{{"id": "c1", "type": "function",
		"function": map[string]string{"name": "terminal", "arguments": `{"command":"ls -la"}`}}})
	return protocol.Snapshot{
		SessionID: sid, SubscriptionID: "sub1", LastSequence: 10, Revision: 3, ExecutionGeneration: 1,
		Info: protocol.SessionInfo{Model: "fake", Cwd: "/work/demo", Title: "demo"},
		Messages: []protocol.Message{
			{Role: "user", Content: "list the files"},
			{Role: "assistant", Content: "Let me look.", ToolCalls: calls},
			{Role: "tool", ToolCallID: "c1", ToolName: "terminal", Content: "a\nb"},
			{Role: "assistant", Content: "There are two files: a and b."},
		},
	}
}

// attached is a model sized 64x22 showing snapshot().
func attached(t *testing.T) *Model {
	m := New(Options{})
	step(t, m, tea.WindowSizeMsg{Width: 64, Height: 22})
	step(t, m, attachedMsg{snap: snapshot(t)})
	return m
}

func step(t *testing.T, m *Model, msg tea.Msg) tea.Cmd {
	t.Helper()
	_, cmd := m.Update(msg)
	return cmd
}

func frame(m *Model) string {
	lines := strings.Split(ansi.Strip(m.View().Content), "\n")
	for i := range lines {
		lines[i] = strings.TrimRight(lines[i], " ")
	}
	return strings.Join(lines, "\n") + "\n"
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if d := cmp.Diff(string(want), got); d != "" {
		t.Errorf("frame %s (-want +got):\n%s", name, d)
	}
}

// runningTurn feeds a second turn up to an approval request.
func runningTurn(t *testing.T, m *Model) {
	step(t, m, ev(t, protocol.EventSessionInfo, 11, "", protocol.SessionInfoPayload{Running: true, ExecutionGeneration: 2, Revision: 3, Title: "demo",
		Pending: []protocol.PendingAdmission{
			{AdmissionID: "a2", Status: protocol.StatusStarted, Text: "clean the build dir"},
			{AdmissionID: "a3", Status: protocol.StatusQueued, Text: "then run the tests"}}}))
	step(t, m, ev(t, protocol.EventMessageStart, 12, "a2", struct{}{}))
	step(t, m, ev(t, protocol.EventMessageDelta, 0, "a2", protocol.DeltaPayload{Text: "Removing "}))
	step(t, m, ev(t, protocol.EventMessageDelta, 0, "a2", protocol.DeltaPayload{Text: "build/."}))
	step(t, m, ev(t, protocol.EventToolStart, 13, "a2", protocol.ToolStartPayload{ToolID: "c2", Name: "terminal", Args: raw(t, map[string]string{"command": "rm -r -- build"})}))
	step(t, m, ev(t, protocol.EventApprovalRequest, 14, "a2", protocol.ApprovalRequestPayload{Kind: "approval", PromptID: "p1",
		ExecutionGeneration: 2, Command: "rm -r -- build", Description: "recursive delete", Choices: protocol.ApprovalChoices}))
}

func TestFrameApproval(t *testing.T) {
	t.Parallel()
	m := attached(t)
	runningTurn(t, m)
	golden(t, "approval", frame(m))
}

func TestFrameClarifyMultiSelect(t *testing.T) {
	t.Parallel()
	m := attached(t)
	step(t, m, ev(t, protocol.EventClarifyRequest, 11, "a2", protocol.ClarifyRequestPayload{Kind: "clarify", PromptID: "q1",
		ExecutionGeneration: 2, Question: "Which targets?", Choices: []string{"linux", "darwin", "windows"}, MultiSelect: true}))
	step(t, m, tea.KeyPressMsg{Code: tea.KeyDown})
	step(t, m, tea.KeyPressMsg{Code: tea.KeySpace})
	step(t, m, tea.KeyPressMsg{Code: tea.KeyDown})
	if got := m.clarifyAnswer(m.prompts[0]); got != "darwin" {
		t.Fatalf("answer %q, want darwin", got)
	}
	golden(t, "clarify", frame(m))
}

func TestFramePicker(t *testing.T) {
	t.Parallel()
	m := attached(t)
	step(t, m, listMsg{rows: []pickRow{
		{SessionSummary: protocol.SessionSummary{SessionID: sid, Title: "demo", Source: "tui", MessageCount: 4}, live: true},
		{SessionSummary: protocol.SessionSummary{SessionID: "local-old", Title: "", Source: "cli", MessageCount: 12}},
	}})
	step(t, m, tea.KeyPressMsg{Code: tea.KeyDown})
	golden(t, "picker", frame(m))
	step(t, m, tea.KeyPressMsg{Code: tea.KeyEscape})
	if m.picker != nil {
		t.Fatal("esc did not close the picker")
	}
}

// TestReconnectShowsNoDuplicates drops the connection mid-stream, resumes
// with a snapshot that already holds part of the turn, and replays an
// already-seen event: every line appears once and the final text whole.
func TestReconnectShowsNoDuplicates(t *testing.T) {
	t.Parallel()
	m := attached(t)
	runningTurn(t, m)
	step(t, m, ev(t, protocol.EventApprovalSettled, 15, "a2", protocol.ApprovalSettledPayload{PromptID: "p1", Choice: "once", By: "uid:0"}))
	if cmd := step(t, m, closedMsg{gen: 0}); cmd == nil || m.status != "reconnecting" || m.gen != 1 {
		t.Fatalf("closed: status %q gen %d", m.status, m.gen)
	}
	step(t, m, eventMsg{gen: 0, ev: protocol.Event{Type: protocol.EventMessageDelta, SessionID: sid, Payload: raw(t, protocol.DeltaPayload{Text: "stale"})}})
	step(t, m, connectedMsg{gen: 1})
	snap := snapshot(t)
	snap.LastSequence, snap.Running, snap.ExecutionGeneration = 16, true, 2
	snap.Messages = append(snap.Messages,
		protocol.Message{Role: "user", Content: "clean the build dir"},
		protocol.Message{Role: "assistant", Content: "Removing build/.", ToolCalls: raw(t, []map[string]any{{"id": "c2",
			"function": map[string]string{"name": "terminal", "arguments": `{"command":"rm -r -- build"}`}}})},
		protocol.Message{Role: "tool", ToolCallID: "c2", Content: ""})
	step(t, m, attachedMsg{gen: 1, snap: snap})
	e := ev(t, protocol.EventToolComplete, 16, "a2", protocol.ToolCompletePayload{ToolID: "c2", Name: "terminal"})
	e.gen = 1
	step(t, m, e) // already in the snapshot: dropped
	for _, d := range []string{"Do", "ne"} {
		e := ev(t, protocol.EventMessageDelta, 0, "a2", protocol.DeltaPayload{Text: d})
		e.gen = 1
		step(t, m, e) // the message started before the resume: not shown piecemeal
	}
	e = ev(t, protocol.EventMessageComplete, 17, "a2", protocol.MessageCompletePayload{Text: "Done: build/ is gone.", AdmissionID: "a2", Outcome: "completed"})
	e.gen = 1
	step(t, m, e)
	golden(t, "reconnected", frame(m))
	f := frame(m)
	for _, s := range []string{"clean the build dir", "Removing build/.", "Done: build/ is gone.", "There are two files"} {
		if n := strings.Count(f, s); n != 1 {
			t.Errorf("%q appears %d times:\n%s", s, n, f)
		}
	}
	if strings.Contains(f, "stale") || strings.Contains(f, "Done:▍") {
		t.Errorf("stale or partial text shown:\n%s", f)
	}
}

func TestSlashCommandsWithoutConnection(t *testing.T) {
	t.Parallel()
	m := New(Options{})
	m.input.SetValue("/help")
	step(t, m, tea.KeyPressMsg{Code: tea.KeyEnter})
	if m.note != helpText {
		t.Fatalf("note %q", m.note)
	}
	m.input.SetValue("/title")
	step(t, m, tea.KeyPressMsg{Code: tea.KeyEnter})
	if m.note != "not connected" {
		t.Fatalf("note %q", m.note)
	}
	m.input.SetValue("/quit")
	cmd := step(t, m, tea.KeyPressMsg{Code: tea.KeyEnter})
	if cmd == nil {
		t.Fatal("/quit returned no command")
	}
	if _, ok := cmd().(tea.QuitMsg); !ok {
		t.Fatal("/quit does not quit")
	}
}

func TestFailedTurnAndUnknownAreNoted(t *testing.T) {
	t.Parallel()
	m := attached(t)
	step(t, m, ev(t, protocol.EventMessageComplete, 11, "a9", protocol.MessageCompletePayload{AdmissionID: "a9", Outcome: "failed", Error: "model: HTTP 400"}))
	step(t, m, ev(t, protocol.EventSessionUnknown, 12, "", protocol.SessionUnknownPayload{AdmissionID: "a8"}))
	f := frame(m)
	for _, s := range []string{"turn failed: model: HTTP 400", "admission a8 is unknown"} {
		if !strings.Contains(f, s) {
			t.Errorf("frame lacks %q:\n%s", s, f)
		}
	}
}
