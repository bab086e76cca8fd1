package daemon

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/hermes-gateway/hermes/internal/modeltest"
	"github.com/hermes-gateway/hermes/internal/protocol"
)

// A turn cut by a stop is unknown at the next start, never replayed, and
// blocks its follower until resolved; then the follower runs exactly once
// and a further restart runs nothing.
func TestRestartMarksUnknownAndResolveResumes(t *testing.T) {
	t.Parallel()
	d := startTest(t, "gateway: {shutdown_timeout: 100ms}\n")
	ctx := ctxT(t)
	cwd := t.TempDir()
	hold := modeltest.NewBarrier()
	d.model.Handle(func(r *modeltest.Request) modeltest.Reply {
		if r.LastUserText() == "BLOCK_STARTED" {
			return modeltest.Reply{Text: "never", Hold: hold}
		}
		return modeltest.Text("done: " + r.LastUserText())
	})
	a := d.connect()
	snap, err := a.CreateSession(ctx, protocol.SessionCreateParams{RequestID: ptr("rec"), Cwd: &cwd, Toolsets: &[]string{}})
	if err != nil {
		t.Fatal(err)
	}
	sid := snap.SessionID
	first, err := a.Submit(ctx, protocol.PromptSubmitParams{SessionID: sid, SubmissionID: ptr("s1"), Text: "BLOCK_STARTED"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Submit(ctx, protocol.PromptSubmitParams{SessionID: sid, SubmissionID: ptr("s2"), Text: "RECOVER_QUEUED"}); err != nil {
		t.Fatal(err)
	}
	if err := hold.AwaitWaiting(ctx, 1); err != nil {
		t.Fatal(err)
	}
	d.restart()
	b := d.connect()
	res, err := b.ResumeSession(ctx, protocol.SessionResumeParams{SessionID: &sid})
	if err != nil {
		t.Fatal(err)
	}
	if got := statuses(res.Pending); got != "unknown,queued" {
		t.Fatalf("pending after restart: %s", got)
	}
	gen := *res.Pending[0].ExecutionGeneration
	if _, err := b.ResolveUnknown(ctx, protocol.ResolveUnknownParams{SessionID: sid, AdmissionID: first.AdmissionID, ExecutionGeneration: gen + 1}); reason(err) != "stale_generation" {
		t.Fatalf("resolve with a wrong generation: %v", err)
	}
	rcpt, err := b.ResolveUnknown(ctx, protocol.ResolveUnknownParams{SessionID: sid, AdmissionID: first.AdmissionID, ExecutionGeneration: gen})
	if err != nil || rcpt.Status != "terminal" || *rcpt.Outcome != "interrupted" {
		t.Fatalf("resolve: %+v %v", rcpt, err)
	}
	awaitComplete(t, ctx, b, "done: RECOVER_QUEUED")
	d.restart()
	if n := countText(d.model.Requests(), "BLOCK_STARTED"); n != 1 {
		t.Fatalf("BLOCK_STARTED sent %d times", n)
	}
	if n := countText(d.model.Requests(), "RECOVER_QUEUED"); n != 1 {
		t.Fatalf("RECOVER_QUEUED sent %d times", n)
	}
}

// A launch api_key is memory only: after a restart the FIFO pauses until the
// same key is re-supplied; a different key is a conflict.
func TestLaunchKeyPausesAfterRestart(t *testing.T) {
	t.Parallel()
	d := startTest(t, "")
	ctx := ctxT(t)
	cwd := t.TempDir()
	d.model.Handle(func(r *modeltest.Request) modeltest.Reply {
		return modeltest.Text("ok " + r.Header.Get("Authorization"))
	})
	a := d.connect()
	snap, err := a.CreateSession(ctx, protocol.SessionCreateParams{RequestID: ptr("key"), Cwd: &cwd, APIKey: ptr("sk-launch-1")})
	if err != nil {
		t.Fatal(err)
	}
	sid := snap.SessionID
	d.shutdown()
	d.start()
	b := d.connect()
	if _, err := b.ResumeSession(ctx, protocol.SessionResumeParams{SessionID: &sid}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Submit(ctx, protocol.PromptSubmitParams{SessionID: sid, SubmissionID: ptr("k1"), Text: "hi"}); err != nil {
		t.Fatal(err)
	}
	info, err := b.SessionInfo(ctx, sid)
	if err != nil || info.PausedReason != "launch_credentials_unavailable" {
		t.Fatalf("paused reason: %+v %v", info, err)
	}
	if len(d.model.Requests()) != 0 {
		t.Fatal("a model request went out without the launch key")
	}
	if _, err := b.ResumeSession(ctx, protocol.SessionResumeParams{SessionID: &sid, APIKey: ptr("sk-other")}); reason(err) != "admission_conflict" {
		t.Fatalf("different key: %v", err)
	}
	if _, err := b.ResumeSession(ctx, protocol.SessionResumeParams{SessionID: &sid, APIKey: ptr("sk-launch-1")}); err != nil {
		t.Fatal(err)
	}
	awaitComplete(t, ctx, b, "ok Bearer sk-launch-1")
}

func awaitComplete(t *testing.T, ctx context.Context, c interface {
	AwaitEvent(context.Context, func(protocol.Event) bool) (protocol.Event, error)
}, text string) {
	t.Helper()
	_, err := c.AwaitEvent(ctx, func(e protocol.Event) bool {
		if e.Type != protocol.EventMessageComplete {
			return false
		}
		var p protocol.MessageCompletePayload
		_ = json.Unmarshal(e.Payload, &p)
		return p.Text == text
	})
	if err != nil {
		t.Fatalf("awaiting %q: %v", text, err)
	}
}

func statuses(p []protocol.PendingAdmission) string {
	s := ""
	for i, a := range p {
		if i > 0 {
			s += ","
		}
		s += a.Status
	}
	return s
}

func countText(reqs []*modeltest.Request, text string) int {
	n := 0
	for _, r := range reqs {
		if r.LastUserText() == text {
			n++
		}
	}
	return n
}
