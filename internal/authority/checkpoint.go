package authority

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"path/filepath"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/hermes-gateway/hermes/internal/checkpoint"
	"github.com/hermes-gateway/hermes/internal/protocol"
	"github.com/hermes-gateway/hermes/internal/session"
	"github.com/hermes-gateway/hermes/internal/store"
)

// CheckpointSettings mirror config.yaml checkpoints (issue 11); enabled is
// the default of new sessions and lives in session.Defaults.
type CheckpointSettings struct {
	MaxFileBytes int64 // larger files are skipped and listed
	KeepDays     int   // older checkpoints are pruned
	MaxBytes     int64 // the shadow repositories' disk budget; oldest pruned first
}

// checkpointTimeout bounds the whole snapshot of one turn (each git
// process has its own bound too).
const checkpointTimeout = 2 * time.Minute

// summaryRunes cuts a checkpoint's summary (the turn's prompt text).
const summaryRunes = 120

// checkpoints is the authority's side of checkpoints: the engine (nil when
// git is missing) and the checkpoint state of each running turn.
type checkpoints struct {
	engine *checkpoint.Engine // nil: unavailable, see why
	why    string             // public reason the engine is nil

	mu    sync.Mutex
	turns map[string]*turnCheckpoint // logical id → its running turn's; guarded by mu
}

// newCheckpoints opens the engine over $HERMES_HOME/checkpoints. A missing
// git is said once, loudly, here; sessions that ask for checkpoints are
// told again on each turn (checkpoint.failed).
func newCheckpoints(home string, log *slog.Logger) *checkpoints {
	c := &checkpoints{turns: map[string]*turnCheckpoint{}}
	if home == "" {
		c.why = "this gateway has no profile home to keep checkpoints in"
		return c
	}
	e, err := checkpoint.New(filepath.Join(home, "checkpoints"))
	if err != nil {
		c.why = "git is not installed (or not on the gateway's PATH): checkpoints are unavailable"
		if !errors.Is(err, checkpoint.ErrNoGit) {
			c.why = "checkpoints are unavailable; see the gateway log"
		}
		log.Warn("checkpoints unavailable: sessions with checkpoints on run without them "+
			"and get a checkpoint.failed event per turn; install git to enable them", "err", err)
		return c
	}
	c.engine = e
	return c
}

// turnCheckpoint takes at most one checkpoint for one turn, just before its
// first mutating tool call, and records the tree the turn left at its end.
type turnCheckpoint struct {
	a      *Authority
	l      *live
	s      stamp
	cwd    string
	phys   string // the physical transcript when the turn began
	before int64  // its messages before the turn

	mu    sync.Mutex // held across the snapshot: a second tool call waits for it
	tried bool       // guarded by mu
	id    string     // the checkpoint taken; "" if none; guarded by mu
}

// checkpointHook is tools.Env.BeforeMutate of one turn: nil unless the
// session's frozen policy has checkpoints on. Called when the turn is
// built, before its user message is recorded.
func (a *Authority) checkpointHook(l *live, pol session.Policy, s stamp) func(context.Context) error {
	if !pol.Checkpoints {
		return nil
	}
	phys := l.current().Entry.SessionID
	t := &turnCheckpoint{a: a, l: l, s: s, cwd: pol.Cwd, phys: phys}
	if row, err := a.cfg.Store.Session(a.ctx, phys); err == nil {
		t.before = row.MessageCount
	}
	a.ckpt.mu.Lock()
	a.ckpt.turns[l.id] = t
	a.ckpt.mu.Unlock()
	return t.beforeMutate
}

// beforeMutate takes the turn's checkpoint on its first call. A checkpoint
// that cannot be taken never stops the tool: the session is told with
// checkpoint.failed instead. Only a cut turn stops it.
func (t *turnCheckpoint) beforeMutate(ctx context.Context) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return err
	}
	if t.tried {
		return nil
	}
	t.tried = true
	id, reason := t.take(ctx)
	if reason != "" {
		t.a.checkpointFailed(t.l, t.s, reason)
		return ctx.Err()
	}
	t.id = id
	return nil
}

// take snapshots the cwd and records the checkpoint with its
// checkpoint.created event in one transaction; reason is the public text
// of a failure.
func (t *turnCheckpoint) take(ctx context.Context) (id, reason string) {
	a, eng := t.a, t.a.ckpt.engine
	if eng == nil {
		return "", a.ckpt.why
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), checkpointTimeout)
	defer cancel()
	snap, err := eng.Snapshot(ctx, t.cwd, a.cfg.Settings().Checkpoints.MaxFileBytes)
	if err == nil {
		id = "ckpt-" + newID()
		err = eng.Keep(ctx, t.cwd, id+"/snap", snap.Commit)
	}
	if err != nil {
		a.log.Error("checkpoint snapshot failed; the turn goes on without one", "session_id", t.l.id, "err", err)
		if errors.Is(err, checkpoint.ErrNoCwd) {
			return "", "the session cwd no longer exists"
		}
		return "", "the snapshot failed; see the gateway log"
	}
	now := time.Now().UTC()
	skipped, _ := json.Marshal(nonNil(snap.Skipped))
	err = a.commit(ctx, t.l.id, func(tx *store.Tx, j *journal) error {
		adm, err := tx.Admission(t.s.admissionID)
		if err != nil {
			return err
		}
		row := store.Checkpoint{
			CheckpointID: id, SessionID: t.l.id, AdmissionID: t.s.admissionID, Cwd: t.cwd,
			SnapshotCommit: snap.Commit, TranscriptID: t.phys, MessageCount: t.before, Files: snap.Files,
			SkippedJSON: string(skipped), Summary: cut(parsePayload(adm.PayloadJSON).Text, summaryRunes),
			CreatedAtMs: now.UnixMilli(),
		}
		if err := tx.InsertCheckpoint(row); err != nil {
			return err
		}
		return j.add(protocol.EventCheckpointCreated, protocol.CheckpointCreatedPayload{
			CheckpointID: id, AdmissionID: t.s.admissionID, CreatedAt: rfc3339(now), Files: snap.Files,
			Skipped: snap.Skipped,
		}, t.s)
	}, nil)
	if err != nil {
		a.log.Error("checkpoint not recorded; the turn goes on without one", "session_id", t.l.id, "err", err)
		return "", "the checkpoint could not be recorded; see the gateway log"
	}
	return id, ""
}

func (a *Authority) checkpointFailed(l *live, s stamp, reason string) {
	p := protocol.CheckpointFailedPayload{AdmissionID: s.admissionID, Reason: reason}
	if err := a.emitDetached(l, protocol.EventCheckpointFailed, p, s); err != nil {
		a.log.Error("journal event failed", "type", protocol.EventCheckpointFailed, "session_id", l.id, "err", err)
	}
}

// checkpointEagerly takes a safe_mode turn's checkpoint before the turn
// starts: its tools run in the worker process, out of reach of the hook.
func (a *Authority) checkpointEagerly(ctx context.Context, hook func(context.Context) error) {
	if hook != nil {
		_ = hook(ctx)
	}
}

// endCheckpointTurn records the ledger of a checkpointed turn (the tree it
// left) and prunes. It runs when the turn returns, even cut: what the agent
// did up to then is the agent's.
func (a *Authority) endCheckpointTurn(l *live) {
	a.ckpt.mu.Lock()
	t := a.ckpt.turns[l.id]
	delete(a.ckpt.turns, l.id)
	a.ckpt.mu.Unlock()
	if t == nil {
		return
	}
	t.mu.Lock()
	id := t.id
	t.mu.Unlock()
	if id == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(a.ctx), checkpointTimeout)
	defer cancel()
	if err := a.recordLedger(ctx, t.cwd, id); err != nil {
		a.log.Error("checkpoint ledger not recorded; a rewind over this turn will report its changes as conflicts",
			"session_id", l.id, "checkpoint_id", id, "err", err)
	}
	a.pruneCheckpoints(ctx)
}

func (a *Authority) recordLedger(ctx context.Context, cwd, id string) error {
	eng := a.ckpt.engine
	snap, err := eng.Snapshot(ctx, cwd, a.cfg.Settings().Checkpoints.MaxFileBytes)
	if err != nil {
		return err
	}
	if err := eng.Keep(ctx, cwd, id+"/ledger", snap.Commit); err != nil {
		return err
	}
	skipped, _ := json.Marshal(nonNil(snap.Skipped))
	return a.cfg.Store.InTx(ctx, a.cfg.Epoch, func(tx *store.Tx) error {
		return tx.SetLedger(id, snap.Commit, string(skipped), time.Now().UnixMilli())
	})
}

// pruneCheckpoints drops checkpoints older than checkpoints.keep_days, then
// the oldest while the shadow repositories exceed checkpoints.max_bytes.
func (a *Authority) pruneCheckpoints(ctx context.Context) {
	set, eng := a.cfg.Settings().Checkpoints, a.ckpt.engine
	rows, err := a.cfg.Store.LiveCheckpoints(ctx)
	if err != nil || eng == nil {
		return
	}
	cutoff := time.Now().Add(-time.Duration(set.KeepDays) * 24 * time.Hour).UnixMilli()
	var old []store.Checkpoint
	for len(rows) > 0 && set.KeepDays > 0 && rows[0].CreatedAtMs < cutoff {
		old, rows = append(old, rows[0]), rows[1:]
	}
	a.dropCheckpoints(ctx, old)
	for len(rows) > 0 && set.MaxBytes > 0 {
		size, err := eng.Size()
		if err != nil || size <= set.MaxBytes {
			return
		}
		a.dropCheckpoints(ctx, rows[:1])
		rows = rows[1:]
	}
}

func (a *Authority) dropCheckpoints(ctx context.Context, rows []store.Checkpoint) {
	byCwd := map[string][]string{}
	for _, c := range rows {
		byCwd[c.Cwd] = append(byCwd[c.Cwd], c.CheckpointID+"/snap", c.CheckpointID+"/ledger")
	}
	for cwd, refs := range byCwd {
		if err := a.ckpt.engine.Drop(ctx, cwd, refs); err != nil {
			a.log.Warn("checkpoint prune failed", "err", err)
			return
		}
	}
	now := time.Now().UnixMilli()
	err := a.cfg.Store.InTx(ctx, a.cfg.Epoch, func(tx *store.Tx) error {
		for _, c := range rows {
			if err := tx.PruneCheckpoint(c.CheckpointID, now); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		a.log.Warn("checkpoint prune not recorded", "err", err)
	}
}

func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

func rfc3339(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
