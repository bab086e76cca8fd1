package authority

import (
	"context"
	"errors"
	"sync"

	"github.com/hermes-gateway/hermes/internal/auth"
	"github.com/hermes-gateway/hermes/internal/protocol"
	"github.com/hermes-gateway/hermes/internal/session"
	"github.com/hermes-gateway/hermes/internal/store"
	"github.com/hermes-gateway/hermes/internal/tools"
)

// live is a restored session: its receipt passed every check. It is created
// once per logical id and lives until the daemon stops.
type live struct {
	id    string // logical id, never changes
	owner string // creator principal, never changes
	todos *tools.TodoList

	mu         sync.Mutex
	receipt    session.Receipt    // current receipt; entry.session_id = physical target; guarded by mu
	apiKey     string             // launch key, memory only; guarded by mu
	needKey    bool               // receipt names a launch key this process does not hold; guarded by mu
	running    bool               // a claimed turn is executing; guarded by mu
	generation int64              // generation of the running turn; guarded by mu
	admission  string             // admission id of the running turn; guarded by mu
	cancelTurn context.CancelFunc // interrupts the running turn; guarded by mu
	latched    int64              // an interrupt for this generation arrived before cancelTurn existed; guarded by mu
	built      bool               // the agent was built at least once (info.lazy = false); guarded by mu
	prompts    []*prompt          // pending prompts of the running generation, in order; guarded by mu
	resolved   map[string]bool    // prompt ids answered this process; guarded by mu
	approved   map[string]bool    // "session" approvals by pattern; guarded by mu
	executing  bool               // an executor goroutine owns this session; guarded by mu
	dirty      bool               // a kick arrived while executing; guarded by mu
	busy       bool               // a compress/reset is building its child; guarded by mu
}

func newLive(r session.Receipt) *live {
	return &live{
		id:       r.SessionID,
		owner:    r.PrincipalID,
		todos:    &tools.TodoList{},
		receipt:  r,
		needKey:  r.Policy.CredentialRef != nil,
		resolved: map[string]bool{},
		approved: map[string]bool{},
	}
}

func (l *live) current() session.Receipt {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.receipt
}

func (l *live) pausedReason() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.needKey {
		return string(protocol.ReasonLaunchCredentials)
	}
	return ""
}

// blocked reports whether the executor must not claim now.
func (l *live) blocked() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.needKey || l.busy
}

// access runs the checks of reference §4.4 in order: profile, capability,
// restore (fail closed), ownership unless the principal is an operator.
func (a *Authority) access(ctx context.Context, p auth.Principal, sid, capability string) (*live, error) {
	if err := a.permit(p, capability); err != nil {
		return nil, err
	}
	l, err := a.load(ctx, sid)
	if err != nil {
		return nil, err
	}
	if l.owner != p.Subject && !p.Operator() {
		return nil, protocol.Errorf(protocol.ReasonPermissionDenied, "session belongs to another principal")
	}
	return l, nil
}

// permit runs the first two checks of access, which calls on no session
// (session.create, session.list) need as well: profile, then capability.
func (a *Authority) permit(p auth.Principal, capability string) error {
	if p.ProfileID != a.cfg.ProfileID {
		return protocol.Errorf(protocol.ReasonProfileMismatch, "principal belongs to another profile")
	}
	if !p.Can(capability) {
		return protocol.Errorf(protocol.ReasonPermissionDenied, "missing capability %s", capability)
	}
	return nil
}

// load returns the live session, restoring it from its receipt on first use.
func (a *Authority) load(ctx context.Context, sid string) (*live, error) {
	a.mu.Lock()
	l := a.live[sid]
	a.mu.Unlock()
	if l != nil {
		return l, nil
	}
	l, err := a.restore(ctx, sid)
	if err != nil {
		return nil, err
	}
	a.mu.Lock()
	if existing := a.live[sid]; existing != nil {
		l = existing
	} else {
		a.live[sid] = l
	}
	a.mu.Unlock()
	return l, nil
}

// restore validates a stored session with every check of reference §5. Any
// failure leaves the session dead: its inputs stay queued, nothing runs.
func (a *Authority) restore(ctx context.Context, sid string) (*live, error) {
	if sid == "" {
		return nil, protocol.Errorf(protocol.ReasonInvalidParams, "session_id is empty")
	}
	if _, err := a.cfg.Store.Session(ctx, sid); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return nil, protocol.Errorf(protocol.ReasonNotFound, "no session %s", sid)
		}
		return nil, protocol.Wrap(protocol.ReasonStorageUnavailable, err)
	}
	r, ok, err := a.storedReceipt(ctx, sid)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, protocol.Errorf(protocol.ReasonStorageUnavailable, "session has no creation receipt")
	}
	if err := r.Check(a.cfg.ProfileID, sid); err != nil {
		return nil, err
	}
	if err := session.CheckLineage(r, a.transcriptRow(ctx)); err != nil {
		return nil, err
	}
	return newLive(r), nil
}

// storedReceipt reads the creation receipt of logical session sid; ok is
// false when there is none. It does not check the receipt (restore does).
func (a *Authority) storedReceipt(ctx context.Context, sid string) (r session.Receipt, ok bool, err error) {
	raw, ok, err := a.cfg.Store.Meta(ctx, session.ReceiptKey(sid))
	if err != nil {
		return r, false, protocol.Wrap(protocol.ReasonStorageUnavailable, err)
	}
	if !ok {
		return r, false, nil
	}
	if r, err = session.ParseReceipt(raw); err != nil {
		return r, false, &protocol.Error{Reason: protocol.ReasonStorageUnavailable, Detail: "creation receipt is malformed", Cause: err}
	}
	return r, true, nil
}

func (a *Authority) transcriptRow(ctx context.Context) func(string) (session.TranscriptRow, bool) {
	return func(id string) (session.TranscriptRow, bool) {
		s, err := a.cfg.Store.Session(ctx, id)
		if err != nil {
			return session.TranscriptRow{}, false
		}
		return session.TranscriptRow{
			ID: s.ID, ChatID: s.ChatID, UserID: s.UserID, SessionKey: s.SessionKey,
			ParentSessionID: s.ParentSessionID, EndReason: s.EndReason, ModelConfig: s.ModelConfig,
		}, true
	}
}

// Recover restores every session that has non-terminal admissions (the
// others are restored lazily on first access, so start-up grows with pending
// work, not with history). A session that fails its checks is logged and
// skipped; the daemon still becomes ready.
func (a *Authority) Recover(ctx context.Context) error {
	ids, err := a.cfg.Store.SessionsWithPending(ctx)
	if err != nil {
		return err
	}
	for _, sid := range ids {
		if _, err := a.load(ctx, sid); err != nil {
			a.log.Warn("session not restored; its inputs stay queued", "session_id", sid, "reason", reasonOf(err))
		}
	}
	a.recoverRewinds(ctx)
	return nil
}

func reasonOf(err error) string {
	var pe *protocol.Error
	if errors.As(err, &pe) {
		if pe.Detail != "" {
			return string(pe.Reason) + ": " + pe.Detail
		}
		return string(pe.Reason)
	}
	return err.Error()
}
