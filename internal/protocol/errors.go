package protocol

import "fmt"

// JSON-RPC error codes (docs/protocol.md#errors).
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeUnknownMethod  = -32601
	CodeDomain         = 4001
	CodeStorage        = 5001
	// CodeModel: the model endpoint failed (reason model_unavailable). Like
	// 5001 it is not the request's fault and the same request may succeed
	// later; unlike 5001 nothing of the gateway's own state is damaged.
	CodeModel = 5002
)

// Reason is a domain error reason: the message and data.reason of an error.
type Reason string

// Domain reasons (docs/protocol.md#reasons). Every error a client sees carries one of these.
const (
	ReasonInvalidParams     Reason = "invalid_params"
	ReasonPermissionDenied  Reason = "permission_denied"
	ReasonProfileMismatch   Reason = "profile_mismatch"
	ReasonNotFound          Reason = "not_found"
	ReasonAdmissionConflict Reason = "admission_conflict"
	ReasonRuntimeDraining   Reason = "runtime_draining"
	ReasonStaleEpoch        Reason = "stale_epoch"
	ReasonStaleGeneration   Reason = "stale_generation"
	ReasonUnknownExecution  Reason = "unknown_execution"
	ReasonRevisionConflict  Reason = "revision_conflict"
	ReasonLaunchCredentials Reason = "launch_credentials_unavailable"
	ReasonUnknownSkill      Reason = "unknown_skill"
	ReasonOverloaded        Reason = "overloaded"
	// ReasonSessionBusy: session.rewind while a turn (or another rewind,
	// compression or reset) holds the session's FIFO; retry when it ends.
	ReasonSessionBusy        Reason = "session_busy"
	ReasonStorageUnavailable Reason = "storage_unavailable"
	// ReasonModelUnavailable (code 5002): the model could not answer a
	// request the gateway made for the client (compression). The detail
	// never holds upstream text, the endpoint URL or a key.
	ReasonModelUnavailable Reason = "model_unavailable"
	ReasonUnknownMethod    Reason = "unknown_method"
)

// Code is the JSON-RPC error code of a reason.
func (r Reason) Code() int {
	switch r {
	case ReasonStorageUnavailable:
		return CodeStorage
	case ReasonModelUnavailable:
		return CodeModel
	case ReasonUnknownMethod:
		return CodeUnknownMethod
	}
	return CodeDomain
}

// ErrorData is the data member of a JSON-RPC error.
type ErrorData struct {
	Reason Reason `json:"reason"`
}

// Error is a domain error with its wire reason. Detail is public text that
// helps a client fix its request (e.g. which field was invalid); it must never
// hold secrets or internal error text. Internal causes are wrapped in Cause,
// which is logged and never sent.
type Error struct {
	Reason Reason
	Detail string
	Cause  error
}

func (e *Error) Error() string {
	s := string(e.Reason)
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	if e.Cause != nil {
		s += ": " + e.Cause.Error()
	}
	return s
}

func (e *Error) Unwrap() error { return e.Cause }

// Errorf builds an *Error with a public detail.
func Errorf(r Reason, format string, args ...any) *Error {
	return &Error{Reason: r, Detail: fmt.Sprintf(format, args...)}
}

// Wrap builds an *Error whose cause is internal (logged, never sent).
func Wrap(r Reason, cause error) *Error { return &Error{Reason: r, Cause: cause} }
