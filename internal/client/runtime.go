package client

import (
	"context"
	"errors"

	"github.com/hermes-gateway/hermes/internal/protocol"
)

// Ping calls ping and checks the answer is {pong:true}.
func (c *Client) Ping(ctx context.Context) error {
	r, err := call[protocol.PingResult](ctx, c, protocol.MethodPing, struct{}{})
	if err == nil && !r.Pong {
		err = errors.New("client: ping answered without pong")
	}
	return err
}

// Describe calls runtime.describe.
func (c *Client) Describe(ctx context.Context) (protocol.RuntimeDescribeResult, error) {
	return call[protocol.RuntimeDescribeResult](ctx, c, protocol.MethodRuntimeDescribe, struct{}{})
}
