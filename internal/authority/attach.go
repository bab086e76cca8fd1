package authority

import (
	"context"
	"errors"

	"github.com/hermes-gateway/hermes/internal/auth"
	"github.com/hermes-gateway/hermes/internal/events"
	"github.com/hermes-gateway/hermes/internal/protocol"
	"github.com/hermes-gateway/hermes/internal/session"
	"github.com/hermes-gateway/hermes/internal/store"
)

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
		snap, err = a.reads.snapshot(ctx, l)
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

// Info answers session.info.
func (a *Authority) Info(ctx context.Context, p auth.Principal, sid string) (_ protocol.SessionInfo, err error) {
	defer a.reply(&err)
	l, err := a.access(ctx, p, sid, protocol.CapRead)
	if err != nil {
		return protocol.SessionInfo{}, err
	}
	return a.reads.sessionInfo(ctx, l)
}

// List answers session.list. Listing never attaches and never adopts.
func (a *Authority) List(ctx context.Context, p auth.Principal, params protocol.SessionListParams) (_ protocol.SessionListResult, err error) {
	defer a.reply(&err)
	if err := a.permit(p, protocol.CapRead); err != nil {
		return protocol.SessionListResult{}, err
	}
	return a.reads.list(ctx, p, params)
}
