package server

import (
	"context"
	"encoding/json"

	"github.com/hermes-gateway/hermes/internal/protocol"
)

type empty struct{}

func init() {
	register(protocol.MethodPing, ping)
	register(protocol.MethodRuntimeDescribe, describe)
}

func ping(_ context.Context, c *conn, params json.RawMessage) (any, error) {
	if _, err := decode[empty](params); err != nil {
		return nil, err
	}
	if c.p.Caps == 0 {
		return nil, protocol.Errorf(protocol.ReasonPermissionDenied, "no capabilities")
	}
	return protocol.PingResult{Pong: true}, nil
}

func describe(_ context.Context, c *conn, params json.RawMessage) (any, error) {
	if _, err := decode[empty](params); err != nil {
		return nil, err
	}
	if c.p.Caps == 0 {
		return nil, protocol.Errorf(protocol.ReasonPermissionDenied, "no capabilities")
	}
	return c.s.cfg.Authority.Describe(), nil
}
