package crash

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/hermes-gateway/hermes/internal/faults"
	gt "github.com/hermes-gateway/hermes/internal/gatewaytest"
	"github.com/hermes-gateway/hermes/internal/modeltest"
	"github.com/hermes-gateway/hermes/internal/protocol"
)

// execCase is a crash inside the execution of the "target" admission,
// which runs after a completed "warm" one and before a queued "follower".
type execCase struct {
	point     string // fault point
	nth       int    // hit number of the target's crash (the warm turn hits first)
	dangerous bool   // the target's command needs an approval
	respond   bool   // answer the approval (before the crash)
	unknown   bool   // the target is unknown after restart (else it runs once then)
	effects   int    // -1 = 0 or 1 (a race with the crash), else exact ledger count of the target
	modelReqs int    // first model requests for the target before resolution
}

var execCases = []execCase{
	{point: faults.ClaimBeforeCommit, nth: 2, effects: 1, modelReqs: 1},
	{point: faults.ClaimAfterCommit, nth: 2, unknown: true, effects: 0, modelReqs: 0},
	{point: faults.ModelAfterRequest, nth: 3, unknown: true, effects: 0, modelReqs: 1},
	{point: faults.ToolAfterStart, nth: 2, unknown: true, effects: -1, modelReqs: 1},
	{point: faults.ApprovalAfterRequest, nth: 1, dangerous: true, unknown: true, effects: 0, modelReqs: 1},
	{point: faults.ApprovalAfterResponse, nth: 1, dangerous: true, respond: true, unknown: true, effects: 0, modelReqs: 1},
	{point: faults.ToolAfterExit, nth: 2, unknown: true, effects: 1, modelReqs: 1},
	{point: faults.SettleBeforeCommit, nth: 2, unknown: true, effects: 1, modelReqs: 1},
}

func TestExecutionFaultPoints(t *testing.T) {
	t.Parallel()
	for _, c := range execCases {
		t.Run(c.point, func(t *testing.T) {
			t.Parallel()
			runExecCase(t, c)
		})
	}
}

// script sets the three turns; the warm turn's first request is held so
// target and follower are queued behind it.
func (w *world) scriptExec(dangerous bool, hold *modeltest.Barrier) (owned string) {
	l := w.f.Ledger
	w.f.Turns.Set("WARM", modeltest.Reply{ToolCalls: []modeltest.Call{{Name: "terminal", Args: gt.TerminalArgs(l.Command("warm"))}}, Hold: hold},
		modeltest.Text("warm done"))
	target := l.Command("target")
	if dangerous {
		owned = filepath.Join(w.t.TempDir(), "owned")
		if err := os.Mkdir(owned, 0o700); err != nil {
			w.t.Fatal(err)
		}
		target = "rm -r -- " + owned + "; " + target
	}
	w.f.Turns.Set("TARGET", modeltest.ToolCall("terminal", gt.TerminalArgs(target)), modeltest.Text("target done"))
	w.f.Turns.Set("FOLLOWER", modeltest.ToolCall("terminal", gt.TerminalArgs(l.Command("follower"))), modeltest.Text("follower done"))
	return owned
}

func runExecCase(t *testing.T, c execCase) {
	w := newWorld(t, gt.Config{})
	hold := modeltest.NewBarrier()
	t.Cleanup(hold.Release)
	owned := w.scriptExec(c.dangerous, hold)
	w.start(faultSpec(c.point, c.nth))
	sid := w.create("exec")
	warm := w.mustSubmit(sid, "warm", "WARM")
	if err := hold.AwaitWaiting(gt.Context(t, wait), 1); err != nil {
		t.Fatal(err)
	}
	target := w.mustSubmit(sid, "target", "TARGET")
	w.mustSubmit(sid, "follower", "FOLLOWER")
	hold.Release()
	_ = warm // its completion may race with the crash; checked after restart
	if c.respond {
		p := gt.AwaitPrompt(t, w.v, wait)
		_, _ = w.v.RespondApproval(gt.Context(t, wait), protocol.ApprovalRespondParams{SessionID: sid,
			ExecutionGeneration: p.ExecutionGeneration, PromptID: p.PromptID, Choice: protocol.ChoiceOnce})
	}
	w.crashed()
	w.afterExecCrash(c, sid, target, owned)
}

// faultSpec renders HERMES_FAULTS for point at hit n.
func faultSpec(point string, n int) string {
	if n <= 1 {
		return point
	}
	return point + "@" + strconv.Itoa(n)
}

// afterExecCrash restarts, checks the recovered table, resolves an unknown
// target (its follower then runs) and checks convergence.
func (w *world) afterExecCrash(c execCase, sid string, target protocol.Receipt, owned string) {
	t := w.t
	w.restart()
	snap := gt.Resume(t, w.v, sid)
	want := map[string]string{"warm": "terminal", "target": "terminal", "follower": "terminal"}
	if c.unknown {
		want["target"], want["follower"] = "unknown", "queued"
		w.checkUnknownSnapshot(snap, target)
		if owned != "" && !exists(owned) {
			t.Errorf("the dangerous command ran without consent in this epoch")
		}
	} else {
		w.awaitStatus(sid, w.hist["follower"].admission, protocol.StatusTerminal)
	}
	e := expect{status: want, ledger: map[string]int{"warm": 1}, first: map[string]int{"WARM": 1, "TARGET": c.modelReqs}}
	if !c.unknown {
		e.ledger["follower"] = 1
	} else {
		e.ledger["follower"], e.first["FOLLOWER"] = 0, 0
	}
	if c.effects >= 0 {
		e.ledger["target"] = c.effects
	}
	fp := w.check(e)
	t.Logf("recovered state:\n%s", fp)
	w.converge(fp, 2)
	if c.unknown {
		w.resolveAndDrain(sid, target, c)
	}
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// checkUnknownSnapshot: the target is unknown and blocks its follower; no
// approval survives the epoch (F7, F8).
func (w *world) checkUnknownSnapshot(snap protocol.Snapshot, target protocol.Receipt) {
	t := w.t
	var statuses []string
	for _, p := range snap.Pending {
		statuses = append(statuses, p.Status)
	}
	if !slices.Equal(statuses, []string{"unknown", "queued"}) {
		t.Errorf("pending statuses %v, want [unknown queued]", statuses)
	}
	if len(snap.Prompts) != 0 {
		t.Errorf("a prompt survived the restart: %+v", snap.Prompts)
	}
	if len(snap.Pending) > 0 && snap.Pending[0].ExecutionGeneration != nil {
		_, err := w.v.RespondApproval(gt.Context(t, wait), protocol.ApprovalRespondParams{SessionID: snap.SessionID,
			ExecutionGeneration: *snap.Pending[0].ExecutionGeneration, PromptID: "p-old", Choice: protocol.ChoiceOnce})
		if err == nil {
			t.Errorf("approval.respond for the old execution succeeded")
		}
	}
}

// resolveAndDrain resolves the unknown target: the FIFO resumes, the
// follower runs once with a valid transcript, and a further restart
// executes nothing (I11).
func (w *world) resolveAndDrain(sid string, target protocol.Receipt, c execCase) {
	t := w.t
	w.restart()
	snap := gt.Resume(t, w.v, sid)
	if len(snap.Pending) == 0 || snap.Pending[0].ExecutionGeneration == nil {
		t.Fatalf("no unknown row to resolve: %+v", snap.Pending)
	}
	gen := *snap.Pending[0].ExecutionGeneration
	if _, err := w.v.ResolveUnknown(gt.Context(t, wait), protocol.ResolveUnknownParams{SessionID: sid,
		AdmissionID: target.AdmissionID, ExecutionGeneration: gen + 1}); gt.Reason(err) != protocol.ReasonStaleGeneration {
		t.Errorf("resolve_unknown with a wrong generation: %v, want stale_generation", err)
	}
	rc, err := w.v.ResolveUnknown(gt.Context(t, wait), protocol.ResolveUnknownParams{SessionID: sid,
		AdmissionID: target.AdmissionID, ExecutionGeneration: gen})
	if err != nil || rc.Status != protocol.StatusTerminal {
		t.Fatalf("resolve_unknown: %+v %v", rc, err)
	}
	w.awaitStatus(sid, w.hist["follower"].admission, protocol.StatusTerminal)
	checkToolPairs(t, gt.RequestsFor(w.f.Model, "FOLLOWER"))
	e := expect{status: map[string]string{"warm": "terminal", "target": "terminal", "follower": "terminal"},
		ledger: map[string]int{"warm": 1, "follower": 1}, first: map[string]int{"TARGET": c.modelReqs, "FOLLOWER": 1}}
	if c.effects >= 0 {
		e.ledger["target"] = c.effects
	}
	w.converge(w.check(e), 1)
}

// checkToolPairs: every assistant tool call in a request has a tool result
// (an interrupted call gets one when its row is resolved).
func checkToolPairs(t *testing.T, reqs []*modeltest.Request) {
	t.Helper()
	for _, r := range reqs {
		results := map[string]bool{}
		for _, m := range r.ToolResults() {
			results[m.ToolCallID] = true
		}
		for _, m := range r.Messages {
			for _, c := range m.ToolCalls {
				if !results[c.ID] {
					t.Errorf("request %d: tool call %s (%s) has no tool result", r.N, c.ID, c.Name)
				}
			}
		}
	}
}
