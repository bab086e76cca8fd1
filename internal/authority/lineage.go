package authority

import (
	"context"
	"encoding/json"
	"time"

	"github.com/hermes-gateway/hermes/internal/protocol"
	"github.com/hermes-gateway/hermes/internal/session"
	"github.com/hermes-gateway/hermes/internal/store"
)

// child describes a new physical transcript to publish (compress or reset).
type child struct {
	endReason    string          // the parent's end_reason: "compression" | "session_reset"
	modelConfig  map[string]any  // lineage marker of the child row
	messages     []store.Message // the child's initial transcript
	beforeCommit string          // crash point right before the commit
	afterCommit  string          // crash point right after it
}

// release ends a reservation (live.reserve) and lets the FIFO claim again.
func (a *Authority) release(l *live) {
	l.unreserve()
	a.kick(l)
}

// publishChild commits, in one transaction: the child row and its messages,
// the parent's end, the advanced receipt (entry.session_id, lineage) and
// route, then fn (the mutation's bookkeeping). The in-memory receipt moves
// only after the commit. An aborted publication changes nothing.
func (a *Authority) publishChild(ctx context.Context, l *live, c child, fn func(tx *store.Tx, j *journal) error) error {
	r := l.current()
	parent := r.Entry.SessionID
	now := time.Now().UTC()
	childID := "t-" + newID()
	next := r.Advance(childID, now)
	marker, _ := json.Marshal(c.modelConfig)
	receipt, err := session.CanonicalJSON(next)
	if err != nil {
		return err
	}
	entry, _ := session.CanonicalJSON(next.Entry)
	row := store.Session{
		ID: childID, Source: r.Policy.Source, UserID: r.PrincipalID, SessionKey: r.Route, ChatID: l.id,
		Model: r.Policy.Model, Cwd: r.Policy.Cwd, ParentSessionID: parent, ModelConfig: string(marker),
		StartedAtMs: now.UnixMilli(), Hidden: true,
	}
	route := store.Route{SessionKey: r.Route, EntryJSON: string(entry), UpdatedAtMs: now.UnixMilli()}
	err = a.commit(ctx, l.id, func(tx *store.Tx, j *journal) error {
		if err := writeChild(tx, row, c, route, string(receipt)); err != nil {
			return err
		}
		if err := fn(tx, j); err != nil {
			return err
		}
		hit(c.beforeCommit)
		return nil
	}, func() { l.setReceipt(next) })
	if err == nil {
		hit(c.afterCommit)
	}
	return err
}

// writeChild is publishChild's transaction: the child row and transcript,
// the parent's end, the route and the receipt.
func writeChild(tx *store.Tx, row store.Session, c child, route store.Route, receipt string) error {
	prow, err := tx.Session(row.ParentSessionID)
	if err != nil {
		return err
	}
	if prow.EndReason == "compression" || prow.EndReason == "session_reset" {
		return protocol.Errorf(protocol.ReasonAdmissionConflict, "the transcript was already replaced")
	}
	if err := tx.InsertSession(row); err != nil {
		return err
	}
	for _, m := range c.messages {
		m.ID, m.SessionID = 0, row.ID
		if _, err := tx.AppendMessage(m); err != nil {
			return err
		}
	}
	if err := tx.EndSession(row.ParentSessionID, c.endReason, row.StartedAtMs); err != nil {
		return err
	}
	if err := tx.PutRoute(route); err != nil {
		return err
	}
	return tx.PutMeta(session.ReceiptKey(row.ChatID), receipt)
}
