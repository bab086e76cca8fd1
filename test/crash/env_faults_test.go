package crash

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	gt "github.com/hermes-gateway/hermes/internal/gatewaytest"
	"github.com/hermes-gateway/hermes/internal/modeltest"
	"github.com/hermes-gateway/hermes/internal/protocol"
)

// lockHold is how long the external writer of F14 holds the write lock:
// a deliberate hold below the store's busy_timeout, not a wait.
const lockHold = 2 * time.Second

// ackAfterRelease bounds how long after the external writer's ROLLBACK a
// waiting submission is acknowledged: SQLite's busy handler retries every
// 100 ms (after its first second of waiting), then the commits themselves
// (measured: ~45 ms); the rest is margin for a loaded machine. A daemon
// that waits out its busy_timeout takes seconds.
const ackAfterRelease = 250 * time.Millisecond

// TestWriterContention: F14. An external writer holds BEGIN IMMEDIATE;
// reads (session.resume) are served meanwhile, submissions wait (no ACK
// while the lock is held) and all commit right after the release; no
// partial rows.
//
// Every viewer resumes before the first submission: a submission waiting
// for the write lock holds its session's hub lock (events.Hub.Commit), and
// session.resume of that session waits for it (Hub.Subscribe), so a resume
// on the test goroutine after a submission would block the very goroutine
// that has to release the lock, until the daemon's busy_timeout fails the
// submission.
func TestWriterContention(t *testing.T) {
	t.Parallel()
	w := newWorld(t, gt.Config{})
	d := w.start("")
	sid := w.create("busy")
	db := gt.OpenDBWritable(t, w.f.Home)
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(context.Background(), "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	locked := time.Now()
	subs := []string{"b1", "b2", "b3"}
	viewers := make([]*gt.Recorder, len(subs))
	for i := range subs {
		viewers[i] = gt.Record(d.Connect(gt.Context(t, wait)))
		start := time.Now()
		gt.Resume(t, viewers[i], sid)
		if took := time.Since(start); took > time.Second {
			t.Errorf("session.resume took %v while an external writer held the lock (reads must not wait)", took)
		}
	}
	type result struct {
		sub string
		rc  protocol.Receipt
		err error
		at  time.Time
	}
	results := make(chan result, len(subs))
	var wg sync.WaitGroup
	for i, sub := range subs {
		v := viewers[i]
		wg.Go(func() {
			rc, err := gt.TrySubmit(v, sid, sub, "BUSY "+sub)
			results <- result{sub, rc, err, time.Now()}
		})
	}
	<-time.After(time.Until(locked.Add(lockHold)))
	released := time.Now() // taken before ROLLBACK: nothing may be acked earlier
	if _, err := conn.ExecContext(context.Background(), "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	if held := released.Sub(locked); held > lockHold+time.Second {
		t.Errorf("the external writer released the lock after %v, planned %v: the test goroutine was blocked", held, lockHold)
	}
	_ = conn.Close()
	_ = db.Close()
	probeWriteLock(t, w.f.Home)
	wg.Wait()
	close(results)
	for r := range results {
		w.hist.invoke(sid, r.sub, "BUSY "+r.sub)
		w.hist.complete(r.sub, r.rc, r.err)
		after := r.at.Sub(released)
		t.Logf("%s: answered %v after the release (err %v)", r.sub, after, r.err)
		switch {
		case r.err != nil:
			t.Errorf("%s: not acked: %v (the lock was free again after %v)", r.sub, r.err, lockHold)
		case after < 0:
			t.Errorf("%s acked %v before the external writer released the lock", r.sub, -after)
		case after > ackAfterRelease:
			t.Errorf("%s acked %v after the release, want within %v", r.sub, after, ackAfterRelease)
		}
	}
	w.check(expect{})
}

// probeWriteLock takes and releases the write lock from the test process:
// the external writer's lock is really gone.
func probeWriteLock(t *testing.T, home string) {
	t.Helper()
	start := time.Now()
	db := gt.OpenDBWritable(t, home)
	defer db.Close()
	tx, err := db.Begin()
	if err != nil {
		t.Fatalf("probe: the write lock is still held: %v", err)
	}
	_ = tx.Rollback()
	t.Logf("probe: write lock free after %v", time.Since(start))
}

// TestTwoDaemons: F19. A second daemon on the same home (also through a
// symlinked path, also while the first is SIGSTOPped) exits 3; the first
// serves on after SIGCONT; after a SIGKILL a restart takes over.
func TestTwoDaemons(t *testing.T) {
	t.Parallel()
	w := newWorld(t, gt.Config{})
	d := w.start("")
	link := filepath.Join(filepath.Dir(w.f.Home), "alias")
	if err := os.Symlink(w.f.Home, link); err != nil {
		t.Fatal(err)
	}
	if err := d.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.Signal(syscall.SIGCONT) })
	for _, home := range []string{w.f.Home, link} {
		second := gt.Launch(t, w.f.Bin, home)
		if code := second.Wait(); code != 3 {
			t.Errorf("second daemon on %s: exit %d, want 3\n%s", home, code, second.Output())
		}
	}
	if err := d.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Status(gt.Context(t, wait)); err != nil {
		t.Errorf("the first daemon does not serve after SIGCONT: %v", err)
	}
	epoch := d.Identity().AuthorityEpoch
	d.Kill()
	if got := w.restart().Identity().AuthorityEpoch; got <= epoch {
		t.Errorf("epoch after takeover %d, want > %d", got, epoch)
	}
	w.check(expect{})
}

// TestEpochFence: F19 (pause case). When another owner has begun a newer
// epoch in the database, the old daemon's writes affect nothing: its
// submissions are refused without an ACK and leave no row.
func TestEpochFence(t *testing.T) {
	t.Parallel()
	w := newWorld(t, gt.Config{})
	w.start("")
	sid := w.create("fence")
	db := gt.OpenDBWritable(t, w.f.Home)
	if _, err := db.Exec(`UPDATE runtime_epoch SET epoch = epoch + 1, instance_id = 'usurper'`); err != nil {
		t.Fatal(err)
	}
	_ = db.Close()
	if rc, err := w.submit(sid, "fenced", "FENCED"); err == nil {
		t.Errorf("a stale-epoch daemon acked a submission: %+v", rc)
	}
	if n := gt.FirstRequests(w.f.Model, "FENCED"); n != 0 {
		t.Errorf("the stale daemon ran the fenced submission")
	}
	w.f.D.Kill()
	rdb := gt.OpenDB(t, w.f.Home)
	if n := gt.Count(t, rdb, `SELECT count(*) FROM session_admissions`); n != 0 {
		t.Errorf("%d admission rows written under a stale epoch", n)
	}
	_ = rdb.Close()
	w.restart()
	w.check(expect{})
}

// TestModelEndpointFaults: F22. HTTP 500, a reset mid-stream after a tool
// ran, and a stream that never ends (interrupted by the user; in the soak
// form also left to the model idle timeout) each end in a defined terminal
// state; the tool is never re-run; followers proceed.
func TestModelEndpointFaults(t *testing.T) {
	t.Parallel()
	w := newWorld(t, gt.Config{Streaming: true})
	l := w.f.Ledger
	w.f.Turns.Set("F500", gt.Failing(), gt.Failing(), gt.Failing(), gt.Failing(), gt.Failing())
	w.f.Turns.Set("FRESET", modeltest.ToolCall("terminal", gt.TerminalArgs(l.Command("reset-tool"))),
		modeltest.Reply{Text: "a long answer cut by a reset", Chunk: 2, ResetAfterChunks: 2})
	w.f.Turns.Set("FNEVER", modeltest.ToolCall("terminal", gt.TerminalArgs(l.Command("never-tool"))),
		modeltest.Reply{Text: "endless", NeverEnd: true})
	w.start("")
	sid := w.create("f22")
	for _, p := range []string{"F500", "FRESET"} {
		rc := w.mustSubmit(sid, p, p)
		if out := gt.AwaitComplete(t, w.v, rc.AdmissionID, wait); out.Outcome != protocol.OutcomeFailed {
			t.Errorf("%s: outcome %q, want failed", p, out.Outcome)
		}
	}
	never := w.mustSubmit(sid, "FNEVER", "FNEVER")
	w.endNeverEnding(sid, never)
	after := w.mustSubmit(sid, "AFTER", "AFTER")
	w.awaitStatus(sid, after.AdmissionID, protocol.StatusTerminal)
	// F500 is retried before any output (model retry policy: 1 + 2 retries).
	w.check(expect{ledger: map[string]int{"reset-tool": 1, "never-tool": 1}, first: map[string]int{"F500": 3},
		status: map[string]string{"F500": "terminal", "FRESET": "terminal", "FNEVER": "terminal", "AFTER": "terminal"}})
}

// endNeverEnding waits until the endless stream is in flight, then either
// interrupts the turn (CI) or waits out the model idle timeout (soak).
func (w *world) endNeverEnding(sid string, rc protocol.Receipt) {
	t := w.t
	gt.Await(t, wait, func() bool { return len(gt.RequestsFor(w.f.Model, "FNEVER")) >= 2 })
	want := protocol.OutcomeFailed
	timeout := 3 * time.Minute
	if !soak() {
		want, timeout = protocol.OutcomeInterrupted, wait
		snap := gt.Resume(t, w.v, sid)
		if _, err := w.v.InterruptSession(gt.Context(t, wait), protocol.SessionInterruptParams{SessionID: sid,
			ExecutionGeneration: snap.ExecutionGeneration}); err != nil {
			t.Fatalf("session.interrupt: %v", err)
		}
	}
	if out := gt.AwaitComplete(t, w.v, rc.AdmissionID, timeout); out.Outcome != want {
		t.Errorf("endless stream: outcome %q, want %q", out.Outcome, want)
	}
}
