package client

import (
	"context"

	"github.com/hermes-gateway/hermes/internal/protocol"
)

// call is Call with a typed result.
func call[T any](ctx context.Context, c *Client, method string, params any) (T, error) {
	var result T
	err := c.Call(ctx, method, params, &result)
	return result, err
}

// CreateSession calls session.create; the result is the resume snapshot and
// this connection becomes a viewer of the session.
func (c *Client) CreateSession(ctx context.Context, p protocol.SessionCreateParams) (protocol.Snapshot, error) {
	return call[protocol.Snapshot](ctx, c, protocol.MethodSessionCreate, p)
}

// ResumeSession calls session.resume and attaches this connection as a viewer.
func (c *Client) ResumeSession(ctx context.Context, p protocol.SessionResumeParams) (protocol.Snapshot, error) {
	return call[protocol.Snapshot](ctx, c, protocol.MethodSessionResume, p)
}

// DetachSession calls session.detach.
func (c *Client) DetachSession(ctx context.Context, p protocol.SessionDetachParams) (protocol.SessionDetachResult, error) {
	return call[protocol.SessionDetachResult](ctx, c, protocol.MethodSessionDetach, p)
}

// ListSessions calls session.list; listing never attaches.
func (c *Client) ListSessions(ctx context.Context, p protocol.SessionListParams) (protocol.SessionListResult, error) {
	return call[protocol.SessionListResult](ctx, c, protocol.MethodSessionList, p)
}

// SessionInfo calls session.info.
func (c *Client) SessionInfo(ctx context.Context, sessionID string) (protocol.SessionInfo, error) {
	return call[protocol.SessionInfo](ctx, c, protocol.MethodSessionInfo, protocol.SessionIDParams{SessionID: sessionID})
}

// MutateSession calls session.mutate (rename, compress, reset, archive).
func (c *Client) MutateSession(ctx context.Context, p protocol.SessionMutateParams) (protocol.SessionMutateResult, error) {
	return call[protocol.SessionMutateResult](ctx, c, protocol.MethodSessionMutate, p)
}

// InterruptSession calls session.interrupt.
func (c *Client) InterruptSession(ctx context.Context, p protocol.SessionInterruptParams) (protocol.SessionHandle, error) {
	return call[protocol.SessionHandle](ctx, c, protocol.MethodSessionInterrupt, p)
}

// EventsSince calls session.events.since (durable replay, at most 1,000
// events per call; More says there are more).
func (c *Client) EventsSince(ctx context.Context, p protocol.EventsSinceParams) (protocol.EventsSinceResult, error) {
	return call[protocol.EventsSinceResult](ctx, c, protocol.MethodSessionEventsSince, p)
}
