package lifecycle

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/hermes-gateway/hermes/internal/control"
	gt "github.com/hermes-gateway/hermes/internal/gatewaytest"
	"github.com/hermes-gateway/hermes/internal/modeltest"
	"github.com/hermes-gateway/hermes/internal/protocol"
)

// TestGracefulStopLetsToolFinish: F13, the tool ends within the deadline.
// SIGTERM arrives while the tool runs (it waits on a gate file the test
// creates after probing the drain window): session.create and
// prompt.submit answer runtime_draining and write nothing, the queued
// follower does not start, the process exits 0 within shutdown_timeout
// with the WAL checkpointed, the turn is terminal/completed, and the
// follower runs exactly once after the restart.
func TestGracefulStopLetsToolFinish(t *testing.T) {
	t.Parallel()
	const deadline = 5 * time.Second
	s := newScenario(t, "5s")
	l := s.f.Ledger
	// Tools see a private /tmp: the gate lives beside the ledger, which the
	// fixture makes a sandbox writable root (so the tool sees the test's file).
	gate := filepath.Join(filepath.Dir(l.Path), "gate")
	finish := l.Command("finish") + "; until [ -e " + gate + " ]; do sleep 0.02; done; sleep 0.3; echo done"
	s.f.Turns.Set("FINISH", modeltest.ToolCall("terminal", gt.TerminalArgs(finish)), modeltest.Text("finished"))
	s.f.Turns.Set("FOLLOW", modeltest.ToolCall("terminal", gt.TerminalArgs(l.Command("follow"))), modeltest.Text("followed"))
	d := s.start()
	sid := s.create("graceful")
	running := gt.Submit(t, s.v, sid, "finish", "FINISH")
	gt.Await(t, wait, func() bool { return ledgerHas(l, "finish") })
	follow := gt.Submit(t, s.v, sid, "follow", "FOLLOW")

	sent := time.Now()
	if err := d.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	awaitState(t, d, "draining")
	s.refusedWhileDraining(sid)
	gt.WriteFile(t, gate, "")
	if code := d.Wait(); code != 0 {
		t.Errorf("SIGTERM: exit code %d, want 0", code)
	}
	if took := time.Since(sent); took > deadline {
		t.Errorf("exit %v after SIGTERM, want within shutdown_timeout %v", took, deadline)
	}
	checkCheckpointed(t, s.f.Home)
	db := gt.OpenDB(t, s.f.Home)
	gt.CheckIntegrity(t, db)
	rows := gt.ByRequest(t, gt.Admissions(t, db))
	if r := rows["finish"]; r.Status != protocol.StatusTerminal || r.Outcome.String != protocol.OutcomeCompleted {
		t.Errorf("the turn that ended within the deadline: %s/%s, want terminal/completed", r.Status, r.Outcome.String)
	}
	if r := rows["follow"]; r.Status != protocol.StatusQueued {
		t.Errorf("the follower: %s, want queued (a draining daemon starts nothing)", r.Status)
	}
	if n := len(rows); n != 2 {
		t.Errorf("%d admission rows, want 2 (nothing admitted while draining)", n)
	}
	if n := gt.Count(t, db, `SELECT count(*) FROM sessions`); n != 1 {
		t.Errorf("%d session rows, want 1 (nothing created while draining)", n)
	}
	_ = db.Close()
	if gt.FirstRequests(s.f.Model, "FOLLOW") != 0 || l.Count(t, "follow") != 0 {
		t.Errorf("the follower started during the drain")
	}

	s.start()
	s.awaitStatus(sid, follow.AdmissionID, protocol.StatusTerminal)
	if rc := s.receipt(sid, running.AdmissionID); rc.Status != protocol.StatusTerminal || rc.Outcome == nil || *rc.Outcome != protocol.OutcomeCompleted {
		t.Errorf("after restart the finished turn is %s/%v, want terminal/completed", rc.Status, rc.Outcome)
	}
	for _, id := range []string{"finish", "follow"} {
		if n := l.Count(t, id); n != 1 {
			t.Errorf("%s executed %d times, want exactly 1", id, n)
		}
	}
	for _, p := range []string{"FINISH", "FOLLOW"} {
		if n := gt.FirstRequests(s.f.Model, p); n != 1 {
			t.Errorf("%s started %d times, want 1", p, n)
		}
	}
	if code := s.f.D.Stop(); code != 0 {
		t.Errorf("final SIGTERM: exit code %d, want 0", code)
	}
}

// refusedWhileDraining: during the drain window an open connection gets
// runtime_draining for session.create and prompt.submit.
func (s *scenario) refusedWhileDraining(sid string) {
	t := s.t
	t.Helper()
	dir := t.TempDir()
	_, err := s.v.CreateSession(gt.Context(t, wait), protocol.SessionCreateParams{RequestID: gt.Ptr("while-draining"), Cwd: &dir})
	if gt.Reason(err) != protocol.ReasonRuntimeDraining {
		t.Errorf("session.create while draining: %v, want runtime_draining", err)
	}
	if _, err := gt.TrySubmit(s.v, sid, "while-draining", "DRAINING"); gt.Reason(err) != protocol.ReasonRuntimeDraining {
		t.Errorf("prompt.submit while draining: %v, want runtime_draining", err)
	}
}

// TestGracefulStopCutsTool: F13, the tool outlives the deadline. With
// shutdown_timeout 300ms a `sleep 30` is interrupted: the daemon exits 0
// well before the sleep would end, the tool's process group is gone, the
// row is unknown after the restart (it was really cut) and the command
// never runs again.
func TestGracefulStopCutsTool(t *testing.T) {
	t.Parallel()
	s := newScenario(t, "300ms")
	l := s.f.Ledger
	s.f.Turns.Set("CUT", modeltest.ToolCall("terminal", gt.TerminalArgs(l.Command("cut")+"; sleep 30")), modeltest.Text("never"))
	d := s.start()
	sid := s.create("cut")
	cut := gt.Submit(t, s.v, sid, "cut", "CUT")
	pgid := awaitToolGroup(t, d.PID(), "sleep 30")
	follow := gt.Submit(t, s.v, sid, "follow", "FOLLOW")

	sent := time.Now()
	if err := d.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := d.Wait(); code != 0 {
		t.Errorf("SIGTERM: exit code %d, want 0", code)
	}
	if took := time.Since(sent); took > 2*time.Second {
		t.Errorf("exit %v after SIGTERM with shutdown_timeout 300ms, want within 2s", took)
	}
	awaitGroupGone(t, pgid, time.Second)
	checkCheckpointed(t, s.f.Home)
	db := gt.OpenDB(t, s.f.Home)
	gt.CheckIntegrity(t, db)
	rows := gt.ByRequest(t, gt.Admissions(t, db))
	if r := rows["cut"]; r.Status != protocol.StatusStarted {
		t.Errorf("the cut turn after the stop: %s, want started (not settled: it was cut)", r.Status)
	}
	_ = db.Close()

	s.start()
	if rc := s.receipt(sid, cut.AdmissionID); rc.Status != protocol.StatusUnknown {
		t.Errorf("the cut turn after restart: %s, want unknown", rc.Status)
	}
	if rc := s.receipt(sid, follow.AdmissionID); rc.Status != protocol.StatusQueued {
		t.Errorf("its follower after restart: %s, want queued behind the unknown row", rc.Status)
	}
	if n := gt.FirstRequests(s.f.Model, "CUT"); n != 1 {
		t.Errorf("CUT started %d times, want 1", n)
	}
	if n := l.Count(t, "cut"); n != 1 {
		t.Errorf("the cut command ran %d times, want 1", n)
	}
	if code := s.f.D.Stop(); code != 0 {
		t.Errorf("final SIGTERM: exit code %d, want 0", code)
	}
}

// awaitState polls identify on the control socket until the daemon reports
// state.
func awaitState(t *testing.T, d *gt.Daemon, state string) {
	t.Helper()
	gt.Await(t, wait, func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		var id control.Identity
		return control.Call(ctx, d.Socket(), "identify", nil, &id) == nil && id.State == state
	})
}

// checkCheckpointed: after a clean stop state.db-wal is absent or empty.
func checkCheckpointed(t *testing.T, home string) {
	t.Helper()
	fi, err := os.Stat(filepath.Join(home, "state.db-wal"))
	switch {
	case os.IsNotExist(err):
	case err != nil:
		t.Fatal(err)
	case fi.Size() != 0:
		t.Errorf("state.db-wal has %d bytes after a clean stop, want 0 (checkpointed)", fi.Size())
	}
}

// ledgerHas reports whether the ledger holds id (safe inside Await).
func ledgerHas(l *gt.Ledger, id string) bool {
	b, err := os.ReadFile(l.Path)
	return err == nil && bytes.Contains(append([]byte("\n"), b...), []byte("\n"+id+"\n"))
}
