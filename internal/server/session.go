package server

import (
	"context"
	"encoding/json"

	"github.com/hermes-gateway/hermes/internal/protocol"
)

func init() {
	register(protocol.MethodSessionCreate, sessionCreate)
	register(protocol.MethodSessionResume, sessionResume)
	register(protocol.MethodSessionDetach, sessionDetach)
	register(protocol.MethodSessionList, sessionList)
	register(protocol.MethodSessionInfo, sessionInfo)
	register(protocol.MethodSessionInterrupt, sessionInterrupt)
	register(protocol.MethodSessionEventsSince, sessionEventsSince)
	register(protocol.MethodSessionMutate, sessionMutate)
}

func sessionCreate(ctx context.Context, c *conn, params json.RawMessage) (any, error) {
	p, err := decode[protocol.SessionCreateParams](params)
	if err != nil {
		return nil, err
	}
	sid, err := c.s.cfg.Authority.Create(ctx, c.p, p)
	if err != nil {
		return nil, err
	}
	return c.resume(ctx, protocol.SessionResumeParams{SessionID: &sid})
}

func sessionResume(ctx context.Context, c *conn, params json.RawMessage) (any, error) {
	p, err := decode[protocol.SessionResumeParams](params)
	if err != nil {
		return nil, err
	}
	return c.resume(ctx, p)
}

// resume snapshots and subscribes; the subscription is this connection's.
func (c *conn) resume(ctx context.Context, p protocol.SessionResumeParams) (protocol.Snapshot, error) {
	snap, sub, err := c.s.cfg.Authority.Attach(ctx, c.p, p)
	if err != nil {
		return protocol.Snapshot{}, err
	}
	c.attach(c.ctx, snap.SessionID, sub)
	return snap, nil
}

func sessionDetach(_ context.Context, c *conn, params json.RawMessage) (any, error) {
	p, err := decode[protocol.SessionDetachParams](params)
	if err != nil {
		return nil, err
	}
	if p.SessionID == "" || p.SubscriptionID == "" {
		return nil, protocol.Errorf(protocol.ReasonInvalidParams, "session_id and subscription_id are required")
	}
	ok := c.detach(p.SessionID, p.SubscriptionID)
	return protocol.SessionDetachResult{SessionID: p.SessionID, SubscriptionID: p.SubscriptionID, Detached: ok}, nil
}

func sessionList(ctx context.Context, c *conn, params json.RawMessage) (any, error) {
	p, err := decode[protocol.SessionListParams](params)
	if err != nil {
		return nil, err
	}
	return c.s.cfg.Authority.List(ctx, c.p, p)
}

func sessionInfo(ctx context.Context, c *conn, params json.RawMessage) (any, error) {
	p, err := decode[protocol.SessionIDParams](params)
	if err != nil {
		return nil, err
	}
	return c.s.cfg.Authority.Info(ctx, c.p, p.SessionID)
}

func sessionInterrupt(ctx context.Context, c *conn, params json.RawMessage) (any, error) {
	p, err := decode[protocol.SessionInterruptParams](params)
	if err != nil {
		return nil, err
	}
	return c.s.cfg.Authority.Interrupt(ctx, c.p, p)
}

func sessionEventsSince(ctx context.Context, c *conn, params json.RawMessage) (any, error) {
	p, err := decode[protocol.EventsSinceParams](params)
	if err != nil {
		return nil, err
	}
	return c.s.cfg.Authority.EventsSince(ctx, c.p, p)
}

func sessionMutate(ctx context.Context, c *conn, params json.RawMessage) (any, error) {
	p, err := decode[protocol.SessionMutateParams](params)
	if err != nil {
		return nil, err
	}
	return c.s.cfg.Authority.Mutate(ctx, c.p, p)
}
