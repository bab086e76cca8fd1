package authority

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/hermes-gateway/hermes/internal/agent"
	"github.com/hermes-gateway/hermes/internal/faults"
	"github.com/hermes-gateway/hermes/internal/model"
	"github.com/hermes-gateway/hermes/internal/protocol"
	"github.com/hermes-gateway/hermes/internal/store"
)

// Schedule starts executing: every live session with queued rows is kicked.
// The daemon calls it once, after the listener is ready, so recovered rows
// never run before readiness.
func (a *Authority) Schedule() {
	a.mu.Lock()
	a.scheduling = true
	all := make([]*live, 0, len(a.live))
	for _, l := range a.live {
		all = append(all, l)
	}
	a.mu.Unlock()
	for _, l := range all {
		a.kick(l)
	}
}

// kick makes sure an executor drains l's FIFO. At most one executor per
// session runs at a time (tailscale execqueue style): a kick during a drain
// only marks the session dirty so the executor looks again before exiting.
func (a *Authority) kick(l *live) {
	a.mu.Lock()
	ok := a.scheduling && !a.stale && a.ctx.Err() == nil
	if ok {
		a.wg.Add(1)
	}
	a.mu.Unlock()
	if !ok {
		return
	}
	if !l.startExecutor() {
		a.wg.Done()
		return
	}
	go func() {
		defer a.wg.Done()
		a.drain(l)
	}()
}

func (a *Authority) drain(l *live) {
	for {
		if !a.step(l) && l.stopExecutor() {
			return
		}
	}
}

// step claims and runs the oldest queued row; false when there is none or the
// FIFO is blocked (unknown row, missing launch key, stopping).
func (a *Authority) step(l *live) bool {
	if a.ctx.Err() != nil || a.isDraining() || l.blocked() {
		return false // a draining daemon finishes running turns, starts none
	}
	t, adm, err := a.claim(l)
	if err != nil {
		if !errors.Is(err, store.ErrUnknownExecution) {
			a.log.Error("claim failed", "session_id", l.id, "err", err)
		}
		return false
	}
	if t == nil {
		return false
	}
	a.runTurn(l, t, adm)
	return true
}

// claim moves the oldest queued row to started (generation+1) and journals
// message.start; the turn (made with its cancel before the transaction) is
// installed with the commit. t is nil when nothing was claimed.
func (a *Authority) claim(l *live) (t *activeTurn, adm store.Admission, err error) {
	var ok bool
	turn := newTurn(a.ctx)
	err = a.commit(a.ctx, l.id, func(tx *store.Tx, j *journal) error {
		var err error
		if adm, ok, err = tx.ClaimNext(l.id); err != nil || !ok {
			return err
		}
		s := stamp{generation: adm.Generation, admissionID: adm.AdmissionID}
		if err := j.add(protocol.EventMessageStart, struct{}{}, s); err != nil {
			return err
		}
		if err := a.addInfo(tx, j, l, true, s); err != nil {
			return err
		}
		faults.Hit(faults.ClaimBeforeCommit)
		return nil
	}, func() {
		if ok {
			turn.generation, turn.admission = adm.Generation, adm.AdmissionID
			l.begin(turn)
		}
	})
	if err != nil || !ok {
		turn.cancel()
		return nil, adm, err
	}
	faults.Hit(faults.ClaimAfterCommit)
	return turn, adm, nil
}

// runTurn executes one claimed row and settles it exactly once. A turn cut
// by the daemon stopping is not settled: it was really cut, so the next
// epoch marks it unknown.
func (a *Authority) runTurn(l *live, t *activeTurn, adm store.Admission) {
	ctx := t.ctx // cancelled already if interrupted between its claim and now
	defer t.cancel()
	start := time.Now()
	res := a.execute(ctx, l, adm)
	if a.ctx.Err() != nil {
		return
	}
	a.observer().TurnDone(res.Outcome, time.Since(start))
	if err := a.settle(l, adm, res); err != nil {
		a.log.Error("settle failed; the row stays started and becomes unknown at the next start",
			"session_id", l.id, "admission_id", adm.AdmissionID, "err", err)
		return
	}
	a.autoTitle(l, adm, res)
}

// execute runs one claimed admission with the session's frozen policy. It
// never returns an error: every failure is an outcome the row settles with.
func (a *Authority) execute(ctx context.Context, l *live, adm store.Admission) (res turnResult) {
	defer func() {
		if v := recover(); v != nil {
			a.log.Error("turn panicked; contained to its session", "session_id", l.id, "panic", v)
			res = panicResult(v)
		}
	}()
	a.autoCompress(ctx, l)
	r := l.current()
	turn, iso, err := a.turns.build(ctx, l, r, adm)
	if err != nil {
		return turnResult{Outcome: protocol.OutcomeFailed, Error: err.Error()}
	}
	l.markBuilt()
	defer a.endCheckpointTurn(l)
	a.instrument(&turn)
	hk, stop := a.turnHooks(ctx, l, r, adm, &turn)
	if stop != nil {
		return *stop
	}
	defer func() { hk.stop(ctx, res) }()
	if iso != nil {
		a.checkpointEagerly(ctx, turn.Env.BeforeMutate)
		return settled(iso.run(ctx, turn))
	}
	return settled(agent.Run(ctx, turn))
}

// settled maps an agent result to what the admission settles with.
func settled(out agent.Result) turnResult {
	res := turnResult{Text: out.Text, Outcome: out.Outcome, Usage: usageJSON(out.Usage), tokens: out.Usage}
	if out.Err != nil && out.Outcome != protocol.OutcomeCompleted {
		res.Error = out.Err.Error()
	}
	return res
}

// turnResult is what an executed turn reports for settlement.
type turnResult struct {
	Text    string
	Outcome string
	Error   string
	Usage   json.RawMessage
	tokens  model.Usage // what Usage says, for the session's counters
}

func (a *Authority) settle(l *live, adm store.Admission, res turnResult) error {
	s := stamp{generation: adm.Generation, admissionID: adm.AdmissionID}
	result, _ := json.Marshal(map[string]any{"text": res.Text, "error": res.Error, "usage": res.Usage})
	ctx := context.WithoutCancel(a.ctx)
	return a.commit(ctx, l.id, func(tx *store.Tx, j *journal) error {
		if _, err := tx.Settle(adm.AdmissionID, adm.Generation, res.Outcome, string(result)); err != nil {
			return err
		}
		if err := tx.AddUsage(l.id, storeUsage(res.tokens)); err != nil {
			return err
		}
		done := protocol.MessageCompletePayload{
			Text: res.Text, AdmissionID: adm.AdmissionID, Outcome: res.Outcome, Error: res.Error, Usage: res.Usage,
		}
		if err := j.add(protocol.EventMessageComplete, done, s); err != nil {
			return err
		}
		if err := a.addInfo(tx, j, l, false, stamp{}); err != nil {
			return err
		}
		faults.Hit(faults.SettleBeforeCommit)
		return nil
	}, l.end)
}

// panicResult turns a recovered panic of one turn into a failed settlement:
// a panic is contained to its session (docs/protocol.md#panics).
func panicResult(v any) turnResult {
	return turnResult{Outcome: protocol.OutcomeFailed, Error: fmt.Sprintf("internal error: %v", v)}
}

func hit(point string) {
	if point != "" {
		faults.Hit(point)
	}
}
