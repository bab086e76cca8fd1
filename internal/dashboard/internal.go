package dashboard

import (
	"net/http"
	"strconv"

	"github.com/hermes-gateway/hermes/internal/auth"
	"github.com/hermes-gateway/hermes/internal/gate"
	"github.com/hermes-gateway/hermes/internal/server"
)

// The internal credential of a terminal pane reaches its `hermes chat`
// child only through an inherited pipe: the daemon writes the credential
// into the pipe and closes the write end before the child starts; the
// child finds the read end at descriptor InternalFD (named, not carried, by
// the environment variable InternalFDEnv), reads it once at start and
// closes it. Never an environment variable (readable from
// /proc/<pid>/environ by any same-uid process) nor a file.
const (
	InternalFDEnv = "HERMES_GATEWAY_INTERNAL_FD"
	InternalFD    = 3 // cmd.ExtraFiles[0]
)

// internalFDValue is InternalFDEnv's value.
var internalFDValue = strconv.Itoa(InternalFD)

// AuthenticateWS checks a dashboard upgrade of /api/ws (server.Dashboard):
//
//   - ?ticket=<t>: a browser ticket from POST /api/auth/ws-ticket, single
//     use; the Origin must be allow-listed (403 otherwise, checked before
//     the ticket is consumed) and the session it was minted for still
//     open. Subject: that session's.
//   - ?internal=<c>: the credential of a running terminal pane (see
//     ptys.add), compared in constant time, from a loopback peer with no
//     Origin or an allow-listed one. Subject: server-internal.
//
// Exactly one credential must be presented. Refusals are
// *server.DashboardRefusal (401 bad credential, 403 bad Origin or peer).
func (d *Dashboard) AuthenticateWS(r *http.Request) (string, error) {
	q := r.URL.Query()
	tickets, internals := q["ticket"], q["internal"]
	switch {
	case len(tickets)+len(internals) != 1:
		return "", refusal(http.StatusUnauthorized, "not exactly one dashboard credential")
	case len(tickets) == 1:
		return d.authTicket(r, tickets[0])
	default:
		return d.authInternal(r, internals[0])
	}
}

func (d *Dashboard) authTicket(r *http.Request, ticket string) (string, error) {
	if !d.gate.OriginAllowed(r.Header.Get("Origin")) {
		return "", refusal(http.StatusForbidden, "websocket ticket with a missing or foreign Origin")
	}
	key, ok := d.wsTickets.take(ticket)
	if !ok {
		return "", refusal(http.StatusUnauthorized, "bad, expired or replayed websocket ticket")
	}
	ds, ok := d.sessions.lookupDigest(key, true)
	if !ok {
		return "", refusal(http.StatusUnauthorized, "websocket ticket of an ended dashboard session")
	}
	return ds.subject, nil
}

func (d *Dashboard) authInternal(r *http.Request, cred string) (string, error) {
	if o := r.Header.Get("Origin"); o != "" && !d.gate.OriginAllowed(o) {
		return "", refusal(http.StatusForbidden, "internal credential with a foreign Origin")
	}
	if !gate.LoopbackPeer(r.RemoteAddr) {
		return "", refusal(http.StatusForbidden, "internal credential from a non-loopback peer")
	}
	if !d.ptys.authorized(cred) {
		return "", refusal(http.StatusUnauthorized, "bad internal credential")
	}
	return auth.SubjectInternal, nil
}

func refusal(status int, why string) error {
	return &server.DashboardRefusal{Status: status, Why: why}
}
