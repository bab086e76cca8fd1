package client

import (
	"errors"

	"github.com/hermes-gateway/hermes/internal/protocol"
	"github.com/hermes-gateway/hermes/internal/rpc"
)

// Reason is the domain reason of a call's error (session_busy, not_found,
// …), or "" for nil, a transport error or an error without one.
func Reason(err error) protocol.Reason {
	var ce *rpc.CallError
	if errors.As(err, &ce) {
		return ce.Reason
	}
	return ""
}
