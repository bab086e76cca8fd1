package daemon

import (
	"testing"

	"github.com/hermes-gateway/hermes/internal/modeltest"
	"github.com/hermes-gateway/hermes/internal/protocol"
)

// The stored list shows the profile's logical sessions, newest first, and
// hides hidden, archived, tool and oneshot rows (include_hidden shows the
// hidden one); listing attaches nothing.
func TestStoredListFilters(t *testing.T) {
	t.Parallel()
	d := startTest(t, "")
	ctx := ctxT(t)
	cwd := t.TempDir()
	c := d.connect()
	mk := func(id string, p protocol.SessionCreateParams) string {
		p.RequestID, p.Cwd = ptr(id), &cwd
		s, err := c.CreateSession(ctx, p)
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		return s.SessionID
	}
	plain := mk("plain", protocol.SessionCreateParams{})
	mk("tool", protocol.SessionCreateParams{Source: ptr("tool")})
	mk("oneshot", protocol.SessionCreateParams{Source: ptr("oneshot")})
	hidden := mk("hidden", protocol.SessionCreateParams{Hidden: ptr(true)})
	archived := mk("archived", protocol.SessionCreateParams{})
	newest := mk("newest", protocol.SessionCreateParams{Source: ptr("gui")})
	if _, err := c.MutateSession(ctx, protocol.SessionMutateParams{SessionID: archived, RequestID: "a",
		Operation: "archive", Payload: []byte(`{"archived":true}`)}); err != nil {
		t.Fatal(err)
	}
	v := d.connect()
	got, err := v.ListSessions(ctx, protocol.SessionListParams{Scope: ptr("stored")})
	if err != nil || got.Scope != "stored" {
		t.Fatalf("list: %+v %v", got, err)
	}
	if ids := summaryIDs(got.Sessions); len(ids) != 2 || ids[0] != newest || ids[1] != plain {
		t.Fatalf("stored list %v, want [newest plain]", ids)
	}
	withHidden, _ := v.ListSessions(ctx, protocol.SessionListParams{Scope: ptr("stored"), IncludeHidden: ptr(true)})
	if ids := summaryIDs(withHidden.Sessions); len(ids) != 3 || !containsID(ids, hidden) {
		t.Fatalf("include_hidden: %v", ids)
	}
	if _, err := v.Submit(ctx, protocol.PromptSubmitParams{SessionID: plain, SubmissionID: ptr("x"), Text: "t"}); reason(err) != "permission_denied" {
		t.Fatalf("listing attached the viewer: %v", err)
	}
	if _, err := v.ListSessions(ctx, protocol.SessionListParams{Limit: ptr(0)}); reason(err) != "invalid_params" {
		t.Fatalf("limit 0: %v", err)
	}
}

// events.since answers snapshot_required for a foreign replay epoch or a
// sequence ahead of the journal, and pages the journal otherwise.
func TestEventsSinceCursor(t *testing.T) {
	t.Parallel()
	d := startTest(t, "")
	ctx := ctxT(t)
	cwd := t.TempDir()
	d.model.Script(modeltest.Text("ok"))
	c := d.connect()
	snap, err := c.CreateSession(ctx, protocol.SessionCreateParams{RequestID: ptr("cur"), Cwd: &cwd})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Submit(ctx, protocol.PromptSubmitParams{SessionID: snap.SessionID, SubmissionID: ptr("1"), Text: "x"}); err != nil {
		t.Fatal(err)
	}
	awaitComplete(t, ctx, c, "ok")
	all, err := c.EventsSince(ctx, protocol.EventsSinceParams{SessionID: snap.SessionID})
	if err != nil || len(all.Events) == 0 || all.SnapshotRequired || all.More {
		t.Fatalf("since 0: %+v %v", all, err)
	}
	for i, e := range all.Events {
		if e.Seq != int64(i+1) || protocol.IsDelta(e.Type) {
			t.Fatalf("journal event %d: seq %d type %s", i, e.Seq, e.Type)
		}
	}
	tail, _ := c.EventsSince(ctx, protocol.EventsSinceParams{SessionID: snap.SessionID, LastSequence: ptr(all.LatestSeq - 1), ReplayEpoch: &all.ReplayEpoch})
	if len(tail.Events) != 1 || tail.Events[0].Seq != all.LatestSeq {
		t.Fatalf("tail: %+v", tail)
	}
	for _, p := range []protocol.EventsSinceParams{
		{SessionID: snap.SessionID, ReplayEpoch: ptr("another-epoch")},
		{SessionID: snap.SessionID, LastSequence: ptr(all.LatestSeq + 5)},
	} {
		r, err := c.EventsSince(ctx, p)
		if err != nil || !r.SnapshotRequired || len(r.Events) != 0 {
			t.Fatalf("%+v: %+v %v, want snapshot_required", p, r, err)
		}
	}
}

func summaryIDs(s []protocol.SessionSummary) []string {
	out := make([]string, len(s))
	for i, x := range s {
		out[i] = x.SessionID
	}
	return out
}

func containsID(ids []string, id string) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}
