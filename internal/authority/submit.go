package authority

import (
	"context"
	"errors"

	"github.com/hermes-gateway/hermes/internal/auth"
	"github.com/hermes-gateway/hermes/internal/faults"
	"github.com/hermes-gateway/hermes/internal/ids"
	"github.com/hermes-gateway/hermes/internal/protocol"
	"github.com/hermes-gateway/hermes/internal/session"
	"github.com/hermes-gateway/hermes/internal/store"
)

const (
	maxIDLen   = 1024
	maxTextLen = 1 << 20
)

// Submit answers prompt.submit: a durable, idempotent admission into the
// session's FIFO. The queued row and its session.info event commit before
// the reply; the receipt means admission, not completion. The caller (the
// server) has checked that this connection resumed or created the session.
func (a *Authority) Submit(ctx context.Context, p auth.Principal, params protocol.PromptSubmitParams) (_ protocol.Receipt, err error) {
	defer a.reply(&err)
	key, err := submissionKey(params)
	if err != nil {
		return protocol.Receipt{}, err
	}
	l, err := a.access(ctx, p, params.SessionID, protocol.CapSubmit)
	if err != nil {
		return protocol.Receipt{}, err
	}
	if a.isDraining() {
		return protocol.Receipt{}, protocol.Errorf(protocol.ReasonRuntimeDraining, "the gateway is shutting down")
	}
	pl := payload{Text: params.Text, Attachments: params.Attachments}
	if p.Subject != l.owner {
		pl.Binding = &binding{ProfileID: a.cfg.ProfileID, SessionID: l.id, PrincipalID: p.Subject}
	}
	raw, err := session.CanonicalJSON(pl)
	if err != nil {
		return protocol.Receipt{}, protocol.Errorf(protocol.ReasonInvalidParams, "attachments are not valid JSON")
	}
	adm := store.Admission{
		AdmissionID: newID(), RequestID: key, PrincipalID: p.Subject, TargetSessionID: l.id,
		LineageJSON: `["` + l.id + `"]`, PayloadJSON: string(raw), Intent: "queue",
		PayloadDigest: digest(l.id, params.Text, params.Attachments),
	}
	saved, fresh, err := a.admit(ctx, l, adm)
	if err != nil {
		return protocol.Receipt{}, err
	}
	if fresh {
		faults.Hit(faults.AdmissionAfterCommit)
		a.kick(l)
	}
	return a.reads.receipt(saved), nil
}

func submissionKey(params protocol.PromptSubmitParams) (string, error) {
	var key string
	switch {
	case params.SubmissionID != nil && params.InputID == nil:
		key = *params.SubmissionID
	case params.InputID != nil && params.SubmissionID == nil:
		key = *params.InputID
	default:
		return "", protocol.Errorf(protocol.ReasonInvalidParams, "give exactly one of submission_id or input_id")
	}
	if key == "" || len(key) > maxIDLen {
		return "", protocol.Errorf(protocol.ReasonInvalidParams, "submission_id must be 1..1024 characters")
	}
	if len(params.Text) > maxTextLen {
		return "", protocol.Errorf(protocol.ReasonInvalidParams, "text is longer than 1 MiB")
	}
	return key, nil
}

// admit inserts the row, or returns the existing one for the same key and
// digest (fresh=false). Its transaction may be shared with concurrent
// admissions into other sessions (groupcommit.go).
func (a *Authority) admit(ctx context.Context, l *live, adm store.Admission) (store.Admission, bool, error) {
	var saved store.Admission
	fresh := false
	err := a.commitGrouped(ctx, l, func(tx *store.Tx, j *journal, st liveState) error {
		var err error
		if saved, fresh, err = tx.AdmitOnce(adm); err != nil || !fresh {
			if err == nil && saved.PayloadDigest != adm.PayloadDigest {
				err = protocol.Errorf(protocol.ReasonAdmissionConflict, "submission_id was already used with a different text")
			}
			return err
		}
		p, err := a.infoPayloadOf(tx, l.id, st.running, st.paused)
		if err != nil {
			return err
		}
		return j.add(protocol.EventSessionInfo, p, stamp{})
	})
	return saved, fresh, err
}

// Receipt answers prompt.receipt.
func (a *Authority) Receipt(ctx context.Context, p auth.Principal, sid, admissionID string) (_ protocol.Receipt, err error) {
	defer a.reply(&err)
	if _, err := a.access(ctx, p, sid, protocol.CapSubmit); err != nil {
		return protocol.Receipt{}, err
	}
	adm, err := a.ownAdmission(ctx, p, sid, admissionID)
	if err != nil {
		return protocol.Receipt{}, err
	}
	return a.reads.receipt(adm), nil
}

func (a *Authority) ownAdmission(ctx context.Context, p auth.Principal, sid, admissionID string) (store.Admission, error) {
	adm, err := a.cfg.Store.Admission(ctx, admissionID)
	if errors.Is(err, store.ErrNotFound) || (err == nil && adm.TargetSessionID != sid) {
		return store.Admission{}, protocol.Errorf(protocol.ReasonNotFound, "no such admission in this session")
	}
	if err != nil {
		return store.Admission{}, err
	}
	if adm.PrincipalID != p.Subject && !p.Can(protocol.CapControl) {
		return store.Admission{}, protocol.Errorf(protocol.ReasonPermissionDenied, "admission belongs to another principal")
	}
	return adm, nil
}

// Cancel answers prompt.cancel: only a queued row can be cancelled.
func (a *Authority) Cancel(ctx context.Context, p auth.Principal, sid, admissionID string) (_ protocol.Receipt, err error) {
	defer a.reply(&err)
	l, err := a.access(ctx, p, sid, protocol.CapSubmit)
	if err != nil {
		return protocol.Receipt{}, err
	}
	if _, err := a.ownAdmission(ctx, p, sid, admissionID); err != nil {
		return protocol.Receipt{}, err
	}
	var saved store.Admission
	err = a.commit(ctx, sid, func(tx *store.Tx, j *journal) error {
		before, err := tx.Admission(admissionID)
		if err != nil {
			return err
		}
		if saved, err = tx.Cancel(admissionID); err != nil || before.Status != protocol.StatusQueued {
			return err
		}
		done := protocol.MessageCompletePayload{AdmissionID: admissionID, Outcome: protocol.OutcomeCancelled}
		if err := j.add(protocol.EventMessageComplete, done, stamp{admissionID: admissionID}); err != nil {
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

// newID is the authority's id format (admission, prompt, lineage,
// checkpoint and rewind ids): 32 random hex digits.
func newID() string { return ids.New("", 16) }
