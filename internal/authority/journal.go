package authority

import (
	"context"
	"encoding/json"

	"github.com/hermes-gateway/hermes/internal/protocol"
	"github.com/hermes-gateway/hermes/internal/store"
)

// stamp is the execution stamp of events a claimed turn causes (docs/protocol.md#events).
type stamp struct {
	generation  int64
	admissionID string
}

// journal collects the events a transaction appends to one session's
// journal; they are published only after that transaction commits.
type journal struct {
	tx    *store.Tx
	sid   string
	epoch int64
	out   []protocol.Event
}

func (j *journal) add(typ string, payload any, s stamp) error {
	b, err := json.Marshal(payload)
	if err != nil {
		return err
	}
	e := store.Event{Type: typ, PayloadJSON: string(b), ExecutionGeneration: s.generation, AdmissionID: s.admissionID}
	if s.generation != 0 || s.admissionID != "" {
		e.AuthorityEpoch = j.epoch
	}
	saved, err := j.tx.AppendEvent(j.sid, e)
	if err != nil {
		return err
	}
	j.out = append(j.out, wireEvent(saved))
	return nil
}

func wireEvent(e store.Event) protocol.Event {
	return protocol.Event{
		Type:                e.Type,
		SessionID:           e.SessionID,
		Seq:                 e.Seq,
		ReplayEpoch:         e.ReplayEpoch,
		Payload:             json.RawMessage(e.PayloadJSON),
		AuthorityEpoch:      e.AuthorityEpoch,
		ExecutionGeneration: e.ExecutionGeneration,
		AdmissionID:         e.AdmissionID,
	}
}

// commit runs fn in one epoch-fenced transaction on session sid, then
// publishes the events it journaled; after (may be nil) runs once the
// transaction committed, still under the session's hub lock, so in-memory
// state changes become visible exactly with their events.
func (a *Authority) commit(ctx context.Context, sid string, fn func(tx *store.Tx, j *journal) error, after func()) error {
	return a.commitVia(a.cfg.Store.InTx, ctx, sid, fn, after)
}

// commitVia is commit through inTx: store.InTx, or store.InTxGrouped for a
// fn that may share its transaction with other sessions' (see groupcommit.go).
func (a *Authority) commitVia(inTx txFunc, ctx context.Context, sid string, fn func(tx *store.Tx, j *journal) error, after func()) error {
	return a.cfg.Hub.Commit(sid, func() ([]protocol.Event, error) {
		var out []protocol.Event
		err := inTx(ctx, a.cfg.Epoch, func(tx *store.Tx) error {
			j := &journal{tx: tx, sid: sid, epoch: a.cfg.Epoch}
			if err := fn(tx, j); err != nil {
				return err
			}
			out = j.out
			return nil
		})
		if err != nil {
			return nil, a.fenced(err)
		}
		if after != nil {
			after()
		}
		return out, nil
	})
}

// txFunc is the shape of store.InTx and store.InTxGrouped.
type txFunc func(ctx context.Context, epoch int64, fn func(tx *store.Tx) error) error

// emit journals and publishes events that change no other state.
func (a *Authority) emit(ctx context.Context, l *live, typ string, payload any, s stamp) error {
	return a.commit(ctx, l.id, func(_ *store.Tx, j *journal) error {
		return j.add(typ, payload, s)
	}, nil)
}

// turnJournal is what a running turn's callbacks (its recorder, prompt
// waiters and ui sink) need of the authority: they hold it, not the
// Authority, which implements it here.
type turnJournal interface {
	// commit runs fn in one transaction on session sid and publishes what
	// it journaled; after runs once it committed (Authority.commit).
	commit(ctx context.Context, sid string, fn func(tx *store.Tx, j *journal) error, after func()) error
	// emitDetached journals and publishes one event that changes no other
	// state, even when the turn that caused it is cut.
	emitDetached(l *live, typ string, payload any, s stamp) error
	// publishLive sends an event to l's viewers without journaling it.
	publishLive(l *live, typ string, payload any, s stamp)
	// appendMessage records one message of a transcript.
	appendMessage(ctx context.Context, m store.Message) error
}

var _ turnJournal = (*Authority)(nil)

func (a *Authority) emitDetached(l *live, typ string, payload any, s stamp) error {
	return a.emit(context.WithoutCancel(a.ctx), l, typ, payload, s)
}

func (a *Authority) publishLive(l *live, typ string, payload any, s stamp) {
	b, _ := json.Marshal(payload)
	a.cfg.Hub.Publish(l.id, protocol.Event{
		Type: typ, SessionID: l.id, Payload: b, AuthorityEpoch: a.cfg.Epoch,
		ExecutionGeneration: s.generation, AdmissionID: s.admissionID,
	})
}

func (a *Authority) appendMessage(ctx context.Context, m store.Message) error {
	return a.cfg.Store.InTx(ctx, a.cfg.Epoch, func(tx *store.Tx) error {
		_, err := tx.AppendMessage(m)
		return err
	})
}

// maxInfoPending bounds the pending list of a session.info event, so an
// admission costs the same whatever the length of the FIFO.
const maxInfoPending = 32

// infoPayload builds the session.info event payload inside a transaction.
func (a *Authority) infoPayload(tx *store.Tx, l *live, running bool) (protocol.SessionInfoPayload, error) {
	return a.infoPayloadOf(tx, l.id, running, l.pausedReason())
}

// infoPayloadOf builds a session.info payload from the transaction and the
// in-memory state given (read by the caller), taking no lock.
func (a *Authority) infoPayloadOf(tx *store.Tx, sid string, running bool, paused string) (protocol.SessionInfoPayload, error) {
	h, err := tx.Header(sid)
	if err != nil {
		return protocol.SessionInfoPayload{}, err
	}
	pending, err := tx.PendingBrief(sid, maxInfoPending+1)
	if err != nil {
		return protocol.SessionInfoPayload{}, err
	}
	truncated := len(pending) > maxInfoPending
	if truncated {
		pending = pending[:maxInfoPending]
	}
	return protocol.SessionInfoPayload{
		StoredSessionID:     sid,
		PendingTruncated:    truncated,
		Pending:             briefList(pending),
		Running:             running,
		ExecutionGeneration: h.Generation,
		Revision:            h.Revision,
		DesktopProtocol:     protocol.DesktopProtocol,
		PausedReason:        paused,
		Title:               h.Title,
		Usage:               a.sessionUsage(h.Usage, h.Model),
	}, nil
}

func (a *Authority) addInfo(tx *store.Tx, j *journal, l *live, running bool, s stamp) error {
	p, err := a.infoPayload(tx, l, running)
	if err != nil {
		return err
	}
	return j.add(protocol.EventSessionInfo, p, s)
}
