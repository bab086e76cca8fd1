package authority

import (
	"context"
	"crypto/subtle"
	"errors"
	"slices"
	"sync"

	"github.com/hermes-gateway/hermes/internal/auth"
	"github.com/hermes-gateway/hermes/internal/protocol"
	"github.com/hermes-gateway/hermes/internal/session"
	"github.com/hermes-gateway/hermes/internal/store"
	"github.com/hermes-gateway/hermes/internal/tools"
)

// live is a restored session: its receipt passed every check. It is created
// once per logical id and lives until the daemon stops.
//
// Every field after mu is guarded by mu. The methods of live below take it
// for one short read or write each and never hold it across I/O, a commit
// or a model call; they are this package's only lock sites of a live's mu
// but for the hooks field's (hooks*.go). Before a live is published (the
// create commit's after hook) its creator sets fields without the lock.
type live struct {
	id    string // logical id, never changes
	owner string // creator principal, never changes
	todos *tools.TodoList

	mu       sync.Mutex
	receipt  session.Receipt // current receipt; entry.session_id = physical target
	apiKey   string          // launch key, memory only
	needKey  bool            // receipt names a launch key this process does not hold
	built    bool            // the agent was built at least once (info.lazy = false)
	approved map[string]bool // "session" approvals by pattern

	// turn is the running turn (running = turn != nil), from its claim's
	// commit to its settlement's; nil when idle.
	turn *activeTurn

	// The FIFO's claimers: at most one executor goroutine drains it; a
	// reservation (compress, reset, rewind) stops it from claiming.
	executing bool // an executor goroutine owns this session
	dirty     bool // a kick arrived while executing: it looks again before exiting
	reserved  bool // a compress, reset or rewind holds the FIFO

	hooks *sessionHooks // hook state of an accept_hooks session; nil until its first use; guarded by mu
}

func newLive(r session.Receipt) *live {
	return &live{
		id:       r.SessionID,
		owner:    r.PrincipalID,
		todos:    &tools.TodoList{},
		receipt:  r,
		needKey:  r.Policy.CredentialRef != nil,
		approved: map[string]bool{},
	}
}

// activeTurn is a session's running turn. claim makes it, with its context
// and that context's cancel, before the claim's transaction and installs it
// in that transaction's after-commit hook, with message.start; settle's
// after-commit hook removes it, with message.complete. So an interrupt that
// sees the turn can always cancel it, and running, the running generation
// and which prompts can be answered all follow from live.turn.
// generation, admission, ctx and cancel never change once it is installed;
// prompts and resolved are guarded by the live's mu.
type activeTurn struct {
	generation int64              // the execution generation the claim gave the row
	admission  string             // the claimed row
	ctx        context.Context    // the turn's: cancelled by interrupt, by Close and when the turn returns
	cancel     context.CancelFunc // cancels ctx
	prompts    []*prompt          // pending approval and clarify prompts, in order
	resolved   map[string]bool    // prompt ids answered or expired in this turn; nil until the first
}

func newTurn(parent context.Context) *activeTurn {
	ctx, cancel := context.WithCancel(parent)
	return &activeTurn{ctx: ctx, cancel: cancel}
}

func (t *activeTurn) stamp() stamp { return stamp{generation: t.generation, admissionID: t.admission} }

// removeLocked drops pending prompt i (id) and marks it resolved; l.mu is held.
func (t *activeTurn) removeLocked(i int, id string) {
	t.prompts = slices.Delete(t.prompts, i, i+1)
	if t.resolved == nil {
		t.resolved = map[string]bool{}
	}
	t.resolved[id] = true
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

// setReceipt moves the in-memory receipt (publishChild, after its commit).
func (l *live) setReceipt(r session.Receipt) {
	l.mu.Lock()
	l.receipt = r
	l.mu.Unlock()
}

// key is the launch key held in memory; "" when none.
func (l *live) key() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.apiKey
}

// bindKey binds launch key (fingerprint ref) to the session: the key the
// receipt names (by its fingerprint) is kept, and resumed reports that the
// FIFO was paused for it; another key is a conflict. A repeat without a key
// changes nothing.
func (l *live) bindKey(key string, ref *string) (resumed bool, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	want := l.receipt.Policy.CredentialRef
	switch {
	case key == "":
		return false, nil
	case want == nil || ref == nil || subtle.ConstantTimeCompare([]byte(*want), []byte(*ref)) != 1:
		return false, protocol.Errorf(protocol.ReasonAdmissionConflict, "a different launch api_key is bound to this session")
	}
	resumed = l.needKey
	l.apiKey, l.needKey = key, false
	return resumed, nil
}

// markBuilt records that the session's agent was built (info.lazy = false).
func (l *live) markBuilt() {
	l.mu.Lock()
	l.built = true
	l.mu.Unlock()
}

// lazy reports whether no turn has built the agent yet (info.lazy).
func (l *live) lazy() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return !l.built
}

// approvedFor reports a "session" approval of pattern ("" never is).
func (l *live) approvedFor(pattern string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return pattern != "" && l.approved[pattern]
}

// approve records a "session" approval of pattern.
func (l *live) approve(pattern string) {
	l.mu.Lock()
	l.approved[pattern] = true
	l.mu.Unlock()
}

// blocked reports whether the executor must not claim now.
func (l *live) blocked() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.needKey || l.reserved
}

// startExecutor makes the caller the session's executor; false when one
// runs already, which is then marked to look at the FIFO again.
func (l *live) startExecutor() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.executing {
		l.dirty = true
		return false
	}
	l.executing = true
	return true
}

// stopExecutor ends the executor's drain; false (and it drains again) when
// a kick arrived since it last looked.
func (l *live) stopExecutor() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.dirty {
		l.dirty = false
		return false
	}
	l.executing = false
	return true
}

// reserve stops the FIFO from claiming while a compress, reset or rewind
// works outside a transaction; a running turn (or another reservation)
// refuses it. release (lineage.go) undoes it.
func (l *live) reserve() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.turn != nil || l.reserved {
		return protocol.Errorf(protocol.ReasonAdmissionConflict, "a turn is running; try again when it ends")
	}
	l.reserved = true
	return nil
}

func (l *live) unreserve() {
	l.mu.Lock()
	l.reserved = false
	l.mu.Unlock()
}

func (l *live) isRunning() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.turn != nil
}

// begin installs t as the running turn (claim, after its commit).
func (l *live) begin(t *activeTurn) {
	l.mu.Lock()
	l.turn = t
	l.mu.Unlock()
}

// end removes the running turn and its prompts (settle, after its commit).
func (l *live) end() {
	l.mu.Lock()
	l.turn = nil
	l.mu.Unlock()
}

// interrupt cancels the running turn if its generation is gen; false when
// no turn of gen runs.
func (l *live) interrupt(gen int64) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.turn == nil || l.turn.generation != gen {
		return false
	}
	l.turn.cancel()
	return true
}

// runningView is what a snapshot shows of the running turn.
func (l *live) runningView() (running bool, prompts []protocol.Prompt) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.turn == nil {
		return false, promptList(nil)
	}
	return true, promptList(l.turn.prompts)
}

// addPrompt makes pr pending in the running turn (ask, after the commit
// that journaled its request).
func (l *live) addPrompt(pr *prompt) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.turn != nil {
		l.turn.prompts = append(l.turn.prompts, pr)
	}
}

// takePrompt removes pending prompt id; false if it was already answered.
func (l *live) takePrompt(id string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.turn == nil {
		return false
	}
	i := slices.IndexFunc(l.turn.prompts, func(p *prompt) bool { return p.wire.PromptID == id })
	if i < 0 {
		return false
	}
	l.turn.removeLocked(i, id)
	return true
}

// answerPrompt takes pending prompt id of kind's family (family) from the
// running turn of generation gen, for a viewer's answer value, and returns
// it with the turn's stamp; already when the turn answered it before.
func (l *live) answerPrompt(gen int64, id, kind, value string) (pr *prompt, s stamp, already bool, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	t := l.turn
	if t == nil || t.generation != gen {
		return nil, s, false, protocol.Errorf(protocol.ReasonStaleGeneration, "no running execution with that generation")
	}
	if t.resolved[id] {
		return nil, s, true, nil
	}
	i := slices.IndexFunc(t.prompts, func(pr *prompt) bool { return pr.wire.PromptID == id && family(pr.wire.Kind) == kind })
	if i < 0 {
		return nil, s, false, protocol.Errorf(protocol.ReasonNotFound, "no pending %s prompt %s", kind, id)
	}
	pr = t.prompts[i]
	if kind == "approval" && !slices.Contains(pr.wire.Choices, value) {
		return nil, s, false, protocol.Errorf(protocol.ReasonInvalidParams, "choice must be one of %v", pr.wire.Choices)
	}
	t.removeLocked(i, id)
	return pr, t.stamp(), false, nil
}

// access runs the checks of docs/protocol.md#access-checks in order: profile, capability,
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

// restore validates a stored session with every check of docs/protocol.md#restore-checks. Any
// failure leaves the session dead: its inputs stay queued, nothing runs.
func (a *Authority) restore(ctx context.Context, sid string) (*live, error) {
	if sid == "" {
		return nil, protocol.Errorf(protocol.ReasonInvalidParams, "session_id is empty")
	}
	if _, err := a.cfg.Store.Session(ctx, sid); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return nil, protocol.Errorf(protocol.ReasonNotFound, "no session %s", sid)
		}
		return nil, err
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
		return r, false, err
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
