package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/hermes-gateway/hermes/internal/client"
	"github.com/hermes-gateway/hermes/internal/protocol"
	"github.com/hermes-gateway/hermes/internal/rpc"
)

func typeLine(t *testing.T, m *Model, line string) tea.Cmd {
	t.Helper()
	m.input.SetValue(line)
	return step(t, m, tea.KeyPressMsg{Code: tea.KeyEnter})
}

func key(t *testing.T, m *Model, k tea.KeyPressMsg) tea.Cmd {
	t.Helper()
	return step(t, m, k)
}

func letter(r rune) tea.KeyPressMsg { return tea.KeyPressMsg{Code: r, Text: string(r)} }

func mustContain(t *testing.T, f string, want ...string) {
	t.Helper()
	for _, s := range want {
		if !strings.Contains(f, s) {
			t.Errorf("frame lacks %q:\n%s", s, f)
		}
	}
}

var checkpointsOfDemo = []protocol.Checkpoint{
	{CheckpointID: "ckpt-1", AdmissionID: "a1", CreatedAt: "2026-03-01T10:00:00Z", Files: 4, Summary: "list the files"},
	{CheckpointID: "ckpt-2", AdmissionID: "a2", CreatedAt: "2026-03-01T10:05:00Z", Files: 1, Summary: "fix \x1b]0;owned\x07the build"},
}

// TestRewindPickerFlow walks /rewind: the list of checkpointed turns (the
// latest picked first), the mode, a conflicts answer listing the paths with
// force offered, the forced rewind and its counts, and the transcript
// reloaded after a conversation rewind. Untrusted text is escaped.
func TestRewindPickerFlow(t *testing.T) {
	t.Parallel()
	m := attached(t)
	m.c = new(client.Client) // never called: the commands are not run here
	if cmd := typeLine(t, m, "/rewind"); cmd == nil {
		t.Fatal("/rewind returned no command (session.checkpoints)")
	}
	step(t, m, checkpointsMsg{sid: sid, list: checkpointsOfDemo})
	if m.rewind == nil || m.rewind.stage != rewindTurns || m.rewind.cursor != 1 {
		t.Fatalf("after session.checkpoints: %+v, want the turn picker on the latest turn", m.rewind)
	}
	f := frame(m)
	mustContain(t, f, "rewind: pick a turn", "list the files", "4 files", "1 file", `fix \x1b]0;owned\x07the build`)
	if strings.Contains(f, "\x1b]0;") {
		t.Errorf("a summary drove the terminal:\n%q", f)
	}
	key(t, m, tea.KeyPressMsg{Code: tea.KeyUp})
	key(t, m, tea.KeyPressMsg{Code: tea.KeyEnter})
	if m.rewind.stage != rewindMode || m.rewind.cursor != 0 {
		t.Fatalf("enter on the first turn: stage %d cursor %d", m.rewind.stage, m.rewind.cursor)
	}
	mustContain(t, frame(m), "rewind to before: list the files", "[f]iles", "[c]onversation", "[b]oth")
	// esc goes back to the turns, enter comes back to the modes.
	key(t, m, tea.KeyPressMsg{Code: tea.KeyEscape})
	if m.rewind == nil || m.rewind.stage != rewindTurns {
		t.Fatalf("esc in the modes: %+v, want back at the turns", m.rewind)
	}
	key(t, m, tea.KeyPressMsg{Code: tea.KeyEnter})
	key(t, m, tea.KeyPressMsg{Code: tea.KeyDown})
	key(t, m, tea.KeyPressMsg{Code: tea.KeyDown})
	if cmd := key(t, m, tea.KeyPressMsg{Code: tea.KeyEnter}); cmd == nil {
		t.Fatal("enter on a mode sent no session.rewind")
	}
	want := protocol.SessionRewindParams{SessionID: sid, CheckpointID: "ckpt-1", Mode: protocol.RewindBoth}
	if m.rewind.stage != rewindWaiting || m.rewind.req != want {
		t.Fatalf("rewind sent %+v (stage %d), want %+v", m.rewind.req, m.rewind.stage, want)
	}
	mustContain(t, frame(m), "rewinding (both)")

	// The user changed files since the agent wrote them: listed, force offered.
	conflicts := protocol.SessionRewindResult{Status: protocol.RewindStatusConflicts,
		Restored: []string{"a.txt", "notes\x1b[2J.txt"}, Removed: []string{"b.txt"}, Conflicts: []string{"a.txt", "notes\x1b[2J.txt"}}
	if cmd := step(t, m, rewoundMsg{req: m.rewind.req, res: conflicts}); cmd != nil {
		t.Error("a conflicts answer reloaded the transcript (nothing changed)")
	}
	f = frame(m)
	mustContain(t, f, "nothing changed: 2 file(s)", "    a.txt", `    notes\x1b[2J.txt`, "[f]orce", "2 restored, 1 removed")
	if strings.Contains(f, "\x1b[2J") {
		t.Errorf("a path drove the terminal:\n%q", f)
	}
	if cmd := key(t, m, letter('f')); cmd == nil {
		t.Fatal("f sent no forced session.rewind")
	}
	if r := m.rewind.req; r.Force == nil || !*r.Force || r.CheckpointID != "ckpt-1" || r.Mode != protocol.RewindBoth {
		t.Fatalf("forced rewind sent %+v", r)
	}
	done := protocol.SessionRewindResult{Status: protocol.RewindStatusRewound,
		Restored: []string{"a.txt", "notes.txt"}, Removed: []string{"b.txt"}, Conflicts: []string{}}
	attaching := m.attaching
	if cmd := step(t, m, rewoundMsg{req: m.rewind.req, res: done}); cmd == nil || m.attaching != attaching+1 {
		t.Error("a conversation rewind did not reload the transcript")
	}
	mustContain(t, frame(m), "rewound (both, forced): 2 restored, 1 removed", "continues from before: list the files")
	key(t, m, tea.KeyPressMsg{Code: tea.KeyEnter})
	if m.rewind != nil {
		t.Fatal("enter did not close the result")
	}
}

func TestRewindBusyAndNothingToPick(t *testing.T) {
	t.Parallel()
	m := attached(t)
	m.c = new(client.Client)
	step(t, m, checkpointsMsg{sid: sid})
	if m.rewind != nil || !strings.Contains(m.note, "no checkpointed turns") {
		t.Fatalf("no checkpoints: rewind %+v note %q", m.rewind, m.note)
	}
	step(t, m, checkpointsMsg{sid: "local-other", list: checkpointsOfDemo})
	if m.rewind != nil {
		t.Fatal("the checkpoints of another session opened the picker")
	}
	step(t, m, checkpointsMsg{sid: sid, list: checkpointsOfDemo})
	key(t, m, tea.KeyPressMsg{Code: tea.KeyEnter})
	if cmd := key(t, m, letter('f')); cmd == nil || m.rewind.req.Mode != protocol.RewindFiles || m.rewind.req.CheckpointID != "ckpt-2" {
		t.Fatalf("f in the modes sent %+v", m.rewind.req)
	}
	busy := &rpc.CallError{Code: -32000, Message: "session_busy", Reason: protocol.ReasonSessionBusy}
	if cmd := step(t, m, rewoundMsg{req: m.rewind.req, err: busy}); cmd != nil {
		t.Error("a refused rewind reloaded the transcript")
	}
	mustContain(t, frame(m), "rewind failed: a turn is running")
	if cmd := key(t, m, letter('f')); cmd != nil {
		t.Error("force offered after an error")
	}
	key(t, m, tea.KeyPressMsg{Code: tea.KeyEscape})
	if m.rewind != nil {
		t.Fatal("esc did not close")
	}
	// A files rewind that went through leaves the transcript alone.
	step(t, m, checkpointsMsg{sid: sid, list: checkpointsOfDemo})
	key(t, m, tea.KeyPressMsg{Code: tea.KeyEnter})
	key(t, m, tea.KeyPressMsg{Code: tea.KeyEnter})
	if cmd := step(t, m, rewoundMsg{req: m.rewind.req, res: protocol.SessionRewindResult{Status: protocol.RewindStatusRewound,
		Restored: []string{"x"}, Removed: []string{}, Conflicts: []string{}}}); cmd != nil {
		t.Error("a files rewind reloaded the transcript")
	}
	mustContain(t, frame(m), "rewound (files): 1 restored, 0 removed")
}
