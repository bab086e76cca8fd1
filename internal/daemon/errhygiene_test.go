package daemon

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hermes-gateway/hermes/internal/modeltest"
	"github.com/hermes-gateway/hermes/internal/protocol"
	"github.com/hermes-gateway/hermes/internal/rpc"
)

// upstreamLeak is an upstream error body that echoes an endpoint URL with
// credentials and a key: none of it may reach a client or the log as is.
const upstreamLeak = `{"error":{"message":"denied for https://admin:hunter2@billing.example/acct?sig=QQQ key sk-upstream-leak-42","type":"auth_error"}}`

// TestModelErrorsNeverLeak (issue 10 item 4): a failed compression is
// model_unavailable (5002), not storage_unavailable, and neither its detail,
// the failed turn's message.complete error nor the log carry upstream text.
func TestModelErrorsNeverLeak(t *testing.T) {
	t.Parallel()
	d := startTest(t, "compression: {enabled: true, threshold: 0.99, protect_first_n: 1, protect_last_n: 1}\n")
	ctx := ctxT(t)
	cwd := t.TempDir()
	var fail atomic.Bool
	d.model.Handle(func(r *modeltest.Request) modeltest.Reply {
		if fail.Load() {
			return modeltest.Reply{Status: 401, ErrorBody: upstreamLeak}
		}
		return modeltest.Text("answer " + r.LastUserText())
	})
	c := d.connect()
	snap, err := c.CreateSession(ctx, protocol.SessionCreateParams{RequestID: ptr("leak"), Cwd: &cwd, Toolsets: &[]string{}})
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
	if err != nil {
		t.Fatal(err)
	}
	fail.Store(true)
	_, err = c.MutateSession(ctx, protocol.SessionMutateParams{SessionID: sid, RequestID: "m1", ExpectedRevision: res.Revision, Operation: "compress"})
	var ce *rpc.CallError
	if !errors.As(err, &ce) || ce.Reason != protocol.ReasonModelUnavailable || ce.Code != protocol.CodeModel {
		t.Fatalf("compress: %v", err)
	}
	assertNoLeak(t, "compress detail", ce.Detail+ce.Message)

	if _, err := c.Submit(ctx, protocol.PromptSubmitParams{SessionID: sid, SubmissionID: ptr("d"), Text: "qd"}); err != nil {
		t.Fatal(err)
	}
	ev, err := c.AwaitEvent(ctx, func(e protocol.Event) bool { return e.Type == protocol.EventMessageComplete })
	if err != nil {
		t.Fatal(err)
	}
	var mc protocol.MessageCompletePayload
	_ = json.Unmarshal(ev.Payload, &mc)
	if mc.Outcome != protocol.OutcomeFailed || !strings.Contains(mc.Error, "HTTP 401") {
		t.Fatalf("message.complete: %+v", mc)
	}
	assertNoLeak(t, "message.complete", string(ev.Payload))
	d.shutdown()
	logText, err := os.ReadFile(filepath.Join(d.home, "logs", "gateway.log"))
	if err != nil {
		t.Fatal(err)
	}
	for _, leak := range []string{"hunter2", "sig=QQQ", "sk-upstream-leak-42"} {
		if strings.Contains(string(logText), leak) {
			t.Errorf("the log holds %q", leak)
		}
	}
}

func assertNoLeak(t *testing.T, where, s string) {
	t.Helper()
	for _, leak := range []string{"billing.example", "hunter2", "sk-upstream", "denied for", "127.0.0.1", "http"} {
		if strings.Contains(s, leak) {
			t.Errorf("%s holds %q: %s", where, leak, s)
		}
	}
}
