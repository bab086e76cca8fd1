package tui

import (
	"strings"
	"testing"

	"github.com/hermes-gateway/hermes/internal/protocol"
)

// TestEventsDuringAttachAreKept: a /compress (same session) re-attaches on
// the open connection, whose reader keeps running. Events read before the
// snapshot arrives are held: those the snapshot holds and deltas from
// before it are dropped, the rest (a queued turn that started) is shown.
func TestEventsDuringAttachAreKept(t *testing.T) {
	t.Parallel()
	m := attached(t)
	m.attachCmd(attach{old: sid, subID: "sub1"})
	if m.attaching == 0 {
		t.Fatal("attachCmd did not mark the attach")
	}
	held := []eventMsg{
		ev(t, protocol.EventMessageDelta, 0, "a1", protocol.DeltaPayload{Text: "stale delta"}),
		ev(t, protocol.EventMessageComplete, 11, "a1", protocol.MessageCompletePayload{AdmissionID: "a1", Outcome: "completed", Text: "There are two files: a and b."}),
		ev(t, protocol.EventMessageStart, 12, "a3", struct{}{}),
		ev(t, protocol.EventMessageDelta, 0, "a3", protocol.DeltaPayload{Text: "Tests "}),
		ev(t, protocol.EventMessageDelta, 0, "a3", protocol.DeltaPayload{Text: "pass."}),
	}
	for _, e := range held {
		step(t, m, e)
	}
	if f := frame(m); strings.Contains(f, "stale") || strings.Contains(f, "Tests") {
		t.Fatalf("events applied before the snapshot:\n%s", f)
	}
	snap := snapshot(t)
	snap.SubscriptionID, snap.LastSequence = "sub2", 11
	snap.Pending = []protocol.PendingAdmission{{AdmissionID: "a3", Status: protocol.StatusQueued, Text: "then run the tests"}}
	step(t, m, attachedMsg{snap: snap})
	step(t, m, ev(t, protocol.EventMessageComplete, 13, "a3", protocol.MessageCompletePayload{AdmissionID: "a3", Outcome: "completed", Text: "Tests pass."}))
	step(t, m, ev(t, protocol.EventSessionInfo, 14, "", protocol.SessionInfoPayload{Revision: 4}))
	f := frame(m)
	for s, n := range map[string]int{"stale": 0, "There are two files": 1, "then run the tests": 1, "Tests pass.": 1} {
		if got := strings.Count(f, s); got != n {
			t.Errorf("%q appears %d times, want %d:\n%s", s, got, n, f)
		}
	}
	if m.attaching != 0 || m.held != nil || m.lastSeq != 14 {
		t.Fatalf("after attach: attaching %v held %d lastSeq %d", m.attaching, len(m.held), m.lastSeq)
	}
}

// TestEventsOfNewSessionDuringAttach: after /new the new session's events
// can arrive before its snapshot; they are applied once it is attached.
func TestEventsOfNewSessionDuringAttach(t *testing.T) {
	t.Parallel()
	m := attached(t)
	m.attachCmd(attach{old: sid, subID: "sub1", create: &protocol.SessionCreateParams{}})
	e := ev(t, protocol.EventSessionInfo, 2, "", protocol.SessionInfoPayload{Running: true, ExecutionGeneration: 1, Revision: 1,
		Pending: []protocol.PendingAdmission{{AdmissionID: "n1", Status: protocol.StatusStarted, Text: "first words"}}})
	e.ev.SessionID = "local-new"
	step(t, m, e)
	step(t, m, attachedMsg{snap: protocol.Snapshot{SessionID: "local-new", SubscriptionID: "sub9", LastSequence: 1}})
	if m.sid != "local-new" || !m.running || len(m.pending) != 1 {
		t.Fatalf("held session.info lost: sid %s running %v pending %v", m.sid, m.running, m.pending)
	}
	if f := frame(m); strings.Contains(f, "list the files") || !strings.Contains(f, "first words") {
		t.Fatalf("frame:\n%s", f)
	}
}

// TestCompleteAfterStoredAnswer: the snapshot was taken after the turn's
// answer was stored but before the turn settled; its message.complete
// repeats the answer, which shows once.
func TestCompleteAfterStoredAnswer(t *testing.T) {
	t.Parallel()
	m := New(Options{})
	snap := snapshot(t)
	snap.Running = true
	step(t, m, attachedMsg{snap: snap})
	step(t, m, ev(t, protocol.EventMessageComplete, 11, "a1", protocol.MessageCompletePayload{AdmissionID: "a1", Outcome: "completed", Text: "There are two files: a and b."}))
	if n := strings.Count(frame(m), "There are two files"); n != 1 || m.running {
		t.Fatalf("answer shows %d times (running %v):\n%s", n, m.running, frame(m))
	}
}
