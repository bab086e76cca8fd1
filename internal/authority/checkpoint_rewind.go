package authority

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"os"
	"slices"
	"time"

	"github.com/hermes-gateway/hermes/internal/auth"
	"github.com/hermes-gateway/hermes/internal/checkpoint"
	"github.com/hermes-gateway/hermes/internal/faults"
	"github.com/hermes-gateway/hermes/internal/protocol"
	"github.com/hermes-gateway/hermes/internal/store"
)

// Checkpoints answers session.checkpoints: the session's checkpoints that
// are not pruned, oldest first.
func (a *Authority) Checkpoints(ctx context.Context, p auth.Principal, sid string) (_ protocol.SessionCheckpointsResult, err error) {
	defer a.reply(&err)
	l, err := a.access(ctx, p, sid, protocol.CapRead)
	if err != nil {
		return protocol.SessionCheckpointsResult{}, err
	}
	rows, err := a.cfg.Store.Checkpoints(ctx, l.id)
	if err != nil {
		return protocol.SessionCheckpointsResult{}, err
	}
	out := protocol.SessionCheckpointsResult{Checkpoints: []protocol.Checkpoint{}}
	for _, c := range rows {
		var skipped []string
		_ = json.Unmarshal([]byte(c.SkippedJSON), &skipped)
		out.Checkpoints = append(out.Checkpoints, protocol.Checkpoint{
			CheckpointID: c.CheckpointID, AdmissionID: c.AdmissionID, Files: c.Files, Summary: c.Summary,
			CreatedAt: rfc3339(time.UnixMilli(c.CreatedAtMs)), Skipped: skipped,
		})
	}
	return out, nil
}

// rewindPlan is a rewind's durable plan (session_rewinds.plan_json): what
// it does, decided before anything is changed, so a crash can complete it.
type rewindPlan struct {
	Files        bool     `json:"files"`
	Conversation bool     `json:"conversation"`
	Restore      []string `json:"restore"`
	Remove       []string `json:"remove"`
}

// Rewind answers session.rewind: files first, then the conversation. The
// FIFO is reserved throughout (a running turn refuses it with
// session_busy), the plan is committed before the work tree changes,
// and session.rewound is journaled with the rewind's completion.
func (a *Authority) Rewind(ctx context.Context, p auth.Principal, params protocol.SessionRewindParams) (_ protocol.SessionRewindResult, err error) {
	defer a.reply(&err)
	files, conv, err := rewindMode(params.Mode)
	if err != nil {
		return protocol.SessionRewindResult{}, err
	}
	l, err := a.access(ctx, p, params.SessionID, protocol.CapControl)
	if err != nil {
		return protocol.SessionRewindResult{}, err
	}
	ck, err := a.rewindTarget(ctx, l, params.CheckpointID)
	if err != nil {
		return protocol.SessionRewindResult{}, err
	}
	if err := l.reserve(); err != nil {
		return protocol.SessionRewindResult{}, protocol.Errorf(protocol.ReasonSessionBusy, "a turn is running; rewind when it ends")
	}
	defer a.release(l)
	plan := rewindPlan{Files: files, Conversation: conv && !a.conversationAt(ctx, l, ck), Restore: []string{}, Remove: []string{}}
	forced := params.Force != nil && *params.Force
	rw := store.Rewind{RewindID: "rw-" + newID(), SessionID: l.id, CheckpointID: ck.CheckpointID, Mode: params.Mode, Forced: forced}
	if files {
		res, done, err := a.planFiles(ctx, l, ck, &plan, &rw, forced)
		if done || err != nil {
			return res, err
		}
	}
	if len(plan.Restore) == 0 && len(plan.Remove) == 0 && !plan.Conversation {
		return rewound(plan), nil // already there: nothing to write
	}
	raw, _ := json.Marshal(plan)
	rw.PlanJSON, rw.CreatedAtMs = string(raw), time.Now().UnixMilli()
	if err := a.cfg.Store.InTx(ctx, a.cfg.Epoch, func(tx *store.Tx) error { return tx.InsertRewind(rw) }); err != nil {
		return protocol.SessionRewindResult{}, err
	}
	faults.Hit(faults.RewindAfterPlan)
	if err := a.applyRewind(ctx, l, rw, ck, plan, false); err != nil {
		return protocol.SessionRewindResult{}, err
	}
	return rewound(plan), nil
}

func rewound(plan rewindPlan) protocol.SessionRewindResult {
	return protocol.SessionRewindResult{
		Status: protocol.RewindStatusRewound, Restored: nonNil(plan.Restore), Removed: nonNil(plan.Remove), Conflicts: []string{},
	}
}

func rewindMode(mode string) (files, conv bool, err error) {
	switch mode {
	case protocol.RewindFiles:
		return true, false, nil
	case protocol.RewindConversation:
		return false, true, nil
	case protocol.RewindBoth:
		return true, true, nil
	}
	return false, false, protocol.Errorf(protocol.ReasonInvalidParams, "mode must be files, conversation or both")
}

// rewindTarget is the checkpoint to rewind to: one of this session's, not
// pruned, in a session whose frozen policy has checkpoints on.
func (a *Authority) rewindTarget(ctx context.Context, l *live, id string) (store.Checkpoint, error) {
	if !l.current().Policy.Checkpoints {
		return store.Checkpoint{}, protocol.Errorf(protocol.ReasonInvalidParams, "checkpoints are off for this session")
	}
	if id == "" {
		return store.Checkpoint{}, protocol.Errorf(protocol.ReasonInvalidParams, "checkpoint_id is empty")
	}
	ck, err := a.cfg.Store.CheckpointRow(ctx, id)
	if errors.Is(err, store.ErrNotFound) || (err == nil && (ck.SessionID != l.id || ck.PrunedAtMs != 0)) {
		return store.Checkpoint{}, protocol.Errorf(protocol.ReasonNotFound, "no checkpoint %s in this session", id)
	}
	if err != nil {
		return store.Checkpoint{}, err
	}
	return ck, nil
}

// planFiles fills plan and rw with what a files rewind to ck would do now;
// done means the answer is final (conflicts, nothing changed).
func (a *Authority) planFiles(ctx context.Context, l *live, ck store.Checkpoint, plan *rewindPlan, rw *store.Rewind, forced bool) (protocol.SessionRewindResult, bool, error) {
	eng := a.ckpt.engine
	if eng == nil {
		return protocol.SessionRewindResult{}, true, protocol.Errorf(protocol.ReasonStorageUnavailable, "%s", a.ckpt.why)
	}
	if fi, err := os.Stat(ck.Cwd); err != nil || !fi.IsDir() {
		return protocol.SessionRewindResult{}, true, protocol.Errorf(protocol.ReasonInvalidParams, "the session cwd no longer exists")
	}
	now, err := eng.Snapshot(ctx, ck.Cwd, a.cfg.Settings().Checkpoints.MaxFileBytes)
	if err != nil {
		return protocol.SessionRewindResult{}, true, err
	}
	history, err := a.fileHistory(ctx, l, ck, now)
	if err != nil {
		return protocol.SessionRewindResult{}, true, err
	}
	p, err := eng.Plan(ctx, ck.Cwd, history)
	if err != nil {
		return protocol.SessionRewindResult{}, true, err
	}
	plan.Restore, plan.Remove = p.Restore, p.Remove
	if len(p.Conflicts) > 0 && !forced {
		return protocol.SessionRewindResult{
			Status: protocol.RewindStatusConflicts, Restored: p.Restore, Removed: p.Remove, Conflicts: p.Conflicts,
		}, true, nil
	}
	if err := eng.Keep(ctx, ck.Cwd, rw.RewindID+"/before", now.Commit); err != nil {
		return protocol.SessionRewindResult{}, true, err
	}
	skipped, _ := json.Marshal(nonNil(now.Skipped))
	rw.BeforeCommit, rw.BeforeSkippedJSON = now.Commit, string(skipped)
	return protocol.SessionRewindResult{}, false, nil
}

// fileHistory is the states of ck's cwd since ck, oldest first: each
// checkpoint of this session and the tree its turn left (the agent's
// step), each files rewind's tree before and after (the gateway's step),
// and now. Every other step is someone else's.
func (a *Authority) fileHistory(ctx context.Context, l *live, ck store.Checkpoint, now checkpoint.Snapshot) ([]checkpoint.State, error) {
	type entry struct {
		atMs  int64
		order int
		st    checkpoint.State
	}
	var es []entry
	add := func(at int64, commit, skipped string, gateway bool) {
		if commit == "" {
			return
		}
		var sk []string
		_ = json.Unmarshal([]byte(skipped), &sk)
		es = append(es, entry{at, len(es), checkpoint.State{Commit: commit, Skipped: sk, Gateway: gateway}})
	}
	rows, err := a.cfg.Store.Checkpoints(ctx, l.id)
	if err != nil {
		return nil, err
	}
	add(ck.CreatedAtMs, ck.SnapshotCommit, ck.SkippedJSON, false) // first, even on a tie
	add(ck.LedgerAtMs, ck.LedgerCommit, ck.LedgerSkippedJSON, true)
	for _, c := range rows {
		if c.CheckpointID == ck.CheckpointID || c.CreatedAtMs < ck.CreatedAtMs || c.Cwd != ck.Cwd {
			continue
		}
		add(c.CreatedAtMs, c.SnapshotCommit, c.SkippedJSON, false)
		add(c.LedgerAtMs, c.LedgerCommit, c.LedgerSkippedJSON, true)
	}
	rws, err := a.cfg.Store.Rewinds(ctx, l.id, ck.CreatedAtMs)
	if err != nil {
		return nil, err
	}
	for _, r := range rws {
		if r.Status == "done" && r.BeforeCommit != "" {
			add(r.CreatedAtMs, r.BeforeCommit, r.BeforeSkippedJSON, false)
			add(r.FinishedAtMs, r.AfterCommit, "[]", true)
		}
	}
	slices.SortStableFunc(es, func(x, y entry) int { return cmp.Or(cmp.Compare(x.atMs, y.atMs), cmp.Compare(x.order, y.order)) })
	out := make([]checkpoint.State, 0, len(es)+1)
	for _, e := range es {
		out = append(out, e.st)
	}
	return append(out, checkpoint.State{Commit: now.Commit, Skipped: now.Skipped}), nil
}

// applyRewind carries out a committed plan; every step can run again, so
// recovery calls it for a rewind a crash left planned.
func (a *Authority) applyRewind(ctx context.Context, l *live, rw store.Rewind, ck store.Checkpoint, plan rewindPlan, recovered bool) error {
	ctx = context.WithoutCancel(ctx) // a client that hangs up does not stop a rewind half-way
	after := ""
	if plan.Files {
		eng := a.ckpt.engine
		if eng == nil {
			return protocol.Errorf(protocol.ReasonStorageUnavailable, "%s", a.ckpt.why)
		}
		if err := eng.Restore(ctx, ck.Cwd, ck.SnapshotCommit, plan.Restore, plan.Remove); err != nil {
			return err
		}
		if snap, err := eng.Snapshot(ctx, ck.Cwd, a.cfg.Settings().Checkpoints.MaxFileBytes); err == nil &&
			eng.Keep(ctx, ck.Cwd, rw.RewindID+"/after", snap.Commit) == nil {
			after = snap.Commit
		}
	}
	payload := protocol.SessionRewoundPayload{
		CheckpointID: ck.CheckpointID, Mode: rw.Mode, Restored: nonNil(plan.Restore), Removed: nonNil(plan.Remove),
		Forced: rw.Forced, Recovered: recovered,
	}
	finish := func(tx *store.Tx, j *journal) error {
		if err := tx.FinishRewind(rw.RewindID, after, time.Now().UnixMilli()); err != nil {
			return err
		}
		if err := j.add(protocol.EventSessionRewound, payload, stamp{}); err != nil {
			return err
		}
		if _, err := tx.BumpRevision(l.id); err != nil {
			return err
		}
		return a.addInfo(tx, j, l, false, stamp{})
	}
	if !plan.Conversation || a.conversationAt(ctx, l, ck) {
		return a.commit(ctx, l.id, finish, nil)
	}
	c, err := a.rewindChild(ctx, l, ck)
	if err != nil {
		return err
	}
	return a.publishChild(ctx, l, c, finish)
}

// rewindChild is the transcript a conversation rewind publishes: the
// messages before ck's turn. It is a lineage step like a compression (the
// parent ends "compression"; the child's marker names the checkpoint).
func (a *Authority) rewindChild(ctx context.Context, l *live, ck store.Checkpoint) (child, error) {
	msgs, total, err := a.cfg.Store.Messages(ctx, ck.TranscriptID, maxHistory)
	if err != nil {
		return child{}, err
	}
	if total > len(msgs) || ck.MessageCount > int64(len(msgs)) {
		return child{}, protocol.Errorf(protocol.ReasonStorageUnavailable, "the transcript before that turn is not complete")
	}
	return child{
		endReason: "compression",
		modelConfig: map[string]any{
			"_compressed_from": l.current().Entry.SessionID, "_rewound_to": ck.CheckpointID,
		},
		messages: msgs[:ck.MessageCount],
	}, nil
}

// conversationAt reports whether the current transcript already is the
// conversation before ck's turn (a repeated rewind changes nothing).
func (a *Authority) conversationAt(ctx context.Context, l *live, ck store.Checkpoint) bool {
	row, err := a.cfg.Store.Session(ctx, l.current().Entry.SessionID)
	if err != nil {
		return false
	}
	var marker map[string]any
	_ = json.Unmarshal([]byte(row.ModelConfig), &marker)
	return marker["_rewound_to"] == ck.CheckpointID && row.MessageCount == ck.MessageCount
}

// recoverRewinds completes the rewinds a crash left planned, before any
// turn is scheduled: the plan was written before the first file changed,
// and each step can run again.
func (a *Authority) recoverRewinds(ctx context.Context) {
	rws, err := a.cfg.Store.PlannedRewinds(ctx)
	if err != nil {
		a.log.Error("planned rewinds unreadable", "err", err)
		return
	}
	for _, rw := range rws {
		if err := a.recoverRewind(ctx, rw); err != nil {
			a.log.Error("interrupted rewind not completed; it stays planned", "session_id", rw.SessionID,
				"rewind_id", rw.RewindID, "reason", reasonOf(err))
			continue
		}
		a.log.Info("interrupted rewind completed", "session_id", rw.SessionID, "rewind_id", rw.RewindID)
	}
}

func (a *Authority) recoverRewind(ctx context.Context, rw store.Rewind) error {
	l, err := a.load(ctx, rw.SessionID)
	if err != nil {
		return err
	}
	ck, err := a.cfg.Store.CheckpointRow(ctx, rw.CheckpointID)
	if err != nil {
		return err
	}
	var plan rewindPlan
	if err := json.Unmarshal([]byte(rw.PlanJSON), &plan); err != nil {
		return err
	}
	return a.applyRewind(ctx, l, rw, ck, plan, true)
}
