package client

import (
	"context"

	"github.com/hermes-gateway/hermes/internal/protocol"
)

// Checkpoints calls session.checkpoints: the session's checkpoints, oldest first.
func (c *Client) Checkpoints(ctx context.Context, sessionID string) (protocol.SessionCheckpointsResult, error) {
	return call[protocol.SessionCheckpointsResult](ctx, c, protocol.MethodSessionCheckpoints,
		protocol.SessionCheckpointsParams{SessionID: sessionID})
}

// Rewind calls session.rewind. A result with status "conflicts" changed
// nothing; repeat with Force to overwrite the listed paths.
func (c *Client) Rewind(ctx context.Context, p protocol.SessionRewindParams) (protocol.SessionRewindResult, error) {
	return call[protocol.SessionRewindResult](ctx, c, protocol.MethodSessionRewind, p)
}
