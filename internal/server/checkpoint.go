package server

import (
	"context"
	"encoding/json"

	"github.com/hermes-gateway/hermes/internal/protocol"
)

func init() {
	register(protocol.MethodSessionCheckpoints, sessionCheckpoints)
	register(protocol.MethodSessionRewind, sessionRewind)
}

func sessionCheckpoints(ctx context.Context, c *conn, params json.RawMessage) (any, error) {
	p, err := decode[protocol.SessionCheckpointsParams](params)
	if err != nil {
		return nil, err
	}
	return c.s.cfg.Authority.Checkpoints(ctx, c.p, p.SessionID)
}

func sessionRewind(ctx context.Context, c *conn, params json.RawMessage) (any, error) {
	p, err := decode[protocol.SessionRewindParams](params)
	if err != nil {
		return nil, err
	}
	return c.s.cfg.Authority.Rewind(ctx, c.p, p)
}
