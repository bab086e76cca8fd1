package authority

import (
	"context"
	"encoding/json"
	"sort"
	"time"

	"github.com/hermes-gateway/hermes/internal/auth"
	"github.com/hermes-gateway/hermes/internal/protocol"
	"github.com/hermes-gateway/hermes/internal/store"
)

// reads holds the authority's read models: the snapshot of session.resume,
// session.info, session.list, session.events.since and admission receipts,
// with the conversions of store rows to their wire shapes. It writes
// nothing and has no lock of its own: it reads the store, and live sessions
// through their small methods (live.go). Access checks stay with the
// exported Authority methods that call it (they may restore a session,
// which is the authority's own business).
type reads struct {
	cfg     *Config                // the authority's: store, profile id, epoch, live settings
	lookup  func(sid string) *live // the live session sid, nil if it is not live
	liveIDs func() []string        // the ids of the live sessions
}

// maxSnapshotMessages bounds session.resume messages (docs/protocol.md#methods).
const maxSnapshotMessages = 500

// maxEventsPerCall bounds session.events.since (docs/protocol.md#replay).
const maxEventsPerCall = 1000

// snapshot reads a session's state for session.resume; the caller holds the
// session's hub lock (Attach).
func (rd reads) snapshot(ctx context.Context, l *live) (protocol.Snapshot, error) {
	row, err := rd.cfg.Store.Session(ctx, l.id)
	if err != nil {
		return protocol.Snapshot{}, err
	}
	r := l.current()
	msgs, total, err := rd.cfg.Store.Messages(ctx, r.Entry.SessionID, maxSnapshotMessages)
	if err != nil {
		return protocol.Snapshot{}, err
	}
	pending, err := rd.cfg.Store.PendingAdmissions(ctx, l.id)
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
		AuthorityEpoch:      rd.cfg.Epoch,
		ReplayEpoch:         row.ReplayEpoch,
		LastSequence:        row.LastEventSeq,
		Revision:            row.RuntimeRevision,
		ExecutionGeneration: row.RuntimeGeneration,
		Pending:             pendingList(pending),
		Prompts:             prompts,
		Info:                rd.info(l, row),
	}, nil
}

// sessionInfo answers session.info for a live session.
func (rd reads) sessionInfo(ctx context.Context, l *live) (protocol.SessionInfo, error) {
	row, err := rd.cfg.Store.Session(ctx, l.id)
	if err != nil {
		return protocol.SessionInfo{}, err
	}
	return rd.info(l, row), nil
}

// info is a live session's session.info, from its row and its memory.
func (rd reads) info(l *live, row store.Session) protocol.SessionInfo {
	r := l.current()
	return protocol.SessionInfo{
		Source:          r.Policy.Source,
		Model:           r.Policy.Model,
		Lazy:            l.lazy(),
		ProfileID:       rd.cfg.ProfileID,
		DesktopProtocol: protocol.DesktopProtocol,
		Cwd:             r.Policy.Cwd,
		LaunchRequest:   json.RawMessage(r.Policy.RequestJSON),
		Title:           row.Title,
		PausedReason:    l.pausedReason(),
		Archived:        row.Archived,
		Usage:           wireUsage(row.Usage, r.Policy.Model, rd.cfg.Settings().Pricing),
	}
}

// list answers session.list for p, who may read.
func (rd reads) list(ctx context.Context, p auth.Principal, params protocol.SessionListParams) (protocol.SessionListResult, error) {
	limit, scope, err := listArgs(params)
	if err != nil {
		return protocol.SessionListResult{}, err
	}
	var rows []store.Session
	if scope == "stored" || params.Title != nil {
		scope = "stored"
		rows, err = rd.storedRows(ctx, params, limit)
	} else {
		rows, err = rd.liveRows(ctx)
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
		out.Sessions = append(out.Sessions, rd.summary(ctx, row))
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

func (rd reads) storedRows(ctx context.Context, params protocol.SessionListParams, limit int) ([]store.Session, error) {
	f := store.ListFilter{Limit: 1000, ExcludeArchived: true, ExcludeSources: []string{"tool", "oneshot"}}
	if params.IncludeHidden != nil {
		f.IncludeHidden = *params.IncludeHidden
	}
	if params.Title != nil {
		f.Title = *params.Title
	}
	return rd.cfg.Store.ListSessions(ctx, f)
}

func (rd reads) liveRows(ctx context.Context) ([]store.Session, error) {
	ids := rd.liveIDs()
	rows := make([]store.Session, 0, len(ids))
	for _, id := range ids {
		row, err := rd.cfg.Store.Session(ctx, id)
		if err != nil {
			return nil, err
		}
		rows = append(rows, row)
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].StartedAtMs > rows[j].StartedAtMs })
	return rows, nil
}

func (rd reads) summary(ctx context.Context, row store.Session) protocol.SessionSummary {
	s := protocol.SessionSummary{
		SessionID: row.ID, Title: row.Title, Source: row.Source,
		StartedAt:    time.UnixMilli(row.StartedAtMs).UTC().Format(time.RFC3339),
		MessageCount: int(row.MessageCount),
	}
	if l := rd.lookup(row.ID); l != nil {
		r := l.current()
		if phys, err := rd.cfg.Store.Session(ctx, r.Entry.SessionID); err == nil {
			s.MessageCount = int(phys.MessageCount)
		}
		s.Running = l.isRunning()
	}
	return s
}

// eventsSince answers session.events.since for a live session.
func (rd reads) eventsSince(ctx context.Context, l *live, params protocol.EventsSinceParams) (protocol.EventsSinceResult, error) {
	row, err := rd.cfg.Store.Session(ctx, l.id)
	if err != nil {
		return protocol.EventsSinceResult{}, err
	}
	res := protocol.EventsSinceResult{Events: []protocol.Event{}, LatestSeq: row.LastEventSeq, ReplayEpoch: row.ReplayEpoch}
	var after int64
	if params.LastSequence != nil {
		after = *params.LastSequence
	}
	if after < 0 {
		return res, protocol.Errorf(protocol.ReasonInvalidParams, "last_sequence must be ≥ 0")
	}
	if (params.ReplayEpoch != nil && *params.ReplayEpoch != row.ReplayEpoch) || after > row.LastEventSeq {
		res.SnapshotRequired = true
		return res, nil
	}
	evs, more, err := rd.cfg.Store.EventsSince(ctx, l.id, after, maxEventsPerCall)
	if err != nil {
		return res, err
	}
	for _, e := range evs {
		res.Events = append(res.Events, wireEvent(e))
	}
	res.More = more
	return res, nil
}

// receipt is an admission row as prompt.submit, prompt.receipt,
// prompt.cancel and prompt.resolve_unknown answer it.
func (rd reads) receipt(adm store.Admission) protocol.Receipt {
	r := protocol.Receipt{
		AdmissionID:    adm.AdmissionID,
		Ref:            protocol.Ref{ProfileID: rd.cfg.ProfileID, SessionID: adm.TargetSessionID},
		Sequence:       adm.Seq,
		Status:         adm.Status,
		AuthorityEpoch: adm.OwnerEpoch,
	}
	if adm.Outcome != "" {
		o := adm.Outcome
		r.Outcome = &o
	}
	r.ExecutionGeneration = generation(adm.Generation)
	return r
}

// generation is a row's execution generation on the wire: null until claimed.
func generation(g int64) *int64 {
	if g == 0 {
		return nil
	}
	return &g
}

func pendingList(rows []store.Admission) []protocol.PendingAdmission {
	briefs := make([]store.PendingBrief, len(rows))
	for i, a := range rows {
		briefs[i] = store.PendingBrief{
			Seq: a.Seq, AdmissionID: a.AdmissionID, RequestID: a.RequestID, Status: a.Status,
			Generation: a.Generation, Text: parsePayload(a.PayloadJSON).Text,
		}
	}
	return briefList(briefs)
}

// briefList converts pending rows to their public shape (text only, never
// the private binding).
func briefList(rows []store.PendingBrief) []protocol.PendingAdmission {
	out := make([]protocol.PendingAdmission, 0, len(rows))
	for _, r := range rows {
		out = append(out, protocol.PendingAdmission{
			AdmissionID: r.AdmissionID, InputID: r.RequestID, Status: r.Status, Sequence: r.Seq,
			ExecutionGeneration: generation(r.Generation), Text: r.Text,
		})
	}
	return out
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
