package auth

import (
	"crypto/sha256"
	"encoding/hex"
	"log/slog"
	"strconv"
	"strings"

	"github.com/hermes-gateway/hermes/internal/protocol"
)

// Subjects that are not derived from a user identity (docs/protocol.md#gates).
const (
	// SubjectInternal is the principal of the per-process internal
	// credential given to PTY children the dashboard spawns.
	SubjectInternal = "server-internal"
	// SubjectLegacyToken is the principal of the legacy ?token= path.
	SubjectLegacyToken = "session-token"
)

// NativeSubject is the subject of a native client of the given OS uid
// ("uid:<n>"), derived by the control socket from SO_PEERCRED.
func NativeSubject(uid int) string { return "uid:" + strconv.Itoa(uid) }

// DashboardLinkSubject is the subject of a dashboard session opened by the
// one-time link minted over the control socket by uid ("dashboard:uid:<n>").
// It is deliberately a different principal from NativeSubject(uid).
func DashboardLinkSubject(uid int) string { return "dashboard:" + NativeSubject(uid) }

// OIDCSubject is the subject of an OIDC login: "oidc:" + the first 16 hex
// digits of sha256(issuer) + ":" + sub.
func OIDCSubject(issuer, sub string) string {
	sum := sha256.Sum256([]byte(issuer))
	return "oidc:" + hex.EncodeToString(sum[:])[:16] + ":" + sub
}

// Principal is an authenticated identity: who (Subject), in which profile,
// over which connection (TransportID, fresh per connection, see
// NewTransportID) and with which capabilities. It is built by a gate and
// passed to handlers as a parameter.
type Principal struct {
	Subject     string
	ProfileID   string
	TransportID string
	Caps        Caps
}

// Can reports whether p holds the capability (a protocol.Cap* name).
func (p Principal) Can(capability string) bool { return p.Caps.Has(capability) }

// Operator reports whether p holds session:operator.
func (p Principal) Operator() bool { return p.Caps.Has(protocol.CapOperator) }

// LogValue makes a Principal log as its identity fields.
func (p Principal) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("subject", p.Subject),
		slog.String("profile_id", p.ProfileID),
		slog.String("transport_id", p.TransportID),
		slog.String("caps", p.Caps.String()),
	)
}

// NewTransportID returns a fresh random id for one connection.
func NewTransportID() string {
	return "t-" + randomToken(16)
}

// Caps is an immutable set of capabilities. The zero value is empty. Only
// the names in protocol (CapCreate … CapOperator) can be members: NewCaps
// ignores any other name, so an unknown capability can never be granted.
type Caps uint16

// capNames fixes the bit of each capability; the order is the order of
// Caps.List.
var capNames = [...]string{
	protocol.CapCreate,
	protocol.CapRead,
	protocol.CapSubmit,
	protocol.CapControl,
	protocol.CapApprove,
	protocol.CapRespond,
	protocol.CapOperator,
}

func capBit(name string) Caps {
	for i, n := range capNames {
		if n == name {
			return 1 << i
		}
	}
	return 0
}

// NewCaps returns the set of the named capabilities; unknown names grant
// nothing.
func NewCaps(names ...string) Caps {
	var c Caps
	for _, n := range names {
		c |= capBit(n)
	}
	return c
}

// InteractiveCaps is what a native interactive ticket grants: session:create,
// read, submit, control, approve and respond.
func InteractiveCaps() Caps {
	return NewCaps(protocol.CapCreate, protocol.CapRead, protocol.CapSubmit,
		protocol.CapControl, protocol.CapApprove, protocol.CapRespond)
}

// GateCaps is what every WebSocket gate grants (docs/protocol.md#gates): InteractiveCaps
// plus session:operator.
func GateCaps() Caps { return InteractiveCaps().With(protocol.CapOperator) }

// Has reports whether the capability is in c.
func (c Caps) Has(name string) bool {
	b := capBit(name)
	return b != 0 && c&b == b
}

// With returns c plus the named capabilities.
func (c Caps) With(names ...string) Caps { return c | NewCaps(names...) }

// Without returns c minus the named capabilities.
func (c Caps) Without(names ...string) Caps { return c &^ NewCaps(names...) }

// List returns the member names in a fixed order (never nil).
func (c Caps) List() []string {
	out := []string{}
	for i, n := range capNames {
		if c&(1<<i) != 0 {
			out = append(out, n)
		}
	}
	return out
}

// String joins List with commas.
func (c Caps) String() string { return strings.Join(c.List(), ",") }
