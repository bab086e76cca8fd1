package checkpoint

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	gt "github.com/hermes-gateway/hermes/internal/gatewaytest"
	"github.com/hermes-gateway/hermes/internal/modeltest"
	"github.com/hermes-gateway/hermes/internal/protocol"
)

// TestRewindWhileTurnRunsIsBusy: a rewind of any mode, forced or not, while
// a turn runs (held by the model after its write) is refused with
// session_busy and changes nothing: not the tree, not the checkpoints, no
// session.rewound. Once the turn is over the same rewind goes through.
func TestRewindWhileTurnRunsIsBusy(t *testing.T) {
	t.Parallel()
	needGit(t)
	cwd := gt.Cwd(t)
	seed(t, cwd)
	e := start(t, cwd, true)
	e.f.Turns.Set("first", modeltest.ToolCall("write_file", writeArgs("a.txt", "first turn\n")), modeltest.Text("ok"))
	e.turn(t, "t1", "first")
	hold := modeltest.NewBarrier()
	t.Cleanup(hold.Release)
	e.f.Turns.Set("second",
		modeltest.ToolCall("write_file", writeArgs("a.txt", "second turn\n")),
		modeltest.Reply{Text: "SECOND_DONE", Hold: hold})
	rc := gt.Submit(t, e.v, e.sid, "t2", "second")
	// The turn has written and now waits for the model's next reply.
	if err := hold.AwaitWaiting(e.ctx, 1); err != nil {
		t.Fatal(err)
	}
	if got := read(cwd, "a.txt"); got != "second turn\n" {
		t.Fatalf("a.txt = %q while the second turn runs", got)
	}
	before := e.checkpoints(t)
	if len(before) != 2 {
		t.Fatalf("checkpoints while the second turn runs = %+v, want 2", before)
	}
	tree := treeHash(t, cwd)
	for _, target := range before {
		for _, mode := range []string{protocol.RewindFiles, protocol.RewindConversation, protocol.RewindBoth} {
			for _, force := range []bool{false, true} {
				p := protocol.SessionRewindParams{SessionID: e.sid, CheckpointID: target.CheckpointID, Mode: mode}
				if force {
					p.Force = gt.Ptr(true)
				}
				res, err := e.v.Rewind(e.ctx, p)
				if gt.Reason(err) != protocol.ReasonSessionBusy {
					t.Errorf("rewind %s %s force=%v while a turn runs: %+v, %v; want session_busy",
						target.CheckpointID, mode, force, res, err)
				}
			}
		}
	}
	if got := treeHash(t, cwd); got != tree {
		t.Error("a refused rewind changed the tree")
	}
	if d := cmp.Diff(before, e.checkpoints(t)); d != "" {
		t.Errorf("a refused rewind changed the checkpoints (-before +after):\n%s", d)
	}
	if n := e.v.Count(func(ev protocol.Event) bool { return ev.Type == protocol.EventSessionRewound }); n != 0 {
		t.Errorf("%d session.rewound events for refused rewinds", n)
	}
	hold.Release()
	if mc := gt.AwaitComplete(t, e.v, rc.AdmissionID, wait); mc.Outcome != protocol.OutcomeCompleted {
		t.Fatalf("the held turn: outcome %q (%s)", mc.Outcome, mc.Error)
	}
	// The turn ran to its end as if nothing had been asked.
	if got := read(cwd, "a.txt"); got != "second turn\n" {
		t.Errorf("a.txt = %q after the second turn", got)
	}
	res := e.rewind(t, before[0].CheckpointID, protocol.RewindFiles, false)
	if res.Status != protocol.RewindStatusRewound || read(cwd, "a.txt") != "original a\n" {
		t.Errorf("rewind after the turn = %+v, a.txt = %q", res, read(cwd, "a.txt"))
	}
}
