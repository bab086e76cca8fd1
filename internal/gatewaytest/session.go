package gatewaytest

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/hermes-gateway/hermes/internal/protocol"
	"github.com/hermes-gateway/hermes/internal/rpc"
)

// CallTimeout bounds the one-line call helpers below.
const CallTimeout = 15 * time.Second

// Ptr returns a pointer to v (for optional params).
func Ptr[T any](v T) *T { return &v }

// Reason is the domain reason of a call error ("" for nil or a non-RPC error).
func Reason(err error) protocol.Reason {
	var ce *rpc.CallError
	if errors.As(err, &ce) {
		if ce.Reason != "" {
			return ce.Reason
		}
		return protocol.Reason(ce.Message)
	}
	return ""
}

// Cwd makes a fresh directory to use as a session cwd, with symlinks
// resolved (the gateway stores the canonical path, so tests compare with it).
func Cwd(t testing.TB) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// Create calls session.create and fails t on error.
func Create(t testing.TB, v *Recorder, p protocol.SessionCreateParams) protocol.Snapshot {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), CallTimeout)
	defer cancel()
	snap, err := v.CreateSession(ctx, p)
	if err != nil {
		t.Fatalf("session.create: %v", err)
	}
	return snap
}

// Resume calls session.resume {session_id} and fails t on error.
func Resume(t testing.TB, v *Recorder, sid string) protocol.Snapshot {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), CallTimeout)
	defer cancel()
	snap, err := v.ResumeSession(ctx, protocol.SessionResumeParams{SessionID: &sid})
	if err != nil {
		t.Fatalf("session.resume %s: %v", sid, err)
	}
	return snap
}

// Submit calls prompt.submit and fails t on error.
func Submit(t testing.TB, v *Recorder, sid, submissionID, text string) protocol.Receipt {
	t.Helper()
	rc, err := TrySubmit(v, sid, submissionID, text)
	if err != nil {
		t.Fatalf("prompt.submit %s: %v", submissionID, err)
	}
	return rc
}

// TrySubmit calls prompt.submit and returns its error.
func TrySubmit(v *Recorder, sid, submissionID, text string) (protocol.Receipt, error) {
	ctx, cancel := context.WithTimeout(context.Background(), CallTimeout)
	defer cancel()
	return v.Submit(ctx, protocol.PromptSubmitParams{SessionID: sid, SubmissionID: &submissionID, Text: text})
}

// Receipt calls prompt.receipt and fails t on error.
func Receipt(t testing.TB, v *Recorder, sid, admissionID string) protocol.Receipt {
	t.Helper()
	rc, err := tryReceipt(v, sid, admissionID)
	if err != nil {
		t.Fatalf("prompt.receipt %s: %v", admissionID, err)
	}
	return rc
}

func tryReceipt(v *Recorder, sid, admissionID string) (protocol.Receipt, error) {
	ctx, cancel := context.WithTimeout(context.Background(), CallTimeout)
	defer cancel()
	return v.Receipt(ctx, protocol.AdmissionParams{SessionID: sid, AdmissionID: admissionID})
}

// AwaitStatus polls prompt.receipt until the admission has status and
// returns that receipt.
func AwaitStatus(t testing.TB, v *Recorder, sid, admissionID, status string, timeout time.Duration) protocol.Receipt {
	t.Helper()
	var rc protocol.Receipt
	Await(t, timeout, func() bool {
		r, err := tryReceipt(v, sid, admissionID)
		rc = r
		return err == nil && r.Status == status
	})
	return rc
}

// AwaitComplete waits for message.complete of admissionID and returns its payload.
func AwaitComplete(t testing.TB, v *Recorder, admissionID string, timeout time.Duration) protocol.MessageCompletePayload {
	t.Helper()
	ev := v.Await(t, timeout, Completed(admissionID))
	return Payload[protocol.MessageCompletePayload](t, ev)
}

// AwaitPrompt waits for the first approval.request or clarify.request
// event on v and returns it as a snapshot prompt.
func AwaitPrompt(t testing.TB, v *Recorder, timeout time.Duration) protocol.Prompt {
	t.Helper()
	ev := v.Await(t, timeout, func(ev protocol.Event) bool {
		return ev.Type == protocol.EventApprovalRequest || ev.Type == protocol.EventClarifyRequest
	})
	p := Payload[protocol.Prompt](t, ev)
	if p.Kind == "" {
		p.Kind = map[string]string{protocol.EventApprovalRequest: "approval", protocol.EventClarifyRequest: "clarify"}[ev.Type]
	}
	return p
}
