package control

import "encoding/json"

// ProtocolVersion is the only control protocol version spoken.
const ProtocolVersion = 1

// Verbs (docs/protocol.md#control-socket).
const (
	VerbIdentify      = "identify"
	VerbStatus        = "status"
	VerbSessionTicket = "session-ticket"
)

// Daemon states reported by identify.
const (
	StateStarting = "starting"
	StateReady    = "ready"
	StateDraining = "draining"
)

// MaxRequestBytes bounds one request line, newline included.
const MaxRequestBytes = 64 << 10

// maxReplyBytes bounds what Call reads back.
const maxReplyBytes = 1 << 20

// Identity is the identify result. It never holds a ticket or token.
type Identity struct {
	State          string   `json:"state"`
	PID            int      `json:"pid"`
	InstanceID     string   `json:"instance_id"`
	AuthorityEpoch int64    `json:"authority_epoch"`
	ProfileID      string   `json:"profile_id"`
	APIOrigin      string   `json:"api_origin"`
	Capabilities   []string `json:"capabilities"`
	// The tool sandbox of the profile's sandbox.mode: the mode, the level
	// this machine enforces (sandbox.Level) and the Landlock ABI (0 = none).
	SandboxMode  string `json:"sandbox_mode"`
	SandboxLevel string `json:"sandbox_level"`
	LandlockABI  int    `json:"landlock_abi"`
}

// Status is the status result: identify plus counts.
type Status struct {
	Identity
	SessionsLive      int `json:"sessions_live"`
	AdmissionsQueued  int `json:"admissions_queued"`
	AdmissionsRunning int `json:"admissions_running"`
	AdmissionsUnknown int `json:"admissions_unknown"`
}

// TicketParams are the params of session-ticket.
type TicketParams struct {
	ProfileID  string `json:"profile_id"`
	InstanceID string `json:"instance_id"`
	Purpose    string `json:"purpose"`
}

// TicketResult is the result of session-ticket. Ticket is a credential:
// callers must not log it.
type TicketResult struct {
	Ticket string `json:"ticket"`
}

// request is one request line.
type request struct {
	Protocol int             `json:"protocol"`
	ID       json.RawMessage `json:"id"`
	Verb     string          `json:"verb"`
	Params   json.RawMessage `json:"params"`
}

// reply is one reply line. ID echoes the request's id (null if unreadable).
type reply struct {
	OK       bool            `json:"ok"`
	Protocol int             `json:"protocol"`
	ID       json.RawMessage `json:"id"`
	Result   json.RawMessage `json:"result,omitempty"`
	Error    string          `json:"error,omitempty"`
}
