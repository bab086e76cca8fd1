package crash

import (
	"testing"

	"github.com/hermes-gateway/hermes/internal/faults"
	gt "github.com/hermes-gateway/hermes/internal/gatewaytest"
	"github.com/hermes-gateway/hermes/internal/modeltest"
	"github.com/hermes-gateway/hermes/internal/protocol"
)

// TestLaunchKeyAfterRestart: docs/protocol.md#launch-keys. A launch api_key does not survive a
// restart: the FIFO pauses (launch_credentials_unavailable, no model
// request, no settlement, no fallback to the profile key) until a viewer
// re-supplies the same key; another key is admission_conflict. The key is
// never at rest.
func TestLaunchKeyAfterRestart(t *testing.T) {
	t.Parallel()
	const key, profileKey = "sk-launch-canary-7f3a9c", "sk-profile-canary-51be"
	w := newWorld(t, gt.Config{APIKeyEnv: "OPENAI_API_KEY"})
	gt.WriteFile(t, w.f.Home+"/.env", "OPENAI_API_KEY="+profileKey+"\n")
	w.f.Turns.Set("KEYED_QUEUED", modeltest.Text("ran with the key"))
	w.start(faults.ClaimBeforeCommit + "@2")
	dir := gt.Cwd(w.t)
	sid := gt.Create(t, w.v, protocol.SessionCreateParams{RequestID: gt.Ptr("keyed"), Cwd: &dir, APIKey: gt.Ptr(key)}).SessionID
	first := w.mustSubmit(sid, "k1", "KEYED_FIRST")
	gt.AwaitComplete(t, w.v, first.AdmissionID, wait)
	w.submit(sid, "k2", "KEYED_QUEUED") // the reply races the claim crash: ok or info
	w.crashed()

	w.restart()
	snap := gt.Resume(t, w.v, sid)
	if snap.Info.PausedReason != string(protocol.ReasonLaunchCredentials) {
		t.Errorf("paused_reason %q, want %s", snap.Info.PausedReason, protocol.ReasonLaunchCredentials)
	}
	if rc := w.receipt(sid, w.learn("k2")); rc.Status != protocol.StatusQueued {
		t.Errorf("k2 status %q while paused, want queued", rc.Status)
	}
	if n := gt.FirstRequests(w.f.Model, "KEYED_QUEUED"); n != 0 {
		t.Errorf("%d model requests while paused, want 0", n)
	}
	other := "sk-other-canary-0000"
	if _, err := w.v.ResumeSession(gt.Context(t, wait), protocol.SessionResumeParams{SessionID: &sid, APIKey: &other}); gt.Reason(err) != protocol.ReasonAdmissionConflict {
		t.Errorf("resume with another key: %v, want admission_conflict", err)
	}
	if _, err := w.v.ResumeSession(gt.Context(t, wait), protocol.SessionResumeParams{SessionID: &sid, APIKey: gt.Ptr(key)}); err != nil {
		t.Fatalf("resume with the launch key: %v", err)
	}
	w.awaitStatus(sid, w.hist["k2"].admission, protocol.StatusTerminal)
	for _, r := range w.f.Model.Requests() {
		if got := r.Header.Get("Authorization"); got != "Bearer "+key {
			t.Errorf("request %d (%q) sent %q, want the launch key", r.N, r.LastUserText(), got)
		}
	}
	w.check(expect{status: map[string]string{"k1": "terminal", "k2": "terminal"},
		first: map[string]int{"KEYED_FIRST": 1, "KEYED_QUEUED": 1}, secrets: []string{key, other, profileKey}})
}
