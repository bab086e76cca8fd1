package e2e

import (
	"slices"
	"testing"

	gt "github.com/hermes-gateway/hermes/internal/gatewaytest"
	"github.com/hermes-gateway/hermes/internal/modeltest"
	"github.com/hermes-gateway/hermes/internal/protocol"
)

// TestEventOrderAcrossEightViewers: every viewer of a session receives the
// same journaled events in the same order, equal to session.events.since.
func TestEventOrderAcrossEightViewers(t *testing.T) {
	t.Parallel()
	f := gt.NewFixture(t, gt.Config{Streaming: true})
	f.Turns.Set("stream please",
		modeltest.Reply{Text: "working on it", ToolCalls: []modeltest.Call{{Name: "terminal", Args: gt.TerminalArgs(f.Ledger.Command("eight-1"))}}, Chunk: 3},
		modeltest.Reply{Text: "a longer final answer streamed in many small pieces", Chunk: 2})
	d := f.Start()
	ctx := gt.Context(t, wait)
	dir := gt.Cwd(t)
	owner := d.View(ctx)
	snap := gt.Create(t, owner, protocol.SessionCreateParams{RequestID: gt.Ptr("eight"), Cwd: &dir})
	viewers := []*gt.Recorder{owner}
	for range 7 {
		v := d.View(ctx)
		gt.Resume(t, v, snap.SessionID)
		viewers = append(viewers, v)
	}
	rc := gt.Submit(t, owner, snap.SessionID, "e1", "stream please")
	for _, v := range viewers {
		gt.AwaitComplete(t, v, rc.AdmissionID, wait)
	}
	since, err := owner.EventsSince(ctx, protocol.EventsSinceParams{SessionID: snap.SessionID, LastSequence: gt.Ptr(snap.LastSequence)})
	if err != nil {
		t.Fatal(err)
	}
	want := journaled(since.Events, snap.SessionID)
	if len(want) == 0 {
		t.Fatal("session.events.since returned nothing after the turn")
	}
	for i, v := range viewers {
		got := journaled(v.Events(), snap.SessionID)
		if !slices.Equal(got, want) {
			t.Errorf("viewer %d saw %v\nwant (events.since) %v", i, got, want)
		}
	}
	if n := f.Ledger.Count(t, "eight-1"); n != 1 {
		t.Errorf("tool ran %d times, want 1", n)
	}
}

type seqType struct {
	Seq  int64
	Type string
}

// journaled lists the journaled (seq > 0) events of sid up to and including
// the first message.complete.
func journaled(evs []protocol.Event, sid string) []seqType {
	var out []seqType
	for _, ev := range evs {
		if ev.SessionID != sid || ev.Seq == 0 {
			continue
		}
		out = append(out, seqType{ev.Seq, ev.Type})
		if ev.Type == protocol.EventMessageComplete {
			break
		}
	}
	return out
}
