package crash

import (
	"testing"

	gt "github.com/hermes-gateway/hermes/internal/gatewaytest"
	"github.com/hermes-gateway/hermes/internal/protocol"
)

// world is one crash scenario: the fixture (faults binary, fake model,
// ledger, home), the current viewer and the client history.
type world struct {
	t    *testing.T
	f    *gt.Fixture
	v    *gt.Recorder // viewer on the current daemon
	hist history
	dirs map[string]string // request_id → the session cwd (a re-create must repeat it)
}

func newWorld(t *testing.T, cfg gt.Config) *world {
	t.Helper()
	return &world{t: t, f: gt.NewFixture(t, cfg, "faults"), hist: history{}, dirs: map[string]string{}}
}

// start starts a daemon (faults "" = none) and opens a viewer.
func (w *world) start(faults string) *gt.Daemon {
	w.t.Helper()
	var env []string
	if faults != "" {
		env = append(env, "HERMES_FAULTS="+faults)
	}
	d := w.f.Start(env...)
	w.v = d.View(gt.Context(w.t, wait))
	return d
}

// restart starts a fresh daemon without faults after the last one ended.
func (w *world) restart() *gt.Daemon {
	w.t.Helper()
	if w.f.D.Alive() {
		w.t.Fatalf("restart: the previous daemon pid %d still runs", w.f.D.PID())
	}
	return w.start("")
}

// crashed waits for the daemon to die by SIGKILL at its fault point.
func (w *world) crashed() {
	w.t.Helper()
	w.f.D.AwaitCrash(crashWait)
}

// create creates (or re-creates, with the same params) the session of
// requestID.
func (w *world) create(requestID string) string {
	w.t.Helper()
	dir, ok := w.dirs[requestID]
	if !ok {
		dir = gt.Cwd(w.t)
		w.dirs[requestID] = dir
	}
	return gt.Create(w.t, w.v, protocol.SessionCreateParams{RequestID: &requestID, Cwd: &dir}).SessionID
}

// submit records the submission in the history: ok, fail (a domain error:
// definitely not admitted) or info (indeterminate: the daemon died).
func (w *world) submit(sid, sub, text string) (protocol.Receipt, error) {
	w.hist.invoke(sid, sub, text)
	rc, err := gt.TrySubmit(w.v, sid, sub, text)
	w.hist.complete(sub, rc, err)
	return rc, err
}

// mustSubmit is submit that fails the test unless the submission was acked.
func (w *world) mustSubmit(sid, sub, text string) protocol.Receipt {
	w.t.Helper()
	rc, err := w.submit(sid, sub, text)
	if err != nil {
		w.t.Fatalf("prompt.submit %s: %v", sub, err)
	}
	return rc
}

// retryIndeterminate retries every info op with its key (I4) on the
// current daemon, resuming its session first.
func (w *world) retryIndeterminate() {
	w.t.Helper()
	for _, op := range w.hist.ops() {
		if op.state != opInfo {
			continue
		}
		gt.Resume(w.t, w.v, op.sid)
		rc, err := gt.TrySubmit(w.v, op.sid, op.sub, op.text)
		if err != nil {
			w.t.Fatalf("retry of indeterminate %s: %v", op.sub, err)
		}
		w.hist.retried(op.sub, rc)
	}
}

// learn retries the submission sub on the current daemon (idempotent: the
// same receipt when its row exists) so an op whose reply raced a crash
// gets its admission id.
func (w *world) learn(sub string) string {
	w.t.Helper()
	o := w.hist[sub]
	if o.state == opOK {
		return o.admission
	}
	gt.Resume(w.t, w.v, o.sid)
	rc, err := gt.TrySubmit(w.v, o.sid, o.sub, o.text)
	if err != nil {
		w.t.Fatalf("retry of %s: %v", sub, err)
	}
	w.hist.retried(sub, rc)
	return rc.AdmissionID
}

// receipt reads the current receipt of an acked submission.
func (w *world) receipt(sid, admissionID string) protocol.Receipt {
	w.t.Helper()
	return gt.Receipt(w.t, w.v, sid, admissionID)
}

// awaitStatus polls prompt.receipt until the admission has status.
func (w *world) awaitStatus(sid, admissionID, status string) protocol.Receipt {
	w.t.Helper()
	return gt.AwaitStatus(w.t, w.v, sid, admissionID, status, wait)
}
