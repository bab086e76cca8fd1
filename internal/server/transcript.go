package server

import (
	"context"
	"encoding/json"

	"github.com/hermes-gateway/hermes/internal/protocol"
)

func init() {
	register(protocol.MethodSessionMessages, sessionMessages)
	register(protocol.MethodSessionImport, sessionImport)
	register(protocol.MethodSessionFind, sessionFind)
}

func sessionMessages(ctx context.Context, c *conn, params json.RawMessage) (any, error) {
	p, err := decode[protocol.SessionMessagesParams](params)
	if err != nil {
		return nil, err
	}
	return c.s.cfg.Authority.Messages(ctx, c.p, p)
}

func sessionImport(ctx context.Context, c *conn, params json.RawMessage) (any, error) {
	p, err := decode[protocol.SessionImportParams](params)
	if err != nil {
		return nil, err
	}
	return c.s.cfg.Authority.Import(ctx, c.p, p)
}

func sessionFind(ctx context.Context, c *conn, params json.RawMessage) (any, error) {
	p, err := decode[protocol.SessionFindParams](params)
	if err != nil {
		return nil, err
	}
	return c.s.cfg.Authority.Find(ctx, c.p, p)
}
