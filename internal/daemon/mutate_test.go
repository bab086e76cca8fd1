package daemon

import (
	"strings"
	"testing"

	"github.com/hermes-gateway/hermes/internal/modeltest"
	"github.com/hermes-gateway/hermes/internal/protocol"
)

// Compression publishes a summary child; the next turn carries the summary;
// a retry of the same request_id answers without another model call; reset
// empties the history and keeps the logical id.
func TestCompressThenReset(t *testing.T) {
	t.Parallel()
	d := startTest(t, "compression: {enabled: true, threshold: 0.99, protect_first_n: 1, protect_last_n: 1}\n")
	ctx := ctxT(t)
	cwd := t.TempDir()
	d.model.Handle(func(r *modeltest.Request) modeltest.Reply {
		if strings.HasPrefix(r.System(), "Summarize") {
			return modeltest.Text("SUMMARY_TEXT")
		}
		return modeltest.Text("answer " + r.LastUserText())
	})
	c := d.connect()
	snap, err := c.CreateSession(ctx, protocol.SessionCreateParams{RequestID: ptr("cmp"), Cwd: &cwd, Toolsets: &[]string{}})
	if err != nil {
		t.Fatal(err)
	}
	sid := snap.SessionID
	for _, id := range []string{"a", "b", "c"} {
		if _, err := c.Submit(ctx, protocol.PromptSubmitParams{SessionID: sid, SubmissionID: ptr(id), Text: "q" + id}); err != nil {
			t.Fatal(err)
		}
		awaitComplete(t, ctx, c, "answer q"+id)
	}
	res, err := c.ResumeSession(ctx, protocol.SessionResumeParams{SessionID: &sid})
	if err != nil || res.MessageCount != 6 {
		t.Fatalf("before compress: %d %v", res.MessageCount, err)
	}
	if _, err := c.MutateSession(ctx, protocol.SessionMutateParams{SessionID: sid, RequestID: "m0", ExpectedRevision: res.Revision + 7, Operation: "compress"}); reason(err) != "revision_conflict" {
		t.Fatalf("stale revision: %v", err)
	}
	mp := protocol.SessionMutateParams{SessionID: sid, RequestID: "m1", ExpectedRevision: res.Revision, Operation: "compress"}
	out, err := c.MutateSession(ctx, mp)
	if err != nil || out.SessionID != sid || out.MessageCount == nil || *out.MessageCount != 3 {
		t.Fatalf("compress: %+v %v", out, err)
	}
	calls := len(d.model.Requests())
	if again, err := c.MutateSession(ctx, mp); err != nil || again.Revision != out.Revision || len(d.model.Requests()) != calls {
		t.Fatalf("retry: %+v %v (model calls %d→%d)", again, err, calls, len(d.model.Requests()))
	}
	if _, err := c.Submit(ctx, protocol.PromptSubmitParams{SessionID: sid, SubmissionID: ptr("d"), Text: "qd"}); err != nil {
		t.Fatal(err)
	}
	awaitComplete(t, ctx, c, "answer qd")
	reqs := d.model.Requests()
	if last := reqs[len(reqs)-1]; !last.ContainsText("SUMMARY_TEXT") || last.ContainsText("qb") {
		t.Fatal("the next turn's request does not carry the summary instead of the old messages")
	}
	res, _ = c.ResumeSession(ctx, protocol.SessionResumeParams{SessionID: &sid})
	rs, err := c.MutateSession(ctx, protocol.SessionMutateParams{SessionID: sid, RequestID: "m2", ExpectedRevision: res.Revision, Operation: "reset"})
	if err != nil || *rs.MessageCount != 0 {
		t.Fatalf("reset: %+v %v", rs, err)
	}
	d.restart()
	c = d.connect()
	res, err = c.ResumeSession(ctx, protocol.SessionResumeParams{SessionID: &sid})
	if err != nil || res.MessageCount != 0 || res.SessionID != sid {
		t.Fatalf("after reset+restart: %+v %v", res, err)
	}
	if again, err := c.CreateSession(ctx, protocol.SessionCreateParams{RequestID: ptr("cmp"), Cwd: &cwd, Toolsets: &[]string{}}); err != nil || again.SessionID != sid {
		t.Fatalf("re-create after lineage moved: %v", err)
	}
	if r, err := c.Submit(ctx, protocol.PromptSubmitParams{SessionID: sid, SubmissionID: ptr("a"), Text: "qa"}); err != nil || r.Status != "terminal" {
		t.Fatalf("retry of a settled submission after reset: %+v %v", r, err)
	}
}

func TestRenameAndTitleLookup(t *testing.T) {
	t.Parallel()
	d := startTest(t, "")
	ctx := ctxT(t)
	cwd := t.TempDir()
	c := d.connect()
	snap, err := c.CreateSession(ctx, protocol.SessionCreateParams{RequestID: ptr("ren"), Cwd: &cwd})
	if err != nil {
		t.Fatal(err)
	}
	out, err := c.MutateSession(ctx, protocol.SessionMutateParams{SessionID: snap.SessionID, RequestID: "r1",
		ExpectedRevision: snap.Revision, Operation: "rename", Payload: []byte(`{"title":"my work"}`)})
	if err != nil || out.Revision != snap.Revision+1 {
		t.Fatalf("rename: %+v %v", out, err)
	}
	res, err := c.ResumeSession(ctx, protocol.SessionResumeParams{Title: ptr("my work")})
	if err != nil || res.SessionID != snap.SessionID || res.Info.Title != "my work" {
		t.Fatalf("title lookup: %v", err)
	}
	if _, err := c.MutateSession(ctx, protocol.SessionMutateParams{SessionID: snap.SessionID, RequestID: "r2",
		ExpectedRevision: snap.Revision, Operation: "rename", Payload: []byte(`{"title":"x"}`)}); reason(err) != "revision_conflict" {
		t.Fatalf("stale rename: %v", err)
	}
}
