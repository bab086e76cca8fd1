package authority

import (
	"context"
	"encoding/json"

	"github.com/hermes-gateway/hermes/internal/auth"
	"github.com/hermes-gateway/hermes/internal/protocol"
	"github.com/hermes-gateway/hermes/internal/store"
)

// Interrupt answers session.interrupt: the generation must be the current
// one; a running turn of that generation is cancelled and settles
// interrupted.
func (a *Authority) Interrupt(ctx context.Context, p auth.Principal, params protocol.SessionInterruptParams) (_ protocol.SessionHandle, err error) {
	defer a.reply(&err)
	l, err := a.access(ctx, p, params.SessionID, protocol.CapControl)
	if err != nil {
		return protocol.SessionHandle{}, err
	}
	row, err := a.cfg.Store.Session(ctx, l.id)
	if err != nil {
		return protocol.SessionHandle{}, err
	}
	if params.ExecutionGeneration != row.RuntimeGeneration {
		return protocol.SessionHandle{}, protocol.Errorf(protocol.ReasonStaleGeneration, "execution_generation is %d", row.RuntimeGeneration)
	}
	state := "idle"
	if l.interrupt(params.ExecutionGeneration) {
		state = "running"
	} else if a.hasUnknown(ctx, l.id) {
		state = "unknown"
	}
	return protocol.SessionHandle{
		Ref:        protocol.Ref{ProfileID: a.cfg.ProfileID, SessionID: l.id},
		InstanceID: a.cfg.InstanceID, AuthorityEpoch: a.cfg.Epoch,
		Revision: row.RuntimeRevision, ExecutionGeneration: row.RuntimeGeneration, ExecutionState: state,
	}, nil
}

func (a *Authority) hasUnknown(ctx context.Context, sid string) bool {
	rows, err := a.cfg.Store.PendingAdmissions(ctx, sid)
	if err != nil {
		return false
	}
	for _, r := range rows {
		if r.Status == protocol.StatusUnknown {
			return true
		}
	}
	return false
}

// interruptedNote is the tool result given to every tool call a crash cut
// (docs/protocol.md#turns), so the next model request is valid.
const interruptedNote = "interrupted: the gateway stopped before this call finished; it was not run again"

// ResolveUnknown answers prompt.resolve_unknown: an unknown row becomes
// terminal/interrupted (never requeued), dangling tool calls get a result,
// and the FIFO resumes.
func (a *Authority) ResolveUnknown(ctx context.Context, p auth.Principal, params protocol.ResolveUnknownParams) (_ protocol.Receipt, err error) {
	defer a.reply(&err)
	l, err := a.access(ctx, p, params.SessionID, protocol.CapControl)
	if err != nil {
		return protocol.Receipt{}, err
	}
	if _, err := a.ownAdmission(ctx, p, l.id, params.AdmissionID); err != nil {
		return protocol.Receipt{}, err
	}
	phys := l.current().Entry.SessionID
	var saved store.Admission
	err = a.commit(ctx, l.id, func(tx *store.Tx, j *journal) error {
		var err error
		if saved, err = tx.ResolveUnknown(params.AdmissionID, params.ExecutionGeneration); err != nil {
			return err
		}
		if err := closeDanglingCalls(tx, phys); err != nil {
			return err
		}
		done := protocol.MessageCompletePayload{AdmissionID: saved.AdmissionID, Outcome: protocol.OutcomeInterrupted}
		if err := j.add(protocol.EventMessageComplete, done, stamp{admissionID: saved.AdmissionID}); err != nil {
			return err
		}
		return a.addInfo(tx, j, l, l.isRunning(), stamp{})
	}, nil)
	if err != nil {
		return protocol.Receipt{}, err
	}
	a.kick(l)
	return a.reads.receipt(saved), nil
}

// closeDanglingCalls appends an interrupted tool result for every tool call
// of the transcript's last assistant message that has none.
func closeDanglingCalls(tx *store.Tx, phys string) error {
	msgs, err := tx.Messages(phys)
	if err != nil {
		return err
	}
	last := -1
	for i, m := range msgs {
		if m.Role == "assistant" && m.ToolCallsJSON != "" {
			last = i
		}
	}
	if last < 0 {
		return nil
	}
	answered := map[string]bool{}
	for _, m := range msgs[last+1:] {
		if m.Role == "tool" {
			answered[m.ToolCallID] = true
		}
	}
	var calls []struct {
		ID       string `json:"id"`
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	}
	_ = json.Unmarshal([]byte(msgs[last].ToolCallsJSON), &calls)
	for _, c := range calls {
		if answered[c.ID] {
			continue
		}
		m := store.Message{SessionID: phys, Role: "tool", Content: interruptedNote, ToolCallID: c.ID, ToolName: c.Function.Name}
		if _, err := tx.AppendMessage(m); err != nil {
			return err
		}
	}
	return nil
}

// EventsSince answers session.events.since from the durable journal.
func (a *Authority) EventsSince(ctx context.Context, p auth.Principal, params protocol.EventsSinceParams) (_ protocol.EventsSinceResult, err error) {
	defer a.reply(&err)
	l, err := a.access(ctx, p, params.SessionID, protocol.CapRead)
	if err != nil {
		return protocol.EventsSinceResult{}, err
	}
	return a.reads.eventsSince(ctx, l, params)
}
