package lifecycle

import (
	"database/sql"
	"fmt"
	"strings"
	"syscall"
	"testing"

	gt "github.com/hermes-gateway/hermes/internal/gatewaytest"
	"github.com/hermes-gateway/hermes/internal/modeltest"
	"github.com/hermes-gateway/hermes/internal/protocol"
)

// TestStalePausedDaemon: F19, the pause case with work in flight (the
// crash suite's TestEpochFence covers a submission to an idle stale
// daemon). A daemon with a turn held at the model and a queued follower is
// SIGSTOPped; another owner begins a newer epoch in the database; after
// SIGCONT the held reply arrives. The stale daemon writes nothing (every
// table is as the new owner left it), runs neither the held turn's tool
// nor the follower, and refuses submissions; a fresh daemon then finds the
// held row unknown and the follower queued.
func TestStalePausedDaemon(t *testing.T) {
	t.Parallel()
	s := newScenario(t, "")
	l := s.f.Ledger
	hold := modeltest.NewBarrier()
	t.Cleanup(hold.Release)
	s.f.Turns.Set("HELD", modeltest.Reply{ToolCalls: []modeltest.Call{{Name: "terminal", Args: gt.TerminalArgs(l.Command("held"))}}, Hold: hold},
		modeltest.Text("held done"))
	s.f.Turns.Set("FOLLOW", modeltest.ToolCall("terminal", gt.TerminalArgs(l.Command("follow"))), modeltest.Text("followed"))
	d := s.start()
	sid := s.create("stale")
	held := gt.Submit(t, s.v, sid, "held", "HELD")
	if err := hold.AwaitWaiting(gt.Context(t, wait), 1); err != nil {
		t.Fatal(err)
	}
	follow := gt.Submit(t, s.v, sid, "follow", "FOLLOW")

	if err := d.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.Signal(syscall.SIGCONT) })
	gt.Await(t, wait, func() bool { p, ok := readProc(d.PID()); return ok && p.state == 'T' })
	before := takeOver(t, s.f.Home)
	if err := d.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	hold.Release()
	gt.Await(t, wait, func() bool { return strings.Contains(d.Output(), "epoch fenced") })
	// A fenced daemon stops itself (docs/protocol.md#fenced-daemon): exit 3 with a message
	// that says another gateway took over; it joins its executors first, so
	// whatever it would still write has been attempted (and fenced) by then.
	if code := d.Wait(); code != 3 || !strings.Contains(d.Output(), "another gateway took over") {
		t.Errorf("the stale daemon exited %d, want 3 with a take-over message:\n%s", code, d.Output())
	}

	db := gt.OpenDB(t, s.f.Home)
	if after := dump(t, db); after != before {
		t.Errorf("the stale daemon changed the database:\nbefore %s\nafter  %s", before, after)
	}
	_ = db.Close()
	if n := len(l.Lines(t)); n != 0 {
		t.Errorf("the stale daemon ran tools: ledger %v", l.Lines(t))
	}
	if n := gt.FirstRequests(s.f.Model, "FOLLOW"); n != 0 {
		t.Errorf("the stale daemon started the follower (%d model requests)", n)
	}

	s.start()
	if rc := s.receipt(sid, held.AdmissionID); rc.Status != protocol.StatusUnknown {
		t.Errorf("the held turn under the next owner: %s, want unknown", rc.Status)
	}
	if rc := s.receipt(sid, follow.AdmissionID); rc.Status != protocol.StatusQueued {
		t.Errorf("the follower under the next owner: %s, want queued", rc.Status)
	}
}

// takeOver begins a newer epoch from outside (what another owner's start
// does) and returns the database's rows as that owner left them.
func takeOver(t *testing.T, home string) string {
	t.Helper()
	db := gt.OpenDBWritable(t, home)
	defer db.Close()
	if _, err := db.Exec(`UPDATE runtime_epoch SET epoch = epoch + 1, instance_id = 'usurper'`); err != nil {
		t.Fatal(err)
	}
	return dump(t, db)
}

// dump renders every admission row and the size of every table a daemon
// writes, for before/after comparison.
func dump(t *testing.T, db *sql.DB) string {
	t.Helper()
	var b strings.Builder
	for _, a := range gt.Admissions(t, db) {
		fmt.Fprintf(&b, "%s=%s/%s/e%d/g%v ", a.RequestID, a.Status, a.Outcome.String, a.OwnerEpoch, a.Generation.Int64)
	}
	for _, table := range []string{"sessions", "messages", "state_meta", "gateway_routing", "runtime_epoch",
		"session_admissions", "admission_results", "session_events", "session_mutations"} {
		fmt.Fprintf(&b, "%s:%d ", table, gt.Count(t, db, "SELECT count(*) FROM "+table))
	}
	var epoch int64
	var instance string
	if err := db.QueryRow(`SELECT epoch, instance_id FROM runtime_epoch`).Scan(&epoch, &instance); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&b, "epoch:%d/%s", epoch, instance)
	return b.String()
}
