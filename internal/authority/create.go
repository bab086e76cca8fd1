package authority

import (
	"context"
	"time"

	"github.com/hermes-gateway/hermes/internal/auth"
	"github.com/hermes-gateway/hermes/internal/faults"
	"github.com/hermes-gateway/hermes/internal/protocol"
	"github.com/hermes-gateway/hermes/internal/session"
	"github.com/hermes-gateway/hermes/internal/store"
)

// Create answers session.create: it validates and freezes the launch policy,
// commits the session row, its route and its creation receipt in one
// transaction, and only then makes the session live. A repeat of the same
// request_id with the same frozen request returns the same session, also
// after a restart; a different request is invalid_params.
func (a *Authority) Create(ctx context.Context, p auth.Principal, params protocol.SessionCreateParams) (_ string, err error) {
	defer a.reply(&err)
	if err := a.permit(p, protocol.CapCreate); err != nil {
		return "", err
	}
	if a.isDraining() {
		return "", protocol.Errorf(protocol.ReasonRuntimeDraining, "the gateway is shutting down")
	}
	if params.RequestID != nil {
		// A repeat is answered from its receipt before Build: the defaults or
		// the cwd may have changed since, the frozen request has not.
		sid := session.LogicalID(a.cfg.ProfileID, p.Subject, *params.RequestID)
		if done, err := a.repeatCreate(ctx, sid, p.Subject, params); done || err != nil {
			return sid, err
		}
	}
	settings := a.cfg.Settings()
	defaults := settings.Defaults
	defaults.ProfileID = a.cfg.ProfileID
	launch, err := session.Build(params, p.Subject, defaults, time.Now().UTC())
	if err != nil {
		return "", err
	}
	if err := a.freezeHooks(&launch.Receipt, settings); err != nil {
		return "", err
	}
	if err := a.commitCreate(ctx, launch); err != nil {
		return "", err
	}
	faults.Hit(faults.CreateAfterCommit)
	return launch.Receipt.SessionID, nil
}

// repeatCreate answers a create whose receipt already exists.
func (a *Authority) repeatCreate(ctx context.Context, sid, subject string, params protocol.SessionCreateParams) (bool, error) {
	r, ok, err := a.storedReceipt(ctx, sid)
	if err != nil || !ok {
		return err != nil, err
	}
	frozen, err := session.FrozenRequest(params)
	if err != nil {
		return true, err
	}
	if r.PrincipalID != subject || r.RequestID != *params.RequestID || r.Policy.RequestJSON != frozen {
		return true, protocol.Errorf(protocol.ReasonInvalidParams, "request_id was already used for a different session.create")
	}
	key := ""
	if params.APIKey != nil {
		key = *params.APIKey
	}
	if r.Policy.CredentialRef != nil && key == "" {
		return true, protocol.Errorf(protocol.ReasonAdmissionConflict, "this session was created with a launch api_key; repeat it")
	}
	l, err := a.load(ctx, sid)
	if err != nil {
		return true, err
	}
	ref := session.CredentialRef(key)
	return true, a.supplyKey(l, key, &ref)
}

// supplyKey binds a launch key to a live session: the identical key (by its
// fingerprint in the receipt) resumes a paused FIFO; another is a conflict.
func (a *Authority) supplyKey(l *live, key string, ref *string) error {
	resumed, err := l.bindKey(key, ref)
	if err != nil {
		return err
	}
	if resumed {
		a.kick(l)
	}
	return nil
}

// commitCreate writes the session row, its route and its receipt in one
// transaction; each of also (session.import's history) runs in it too,
// after them.
func (a *Authority) commitCreate(ctx context.Context, launch session.Launch, also ...func(*store.Tx) error) error {
	r := launch.Receipt
	raw, err := session.CanonicalJSON(r)
	if err != nil {
		return err
	}
	row := store.Session{
		ID: r.SessionID, Source: r.Policy.Source, UserID: r.PrincipalID, SessionKey: r.Route,
		ChatID: r.SessionID, Model: r.Policy.Model, Cwd: r.Policy.Cwd, Title: r.Policy.Title,
		Hidden: r.Policy.Hidden, ModelConfig: "{}", StartedAtMs: time.Now().UnixMilli(),
	}
	l := newLive(r)
	l.apiKey, l.needKey = launch.APIKey, false
	return a.commit(ctx, r.SessionID, func(tx *store.Tx, _ *journal) error {
		if _, ok, err := tx.Meta(session.ReceiptKey(r.SessionID)); err != nil || ok {
			return firstErr(err, protocol.Errorf(protocol.ReasonAdmissionConflict, "session is being created concurrently"))
		}
		if _, err := tx.Session(r.SessionID); err == nil {
			return protocol.Errorf(protocol.ReasonStorageUnavailable, "a transcript with this id exists without a receipt")
		}
		if _, ok, err := tx.Route("", r.Route); err != nil || ok {
			return firstErr(err, protocol.Errorf(protocol.ReasonAdmissionConflict, "route already taken"))
		}
		if err := tx.InsertSession(row); err != nil {
			return err
		}
		entry, _ := session.CanonicalJSON(r.Entry)
		if err := tx.PutRoute(store.Route{SessionKey: r.Route, EntryJSON: string(entry), UpdatedAtMs: row.StartedAtMs}); err != nil {
			return err
		}
		if err := tx.PutMeta(session.ReceiptKey(r.SessionID), string(raw)); err != nil {
			return err
		}
		for _, fn := range also {
			if err := fn(tx); err != nil {
				return err
			}
		}
		faults.Hit(faults.CreateBeforeCommit)
		return nil
	}, func() {
		a.mu.Lock()
		a.live[r.SessionID] = l
		a.mu.Unlock()
	})
}

func firstErr(err error, otherwise error) error {
	if err != nil {
		return err
	}
	return otherwise
}
