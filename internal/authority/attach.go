package authority

import (
	"context"
	"encoding/json"
	"errors"
	"sort"
	"time"

	"github.com/hermes-gateway/hermes/internal/auth"
	"github.com/hermes-gateway/hermes/internal/events"
	"github.com/hermes-gateway/hermes/internal/protocol"
	"github.com/hermes-gateway/hermes/internal/session"
	"github.com/hermes-gateway/hermes/internal/store"
)

// maxSnapshotMessages bounds session.resume messages (SPEC §7).
const maxSnapshotMessages = 500

// Attach answers session.resume (and the snapshot of session.create): it
// resolves the session, applies a re-supplied launch key, takes the snapshot
// and subscribes under one hub lock, so the stream continues exactly where
// the snapshot ends.
func (a *Authority) Attach(ctx context.Context, p auth.Principal, params protocol.SessionResumeParams) (_ protocol.Snapshot, _ *events.Subscription, err error) {
	defer a.reply(&err)
	sid, err := a.resolveTarget(ctx, p, params)
	if err != nil {
		return protocol.Snapshot{}, nil, err
	}
	l, err := a.access(ctx, p, sid, protocol.CapRead)
	if err != nil {
		return protocol.Snapshot{}, nil, err
	}
	if params.APIKey != nil {
		if *params.APIKey == "" {
			return protocol.Snapshot{}, nil, protocol.Errorf(protocol.ReasonInvalidParams, "api_key is empty")
		}
		ref := session.CredentialRef(*params.APIKey)
		if err := a.supplyKey(l, *params.APIKey, &ref); err != nil {
			return protocol.Snapshot{}, nil, err
		}
	}
	var snap protocol.Snapshot
	sub, err := a.cfg.Hub.Subscribe(sid, func() error {
		var err error
		snap, err = a.snapshot(ctx, l)
		return err
	})
	if err != nil {
		return protocol.Snapshot{}, nil, err
	}
	snap.SubscriptionID = sub.ID()
	return snap, sub, nil
}

func (a *Authority) resolveTarget(ctx context.Context, p auth.Principal, params protocol.SessionResumeParams) (string, error) {
	switch {
	case params.SessionID != nil && params.Title == nil:
		return *params.SessionID, nil
	case params.Title != nil && params.SessionID == nil:
		row, err := a.cfg.Store.SessionByTitle(ctx, *params.Title)
		if errors.Is(err, store.ErrNotFound) {
			return "", protocol.Errorf(protocol.ReasonNotFound, "no session with that title")
		}
		if err != nil {
			return "", err
		}
		if row.UserID != p.Subject && !p.Operator() {
			return "", protocol.Errorf(protocol.ReasonNotFound, "no session with that title")
		}
		return row.ChatID, nil
	}
	return "", protocol.Errorf(protocol.ReasonInvalidParams, "give exactly one of session_id or title")
}

// snapshot reads a session's state; the caller holds the session's hub lock.
func (a *Authority) snapshot(ctx context.Context, l *live) (protocol.Snapshot, error) {
	row, err := a.cfg.Store.Session(ctx, l.id)
	if err != nil {
		return protocol.Snapshot{}, err
	}
	r := l.current()
	msgs, total, err := a.cfg.Store.Messages(ctx, r.Entry.SessionID, maxSnapshotMessages)
	if err != nil {
		return protocol.Snapshot{}, err
	}
	pending, err := a.cfg.Store.PendingAdmissions(ctx, l.id)
	if err != nil {
		return protocol.Snapshot{}, err
	}
	running, prompts := l.runningView()
	return protocol.Snapshot{
		SessionID:           l.id,
		StoredSessionID:     l.id,
		Messages:            wireMessages(msgs),
		MessageCount:        total,
		Running:             running,
		AuthorityEpoch:      a.cfg.Epoch,
		ReplayEpoch:         row.ReplayEpoch,
		LastSequence:        row.LastEventSeq,
		Revision:            row.RuntimeRevision,
		ExecutionGeneration: row.RuntimeGeneration,
		Pending:             pendingList(pending),
		Prompts:             prompts,
		Info:                a.info(l, row),
	}, nil
}

func wireMessages(rows []store.Message) []protocol.Message {
	out := make([]protocol.Message, 0, len(rows))
	for _, m := range rows {
		out = append(out, protocol.Message{
			RowID: m.ID, Role: m.Role, Content: m.Content, ToolCallID: m.ToolCallID,
			ToolCalls: rawOrNil(m.ToolCallsJSON), ToolName: m.ToolName, Reasoning: m.Reasoning,
			Timestamp: time.UnixMilli(m.CreatedAtMs).UTC().Format(time.RFC3339),
		})
	}
	return out
}

func rawOrNil(s string) json.RawMessage {
	if s == "" {
		return nil
	}
	return json.RawMessage(s)
}

func (a *Authority) info(l *live, row store.Session) protocol.SessionInfo {
	r := l.current()
	return protocol.SessionInfo{
		Source:          r.Policy.Source,
		Model:           r.Policy.Model,
		Lazy:            l.lazy(),
		ProfileID:       a.cfg.ProfileID,
		DesktopProtocol: protocol.DesktopProtocol,
		Cwd:             r.Policy.Cwd,
		LaunchRequest:   json.RawMessage(r.Policy.RequestJSON),
		Title:           row.Title,
		PausedReason:    l.pausedReason(),
		Archived:        row.Archived,
		Usage:           a.sessionUsage(row.Usage, r.Policy.Model),
	}
}

// Info answers session.info.
func (a *Authority) Info(ctx context.Context, p auth.Principal, sid string) (_ protocol.SessionInfo, err error) {
	defer a.reply(&err)
	l, err := a.access(ctx, p, sid, protocol.CapRead)
	if err != nil {
		return protocol.SessionInfo{}, err
	}
	row, err := a.cfg.Store.Session(ctx, sid)
	if err != nil {
		return protocol.SessionInfo{}, err
	}
	return a.info(l, row), nil
}

// List answers session.list. Listing never attaches and never adopts.
func (a *Authority) List(ctx context.Context, p auth.Principal, params protocol.SessionListParams) (_ protocol.SessionListResult, err error) {
	defer a.reply(&err)
	if err := a.permit(p, protocol.CapRead); err != nil {
		return protocol.SessionListResult{}, err
	}
	limit, scope, err := listArgs(params)
	if err != nil {
		return protocol.SessionListResult{}, err
	}
	var rows []store.Session
	if scope == "stored" || params.Title != nil {
		scope = "stored"
		rows, err = a.storedRows(ctx, params, limit)
	} else {
		rows, err = a.liveRows(ctx)
	}
	if err != nil {
		return protocol.SessionListResult{}, err
	}
	out := protocol.SessionListResult{Sessions: []protocol.SessionSummary{}, Scope: scope}
	for _, row := range rows {
		if row.UserID != p.Subject && !p.Operator() {
			continue
		}
		if len(out.Sessions) == limit {
			break
		}
		out.Sessions = append(out.Sessions, a.summary(ctx, row))
	}
	return out, nil
}

func listArgs(params protocol.SessionListParams) (int, string, error) {
	limit, scope := 50, "live"
	if params.Limit != nil {
		if *params.Limit < 1 || *params.Limit > 200 {
			return 0, "", protocol.Errorf(protocol.ReasonInvalidParams, "limit must be 1..200")
		}
		limit = *params.Limit
	}
	if params.Scope != nil {
		if *params.Scope != "live" && *params.Scope != "stored" {
			return 0, "", protocol.Errorf(protocol.ReasonInvalidParams, "scope must be live or stored")
		}
		scope = *params.Scope
	}
	return limit, scope, nil
}

func (a *Authority) storedRows(ctx context.Context, params protocol.SessionListParams, limit int) ([]store.Session, error) {
	f := store.ListFilter{Limit: 1000, ExcludeArchived: true, ExcludeSources: []string{"tool", "oneshot"}}
	if params.IncludeHidden != nil {
		f.IncludeHidden = *params.IncludeHidden
	}
	if params.Title != nil {
		f.Title = *params.Title
	}
	return a.cfg.Store.ListSessions(ctx, f)
}

func (a *Authority) liveRows(ctx context.Context) ([]store.Session, error) {
	a.mu.Lock()
	ids := make([]string, 0, len(a.live))
	for id := range a.live {
		ids = append(ids, id)
	}
	a.mu.Unlock()
	rows := make([]store.Session, 0, len(ids))
	for _, id := range ids {
		row, err := a.cfg.Store.Session(ctx, id)
		if err != nil {
			return nil, err
		}
		rows = append(rows, row)
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].StartedAtMs > rows[j].StartedAtMs })
	return rows, nil
}

func (a *Authority) summary(ctx context.Context, row store.Session) protocol.SessionSummary {
	s := protocol.SessionSummary{
		SessionID: row.ID, Title: row.Title, Source: row.Source,
		StartedAt:    time.UnixMilli(row.StartedAtMs).UTC().Format(time.RFC3339),
		MessageCount: int(row.MessageCount),
	}
	a.mu.Lock()
	l := a.live[row.ID]
	a.mu.Unlock()
	if l != nil {
		r := l.current()
		if phys, err := a.cfg.Store.Session(ctx, r.Entry.SessionID); err == nil {
			s.MessageCount = int(phys.MessageCount)
		}
		s.Running = l.isRunning()
	}
	return s
}
