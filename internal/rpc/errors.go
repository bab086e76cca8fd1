package rpc

import (
	"errors"
	"fmt"

	"github.com/hermes-gateway/hermes/internal/protocol"
)

// ErrClosed is returned by Call and Notify once the connection is closed (by
// Close, by the peer, or because Run returned). The caller should reconnect or
// give up; the request may or may not have been handled.
var ErrClosed = errors.New("rpc: connection closed")

// WireErr is the "error" member of a JSON-RPC response.
type WireErr struct {
	Code    int        `json:"code"`
	Message string     `json:"message"`
	Data    *ErrorData `json:"data,omitempty"`
}

// ErrorData is the "data" member of a wire error. Detail is public text from
// protocol.Error.Detail, omitted when empty.
type ErrorData struct {
	Reason protocol.Reason `json:"reason"`
	Detail string          `json:"detail,omitempty"`
}

func (e *WireErr) Error() string { return fmt.Sprintf("rpc error %d: %s", e.Code, e.Message) }

// Errors the engine itself answers with (docs/protocol.md#errors).
var (
	errParse          = &WireErr{Code: protocol.CodeParseError, Message: "parse error"}
	errInvalidRequest = &WireErr{Code: protocol.CodeInvalidRequest, Message: "invalid request"}
)

// WireError is the one mapping from a Go error to the wire (docs/protocol.md#errors).
// A *protocol.Error anywhere in the chain becomes code Reason.Code(), message
// = the reason, data {reason, detail?}; unknown_method becomes -32601 with
// message "unknown method: <Detail>". Any other error becomes 5001
// storage_unavailable with no detail: its text is internal and must only be
// logged (Conn does that). WireError(nil) is nil.
func WireError(err error) *WireErr {
	if err == nil {
		return nil
	}
	var pe *protocol.Error
	if !errors.As(err, &pe) {
		r := protocol.ReasonStorageUnavailable
		return &WireErr{Code: r.Code(), Message: string(r), Data: &ErrorData{Reason: r}}
	}
	if pe.Reason == protocol.ReasonUnknownMethod {
		return &WireErr{
			Code:    protocol.CodeUnknownMethod,
			Message: "unknown method: " + pe.Detail,
			Data:    &ErrorData{Reason: pe.Reason},
		}
	}
	return &WireErr{
		Code:    pe.Reason.Code(),
		Message: string(pe.Reason),
		Data:    &ErrorData{Reason: pe.Reason, Detail: pe.Detail},
	}
}

// internalText reports whether err carries text that WireError does not
// send (a non-protocol error, or a protocol.Error with a Cause), so the
// caller must log it.
func internalText(err error) bool {
	var pe *protocol.Error
	return !errors.As(err, &pe) || pe.Cause != nil
}

// CallError is an error response received by Call. Reason and Detail come
// from the error's data member and are empty when the peer sent none (e.g.
// -32700 or -32600).
type CallError struct {
	Code    int
	Message string
	Reason  protocol.Reason
	Detail  string
}

func (e *CallError) Error() string {
	s := fmt.Sprintf("rpc: %s (code %d)", e.Message, e.Code)
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	return s
}

func callError(w *WireErr) *CallError {
	ce := &CallError{Code: w.Code, Message: w.Message}
	if w.Data != nil {
		ce.Reason, ce.Detail = w.Data.Reason, w.Data.Detail
	}
	return ce
}
